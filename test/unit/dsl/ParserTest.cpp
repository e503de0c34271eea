// The readers on their own: tokens, AST shape, and positioned errors.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/frontends/dsl/Ast.h"
#include "compiler/frontends/dsl/Lexer.h"

namespace mlir::webnn::dsl {
namespace {

const char *kResnetHead = R"(# head
webnn_graph "resnet_head" v1 {
  inputs  { x: f32[1, 2048]; }
  consts  { W: f32[2048, 1000] @weights("W"); b: f32[1000] @weights("b"); }
  nodes   { logits0 = matmul(x, W); logits = add(logits0, b);
            probs = softmax(logits, axis=1); }
  outputs { probs; }
}
)";

std::vector<Token> lexAll(const std::string &s, bool comments = true) {
  Lexer lexer(s, comments);
  std::vector<Token> out;
  while (true) {
    out.push_back(lexer.next());
    if (out.back().kind == Token::Kind::Eof || out.back().kind == Token::Kind::Error) break;
  }
  return out;
}

std::string errorOf(const std::string &src, bool json = false) {
  SyntaxError err;
  std::optional<Graph> g = json ? parseGraphJson(src, err) : parseGraphText(src, err);
  if (g) return "<parsed>";
  return std::to_string(err.pos.line) + ":" + std::to_string(err.pos.col) + ": " + err.message;
}

std::string wrapNodes(const std::string &nodes) {
  return "webnn_graph \"g\" v1 {\n inputs { x: f32[2]; }\n nodes {\n" + nodes +
         "\n }\n outputs { x; }\n}\n";
}

TEST(DslLexer, TokensAndPositions) {
  std::vector<Token> t = lexAll("a_1 = /enc.layer.0/w $x # comment\n  -1.5e3 42 \"s\\\"\\n\\u0041\" @weights");
  ASSERT_EQ(t.size(), 9u);
  EXPECT_EQ(t[0].kind, Token::Kind::Ident);
  EXPECT_EQ(t[0].text, "a_1");
  EXPECT_EQ(t[1].kind, Token::Kind::Equals);
  EXPECT_EQ(t[2].text, "/enc.layer.0/w");
  EXPECT_EQ(t[3].text, "$x");
  EXPECT_EQ(t[4].kind, Token::Kind::Float);
  EXPECT_DOUBLE_EQ(t[4].floatValue, -1500.0);
  EXPECT_EQ(t[4].pos.line, 2u);
  EXPECT_EQ(t[4].pos.col, 3u);
  EXPECT_EQ(t[5].kind, Token::Kind::Int);
  EXPECT_EQ(t[5].intValue, 42);
  EXPECT_EQ(t[6].kind, Token::Kind::String);
  EXPECT_EQ(t[6].text, "s\"\nA");
  EXPECT_EQ(t[7].kind, Token::Kind::Annotation);
  EXPECT_EQ(t[7].text, "weights");
  EXPECT_EQ(t[8].kind, Token::Kind::Eof);
}

TEST(DslLexer, Errors) {
  std::vector<Token> t = lexAll("x \"abc");
  EXPECT_EQ(t.back().kind, Token::Kind::Error);
  EXPECT_EQ(t.back().text, "unterminated string");
  EXPECT_EQ(t.back().pos.col, 3u);
  EXPECT_EQ(lexAll("99999999999999999999").back().text,
            "integer '99999999999999999999' is out of range");
  EXPECT_EQ(lexAll("1.").back().text, "expected digits after '.' in number");
  EXPECT_EQ(lexAll("\"\\q\"").back().text, "unknown escape '\\q' in string");
  EXPECT_EQ(lexAll("%").back().text, "unexpected character '%'");
  // JSON has no comments.
  EXPECT_EQ(lexAll("# x", /*comments=*/false).back().kind, Token::Kind::Error);
}

TEST(DslParser, ResnetHead) {
  SyntaxError err;
  std::optional<Graph> g = parseGraphText(kResnetHead, err);
  ASSERT_TRUE(g) << err.message;
  EXPECT_EQ(g->name, "resnet_head");
  EXPECT_EQ(g->version, 1);
  EXPECT_FALSE(g->quantized);
  ASSERT_EQ(g->inputs.size(), 1u);
  EXPECT_EQ(g->inputs[0].name, "x");
  EXPECT_EQ(g->inputs[0].type.dtype, DType::F32);
  ASSERT_EQ(g->inputs[0].type.dims.size(), 2u);
  EXPECT_EQ(g->inputs[0].type.dims[1].size, 2048);
  EXPECT_EQ(g->inputs[0].pos.line, 3u);
  EXPECT_EQ(g->inputs[0].pos.col, 13u);
  ASSERT_EQ(g->consts.size(), 2u);
  EXPECT_EQ(g->consts[1].weightsKey, "b");
  EXPECT_EQ(g->consts[1].init, ConstDecl::Init::Weights);
  ASSERT_EQ(g->nodes.size(), 3u);
  EXPECT_EQ(g->nodes[0].op, "matmul");
  ASSERT_EQ(g->nodes[0].args.size(), 2u);
  EXPECT_EQ(g->nodes[0].args[1].value.kind, Value::Kind::Ident);
  EXPECT_EQ(g->nodes[0].args[1].value.text, "W");
  const Node &softmax = g->nodes[2];
  EXPECT_EQ(softmax.results[0], "probs");
  ASSERT_EQ(softmax.args.size(), 2u);
  EXPECT_EQ(softmax.args[1].name, "axis");
  EXPECT_EQ(softmax.args[1].value.kind, Value::Kind::Int);
  EXPECT_EQ(softmax.args[1].value.intValue, 1);
  EXPECT_EQ(softmax.pos.line, 6u);
  ASSERT_EQ(g->outputs.size(), 1u);
  EXPECT_EQ(g->outputs[0].name, "probs");
}

TEST(DslParser, AllConstructs) {
  SyntaxError err;
  std::optional<Graph> g = parseGraphText(R"(
webnn_graph "ref" v 2 @quantized {
  outputs { r, l; extra }
  nodes {
    s = add(input, bias, metadata={kind: "k", "axes": [1, -2], on: true, none: null});
    [l, r] = split(s, [2, 2], axis=1);
    c = concat(l, r, 1);
    alias = c;
    y = clamp(c, minValue="-Infinity", maxValue=6);
  }
  consts {
    bias: f32[] @scalar(-0.5);
    mask: u8[4] @bytes([1, 1, 0, 255]);
    w: i4[3];
    n: f32[2] @scalar("NaN");
  }
  inputs { input: f16[dyn("batch", 8), 4]; }
})",
                                          err);
  ASSERT_TRUE(g) << err.pos.line << ":" << err.pos.col << " " << err.message;
  EXPECT_EQ(g->version, 2);
  EXPECT_TRUE(g->quantized);
  ASSERT_EQ(g->outputs.size(), 3u);
  EXPECT_EQ(g->outputs[2].name, "extra");
  const Dim &batch = g->inputs[0].type.dims[0];
  EXPECT_TRUE(batch.dynamic);
  EXPECT_EQ(batch.dynamicName, "batch");
  EXPECT_EQ(batch.size, 8);
  EXPECT_FALSE(g->inputs[0].type.staticNumElements());
  EXPECT_EQ(g->consts[0].init, ConstDecl::Init::Scalar);
  EXPECT_DOUBLE_EQ(*g->consts[0].scalar.asDouble(), -0.5);
  EXPECT_EQ(g->consts[1].bytes, (std::vector<uint8_t>{1, 1, 0, 255}));
  EXPECT_EQ(g->consts[2].init, ConstDecl::Init::Weights);
  EXPECT_EQ(g->consts[2].weightsKey, "w");
  EXPECT_TRUE(std::isnan(*g->consts[3].scalar.asDouble()));
  const Value &meta = g->nodes[0].args[2].value;
  ASSERT_EQ(meta.kind, Value::Kind::Object);
  ASSERT_EQ(meta.fields.size(), 4u);
  EXPECT_EQ(meta.fields[1].first, "axes");
  EXPECT_EQ(meta.fields[1].second.items[1].intValue, -2);
  EXPECT_EQ(meta.fields[3].second.kind, Value::Kind::Null);
  EXPECT_EQ(g->nodes[1].results, (std::vector<std::string>{"l", "r"}));
  EXPECT_EQ(g->nodes[1].args[1].value.kind, Value::Kind::Array);
  EXPECT_TRUE(g->nodes[3].op.empty());  // alias
  EXPECT_EQ(g->nodes[3].args[0].value.text, "c");
  EXPECT_TRUE(std::isinf(*g->nodes[4].args[1].value.asDouble()));
}

