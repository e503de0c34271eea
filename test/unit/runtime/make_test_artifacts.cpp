// Writes the small artifacts the C API test and the webnn-run CLI test use:
//   DIR/passthrough.wnn      no nodes; outputs are an input and a constant
//   DIR/add_relu.wnn         y = relu(x + c), embedded weights
//   DIR/add_relu_wl.wnn + DIR/add_relu_wl.weights   the same, weightless
//   DIR/odd_names.wnn        passthrough with an output named "k/0:a b"
//   DIR/int4.wnn             no nodes; int4 input "q" [5] is output "q"
//   DIR/loop.wnn             swapLoopGraph: a loop whose trip count "m" is an input
#include <cstdio>
#include <exception>
#include <filesystem>

#include "TestArtifact.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  using namespace webnn::test;
  try {
    std::string dir = argv[1];
    std::filesystem::create_directories(dir);
    writeFile(dir + "/passthrough.wnn", buildArtifact(passthroughGraph()).artifact);
    writeFile(dir + "/add_relu.wnn", buildArtifact(addReluGraph()).artifact);
    writeFile(dir + "/dynamic_relu.wnn", buildArtifact(dynamicReluGraph()).artifact);
    writeFile(dir + "/gqa_cache.wnn", buildArtifact(gqaCacheGraph()).artifact);
    writeFile(dir + "/loop.wnn", buildArtifact(swapLoopGraph()).artifact);
    Built wl = buildArtifact(addReluGraph(), true);
    writeFile(dir + "/add_relu_wl.wnn", wl.artifact);
    writeFile(dir + "/add_relu_wl.weights", wl.weights);
    TGraph odd = passthroughGraph();
    odd.tensors[1].name = "k/0:a b";
    writeFile(dir + "/odd_names.wnn", buildArtifact(odd).artifact);
    TGraph q;
    q.tensors = {{"q", webnn::DataType::kInt4, {5}}};
    q.inputs = {0};
    q.outputs = {0};
    writeFile(dir + "/int4.wnn", buildArtifact(q).artifact);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
