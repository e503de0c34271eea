#include "UnsupportedOps.h"

#include <climits>
#include <map>

#include "compiler/frontends/onnx/OnnxConverter.h"
#include "google/protobuf/io/coded_stream.h"
#include "llvm/Support/MemoryBuffer.h"
#include "onnx/onnx_pb.h"

namespace webnnc {
namespace {

using Opsets = std::map<std::string, int64_t>;  // domain ("" = ai.onnx) -> version

void visitGraph(const onnx::GraphProto &graph, const Opsets &opsets, std::vector<UnsupportedOp> *out,
                std::map<std::string, size_t> *index) {
  const auto &table = mlir::webnn::onnx_import::onnxOpConverters();
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto &node = graph.node(i);
    // Subgraphs (If/Loop/Scan bodies) first: their ops fail the import too.
    for (const onnx::AttributeProto &a : node.attribute()) {
      if (a.has_g()) visitGraph(a.g(), opsets, out, index);
      for (const onnx::GraphProto &g : a.graphs()) visitGraph(g, opsets, out, index);
    }
    std::string domain = node.domain() == "ai.onnx" ? std::string() : node.domain();
    auto it = opsets.find(domain);
    int64_t opset = it == opsets.end() ? -1 : it->second;
    if (opset >= 0 && table.lookup(domain, node.op_type(), opset)) continue;
    std::string shown = domain.empty() ? "ai.onnx" : domain;
    std::string key = shown + "\n" + node.op_type() + "\n" + std::to_string(opset);
    auto [slot, inserted] = index->try_emplace(key, out->size());
    if (inserted) out->push_back({shown, node.op_type(), opset, {}});
    // The importer's display name for an unnamed node.
    (*out)[slot->second].nodes.push_back(node.name().empty() ? node.op_type() + "_" + std::to_string(i)
                                                             : node.name());
  }
}

}  // namespace

bool findUnsupportedOnnxOps(const std::string &path, std::vector<UnsupportedOp> *out) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer || (*buffer)->getBufferSize() > size_t(INT_MAX)) return false;
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t *>((*buffer)->getBufferStart()),
                                                static_cast<int>((*buffer)->getBufferSize()));
  stream.SetTotalBytesLimit(INT_MAX);
  onnx::ModelProto model;
  if (!model.ParseFromCodedStream(&stream) || !model.has_graph()) return false;
  Opsets opsets;
  for (const onnx::OperatorSetIdProto &id : model.opset_import())
    opsets[id.domain() == "ai.onnx" ? std::string() : id.domain()] = id.version();
  if (model.opset_import_size() == 0 && model.ir_version() < 3) opsets[""] = 1;  // as the importer reads it
  std::map<std::string, size_t> index;
  visitGraph(model.graph(), opsets, out, &index);
  return true;
}

}  // namespace webnnc