TEST(DslParser, PositionedErrors) {
  EXPECT_EQ(errorOf("graph \"g\" v1 {}"), "1:1: expected 'webnn_graph', found 'graph'");
  EXPECT_EQ(errorOf("webnn_graph \"g\" v3 {}"),
            "1:17: unsupported webnn_graph version v3 (expected v1 or v2)");
  EXPECT_EQ(errorOf("webnn_graph \"g\" v1 @fast {}"), "1:20: unknown graph annotation '@fast'");
  EXPECT_EQ(errorOf("webnn_graph \"g\" v1 {\n  inputs { x: f64[2]; }\n}"),
            "2:15: unknown data type 'f64' (expected f32, f16, i4, u4, i32, u32, i64, u64, i8 "
            "or u8)");
  EXPECT_EQ(errorOf("webnn_graph \"g\" v1 {\n  inputs { x: f32[2] }\n}"),
            "2:22: expected ';', found '}'");
  EXPECT_EQ(errorOf("webnn_graph \"g\" v1 {\n  weights { }\n}"),
            "2:3: unknown block 'weights' (expected 'inputs', 'consts', 'nodes' or 'outputs')");
  EXPECT_EQ(errorOf("webnn_graph \"g\" v1 {\n consts { w: f32[dyn(\"b\", 2)]; }\n}"),
            "2:18: dynamic dimensions are only allowed on inputs");
  EXPECT_EQ(errorOf("webnn_graph \"g\" v1 {\n consts { w: f32[1] @scalar(1) @weights(\"w\"); }\n}"),
            "2:32: constant 'w' has more than one initializer");
  EXPECT_EQ(errorOf("webnn_graph \"g\" v1 {\n consts { w: u8[1] @bytes([256]); }\n}"),
            "2:28: @bytes elements must be integers in 0..255");
  EXPECT_EQ(errorOf("webnn_graph \"g\" v1 {\n consts { w: u8[1] @scalar(\"big\"); }\n}"),
            "2:28: @scalar expects a number (or \"Infinity\", \"-Infinity\", \"NaN\")");
  EXPECT_EQ(errorOf("webnn_graph \"g\" v1 {\n consts { w: u8[1] @zeros(); }\n}"),
            "2:20: unknown constant annotation '@zeros' (expected @weights, @scalar or @bytes)");
  EXPECT_EQ(errorOf(wrapNodes("  y = relu(x, alpha=1, alpha=2);")),
            "4:24: option 'alpha' given twice");
  EXPECT_EQ(errorOf(wrapNodes("  y = relu(x;")), "4:13: expected ',' or ')', found ';'");
  EXPECT_EQ(errorOf(wrapNodes("  y = 3;")), "4:7: expected an operation call or an identifier, found integer");
  EXPECT_EQ(errorOf(wrapNodes("  y = f(\"abc);")), "4:9: unterminated string");
  EXPECT_EQ(errorOf("webnn_graph \"g\" v1 { } extra"),
            "1:24: expected end of file after the graph's closing '}', found 'extra'");
  EXPECT_EQ(errorOf(""), "1:1: expected 'webnn_graph', found end of file");
}

