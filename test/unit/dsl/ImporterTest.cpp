// The importer end to end: AST -> webnn dialect, weights sidecars, and the
// `file:line:col: error:` diagnostics of every kind of bad input.
#include <gtest/gtest.h>

#include <fstream>

#include "compiler/frontends/common/GraphBuilder.h"
#include "compiler/frontends/dsl/DslImporter.h"
#include "compiler/frontends/dsl/Weights.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

namespace mlir::webnn {
namespace {

const std::string kInputs = WEBNN_DSL_INPUTS_DIR;

// Imports with a handler that records `file:line:col: message` per error.
struct Import {
  MLIRContext ctx;
  std::vector<std::string> errors;
  OwningOpRef<ModuleOp> module;
  std::string note;

  Import() { ctx.allowUnregisteredDialects(false); }

  std::string format(Diagnostic &d) {
    std::string where;
    if (auto fl = dyn_cast<FileLineColLoc>(d.getLocation()))
      where = llvm::sys::path::filename(fl.getFilename().getValue()).str() + ":" +
              std::to_string(fl.getLine()) + ":" + std::to_string(fl.getColumn()) + ": ";
    return where + d.str();
  }
  bool file(const std::string &path) {
    ScopedDiagnosticHandler h(&ctx, [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error) errors.push_back(format(d));
      return success();
    });
    module = importWebNNGraphFile(ctx, path, &note);
    return static_cast<bool>(module);
  }
  bool source(const std::string &text, const std::string &path) {
    ScopedDiagnosticHandler h(&ctx, [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error) errors.push_back(format(d));
      return success();
    });
    module = importWebNNGraphSource(ctx, text, path, &note);
    return static_cast<bool>(module);
  }
  std::string firstError() const { return errors.empty() ? "<no error>" : errors.front(); }
  std::string print() {
    std::string s;
    llvm::raw_string_ostream os(s);
    module->print(os, OpPrintingFlags().elideLargeResourceString(1 << 20));
    return s;
  }
  bool hasOp(const char *name) {
    loadFrontendDialects(ctx);
    return RegisteredOperationName::lookup(name, &ctx).has_value();
  }
};

// A scratch directory for sidecar variations, removed afterwards.
class TempDir {
 public:
  TempDir() {
    llvm::SmallString<128> p;
    llvm::sys::fs::createUniqueDirectory("webnn-dsl-test", p);
    path_ = p.str().str();
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path_); }
  std::string write(const std::string &name, const std::string &content) {
    std::string p = path_ + "/" + name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  std::string path(const std::string &name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string f32Bytes(std::initializer_list<float> values) {
  std::string s;
  for (float f : values) s.append(reinterpret_cast<const char *>(&f), 4);
  return s;
}

const char *kAddGraph = R"(webnn_graph "g" v1 {
  inputs { x: f32[2]; }
  consts { w: f32[2] @weights("w"); }
  nodes { y = add(x, w); }
  outputs { y; }
}
)";

std::string manifest(const std::string &entries) {
  return R"({"format": "wg-weights-manifest", "version": 1, "endianness": "little", "tensors": {)" +
         entries + "}}";
}

TEST(DslImport, AddReluWithSafetensors) {
  Import im;
  ASSERT_TRUE(im.file(kInputs + "/add_relu.webnn")) << im.firstError();
  EXPECT_NE(im.note.find("add_relu.safetensors"), std::string::npos);
  std::string text = im.print();
  EXPECT_NE(text.find("webnn.graph_name = \"add_relu\""), std::string::npos) << text;
  EXPECT_NE(text.find("webnn.output_names = [\"y\"]"), std::string::npos) << text;
  EXPECT_NE(text.find("webnn.input \"x\" : tensor<2x3xf32>"), std::string::npos) << text;
  EXPECT_NE(text.find("dense_resource<bias> : tensor<2x3xf32>"), std::string::npos) << text;
  EXPECT_NE(text.find("dense<5.000000e-01> : tensor<f32>"), std::string::npos) << text;
  EXPECT_NE(text.find("dense<[1, 1, 0, 0]> : tensor<4xui8>"), std::string::npos) << text;
  EXPECT_NE(text.find("webnn.relu"), std::string::npos) << text;

  // The constant's bytes are the sidecar's bytes.
  std::string file = readFile(kInputs + "/add_relu.safetensors");
  uint64_t headerLen = 0;
  memcpy(&headerLen, file.data(), 8);
  std::string expected = file.substr(8 + headerLen, 24);
  bool found = false;
  im.module->walk([&](Operation *op) {
    auto attr = op->getAttrOfType<DenseResourceElementsAttr>("value");
    if (!attr) return;
    AsmResourceBlob *blob = attr.getRawHandle().getBlob();
    ASSERT_TRUE(blob);
    EXPECT_EQ(std::string(blob->getData().data(), blob->getData().size()), expected);
    found = true;
  });
  EXPECT_TRUE(found);
}

