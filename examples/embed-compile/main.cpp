// An app that compiles a model in process (webnn/compiler.h) and runs the
// artifact from memory (webnn/runtime.h): no webnnc, no .wnn file. Prints
// the compile's JSON result (webnnc compile --json's object) and writes the
// first output as .npy. A model that does not compile exits 1 with the
// messages webnnc would print.
//
//   embed-compile MODEL(.onnx|.webnn|.json|.mlir) INPUT.npy OUTPUT.npy
#include <cstdio>
#include <memory>
#include <string>

#include <webnn/compiler.h>
#include <webnn/npy.h>
#include <webnn/runtime.h>

namespace {

int fail(const char *what, const webnn::Status &s) {
  std::fprintf(stderr, "embed-compile: %s: %s\n", what, s.message().c_str());
  return 1;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: embed-compile MODEL INPUT.npy OUTPUT.npy\n");
    return 2;
  }
  webnn::compiler::CompileOptions options;  // output empty: the artifact comes back in memory
  webnn::compiler::CompileResult result = webnn::compiler::compileFile(argv[1], options);
  if (!result.ok()) {
    std::fprintf(stderr, "%s", result.diagnostics.c_str());
    return 1;
  }
  std::printf("%s\n", result.json().c_str());

  // The runtime copies bytes handed without a release callback, so `result`
  // may go away after the load.
  webnn::MemoryBuffer artifact;
  artifact.data = result.artifact.data();
  artifact.bytes = result.artifact.size();
  std::unique_ptr<webnn::Model> model;
  if (webnn::Status s = webnn::Model::loadFromMemory(std::move(artifact), {}, {}, &model); !s)
    return fail("load", s);
  webnn::npy::Array x;
  if (webnn::Status s = webnn::npy::read(argv[2], &x); !s) return fail("input", s);
  std::unique_ptr<webnn::Session> session;
  if (webnn::Status s = webnn::Session::create(*model, {/*threads=*/1}, &session); !s) return fail("session", s);
  const std::string &input = model->inputs().at(0).name;
  if (webnn::Status s = session->copyInput(input, x.data.data(), x.data.size(), x.shape); !s)
    return fail("input", s);
  if (webnn::Status s = session->run(); !s) return fail("run", s);
  const webnn::TensorInfo &out = model->outputs().at(0);
  const void *y = nullptr;
  size_t bytes = 0;
  if (webnn::Status s = session->output(out.name, &y, &bytes); !s) return fail("output", s);
  if (webnn::Status s = webnn::npy::write(argv[3], out.dtype, session->outputShape(0), y, bytes); !s)
    return fail("output", s);
  return 0;
}
