// The webnn-graph AST: what the text (.webnn) and JSON readers produce and the
// MLIR lowering consumes. Deliberately free of MLIR so the readers can be
// tested on their own. Every node carries the source position it came from.
#ifndef WEBNN_FRONTENDS_DSL_AST_H
#define WEBNN_FRONTENDS_DSL_AST_H

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::webnn::dsl {

// 1-based line and column (columns count bytes).
struct SourcePos {
  unsigned line = 0;
  unsigned col = 0;
};

// The first error a reader meets; readers stop there.
struct SyntaxError {
  SourcePos pos;
  std::string message;
};

// A literal or reference as written in an argument or option value. JSON
// values share this form, so both readers feed one lowering.
struct Value {
  enum class Kind { Null, Bool, Int, Float, String, Ident, Array, Object };
  Kind kind = Kind::Null;
  bool boolValue = false;
  int64_t intValue = 0;
  double floatValue = 0.0;
  std::string text;  // String contents or Ident name
  std::vector<Value> items;                            // Array
  std::vector<std::pair<std::string, Value>> fields;   // Object, in source order
  SourcePos pos;

  bool isNumber() const { return kind == Kind::Int || kind == Kind::Float; }
  // A number, or one of the strings "Infinity", "-Infinity", "NaN".
  std::optional<double> asDouble() const;
};

enum class DType { F32, F16, I4, U4, I32, U32, I64, U64, I8, U8 };

// Short DSL spelling ("f32") and WebNN spelling ("float32").
const char *dtypeShortName(DType t);
const char *dtypeWebNNName(DType t);
// Accepts either spelling.
std::optional<DType> parseDType(const std::string &name);
// Bytes needed for `numElements` elements; int4/uint4 pack two per byte.
uint64_t dtypeByteSize(DType t, uint64_t numElements);
unsigned dtypeAlignment(DType t);

struct Dim {
  int64_t size = 0;          // static size, or maxSize when dynamic
  bool dynamic = false;
  std::string dynamicName;   // dyn("name", maxSize)
};

struct TensorDecl {
  DType dtype = DType::F32;
  std::vector<Dim> dims;  // empty: a scalar
  // Element count, or nullopt when dynamic or overflowing int64.
  std::optional<uint64_t> staticNumElements() const;
};

struct InputDecl {
  std::string name;
  TensorDecl type;
  SourcePos pos;
};

struct ConstDecl {
  enum class Init { Weights, Scalar, Bytes };
  std::string name;
  TensorDecl type;
  Init init = Init::Weights;
  std::string weightsKey;     // Weights (defaults to `name`)
  Value scalar;               // Scalar: Int, Float or a non-finite String
  std::vector<uint8_t> bytes; // Bytes: raw little-endian data
  SourcePos pos;
  SourcePos initPos;
};

// `name=value` or a positional `value` (name empty).
struct Arg {
  std::string name;
  Value value;
  SourcePos pos;
};

// `out = op(args);`, `[a, b] = op(args);`, or an alias `out = other;`.
struct Node {
  std::vector<std::string> results;
  std::vector<SourcePos> resultPos;
  std::string op;           // empty for an alias
  std::vector<Arg> args;    // for an alias: one positional Ident
  SourcePos pos;            // position of the op name (or the alias source)
};

struct OutputDecl {
  std::string name;   // graph output name
  std::string value;  // the value it exposes (same as name in the text form)
  SourcePos pos;
};

struct Graph {
  std::string name;
  int64_t version = 1;
  bool quantized = false;
  std::vector<InputDecl> inputs;
  std::vector<ConstDecl> consts;
  std::vector<Node> nodes;
  std::vector<OutputDecl> outputs;
};

// Readers. On failure they return nullopt and fill `error`.
std::optional<Graph> parseGraphText(const std::string &source, SyntaxError &error);
std::optional<Graph> parseGraphJson(const std::string &source, SyntaxError &error);
// Any JSON document (weights manifests, safetensors headers), with positions.
std::optional<Value> parseJsonValue(const std::string &source, SyntaxError &error);

}  // namespace mlir::webnn::dsl

#endif