TEST(DslImport, ManifestWithHeaderAndJsonAgree) {
  Import text, json;
  if (!text.hasOp("webnn.matmul") || !text.hasOp("webnn.softmax"))
    GTEST_SKIP() << "webnn.matmul/softmax not in the dialect yet";
  ASSERT_TRUE(text.file(kInputs + "/resnet_head.webnn")) << text.firstError();
  ASSERT_TRUE(json.file(kInputs + "/resnet_head_json.json")) << json.firstError();
  EXPECT_NE(text.note.find("resnet_head.weights"), std::string::npos);
  std::string a = text.print(), b = json.print();
  EXPECT_NE(a.find("webnn.softmax"), std::string::npos) << a;
  EXPECT_NE(a.find("axis = 1"), std::string::npos) << a;
  EXPECT_EQ(a, b);
}

TEST(DslImport, UnalignedWeightsAreCopied) {
  Import im;
  ASSERT_TRUE(im.file(kInputs + "/unaligned.webnn")) << im.firstError();
  std::string file = readFile(kInputs + "/unaligned.weights");
  bool checked = false;
  im.module->walk([&](Operation *op) {
    auto attr = op->getAttrOfType<DenseResourceElementsAttr>("value");
    if (!attr || attr.getType().getElementType().isInteger(8)) return;
    ArrayRef<char> data = attr.getRawHandle().getBlob()->getData();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(data.data()) % 4, 0u);
    EXPECT_EQ(std::string(data.data(), data.size()), file.substr(1, 24));
    checked = true;
  });
  EXPECT_TRUE(checked);
}

TEST(DslImport, InlineConstants) {
  Import im;
  ASSERT_TRUE(im.source(R"(webnn_graph "c" v1 {
  inputs { x: f16[2]; }
  consts {
    h: f16[2] @scalar(1.5);
    inf: f32[] @scalar("-Infinity");
    q: i4[3] @bytes([0x21, 0x0F]);
  }
  nodes { y = add(x, h); }
  outputs { y; }
})", "/nonexistent/c.webnn") == false);
  // Hex literals are not part of the grammar.
  EXPECT_EQ(im.firstError(), "c.webnn:6:22: invalid character after number");

  Import ok;
  ASSERT_TRUE(ok.source(R"(webnn_graph "c" v1 {
  inputs { x: f16[2]; }
  consts {
    h: f16[2] @scalar(1.5);
    inf: f32[] @scalar("-Infinity");
    q: i4[3] @bytes([33, 15]);
    u: u4[2] @scalar(15);
    n: i8[2] @scalar(-128);
  }
  nodes { y = add(x, h); }
  outputs { y; q; u; n; inf; }
})", "/nonexistent/c.webnn")) << ok.firstError();
  std::string text = ok.print();
  EXPECT_NE(text.find("dense<1.500000e+00> : tensor<2xf16>"), std::string::npos) << text;
  EXPECT_NE(text.find("dense<0xFF800000> : tensor<f32>"), std::string::npos) << text;
  // 0x21 -> 1, 2 (low nibble first); 0x0F -> -1 as int4.
  EXPECT_NE(text.find("dense<[1, 2, -1]> : tensor<3xi4>"), std::string::npos) << text;
  EXPECT_NE(text.find("dense<15> : tensor<2xui4>"), std::string::npos) << text;
  EXPECT_NE(text.find("dense<-128> : tensor<2xi8>"), std::string::npos) << text;
  EXPECT_TRUE(ok.note.empty());
}

