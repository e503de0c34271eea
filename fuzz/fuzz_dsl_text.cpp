// libFuzzer target: the webnn-graph text form through the DSL's lexer and
// parser (AST only, no MLIR: fast; fuzz_dsl_lower goes on to the lowering).
#include <cstddef>
#include <cstdint>
#include <string>

#include "compiler/frontends/dsl/Ast.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string source(reinterpret_cast<const char *>(data), size);
  mlir::webnn::dsl::SyntaxError error;
  (void)mlir::webnn::dsl::parseGraphText(source, error);
  return 0;
}
