// libFuzzer target: the webnn-graph JSON form through the DSL's JSON reader
// into the same AST as the text form.
#include <cstddef>
#include <cstdint>
#include <string>

#include "compiler/frontends/dsl/Ast.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string source(reinterpret_cast<const char *>(data), size);
  mlir::webnn::dsl::SyntaxError error;
  (void)mlir::webnn::dsl::parseGraphJson(source, error);
  return 0;
}
