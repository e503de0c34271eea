// Command-line forms of OnnxImportOptions, shared by every driver.
#include "compiler/frontends/onnx/OnnxImporter.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::webnn {

static bool parseDimValue(llvm::StringRef text, int64_t &out) {
  return !text.getAsInteger(10, out) && out > 0;
}

bool parseShapeFlag(const std::string &flag, OnnxImportOptions &opts, std::string *error) {
  llvm::StringRef f(flag);
  auto fail = [&](const std::string &why) {
    if (error) *error = why;
    return false;
  };
  auto [name, rest] = f.split('=');
  bool hasEquals = f.contains('=');
  llvm::StringRef paramSpec = hasEquals ? rest : f;
  if (paramSpec.contains(':')) {
    auto [param, value] = paramSpec.rsplit(':');
    int64_t v;
    if (param.empty() || !parseDimValue(value, v))
      return fail("expected DIM_PARAM:VALUE with a positive integer VALUE");
    opts.dimParams.emplace_back(param.str(), v);
    return true;
  }
  if (!hasEquals || name.empty())
    return fail("expected NAME=D0xD1x... or DIM_PARAM:VALUE");
  std::vector<int64_t> dims;
  if (!rest.empty()) {
    llvm::SmallVector<llvm::StringRef> parts;
    rest.split(parts, 'x');
    for (llvm::StringRef p : parts) {
      int64_t d;
      if (!parseDimValue(p, d)) return fail("'" + p.str() + "' is not a positive dimension");
      dims.push_back(d);
    }
  }
  opts.shapes.emplace_back(name.str(), std::move(dims));
  return true;
}

bool parseDynamicDimFlag(const std::string &flag, OnnxImportOptions &opts, std::string *error) {
  auto [name, value] = llvm::StringRef(flag).split('=');
  int64_t max;
  if (name.empty() || value.getAsInteger(10, max) || max < 2) {
    if (error) *error = "expected DIM_PARAM=MAX with an integer MAX >= 2";
    return false;
  }
  for (const auto &[param, v] : opts.dynamicDims)
    if (param == name) {
      if (error) *error = "dimension '" + name.str() + "' is given twice";
      return false;
    }
  opts.dynamicDims.emplace_back(name.str(), max);
  return true;
}

bool parseConstInputFlag(const std::string &flag, OnnxImportOptions &opts, std::string *error) {
  auto [name, file] = llvm::StringRef(flag).split('=');
  if (name.empty() || file.empty()) {
    if (error) *error = "expected NAME=FILE.pb (a serialized ONNX TensorProto)";
    return false;
  }
  opts.constantInputs.emplace_back(name.str(), file.str());
  return true;
}

}  // namespace mlir::webnn