TEST(DslImport, EmptyTensors) {
  TempDir dir;
  dir.write("z.manifest.json",
            manifest(R"("w": {"dataType": "float32", "shape": [0, 3], "byteOffset": 8, "byteLength": 0})"));
  dir.write("z.weights", std::string("WGWT\x01\0\0\0", 8));
  Import im;
  ASSERT_TRUE(im.source(R"(webnn_graph "z" v1 {
  consts {
    a: f32[0] @scalar(1);
    b: f32[0, 2] @bytes([]);
    c: i4[0] @bytes([]);
    d: u8[] @bytes([7]);
    w: f32[0, 3];
  }
  outputs { a; b; c; d; w; }
})", dir.path("z.webnn"))) << im.firstError();
  std::string text = im.print();
  EXPECT_NE(text.find("tensor<0x2xf32>"), std::string::npos) << text;
  EXPECT_NE(text.find("dense<7> : tensor<ui8>"), std::string::npos) << text;
  EXPECT_NE(text.find("dense_resource<w> : tensor<0x3xf32>"), std::string::npos) << text;
}

TEST(DslImport, DynamicDimensionsAndAliases) {
  Import im;
  ASSERT_TRUE(im.source(R"(webnn_graph "d" v2 @quantized {
  inputs { x: f32[dyn("batch", 8), 4]; }
  nodes { y = relu(x); z = y; }
  outputs { z, x }
})", "/nonexistent/d.webnn")) << im.firstError();
  std::string text = im.print();
  EXPECT_NE(text.find("tensor<?x4xf32>"), std::string::npos) << text;
  EXPECT_NE(text.find("webnn.dynamic_dims = [{index = 0 : i64, maxSize = 8 : i64, name = \"batch\"}]"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("webnn.quantized"), std::string::npos) << text;
  EXPECT_NE(text.find("webnn.output_names = [\"z\", \"x\"]"), std::string::npos) << text;
}

TEST(DslImport, OptionTyping) {
  Import im;
  if (!im.hasOp("webnn.clamp") || !im.hasOp("webnn.cast") || !im.hasOp("webnn.leakyRelu"))
    GTEST_SKIP() << "clamp/cast/leakyRelu not in the dialect yet";
  ASSERT_TRUE(im.source(R"(webnn_graph "o" v1 {
  inputs { x: f32[2, 3]; }
  nodes {
    a = clamp(x, minValue=0, maxValue="Infinity");
    b = leakyRelu(a, alpha=1);
    c = cast(b, "float16");
    d = cast(b, type="i32");
  }
  outputs { c; d; }
})", "/nonexistent/o.webnn")) << im.firstError();
  std::string text = im.print();
  EXPECT_NE(text.find("maxValue = 0x7FF0000000000000 : f64"), std::string::npos) << text;
  EXPECT_NE(text.find("minValue = 0.000000e+00 : f64"), std::string::npos) << text;
  EXPECT_NE(text.find("alpha = 1.000000e+00 : f64"), std::string::npos) << text;
  EXPECT_NE(text.find("type = f16"), std::string::npos) << text;
  EXPECT_NE(text.find("type = i32"), std::string::npos) << text;
}

TEST(DslImport, SplitCountAndConcat) {
  Import im;
  if (!im.hasOp("webnn.split") || !im.hasOp("webnn.concat"))
    GTEST_SKIP() << "split/concat not in the dialect yet";
  ASSERT_TRUE(im.file(kInputs + "/format_reference.webnn")) << im.firstError();
  std::string text = im.print();
  EXPECT_NE(text.find("splits = array<i64: 2, 2>"), std::string::npos) << text;
  EXPECT_NE(text.find("webnn.concat"), std::string::npos) << text;

  Import bad;
  EXPECT_FALSE(bad.source(R"(webnn_graph "s" v1 {
  inputs { x: f32[2, 5]; }
  nodes { [a, b] = split(x, 2, axis=1); }
  outputs { a; }
})", "/nonexistent/s.webnn"));
  EXPECT_EQ(bad.firstError(), "s.webnn:3:29: cannot split dimension 1 of size 5 into 2 equal parts");

  Import count;
  EXPECT_FALSE(count.source(R"(webnn_graph "s" v1 {
  inputs { x: f32[2, 6]; }
  nodes { [a, b] = split(x, splits=3, axis=1); }
  outputs { a; }
})", "/nonexistent/s.webnn"));
  EXPECT_EQ(count.firstError(), "s.webnn:3:12: 'split' produces 3 result(s) but 2 name(s) are bound");

  Import seq;
  ASSERT_TRUE(seq.source(R"(webnn_graph "c" v1 {
  inputs { x: f32[2, 6]; y: f32[2, 1]; }
  nodes { c = concat([x, y, x], 1); }
  outputs { c; }
})", "/nonexistent/c.webnn")) << seq.firstError();
  EXPECT_NE(seq.print().find("tensor<2x13xf32>"), std::string::npos);
}

TEST(DslImport, OperandValuedOptions) {
  Import im;
  if (!im.hasOp("webnn.conv2d")) GTEST_SKIP() << "conv2d not in the dialect yet";
  ASSERT_TRUE(im.source(R"(webnn_graph "c" v1 {
  inputs { x: f32[1, 2, 4, 4]; }
  consts { w: f32[3, 2, 3, 3] @scalar(1); b: f32[3] @scalar(0); }
  nodes {
    y = conv2d(x, w, bias=b, padding=[1, 1, 1, 1]);
    z = conv2d(x, w);
  }
  outputs { y; z; }
})", "/nonexistent/c.webnn")) << im.firstError();
  std::string text = im.print();
  EXPECT_NE(text.find("padding = array<i64: 1, 1, 1, 1>"), std::string::npos) << text;
  EXPECT_NE(text.find("tensor<1x3x4x4xf32>"), std::string::npos) << text;

  Import bad;
  EXPECT_FALSE(bad.source(R"(webnn_graph "c" v1 {
  inputs { x: f32[1, 2, 4, 4]; }
  nodes { y = conv2d(x, x, strides=x); }
  outputs { y; }
})", "/nonexistent/c.webnn"));
  EXPECT_EQ(bad.firstError(),
            "c.webnn:3:28: option 'strides' of 'conv2d' does not take an operand (got identifier 'x')");
}

struct ErrorCase {
  const char *nodes;
  const char *expected;
};

TEST(DslImport, SemanticErrors) {
  const ErrorCase cases[] = {
      {"y = Relu(x);", "e.webnn:4:9: unknown WebNN operation 'Relu'; did you mean 'relu'?"},
      {"y = frobnicate(x);", "e.webnn:4:9: unknown WebNN operation 'frobnicate'"},
      {"y = relu(q);", "e.webnn:4:14: unknown identifier 'q'"},
      {"x = relu(x);", "e.webnn:4:5: duplicate name 'x' (first defined at 2:12)"},
      {"y = relu(x, 3);",
       "e.webnn:4:17: unexpected positional value for 'relu'; write options as name=value"},
      {"y = transpose(x, permutation=[x, 1]);",
       "e.webnn:4:35: identifier 'x' is not allowed here (option values are literals; only "
       "operand-valued options name values)"},
      {"y = add(x);", "e.webnn:4:9: 'add' takes 2 operands, got 1"},
      {"y = relu(x, x);", "e.webnn:4:9: 'relu' takes 1 operand, got 2"},
      {"y = softmax(x);", "e.webnn:4:9: 'softmax' requires option 'axis'"},
      {"y = slice(x, [0]);", "e.webnn:4:9: 'slice' requires option 'sizes'"},
      {"y = cast(x, type=null);", "e.webnn:4:9: 'cast' requires option 'type'"},
  };
  for (const ErrorCase &c : cases) {
    Import im;
    std::string src = std::string("webnn_graph \"e\" v1 {\n  inputs { x: f32[2]; }\n  nodes {\n    ") +
                      c.nodes + "\n  }\n  outputs { x; }\n}\n";
    EXPECT_FALSE(im.source(src, "/nonexistent/e.webnn")) << c.nodes;
    EXPECT_EQ(im.firstError().substr(0, strlen(c.expected)), c.expected) << c.nodes;
  }

  Import out;
  EXPECT_FALSE(out.source("webnn_graph \"e\" v1 {\n inputs { x: f32[2]; }\n outputs { x; z; x }\n}",
                          "/nonexistent/e.webnn"));
  EXPECT_EQ(out.firstError(), "e.webnn:3:15: unknown identifier 'z'");
  Import none;
  EXPECT_FALSE(none.source("webnn_graph \"e\" v1 {\n inputs { x: f32[2]; }\n}", "/nonexistent/e.webnn"));
  EXPECT_EQ(none.firstError(), "e.webnn:1:1: graph 'e' has no outputs");
  Import scalar;
  EXPECT_FALSE(scalar.source("webnn_graph \"e\" v1 {\n consts { c: u8[2] @scalar(300); }\n outputs { c; }\n}",
                             "/nonexistent/e.webnn"));
  EXPECT_EQ(scalar.firstError(), "e.webnn:2:28: @scalar value 300 does not fit u8");
  Import bytes;
  EXPECT_FALSE(bytes.source("webnn_graph \"e\" v1 {\n consts { c: f32[2] @bytes([1, 2, 3]); }\n outputs { c; }\n}",
                            "/nonexistent/e.webnn"));
  EXPECT_EQ(bytes.firstError(), "e.webnn:2:21: @bytes for 'c' gives 3 bytes but f32[2] needs 8");
  Import missingFile;
  EXPECT_FALSE(missingFile.file("/nonexistent/missing.webnn"));
  EXPECT_EQ(missingFile.firstError().substr(0, 45), "missing.webnn:1:1: cannot open '/nonexistent/");
}

TEST(DslImport, WeightsErrors) {
  struct Case {
    std::string manifest;
    std::string weights;
    std::string expected;
  };
  std::string header = std::string("WGWT\x01\0\0\0", 8);
  const Case cases[] = {
      {manifest(R"("w": {"dataType": "float32", "shape": [2], "byteOffset": 8, "byteLength": 8})"),
       header + f32Bytes({1, 2}), ""},
      {manifest(R"("v": {"dataType": "float32", "shape": [2], "byteOffset": 8, "byteLength": 8})"),
       header + f32Bytes({1, 2}),
       "g.webnn:3:22: missing weights key 'w' for constant 'w': no tensor named 'w' in "},
      {manifest(R"("w": {"dataType": "float16", "shape": [2], "byteOffset": 8, "byteLength": 4})"),
       header + f32Bytes({1, 2}),
       "g.webnn:3:22: constant 'w' is declared f32 but weights 'w' hold float16"},
      {manifest(R"("w": {"dataType": "float32", "shape": [1, 2], "byteOffset": 8, "byteLength": 8})"),
       header + f32Bytes({1, 2}),
       "g.webnn:3:22: constant 'w' is declared with shape [2] but weights 'w' have shape [1, 2]"},
      {manifest(R"("w": {"dataType": "float32", "shape": [2], "byteOffset": 8, "byteLength": 12})"),
       header + f32Bytes({1, 2, 3}),
       "g.manifest.json:1:159: tensor 'w' has byteLength 12 but its float32 shape needs 8 bytes"},
      {manifest(R"("w": {"dataType": "float32", "shape": [2], "byteOffset": 8, "byteLength": 8})"),
       header + f32Bytes({1}),
       "g.manifest.json:1:142: tensor 'w' (bytes 8..16) lies beyond the end of "},
      {manifest(R"("w": {"dataType": "float32", "shape": [2], "byteOffset": 0, "byteLength": 8})"),
       header + f32Bytes({1, 2}), "g.manifest.json:1:142: tensor 'w' overlaps the weights file header"},
      {manifest(R"("w": {"dataType": "float32", "shape": [2] "byteOffset": 0})"), "",
       "g.manifest.json:1:127: expected ',' or '}', found string"},
      {R"({"format": "something-else", "version": 1, "tensors": {}})", "",
       "g.manifest.json:1:12: expected \"format\": \"wg-weights-manifest\" or \"webnn-weights-manifest\""},
      {manifest(R"("w": {"dataType": "float32", "shape": [2], "byteOffset": 0, "byteLength": 8})"),
       std::string("WGWT\x02\0\0\0", 8) + f32Bytes({1, 2}),
       "g.weights:1:1: unsupported weights file version 2"},
  };
  for (const Case &c : cases) {
    TempDir dir;
    dir.write("g.manifest.json", c.manifest);
    if (!c.weights.empty()) dir.write("g.weights", c.weights);
    std::string path = dir.write("g.webnn", kAddGraph);
    Import im;
    bool ok = im.file(path);
    if (c.expected.empty()) {
      EXPECT_TRUE(ok) << im.firstError();
      continue;
    }
    EXPECT_FALSE(ok) << c.expected;
    EXPECT_EQ(im.firstError().substr(0, c.expected.size()), c.expected);
  }

  {  // a manifest without its data file
    TempDir dir;
    dir.write("g.manifest.json", cases[0].manifest);
    Import im;
    EXPECT_FALSE(im.file(dir.write("g.webnn", kAddGraph)));
    EXPECT_NE(im.firstError().find("its data file"), std::string::npos) << im.firstError();
  }
  {  // no sidecar at all
    TempDir dir;
    Import im;
    EXPECT_FALSE(im.file(dir.write("g.webnn", kAddGraph)));
    EXPECT_NE(im.firstError().find("g.webnn:3:22: constant 'w' needs weights key 'w' but no weights "
                                   "sidecar was found"),
              std::string::npos)
        << im.firstError();
  }
  {  // headerless weights file with an unaligned-free offset 0
    TempDir dir;
    dir.write("g.manifest.json",
              manifest(R"("w": {"dataType": "float32", "shape": [2], "byteOffset": 0, "byteLength": 8})"));
    dir.write("g.weights", f32Bytes({3, 4}));
    Import im;
    EXPECT_TRUE(im.file(dir.write("g.webnn", kAddGraph))) << im.firstError();
  }
}

TEST(DslImport, SafetensorsErrors) {
  auto st = [](const std::string &header, const std::string &data) {
    std::string h = header;
    uint64_t n = h.size();
    return std::string(reinterpret_cast<const char *>(&n), 8) + h + data;
  };
  struct Case {
    std::string file;
    std::string expected;
  };
  const Case cases[] = {
      {st(R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})", f32Bytes({1, 2})), ""},
      {st(R"({"w": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}})", "abcd"),
       "g.webnn:3:22: missing weights key 'w' for constant 'w': safetensors dtype BF16 has no WebNN "
       "equivalent"},
      {st(R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})", f32Bytes({1})),
       "g.safetensors:1:54: tensor 'w' ends at byte 8 of a 4-byte data section: truncated file?"},
      {st(R"({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})", f32Bytes({1, 2})),
       "g.safetensors:1:54: tensor 'w' holds 8 bytes but its F32 shape needs 12"},
      {std::string("\xff\xff\xff\xff\0\0\0\0{}", 10),
       "g.safetensors:1:1: safetensors header length 4294967295 exceeds the file size 10"},
      {"abc", "g.safetensors:1:1: truncated safetensors file (no header length)"},
  };
  for (const Case &c : cases) {
    TempDir dir;
    dir.write("g.safetensors", c.file);
    Import im;
    bool ok = im.file(dir.write("g.webnn", kAddGraph));
    if (c.expected.empty()) {
      EXPECT_TRUE(ok) << im.firstError();
      continue;
    }
    EXPECT_FALSE(ok);
    EXPECT_EQ(im.firstError().substr(0, c.expected.size()), c.expected);
  }
}