const char *kJsonHead = R"({
  "format": "webnn-graph-json",
  "version": 2,
  "name": "resnet_head",
  "quantized": false,
  "inputs": { "x": { "dataType": "float32", "shape": [{"name": "batch", "maxSize": 4}, 2048] } },
  "consts": {
    "W": { "dataType": "f32", "shape": [2048, 1000], "init": { "kind": "weights", "ref": "W" } },
    "s": { "dataType": "float16", "shape": [], "init": { "kind": "scalar", "value": "Infinity" } },
    "m": { "dataType": "uint8", "shape": [2], "init": { "kind": "inlineBytes", "bytes": [1, 2] } }
  },
  "nodes": [
    { "id": "y", "op": "conv2d", "inputs": ["x", "W"], "options": { "bias": "s", "inputLayout": "nhwc" } },
    { "id": "parts", "op": "split", "inputs": ["y"], "options": { "splits": 2 }, "outputs": ["a", "b"] }
  ],
  "outputs": { "out": "a", "b": "b" }
})";

TEST(DslJson, Graph) {
  SyntaxError err;
  std::optional<Graph> g = parseGraphJson(kJsonHead, err);
  ASSERT_TRUE(g) << err.pos.line << ":" << err.pos.col << " " << err.message;
  EXPECT_EQ(g->name, "resnet_head");
  EXPECT_EQ(g->version, 2);
  EXPECT_TRUE(g->inputs[0].type.dims[0].dynamic);
  EXPECT_EQ(g->inputs[0].type.dims[0].dynamicName, "batch");
  EXPECT_EQ(g->inputs[0].type.dims[0].size, 4);
  EXPECT_EQ(g->consts[0].type.dtype, DType::F32);
  EXPECT_EQ(g->consts[1].init, ConstDecl::Init::Scalar);
  EXPECT_EQ(g->consts[2].bytes, (std::vector<uint8_t>{1, 2}));
  const Node &conv = g->nodes[0];
  EXPECT_EQ(conv.results, (std::vector<std::string>{"y"}));
  ASSERT_EQ(conv.args.size(), 4u);
  EXPECT_EQ(conv.args[2].name, "bias");
  EXPECT_EQ(conv.args[2].value.kind, Value::Kind::Ident);  // operand-valued option
  EXPECT_EQ(conv.args[3].value.kind, Value::Kind::String);  // enum stays a string
  EXPECT_EQ(conv.pos.line, 13u);
  EXPECT_EQ(g->nodes[1].results, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(g->outputs.size(), 2u);
  EXPECT_EQ(g->outputs[0].name, "out");
  EXPECT_EQ(g->outputs[0].value, "a");
}

TEST(DslJson, PositionedErrors) {
  EXPECT_EQ(errorOf("{\"format\": \"onnx\"}", true),
            "1:12: unknown format 'onnx' (expected \"webnn-graph-json\")");
  EXPECT_EQ(errorOf("{\"format\": \"webnn-graph-json\", \"version\": 3}", true),
            "1:43: unsupported webnn-graph-json version 3 (expected 1 or 2)");
  EXPECT_EQ(errorOf("{\"format\": \"webnn-graph-json\", \"version\": 1,\n \"inputs\": {\"x\": "
                    "{\"dataType\": \"float64\", \"shape\": []}}}",
                    true),
            "2:31: unknown data type 'float64'");
  EXPECT_EQ(errorOf("{\"format\": \"webnn-graph-json\", \"version\": 1,\n \"inputs\": {}}", true),
            "1:1: the document is missing \"nodes\"");
  EXPECT_EQ(errorOf("{\"a\": 1,}", true), "1:9: expected a string key, found '}'");
  EXPECT_EQ(errorOf("{\"a\": x}", true), "1:7: expected a JSON value, found 'x'");
  EXPECT_EQ(errorOf("{\"a\": 1, \"a\": 2}", true), "1:10: duplicate key 'a'");
  EXPECT_EQ(errorOf("{} {}", true), "1:4: expected end of file after the JSON document, found '{'");
}

// Every proper prefix of a valid file is an error, never a crash.
TEST(DslParser, TruncationAlwaysErrors) {
  std::string text = kResnetHead;
  size_t end = text.rfind('}') + 1;
  for (size_t n = 0; n < end; ++n) {
    SyntaxError err;
    EXPECT_FALSE(parseGraphText(text.substr(0, n), err)) << "prefix " << n;
    EXPECT_FALSE(err.message.empty());
  }
  std::string json = kJsonHead;
  size_t jsonEnd = json.rfind('}') + 1;
  for (size_t n = 0; n < jsonEnd; ++n) {
    SyntaxError err;
    EXPECT_FALSE(parseGraphJson(json.substr(0, n), err)) << "prefix " << n;
    EXPECT_FALSE(err.message.empty());
  }
}

TEST(DslParser, DeepNestingIsAnErrorNotACrash) {
  std::string nodes = "  y = relu(x, a=" + std::string(10000, '[') + ");";
  EXPECT_EQ(errorOf(wrapNodes(nodes)).substr(0, 5), "4:82:");
}

TEST(DslTypes, Names) {
  EXPECT_EQ(parseDType("float16"), DType::F16);
  EXPECT_EQ(parseDType("u4"), DType::U4);
  EXPECT_FALSE(parseDType("bfloat16"));
  EXPECT_EQ(dtypeByteSize(DType::I4, 5), 3u);
  EXPECT_EQ(dtypeByteSize(DType::F16, 5), 10u);
}

}  // namespace
}  // namespace mlir::webnn::dsl
