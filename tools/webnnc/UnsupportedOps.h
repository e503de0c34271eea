// `webnnc compile --json`: the ONNX operators of a model that no conversion
// handles, as one structured list (the importer's message names them as text).
#ifndef WEBNNC_UNSUPPORTEDOPS_H
#define WEBNNC_UNSUPPORTEDOPS_H

#include <cstdint>
#include <string>
#include <vector>

namespace webnnc {

struct UnsupportedOp {
  std::string domain;  // "ai.onnx" for the default domain
  std::string opType;
  int64_t opset = -1;  // the model's opset for the domain; -1: the domain is not in opset_import
  std::vector<std::string> nodes;  // node names (op_type_INDEX for unnamed nodes), subgraphs' included
};

// Every (domain, op_type, opset) of the ONNX model at `path`, its subgraphs'
// nodes included, that the importer's conversion table lacks; false when
// the file does not parse as an ONNX model.
bool findUnsupportedOnnxOps(const std::string &path, std::vector<UnsupportedOp> *out);

}  // namespace webnnc

#endif