// Large weights are memory-mapped and the constant points into the mapping.
TEST(DslImport, LargeWeightsAreMappedNotCopied) {
  TempDir dir;
  const size_t n = 1 << 18;  // 1 MiB of f32
  std::string data(n * 4, '\0');
  for (size_t i = 0; i < n; ++i) {
    float f = static_cast<float>(i);
    memcpy(&data[i * 4], &f, 4);
  }
  // A header length that leaves the data at a file offset that is 4-aligned
  // but not 16-aligned, so a heap copy could not land on the same page offset.
  std::string header = R"({"w": {"dtype": "F32", "shape": [262144], "data_offsets": [0, 1048576]}})";
  while ((8 + header.size()) % 16 != 4) header += ' ';
  uint64_t len = header.size();
  std::string file = std::string(reinterpret_cast<const char *>(&len), 8) + header + data;
  std::string stPath = dir.write("big.safetensors", file);

  std::unique_ptr<dsl::WeightsSidecar> sidecar;
  dsl::SidecarError err;
  ASSERT_TRUE(dsl::WeightsSidecar::openSafetensors(stPath, sidecar, err)) << err.message;
  std::string why;
  const dsl::WeightsTensor *t = sidecar->find("w", why);
  ASSERT_TRUE(t) << why;
  EXPECT_EQ(t->file->getBufferKind(), llvm::MemoryBuffer::MemoryBuffer_MMap);
  EXPECT_EQ(t->data.data(), t->file->getBufferStart() + 8 + len);

  Import im;
  ASSERT_TRUE(im.source("webnn_graph \"big\" v1 {\n consts { w: f32[262144]; }\n outputs { w; }\n}",
                        dir.path("big.webnn")))
      << im.firstError();
  bool checked = false;
  im.module->walk([&](Operation *op) {
    auto attr = op->getAttrOfType<DenseResourceElementsAttr>("value");
    if (!attr) return;
    ArrayRef<char> blob = attr.getRawHandle().getBlob()->getData();
    uintptr_t page = llvm::sys::Process::getPageSizeEstimate();
    EXPECT_EQ((reinterpret_cast<uintptr_t>(blob.data()) - (8 + len)) % page, 0u);
    EXPECT_EQ(memcmp(blob.data(), data.data(), data.size()), 0);
    checked = true;
  });
  EXPECT_TRUE(checked);
}

// test/lit/dsl/inputs/errors: each file names its expected first error.
TEST(DslImport, ErrorExamples) {
  std::error_code ec;
  int count = 0;
  for (llvm::sys::fs::directory_iterator it(kInputs + "/errors", ec), end; it != end && !ec;
       it.increment(ec)) {
    std::string path = it->path();
    std::string expected;
    if (llvm::StringRef(path).ends_with(".webnn")) {
      std::string text = readFile(path);
      ASSERT_EQ(text.rfind("# ERROR: ", 0), 0u) << path;
      expected = text.substr(9, text.find('\n') - 9);
    } else if (llvm::StringRef(path).ends_with("bad_json.json")) {
      expected = "bad_json.json:5:58: expected a string key, found '}'";
    } else {
      continue;
    }
    Import im;
    EXPECT_FALSE(im.file(path)) << path;
    EXPECT_EQ(im.firstError().substr(0, expected.size()), expected) << path << "\n" << im.firstError();
    ++count;
  }
  EXPECT_GE(count, 10);
}

// Single-character substitutions anywhere in valid files: import either
// succeeds or reports at least one error; it never crashes.
TEST(DslImport, SubstitutionFuzz) {
  for (const char *name : {"add_relu.webnn", "format_reference.webnn", "resnet_head_json.json"}) {
    std::string path = kInputs + "/" + name;
    std::string text = readFile(path);
    for (size_t i = 0; i < text.size(); ++i) {
      for (char c : std::string("\"[]{}0-9x@;,=:#\\\0")) {
        std::string mutated = text;
        mutated[i] = c;
        Import im;
        if (!im.source(mutated, path))
          ASSERT_FALSE(im.errors.empty()) << name << " offset " << i << " char " << int(c);
      }
    }
  }
}

// Every truncation of a valid file (text and JSON) fails with one positioned
// error and never crashes.
TEST(DslImport, TruncationFuzz) {
  for (const char *name : {"add_relu.webnn", "resnet_head_json.json", "format_reference.webnn"}) {
    std::string path = kInputs + "/" + name;
    std::string text = readFile(path);
    size_t end = text.rfind('}') + 1;
    for (size_t n = 0; n < end; ++n) {
      Import im;
      EXPECT_FALSE(im.source(text.substr(0, n), path)) << name << " prefix " << n;
      ASSERT_FALSE(im.errors.empty()) << name << " prefix " << n;
      EXPECT_EQ(im.errors.front().rfind(name, 0), 0u) << im.errors.front();
    }
  }
}

}  // namespace
}  // namespace mlir::webnn
