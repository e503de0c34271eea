// The ONNX front end end to end: .onnx file -> webnn module, checked op by
// op; bad files must fail with one clear diagnostic and never crash.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "compiler/frontends/onnx/OnnxConverter.h"
#include "compiler/frontends/onnx/OnnxImporter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

using namespace mlir;
using namespace mlir::webnn;

namespace {

struct Diag {
  std::string location;  // "file" for FileLineColLoc(file, 0, 0)
  std::string message;
};

struct Imported {
  std::unique_ptr<MLIRContext> ctx;
  OwningOpRef<ModuleOp> module;
  std::vector<Diag> errors;
  std::vector<std::string> remarks;

  explicit operator bool() const { return bool(module); }
  std::string firstError() const { return errors.empty() ? "" : errors[0].message; }
  std::string allErrors() const {
    std::string s;
    for (const Diag &d : errors) s += d.location + ": " + d.message + "\n";
    return s;
  }
  // The module's webnn ops named `name`, in order.
  std::vector<Operation *> ops(StringRef name) {
    std::vector<Operation *> out;
    module->walk([&](Operation *op) {
      if (op->getName().getStringRef() == name) out.push_back(op);
    });
    return out;
  }
  func::FuncOp main() { return cast<func::FuncOp>(module->getBody()->front()); }
  std::vector<int64_t> resultShape(unsigned i) {
    auto t = cast<RankedTensorType>(main().getFunctionType().getResult(i));
    return std::vector<int64_t>(t.getShape().begin(), t.getShape().end());
  }
};

Imported importFile(const std::string &path, const OnnxImportOptions &opts = {}) {
  Imported r;
  r.ctx = std::make_unique<MLIRContext>();
  ScopedDiagnosticHandler handler(r.ctx.get(), [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Remark) r.remarks.push_back(d.str());
    if (d.getSeverity() != DiagnosticSeverity::Error) return success();
    std::string loc;
    if (auto f = dyn_cast<FileLineColLoc>(d.getLocation()))
      loc = f.getLine() == 0 ? f.getFilename().str()
                             : (f.getFilename().getValue() + ":" + Twine(f.getLine())).str();
    else
      loc = "<non-file location>";
    r.errors.push_back({loc, d.str()});
    return success();
  });
  r.module = importOnnxFile(*r.ctx, path, opts);
  return r;
}

std::vector<int64_t> i64s(Operation *op, StringRef attr) {
  auto a = dyn_cast_or_null<DenseI64ArrayAttr>(op->getAttr(attr));
  return a ? std::vector<int64_t>(a.asArrayRef().begin(), a.asArrayRef().end())
           : std::vector<int64_t>{-999};
}

std::vector<int64_t> shapeOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return std::vector<int64_t>(t.getShape().begin(), t.getShape().end());
}

std::string modelPath(const char *name) { return std::string(WEBNN_ONNX_MODELS_DIR "/") + name; }

std::string tempPath(const std::string &name) {
  SmallString<128> dir;
  llvm::sys::path::system_temp_directory(true, dir);
  llvm::sys::path::append(dir, "webnn-onnx-tests-" + std::to_string(::getpid()));
  llvm::sys::fs::create_directories(dir);
  llvm::sys::path::append(dir, name);
  return std::string(dir);
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), bytes.size());
}

std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ------------------------------------------------ building ModelProtos in C++
struct ModelBuilder {
  onnx::ModelProto model;
  onnx::GraphProto *graph;

  explicit ModelBuilder(int64_t opset = 13) {
    model.set_ir_version(7);
    auto *id = model.add_opset_import();
    id->set_domain("");
    id->set_version(opset);
    graph = model.mutable_graph();
    graph->set_name("test");
  }

  void valueInfo(onnx::ValueInfoProto *vi, const std::string &name, std::vector<int64_t> dims,
                 int elemType) {
    vi->set_name(name);
    auto *tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elemType);
    auto *shape = tt->mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  }
  ModelBuilder &input(const std::string &name, std::vector<int64_t> dims,
                      int elemType = onnx::TensorProto::FLOAT) {
    valueInfo(graph->add_input(), name, dims, elemType);
    return *this;
  }
  ModelBuilder &output(const std::string &name) {
    graph->add_output()->set_name(name);
    return *this;
  }
  onnx::TensorProto *initializer(const std::string &name, std::vector<int64_t> dims,
                                 int elemType = onnx::TensorProto::FLOAT) {
    onnx::TensorProto *t = graph->add_initializer();
    t->set_name(name);
    t->set_data_type(elemType);
    for (int64_t d : dims) t->add_dims(d);
    return t;
  }
  ModelBuilder &floats(const std::string &name, std::vector<int64_t> dims) {
    onnx::TensorProto *t = initializer(name, dims);
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    for (int64_t i = 0; i < n; ++i) t->add_float_data(0.5f * i);
    return *this;
  }
  ModelBuilder &ints(const std::string &name, std::vector<int64_t> values) {
    onnx::TensorProto *t =
        initializer(name, {static_cast<int64_t>(values.size())}, onnx::TensorProto::INT64);
    for (int64_t v : values) t->add_int64_data(v);
    return *this;
  }
  onnx::NodeProto *node(const std::string &opType, std::vector<std::string> inputs,
                        std::vector<std::string> outputs, const std::string &name = "",
                        const std::string &domain = "") {
    onnx::NodeProto *n = graph->add_node();
    n->set_op_type(opType);
    n->set_name(name);
    n->set_domain(domain);
    for (auto &i : inputs) n->add_input(i);
    for (auto &o : outputs) n->add_output(o);
    return n;
  }
  std::string save(const std::string &fileName) {
    std::string path = tempPath(fileName);
    std::string bytes;
    model.SerializeToString(&bytes);
    writeBytes(path, bytes);
    return path;
  }
};

void setInts(onnx::NodeProto *n, const std::string &name, std::vector<int64_t> v) {
  auto *a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
void setInt(onnx::NodeProto *n, const std::string &name, int64_t v) {
  auto *a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
void setString(onnx::NodeProto *n, const std::string &name, const std::string &v) {
  auto *a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

// ------------------------------------------------------------- the models
TEST(OnnxImport, SmallCnn) {
  Imported r = importFile(modelPath("small_cnn.onnx"));
  ASSERT_TRUE(r) << r.allErrors();
  func::FuncOp f = r.main();
  ASSERT_EQ(f.getNumResults(), 1u);
  EXPECT_EQ(shapeOf(f.getBody().front().getTerminator()->getOperand(0)),
            (std::vector<int64_t>{1, 10}));
  auto names = f->getAttrOfType<ArrayAttr>("webnn.output_names");
  ASSERT_TRUE(names);
  EXPECT_EQ(cast<StringAttr>(names[0]).getValue(), "probs");

  auto convs = r.ops("webnn.conv2d");
  ASSERT_EQ(convs.size(), 2u);
  EXPECT_EQ(i64s(convs[0], "padding"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(convs[0]->getNumOperands(), 3u);  // with bias
  EXPECT_EQ(shapeOf(convs[0]->getResult(0)), (std::vector<int64_t>{1, 8, 16, 16}));
  // conv2: 8x8 input, 3x3 kernel, stride 2, SAME_UPPER: 1 unit of padding,
  // at the end of each axis -> [beginH, endH, beginW, endW] = [0, 1, 0, 1].
  EXPECT_EQ(i64s(convs[1], "padding"), (std::vector<int64_t>{0, 1, 0, 1}));
  EXPECT_EQ(i64s(convs[1], "strides"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(shapeOf(convs[1]->getResult(0)), (std::vector<int64_t>{1, 16, 4, 4}));

  auto bn = r.ops("webnn.batchNormalization");
  ASSERT_EQ(bn.size(), 1u);
  auto eps = dyn_cast_or_null<FloatAttr>(bn[0]->getAttr("epsilon"));
  ASSERT_TRUE(eps);
  EXPECT_NEAR(eps.getValueAsDouble(), 1e-3, 1e-9);
  // WebNN order: input, mean, variance, scale, bias.
  auto nameOf = [](Value v) {
    Operation *def = v.getDefiningOp();
    auto n = def ? def->getAttrOfType<StringAttr>("name") : StringAttr();
    return n ? n.getValue().str() : std::string("?");
  };
  ASSERT_EQ(bn[0]->getNumOperands(), 5u);
  EXPECT_EQ(nameOf(bn[0]->getOperand(1)), "bn.mean");
  EXPECT_EQ(nameOf(bn[0]->getOperand(2)), "bn.var");
  EXPECT_EQ(nameOf(bn[0]->getOperand(3)), "bn.scale");
  EXPECT_EQ(nameOf(bn[0]->getOperand(4)), "bn.bias");

  EXPECT_EQ(r.ops("webnn.relu").size(), 2u);
  auto maxPool = r.ops("webnn.maxPool2d");
  ASSERT_EQ(maxPool.size(), 1u);
  EXPECT_EQ(i64s(maxPool[0], "windowDimensions"), (std::vector<int64_t>{2, 2}));
  auto avg = r.ops("webnn.averagePool2d");
  ASSERT_EQ(avg.size(), 1u);
  EXPECT_FALSE(avg[0]->getAttr("windowDimensions"));  // global: whole extent
  EXPECT_EQ(shapeOf(avg[0]->getResult(0)), (std::vector<int64_t>{1, 16, 1, 1}));
  auto reshape = r.ops("webnn.reshape");
  ASSERT_EQ(reshape.size(), 1u);
  EXPECT_EQ(i64s(reshape[0], "newShape"), (std::vector<int64_t>{1, 16}));
  auto gemm = r.ops("webnn.gemm");
  ASSERT_EQ(gemm.size(), 1u);
  EXPECT_EQ(gemm[0]->getAttrOfType<BoolAttr>("bTranspose"), BoolAttr::get(r.ctx.get(), true));
  EXPECT_EQ(r.ops("webnn.softmax").size(), 1u);
  EXPECT_EQ(r.ops("webnn.input").size(), 1u);
}

TEST(OnnxImport, MlpNeedsSymbolicBatchFixed) {
  Imported r = importFile(modelPath("mlp.onnx"));
  EXPECT_FALSE(r);
  ASSERT_EQ(r.errors.size(), 1u) << r.allErrors();
  EXPECT_NE(r.firstError().find("input 'x'"), std::string::npos) << r.firstError();
  EXPECT_NE(r.firstError().find("'N'"), std::string::npos) << r.firstError();
  EXPECT_NE(r.errors[0].location.find("mlp.onnx"), std::string::npos);
}

TEST(OnnxImport, MlpWithDimParam) {
  OnnxImportOptions opts;
  opts.dimParams = {{"N", 4}};
  Imported r = importFile(modelPath("mlp.onnx"), opts);
  ASSERT_TRUE(r) << r.allErrors();
  EXPECT_EQ(shapeOf(r.ops("webnn.input")[0]->getResult(0)), (std::vector<int64_t>{4, 16}));
  EXPECT_EQ(r.ops("webnn.matmul").size(), 2u);
  EXPECT_EQ(r.ops("webnn.add").size(), 2u);
  auto softmax = r.ops("webnn.softmax");
  ASSERT_EQ(softmax.size(), 1u);
  // Softmax-11 on rank 2 with axis 1 needs no coercion reshapes.
  EXPECT_TRUE(r.ops("webnn.reshape").empty());
  EXPECT_EQ(shapeOf(softmax[0]->getResult(0)), (std::vector<int64_t>{4, 10}));
}

TEST(OnnxImport, MlpWithWholeShape) {
  OnnxImportOptions opts;
  opts.shapes = {{"x", {2, 16}}};
  Imported r = importFile(modelPath("mlp.onnx"), opts);
  ASSERT_TRUE(r) << r.allErrors();
  EXPECT_EQ(shapeOf(r.ops("webnn.input")[0]->getResult(0)), (std::vector<int64_t>{2, 16}));

  opts.shapes = {{"x", {2, 15}}};  // conflicts with the model's 16
  Imported bad = importFile(modelPath("mlp.onnx"), opts);
  EXPECT_FALSE(bad);
  EXPECT_NE(bad.firstError().find("conflicts"), std::string::npos) << bad.allErrors();

  opts.shapes = {{"nosuch", {2, 16}}};
  opts.dimParams = {{"N", 2}};
  Imported typo = importFile(modelPath("mlp.onnx"), opts);
  EXPECT_FALSE(typo);
  EXPECT_NE(typo.firstError().find("'nosuch'"), std::string::npos) << typo.allErrors();
}

TEST(OnnxImport, ExternalDataMatchesInlineWeights) {
  OnnxImportOptions opts;
  opts.dimParams = {{"N", 1}};
  Imported inl = importFile(modelPath("mlp.onnx"), opts);
  Imported ext = importFile(modelPath("mlp_external.onnx"), opts);
  ASSERT_TRUE(inl) << inl.allErrors();
  ASSERT_TRUE(ext) << ext.allErrors();
  auto cInl = inl.ops("webnn.constant"), cExt = ext.ops("webnn.constant");
  ASSERT_EQ(cInl.size(), 4u);
  ASSERT_EQ(cExt.size(), cInl.size());
  for (size_t i = 0; i < cInl.size(); ++i) {
    auto a = onnx_import::getConstantData(cInl[i]->getResult(0));
    auto b = onnx_import::getConstantData(cExt[i]->getResult(0));
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->type.getShape(), b->type.getShape());  // two contexts: compare by value
    EXPECT_EQ(a->expandedBytes(), b->expandedBytes()) << "constant #" << i;
  }
}

// y = x + w, with w ([8] floats) in external data at `location` (and
// `offset`, when given); returns the saved model's path.
std::string externalDataModel(const std::string &location, const std::string &offset = "") {
  ModelBuilder m;
  m.input("x", {8}).output("y");
  onnx::TensorProto *t = m.initializer("w", {8});
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  auto *kv = t->add_external_data();
  kv->set_key("location");
  kv->set_value(location);
  if (!offset.empty()) {
    kv = t->add_external_data();
    kv->set_key("offset");
    kv->set_value(offset);
  }
  m.node("Add", {"x", "w"}, {"y"}, "add");
  return m.save("ext_" + std::to_string(std::hash<std::string>()(location + "@" + offset)) + ".onnx");
}

TEST(OnnxImport, ExternalDataOutOfBoundsOrEscaping) {
  std::string weights = tempPath("tiny.weights");
  writeBytes(weights, std::string(16, '\0'));  // 4 floats
  auto make = [](const std::string &location, const std::string &offset) {
    return externalDataModel(location, offset);
  };
  Imported tooShort = importFile(make("tiny.weights", "0"));  // needs 32 bytes, file has 16
  EXPECT_FALSE(tooShort);
  EXPECT_NE(tooShort.firstError().find("tensor 'w'"), std::string::npos) << tooShort.allErrors();
  Imported pastEnd = importFile(make("tiny.weights", "64"));
  EXPECT_FALSE(pastEnd);
  EXPECT_NE(pastEnd.firstError().find("outside"), std::string::npos) << pastEnd.allErrors();
  Imported escaping = importFile(make("../tiny.weights", "0"));
  EXPECT_FALSE(escaping);
  EXPECT_NE(escaping.firstError().find("relative path"), std::string::npos)
      << escaping.allErrors();
  Imported missing = importFile(make("nosuch.weights", "0"));
  EXPECT_FALSE(missing);
  EXPECT_NE(missing.firstError().find("cannot read"), std::string::npos) << missing.allErrors();
}

// A symlink inside the model's folder passes the text check but may point
// anywhere: the resolved path must stay inside the folder.
TEST(OnnxImport, ExternalDataSymlinksStayInsideTheModelFolder) {
  std::string outsideDir = tempPath("") + "../webnn-onnx-outside-" + std::to_string(::getpid());
  llvm::sys::fs::create_directories(outsideDir);
  std::string secret = outsideDir + "/secret.weights";
  writeBytes(secret, std::string(32, '\x7f'));  // 8 floats: the size check alone would pass
  writeBytes(tempPath("inside.weights"), std::string(32, '\0'));
  llvm::sys::fs::create_directories(tempPath("sub"));
  auto link = [&](const std::string &target, const std::string &name) {
    ::unlink(tempPath(name).c_str());
    ASSERT_EQ(::symlink(target.c_str(), tempPath(name).c_str()), 0) << name;
  };
  link(secret, "sub/lnk");              // a file link leaving the folder
  link(outsideDir, "dirlnk");           // a folder link leaving it
  link(tempPath("inside.weights"), "sub/ok");  // a link that stays inside
  auto make = [](const std::string &location) { return externalDataModel(location); };
  for (const char *escaping : {"sub/lnk", "dirlnk/secret.weights"}) {
    Imported r = importFile(make(escaping));
    EXPECT_FALSE(r) << escaping;
    EXPECT_NE(r.firstError().find("resolves outside the model's directory"), std::string::npos)
        << r.allErrors();
  }
  Imported ok = importFile(make("sub/ok"));
  EXPECT_TRUE(ok) << ok.allErrors();
  // --external-data-dir names the outside folder: both links are allowed,
  // and only into that folder (another one is still refused).
  OnnxImportOptions allow;
  allow.externalDataDirs = {outsideDir};
  for (const char *allowed : {"sub/lnk", "dirlnk/secret.weights"}) {
    Imported r = importFile(make(allowed), allow);
    EXPECT_TRUE(r) << allowed << ": " << r.allErrors();
  }
  OnnxImportOptions other;
  other.externalDataDirs = {tempPath("sub")};
  Imported r = importFile(make("sub/lnk"), other);
  EXPECT_FALSE(r);
  EXPECT_NE(r.firstError().find("--external-data-dir"), std::string::npos) << r.allErrors();
}

// Found by fuzz_onnx: a Constant with no outputs (inside an If branch) read
// output 0 of an empty list.
TEST(OnnxImport, NodeWithoutOutputsIsRefused) {
  ModelBuilder m;
  m.input("x", {2}).output("y");
  m.node("Relu", {"x"}, {}, "nothing");
  m.node("Relu", {"x"}, {"y"}, "relu");
  Imported r = importFile(m.save("no_outputs.onnx"));
  EXPECT_FALSE(r);
  EXPECT_NE(r.firstError().find("node has no outputs"), std::string::npos) << r.allErrors();
}

// Found by the fuzz_onnx campaign (their inputs are seeds in fuzz/corpus/onnx):
// each was undefined behaviour in the importer before it became an error.
TEST(OnnxImport, ConvIntegerOfLowRankIsRefused) {
  ModelBuilder m;
  m.input("x", {1, 2, 5, 5}, onnx::TensorProto::UINT8).input("w", {3}, onnx::TensorProto::UINT8).output("y");
  m.node("ConvInteger", {"x", "w"}, {"y"}, "conv");
  Imported r = importFile(m.save("convinteger_rank1.onnx"));
  EXPECT_FALSE(r);
  EXPECT_NE(r.firstError().find("x and w must have the same rank, at least 3"), std::string::npos)
      << r.allErrors();
}

TEST(OnnxImport, GridSampleOfIntegersIsRefused) {
  ModelBuilder m(16);  // GridSample's first opset
  m.input("x", {1, 1, 4, 4}, onnx::TensorProto::INT32)
      .input("grid", {1, 2, 2, 2}, onnx::TensorProto::INT32)
      .output("y");
  m.node("GridSample", {"x", "grid"}, {"y"}, "sample");
  Imported r = importFile(m.save("gridsample_int.onnx"));
  EXPECT_FALSE(r);
  EXPECT_NE(r.firstError().find("X and grid must be floating-point tensors"), std::string::npos)
      << r.allErrors();
}

TEST(OnnxImport, InputWhoseByteSizeOverflowsIsRefused) {
  ModelBuilder m;
  m.input("x", {int64_t(1) << 62, 4}).output("y");
  m.node("Relu", {"x"}, {"y"}, "relu");
  Imported r = importFile(m.save("huge_input.onnx"));
  EXPECT_FALSE(r);
  EXPECT_NE(r.firstError().find("graph input 'x' of shape"), std::string::npos) << r.allErrors();
  EXPECT_NE(r.firstError().find("too many elements"), std::string::npos) << r.allErrors();
}

// ------------------------------------------------------------- bad files
TEST(OnnxImport, TruncatedModelsFailCleanly) {
  std::string bytes = readBytes(modelPath("small_cnn.onnx"));
  ASSERT_GT(bytes.size(), 1000u);
  for (size_t len : {size_t(0), size_t(1), size_t(7), size_t(64), size_t(500), bytes.size() / 2,
                     bytes.size() - 100, bytes.size() - 1}) {
    std::string path = tempPath("truncated.onnx");
    writeBytes(path, bytes.substr(0, len));
    Imported r = importFile(path);
    EXPECT_FALSE(r) << "length " << len;
    ASSERT_EQ(r.errors.size(), 1u) << "length " << len << "\n" << r.allErrors();
    EXPECT_EQ(r.errors[0].location, path);
    EXPECT_NE(r.firstError().find("not a valid ONNX model"), std::string::npos)
        << "length " << len << ": " << r.firstError();
  }
  // Cut inside the graph message: the protobuf parse itself fails.
  std::string path = tempPath("truncated.onnx");
  writeBytes(path, bytes.substr(0, bytes.size() / 2));
  EXPECT_EQ(importFile(path).firstError(), "not a valid ONNX model (protobuf parse failed)");
}

TEST(OnnxImport, RandomBytesFailCleanly) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 20; ++trial) {
    std::string bytes(1 + rng() % 4096, '\0');
    for (char &ch : bytes) ch = static_cast<char>(rng());
    std::string path = tempPath("random.onnx");
    writeBytes(path, bytes);
    Imported r = importFile(path);
    EXPECT_FALSE(r) << "trial " << trial;
    EXPECT_EQ(r.errors.size(), 1u) << "trial " << trial << "\n" << r.allErrors();
  }
}

TEST(OnnxImport, MissingFile) {
  Imported r = importFile(tempPath("does-not-exist.onnx"));
  EXPECT_FALSE(r);
  EXPECT_NE(r.firstError().find("cannot read the model"), std::string::npos) << r.allErrors();
}

TEST(OnnxImport, UnsupportedOpsListedInOneMessage) {
  ModelBuilder m;
  auto *ms = m.model.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  m.input("x", {1, 4}).output("y");
  m.node("StringNormalizer", {"x"}, {"a"}, "sn");
  m.node("Relu", {"x"}, {"b"}, "relu");
  m.node("TfIdfVectorizer", {"a"}, {"c"}, "tf");
  m.node("StringNormalizer", {"x"}, {"d"}, "sn2");  // listed once
  m.node("FusedConv", {"x"}, {"y"}, "fc", "com.microsoft");
  m.node("Foo", {"x"}, {"z"}, "foo", "com.example");  // domain never imported
  Imported r = importFile(m.save("unsupported.onnx"));
  EXPECT_FALSE(r);
  ASSERT_EQ(r.errors.size(), 1u) << r.allErrors();
  EXPECT_EQ(r.firstError(),
            "unsupported ONNX operators: ai.onnx::StringNormalizer (opset 13), "
            "ai.onnx::TfIdfVectorizer (opset 13), com.microsoft::FusedConv (opset 1), com.example::Foo (domain 'com.example' "
            "not in opset_import)");
}

// If branches and Loop bodies are checked with the top graph: one error
// naming every missing operator, and the same list, by node, for callers
// (webnnc compile --json's unsupported_ops).
TEST(OnnxImport, UnsupportedOpsIncludeSubgraphsAndAreListed) {
  ModelBuilder m;
  m.input("x", {2}).input("c", {}, onnx::TensorProto::BOOL).output("y");
  m.node("Frob", {"x"}, {"f"}, "", "com.example");
  onnx::NodeProto *n = m.node("If", {"c"}, {"y"}, "branch");
  for (const char *branch : {"then_branch", "else_branch"}) {
    auto *a = n->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto *g = a->mutable_g();
    onnx::NodeProto *b = g->add_node();
    b->set_op_type(std::string(branch) == "then_branch" ? "StringNormalizer" : "Relu");
    if (std::string(branch) == "then_branch") b->set_name("in_then");
    b->add_input("f");
    b->add_output(std::string(branch) + "_out");
    g->add_output()->set_name(std::string(branch) + "_out");
  }
  std::string path = m.save("unsupported_subgraph.onnx");
  Imported r = importFile(path);
  EXPECT_FALSE(r);
  ASSERT_EQ(r.errors.size(), 1u) << r.allErrors();
  EXPECT_EQ(r.firstError(),
            "unsupported ONNX operators: com.example::Frob (domain 'com.example' not in opset_import), "
            "ai.onnx::StringNormalizer (opset 13)");

  MLIRContext ctx;
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  std::vector<UnsupportedOnnxOp> ops;
  EXPECT_FALSE(importOnnxFile(ctx, path, {}, &ops));
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].domain, "com.example");
  EXPECT_EQ(ops[0].opType, "Frob");
  EXPECT_EQ(ops[0].opset, -1);
  EXPECT_EQ(ops[0].nodes, std::vector<std::string>{"Frob_0"});
  EXPECT_EQ(ops[1].domain, "ai.onnx");
  EXPECT_EQ(ops[1].opType, "StringNormalizer");
  EXPECT_EQ(ops[1].opset, 13);
  EXPECT_EQ(ops[1].nodes, std::vector<std::string>{"in_then"});

  // A supported model leaves the list empty.
  ModelBuilder ok;
  ok.input("x", {2}).output("y");
  ok.node("Relu", {"x"}, {"y"}, "relu");
  ops.assign(1, UnsupportedOnnxOp{});
  EXPECT_TRUE(importOnnxFile(ctx, ok.save("supported.onnx"), {}, &ops));
  EXPECT_TRUE(ops.empty());
}

TEST(OnnxImport, NodeErrorsNameTheNode) {
  ModelBuilder m;
  m.input("x", {1, 3, 8, 8}).floats("w", {4, 3, 3}).output("y").output("z");
  m.node("Conv", {"x", "w"}, {"y"}, "conv1");
  Imported r = importFile(m.save("badconv.onnx"));
  EXPECT_FALSE(r);
  ASSERT_EQ(r.errors.size(), 1u) << r.allErrors();
  EXPECT_EQ(r.firstError(), "node 'conv1' (Conv): weights W must have the same rank as input X");
  EXPECT_EQ(r.errors[0].location, tempPath("badconv.onnx"));

  // An unnamed node is called by op_type and index.
  ModelBuilder m2;
  m2.input("x", {2, 3}).output("y");
  setInts(m2.node("Transpose", {"x"}, {"y"}), "perm", {0, 0});
  Imported r2 = importFile(m2.save("badperm.onnx"));
  EXPECT_FALSE(r2);
  EXPECT_EQ(r2.firstError().rfind("node 'Transpose_0' (Transpose): ", 0), 0u) << r2.allErrors();
}

TEST(OnnxImport, DialectErrorsAlsoNameTheNode) {
  // Shapes that do not broadcast: the dialect's own check rejects them, and
  // the message still says which ONNX node.
  ModelBuilder m;
  m.input("a", {2, 3}).input("b", {4, 5}).output("y");
  m.node("Add", {"a", "b"}, {"y"}, "add_bad");
  Imported r = importFile(m.save("badadd.onnx"));
  EXPECT_FALSE(r);
  ASSERT_GE(r.errors.size(), 1u);
  EXPECT_EQ(r.firstError().rfind("node 'add_bad' (Add): ", 0), 0u) << r.allErrors();
}

// ------------------------------------------------------ op conversions
TEST(OnnxImport, ConvPadsReorderedAndOneDimensional) {
  ModelBuilder m;
  m.input("x", {1, 2, 10, 10}).floats("w", {3, 2, 3, 3}).output("y");
  m.input("x1", {1, 2, 10}).floats("w1", {3, 2, 3}).output("y1");
  auto *conv = m.node("Conv", {"x", "w"}, {"y"}, "conv");
  setInts(conv, "pads", {1, 2, 3, 4});  // hBegin, wBegin, hEnd, wEnd
  auto *conv1d = m.node("Conv", {"x1", "w1"}, {"y1"}, "conv1d");
  setInts(conv1d, "pads", {1, 2});
  setInts(conv1d, "dilations", {2});
  Imported r = importFile(m.save("convpads.onnx"));
  ASSERT_TRUE(r) << r.allErrors();
  auto convs = r.ops("webnn.conv2d");
  ASSERT_EQ(convs.size(), 2u);
  EXPECT_EQ(i64s(convs[0], "padding"), (std::vector<int64_t>{1, 3, 2, 4}));
  EXPECT_EQ(shapeOf(convs[0]->getResult(0)), (std::vector<int64_t>{1, 3, 12, 14}));
  EXPECT_EQ(i64s(convs[1], "padding"), (std::vector<int64_t>{0, 0, 1, 2}));
  EXPECT_EQ(i64s(convs[1], "dilations"), (std::vector<int64_t>{1, 2}));
  // 10 + 3 - (2*2+1) + 1 = 9
  EXPECT_EQ(shapeOf(r.main().getBody().front().getTerminator()->getOperand(1)),
            (std::vector<int64_t>{1, 3, 9}));
}

TEST(OnnxImport, AveragePoolCountIncludePad) {
  ModelBuilder m;
  m.input("x", {1, 1, 5, 5}).output("a").output("b");
  auto *inc = m.node("AveragePool", {"x"}, {"a"}, "inc");
  setInts(inc, "kernel_shape", {3, 3});
  setInts(inc, "pads", {1, 1, 1, 1});
  setInt(inc, "count_include_pad", 1);
  auto *exc = m.node("AveragePool", {"x"}, {"b"}, "exc");
  setInts(exc, "kernel_shape", {3, 3});
  setInts(exc, "pads", {1, 1, 1, 1});
  Imported r = importFile(m.save("avgpool.onnx"));
  ASSERT_TRUE(r) << r.allErrors();
  auto pads = r.ops("webnn.pad");
  ASSERT_EQ(pads.size(), 1u);
  EXPECT_EQ(i64s(pads[0], "beginningPadding"), (std::vector<int64_t>{0, 0, 1, 1}));
  EXPECT_EQ(i64s(pads[0], "endingPadding"), (std::vector<int64_t>{0, 0, 1, 1}));
  auto pools = r.ops("webnn.averagePool2d");
  ASSERT_EQ(pools.size(), 2u);
  EXPECT_EQ(i64s(pools[0], "padding"), (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(pools[0]->getOperand(0), pads[0]->getResult(0));
  EXPECT_EQ(i64s(pools[1], "padding"), (std::vector<int64_t>{1, 1, 1, 1}));
  for (Operation *p : pools) EXPECT_EQ(shapeOf(p->getResult(0)), (std::vector<int64_t>{1, 1, 5, 5}));
}

TEST(OnnxImport, ShapeArithmeticFoldsIntoOneReshape) {
  // PyTorch's flatten export: Shape -> Gather -> Unsqueeze -> Concat -> Reshape.
  ModelBuilder m(11);
  m.input("x", {2, 3, 4, 4}).output("y");
  m.ints("zero", {0});
  m.node("Shape", {"x"}, {"s"}, "shape");
  auto *idx = m.initializer("i0", {}, onnx::TensorProto::INT64);
  idx->add_int64_data(0);
  m.node("Gather", {"s", "i0"}, {"n"}, "gather");
  setInts(m.node("Unsqueeze", {"n"}, {"n1"}, "unsq"), "axes", {0});
  auto *minus1 = m.node("Constant", {}, {"m1"}, "const");
  setInts(minus1, "value_ints", {-1});
  setInt(m.node("Concat", {"n1", "m1"}, {"shape2"}, "concat"), "axis", 0);
  m.node("Reshape", {"x", "shape2"}, {"y"}, "reshape");
  Imported r = importFile(m.save("flatten_chain.onnx"));
  ASSERT_TRUE(r) << r.allErrors();
  auto reshapes = r.ops("webnn.reshape");
  ASSERT_EQ(reshapes.size(), 1u);
  EXPECT_EQ(i64s(reshapes[0], "newShape"), (std::vector<int64_t>{2, 48}));
  EXPECT_TRUE(r.ops("webnn.constant").empty());  // folded shape constants are dropped
  EXPECT_TRUE(r.ops("webnn.gather").empty());
}

TEST(OnnxImport, ElementwiseShapeArithmeticFoldsAtImport) {
  // LayerNormalization's function body: Neg of a constant feeds ConstantOfShape.
  ModelBuilder m(17);
  m.input("x", {2, 3}).output("y");
  m.ints("axis", {1});
  m.node("Neg", {"axis"}, {"n"}, "neg");
  m.node("ConstantOfShape", {"n"}, {"bad"}, "cos");  // shape [-1]: rejected by name
  m.node("Relu", {"x"}, {"y"}, "relu");
  Imported r = importFile(m.save("neg_fold.onnx"));
  EXPECT_FALSE(r);
  EXPECT_NE(r.firstError().find("non-negative"), std::string::npos) << r.allErrors();

  ModelBuilder ok(17);
  ok.input("x", {2, 3}).output("y");
  ok.ints("two", {2});
  ok.ints("three", {3});
  ok.node("Max", {"two", "three"}, {"mx"}, "max");
  ok.node("Equal", {"mx", "three"}, {"eq"}, "eq");
  ok.node("Where", {"eq", "three", "two"}, {"n"}, "where");
  setInt(ok.node("Concat", {"n", "two"}, {"shape"}, "concat"), "axis", 0);
  ok.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  Imported r2 = importFile(ok.save("where_fold.onnx"));
  ASSERT_TRUE(r2) << r2.allErrors();
  ASSERT_EQ(r2.ops("webnn.reshape").size(), 1u);
  EXPECT_EQ(i64s(r2.ops("webnn.reshape")[0], "newShape"), (std::vector<int64_t>{3, 2}));
  EXPECT_TRUE(r2.ops("webnn.where").empty());
  EXPECT_TRUE(r2.ops("webnn.equal").empty());
}

TEST(OnnxImport, ReduceAxesFromAttributeOrInputByOpset) {
  ModelBuilder m(13);
  m.input("x", {2, 3, 4}).output("y").output("z");
  m.ints("axes", {-1});
  setInts(m.node("ReduceMean", {"x"}, {"y"}, "mean"), "axes", {1});  // attribute until 18
  auto *sum = m.node("ReduceSum", {"x", "axes"}, {"z"}, "sum");      // input from 13
  setInt(sum, "keepdims", 0);
  Imported r = importFile(m.save("reduce.onnx"));
  ASSERT_TRUE(r) << r.allErrors();
  EXPECT_EQ(i64s(r.ops("webnn.reduceMean")[0], "axes"), (std::vector<int64_t>{1}));
  EXPECT_EQ(i64s(r.ops("webnn.reduceSum")[0], "axes"), (std::vector<int64_t>{2}));
  EXPECT_EQ(r.resultShape(1), (std::vector<int64_t>{2, 3}));
}

TEST(OnnxImport, SliceNegativeStepGathersIndices) {
  ModelBuilder m(13);
  m.input("x", {5, 4}).output("y");
  m.ints("starts", {-1}).ints("ends", {-100}).ints("axes", {0}).ints("steps", {-2});
  m.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"}, "slice");
  Imported r = importFile(m.save("slice_back.onnx"));
  ASSERT_TRUE(r) << r.allErrors();
  ASSERT_EQ(r.ops("webnn.gather").size(), 1u);
  EXPECT_EQ(r.resultShape(0), (std::vector<int64_t>{3, 4}));  // rows 4, 2, 0
}

TEST(OnnxImport, IfWithConstantConditionIsInlined) {
  ModelBuilder m(13);
  m.input("x", {2}).output("y");
  auto *cond = m.initializer("cond", {}, onnx::TensorProto::BOOL);
  cond->add_int32_data(0);
  onnx::NodeProto *n = m.node("If", {"cond"}, {"y"}, "if");
  for (const char *branch : {"then_branch", "else_branch"}) {
    auto *a = n->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto *g = a->mutable_g();
    onnx::NodeProto *b = g->add_node();
    b->set_op_type(std::string(branch) == "then_branch" ? "Relu" : "Neg");
    b->add_input("x");
    b->add_output(std::string(branch) + "_out");
    g->add_output()->set_name(std::string(branch) + "_out");
  }
  Imported r = importFile(m.save("if_const.onnx"));
  ASSERT_TRUE(r) << r.allErrors();
  EXPECT_EQ(r.ops("webnn.neg").size(), 1u);
  EXPECT_TRUE(r.ops("webnn.relu").empty());
}

// ---------------------------------------------- decompositions (shape of the lowering)
TEST(OnnxImport, Conv3dIsOneConv2dOverDepthPlanes) {
  ModelBuilder m(13);
  m.input("x", {1, 2, 4, 5, 5}).floats("w", {3, 2, 2, 3, 3}).output("y");
  m.node("Conv", {"x", "w"}, {"y"}, "conv3d");
  Imported r = importFile(m.save("conv3d.onnx"));
  ASSERT_TRUE(r) << r.allErrors();
  EXPECT_EQ(r.ops("webnn.conv2d").size(), 1u);
  EXPECT_EQ(r.resultShape(0), (std::vector<int64_t>{1, 3, 3, 3, 3}));
}

TEST(OnnxImport, TopKTakesKRoundsOfArgMax) {
  ModelBuilder m(13);
  m.input("x", {3, 5}).ints("k", {2}).output("v").output("i");
  m.node("TopK", {"x", "k"}, {"v", "i"}, "topk");
  Imported r = importFile(m.save("topk.onnx"));
  ASSERT_TRUE(r) << r.allErrors();
  EXPECT_EQ(r.resultShape(0), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(r.resultShape(1), (std::vector<int64_t>{3, 2}));
  // One per round, plus the first-untaken fallback from the second round on.
  EXPECT_EQ(r.ops("webnn.argMax").size(), 3u);
}

TEST(OnnxImport, IntegerMatMulSplitsLongReductions) {
  // K = 600 > 256: three float32 matmuls, each exact, summed in int32.
  ModelBuilder m(13);
  m.input("a", {2, 600}, onnx::TensorProto::UINT8).input("b", {600, 3}, onnx::TensorProto::UINT8);
  m.output("y");
  m.node("MatMulInteger", {"a", "b"}, {"y"}, "mmi");
  Imported r = importFile(m.save("matmulinteger.onnx"));
  ASSERT_TRUE(r) << r.allErrors();
  EXPECT_EQ(r.ops("webnn.matmul").size(), 3u);
}

onnx::GraphProto *addBody(onnx::NodeProto *n) {
  auto *a = n->add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  return a->mutable_g();
}

TEST(OnnxImport, LoopWithConstantTripCountIsUnrolled) {
  auto build = [](bool constantTrip) {
    ModelBuilder m(13);
    m.input("x", {2}).output("y");
    if (constantTrip) {
      m.ints("trip", {3});
    } else {
      m.input("trip", {}, onnx::TensorProto::INT64);
    }
    onnx::GraphProto *g = addBody(m.node("Loop", {"trip", "", "x"}, {"y"}, "loop"));
    g->add_input()->set_name("i");
    g->add_input()->set_name("cond_in");
    g->add_input()->set_name("v_in");
    onnx::NodeProto *id = g->add_node();
    id->set_op_type("Identity");
    id->add_input("cond_in");
    id->add_output("cond_out");
    onnx::NodeProto *add = g->add_node();
    add->set_op_type("Add");
    add->add_input("v_in");
    add->add_input("v_in");
    add->add_output("v_out");
    g->add_output()->set_name("cond_out");
    g->add_output()->set_name("v_out");
    return m;
  };
  ModelBuilder ok = build(true);
  Imported r = importFile(ok.save("loop.onnx"));
  ASSERT_TRUE(r) << r.allErrors();
  EXPECT_EQ(r.ops("webnn.add").size(), 3u);

  // A run-time trip count: one webnn.loop whose body holds the add once.
  ModelBuilder runtime = build(false);
  Imported rr = importFile(runtime.save("loop_runtime.onnx"));
  ASSERT_TRUE(rr) << rr.allErrors();
  EXPECT_EQ(rr.ops("webnn.loop").size(), 1u);
  EXPECT_EQ(rr.ops("webnn.add").size(), 1u);

  // ... but not with a scan output, whose length would be data-dependent.
  ModelBuilder scan = build(false);
  onnx::NodeProto &loop = *scan.model.mutable_graph()->mutable_node(0);
  loop.add_output("scan");
  loop.mutable_attribute(0)->mutable_g()->add_output()->set_name("v_out");
  Imported rs = importFile(scan.save("loop_scan.onnx"));
  EXPECT_FALSE(rs);
  EXPECT_EQ(rs.firstError(),
            "node 'loop' (Loop): input 'M (scan outputs need a compile-time bound on the iteration "
            "count)' ('trip') must be a constant (an initializer or computable from constants)");
}

TEST(OnnxImport, DecompositionLimitsAreReported) {
  ModelBuilder det(13);
  det.input("x", {5, 5}).output("y");
  det.node("Det", {"x"}, {"y"}, "det");
  Imported rd = importFile(det.save("det5.onnx"));
  EXPECT_FALSE(rd);
  EXPECT_EQ(rd.firstError(), "node 'det' (Det): Det of 5x5 matrices is not supported (n <= 4)");

  ModelBuilder roi(16);
  roi.input("x", {1, 1, 8, 8}).input("rois", {2, 4}).output("y");
  roi.input("b", {2}, onnx::TensorProto::INT64);
  roi.node("RoiAlign", {"x", "rois", "b"}, {"y"}, "roi");
  Imported rr = importFile(roi.save("roialign_adaptive.onnx"));
  EXPECT_FALSE(rr);
  EXPECT_NE(rr.firstError().find("sampling_ratio 0 (adaptive"), std::string::npos) << rr.allErrors();

  ModelBuilder nms(11);
  nms.input("boxes", {1, 3, 4}).floats("scores", {1, 1, 3}).output("sel");
  nms.node("NonMaxSuppression", {"boxes", "scores"}, {"sel"}, "nms");
  Imported rn = importFile(nms.save("nms_runtime.onnx"));
  EXPECT_FALSE(rn);
  EXPECT_EQ(rn.firstError(),
            "node 'nms' (NonMaxSuppression): input 'boxes' ('boxes') must be a constant (an "
            "initializer or computable from constants)");
}

TEST(OnnxImport, NonConstantErrorsNameTheGraphInputsBehindAValue) {
  ModelBuilder m(13);
  m.input("x", {2, 3}).input("s", {2}, onnx::TensorProto::INT64).ints("one", {1}).output("y");
  m.node("Add", {"s", "one"}, {"shape"}, "add");
  m.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  Imported r = importFile(m.save("reshape_computed.onnx"));
  EXPECT_FALSE(r);
  EXPECT_EQ(r.firstError(),
            "node 'reshape' (Reshape): input 'shape' ('shape') must be a constant (an initializer "
            "or computable from constants); it is computed at run time by Add 'add' <- input 's'; "
            "it is computed from graph inputs 's' (freeze them with --const-input)");
}

TEST(OnnxImport, IfBranchInitializersAreConstants) {
  // PyTorch exports a branch's constants as the branch graph's initializers
  // (Silero VAD does).
  ModelBuilder m(13);
  m.input("x", {2}).output("y");
  auto *cond = m.initializer("cond", {}, onnx::TensorProto::BOOL);
  cond->add_int32_data(1);
  onnx::NodeProto *n = m.node("If", {"cond"}, {"y"}, "if");
  for (const char *branch : {"then_branch", "else_branch"}) {
    auto *a = n->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto *g = a->mutable_g();
    onnx::TensorProto *k = g->add_initializer();
    k->set_name(std::string(branch) + "_k");
    k->set_data_type(onnx::TensorProto::FLOAT);
    k->add_dims(2);
    k->add_float_data(std::string(branch) == "then_branch" ? 3.0f : -1.0f);
    k->add_float_data(4.0f);
    onnx::NodeProto *b = g->add_node();
    b->set_op_type("Add");
    b->add_input("x");
    b->add_input(k->name());
    b->add_output(std::string(branch) + "_out");
    g->add_output()->set_name(std::string(branch) + "_out");
  }
  Imported r = importFile(m.save("if_init.onnx"));
  ASSERT_TRUE(r) << r.allErrors();
  auto adds = r.ops("webnn.add");
  ASSERT_EQ(adds.size(), 1u);
  auto k = onnx_import::getConstantData(adds[0]->getOperand(1));
  ASSERT_TRUE(k);
  EXPECT_EQ(k->floatAt(0), 3.0);  // the then branch's initializer
}

TEST(OnnxImport, ReshapeZeroAndMinusOne) {
  ModelBuilder m;
  m.input("x", {2, 3, 4}).ints("shape", {0, -1}).output("y");
  m.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  Imported r = importFile(m.save("reshape.onnx"));
  ASSERT_TRUE(r) << r.allErrors();
  EXPECT_EQ(i64s(r.ops("webnn.reshape")[0], "newShape"), (std::vector<int64_t>{2, 12}));

  ModelBuilder bad;
  bad.input("x", {2, 3, 4}).output("y");
  bad.ints("shape", {5, -1});
  bad.node("Reshape", {"x", "shape"}, {"y"}, "r");
  Imported rb = importFile(bad.save("reshape_bad.onnx"));
  EXPECT_FALSE(rb);
  EXPECT_NE(rb.firstError().find("cannot infer the -1 dimension"), std::string::npos)
      << rb.allErrors();
}

TEST(OnnxImport, SoftmaxBeforeOpset13IsCoercedTo2d) {
  ModelBuilder m(11);
  m.input("x", {2, 3, 4}).output("y");
  setInt(m.node("Softmax", {"x"}, {"y"}, "sm"), "axis", 1);
  Imported r = importFile(m.save("softmax11.onnx"));
  ASSERT_TRUE(r) << r.allErrors();
  auto reshapes = r.ops("webnn.reshape");
  ASSERT_EQ(reshapes.size(), 2u);
  EXPECT_EQ(i64s(reshapes[0], "newShape"), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(i64s(reshapes[1], "newShape"), (std::vector<int64_t>{2, 3, 4}));
  auto sm = r.ops("webnn.softmax");
  ASSERT_EQ(sm.size(), 1u);
  EXPECT_EQ(sm[0]->getAttrOfType<IntegerAttr>("axis").getInt(), 1);

  ModelBuilder m13(13);
  m13.input("x", {2, 3, 4}).output("y");
  m13.node("Softmax", {"x"}, {"y"}, "sm");  // default axis -1
  Imported r13 = importFile(m13.save("softmax13.onnx"));
  ASSERT_TRUE(r13) << r13.allErrors();
  EXPECT_TRUE(r13.ops("webnn.reshape").empty());
  EXPECT_EQ(r13.ops("webnn.softmax")[0]->getAttrOfType<IntegerAttr>("axis").getInt(), 2);
}

TEST(OnnxImport, MatMulWithVectors) {
  ModelBuilder m;
  m.input("v", {4}).input("M", {3, 4, 5}).input("u", {5}).output("vm").output("Mu");
  m.node("MatMul", {"v", "M"}, {"vm"}, "vm");
  m.node("MatMul", {"M", "u"}, {"Mu"}, "mu");
  Imported r = importFile(m.save("matmulvec.onnx"));
  ASSERT_TRUE(r) << r.allErrors();
  Operation *ret = r.main().getBody().front().getTerminator();
  EXPECT_EQ(shapeOf(ret->getOperand(0)), (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(shapeOf(ret->getOperand(1)), (std::vector<int64_t>{3, 4}));
}

TEST(OnnxImport, ClipBoundsFromAttributesOrInputs) {
  ModelBuilder m6(6);
  m6.input("x", {4}).output("y");
  auto *clip = m6.node("Clip", {"x"}, {"y"}, "clip");
  auto *a = clip->add_attribute();
  a->set_name("max");
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(6.0f);
  Imported r6 = importFile(m6.save("clip6.onnx"));
  ASSERT_TRUE(r6) << r6.allErrors();
  Operation *c6 = r6.ops("webnn.clamp")[0];
  EXPECT_FALSE(c6->getAttr("minValue"));
  EXPECT_EQ(cast<FloatAttr>(c6->getAttr("maxValue")).getValueAsDouble(), 6.0);

  ModelBuilder m13(13);
  m13.input("x", {4}).output("y");
  m13.initializer("lo", {})->add_float_data(0.0f);
  m13.node("Clip", {"x", "lo", ""}, {"y"}, "clip");
  Imported r13 = importFile(m13.save("clip13.onnx"));
  ASSERT_TRUE(r13) << r13.allErrors();
  Operation *c13 = r13.ops("webnn.clamp")[0];
  EXPECT_EQ(cast<FloatAttr>(c13->getAttr("minValue")).getValueAsDouble(), 0.0);
  EXPECT_FALSE(c13->getAttr("maxValue"));
}

TEST(OnnxImport, InitializerEncodings) {
  // Typed fields and raw_data, several element types, one graph.
  ModelBuilder m;
  m.input("x", {2}, onnx::TensorProto::INT32).output("a");
  m.input("h", {2}, onnx::TensorProto::FLOAT16).output("b");
  m.input("u", {2}, onnx::TensorProto::UINT8).output("c");
  auto *i32 = m.initializer("i32", {2}, onnx::TensorProto::INT32);
  i32->add_int32_data(-7);
  i32->add_int32_data(9);
  auto *f16 = m.initializer("f16", {2}, onnx::TensorProto::FLOAT16);
  f16->add_int32_data(0x3C00);  // 1.0
  f16->add_int32_data(0xC000);  // -2.0
  auto *u8 = m.initializer("u8", {2}, onnx::TensorProto::UINT8);
  u8->set_raw_data(std::string("\xff\x01", 2));
  m.node("Add", {"x", "i32"}, {"a"}, "a");
  m.node("Add", {"h", "f16"}, {"b"}, "b");
  m.node("Add", {"u", "u8"}, {"c"}, "c");
  Imported r = importFile(m.save("encodings.onnx"));
  ASSERT_TRUE(r) << r.allErrors();
  auto adds = r.ops("webnn.add");
  ASSERT_EQ(adds.size(), 3u);
  auto i = onnx_import::getConstantData(adds[0]->getOperand(1));
  auto h = onnx_import::getConstantData(adds[1]->getOperand(1));
  auto u = onnx_import::getConstantData(adds[2]->getOperand(1));
  ASSERT_TRUE(i && h && u);
  EXPECT_EQ(i->ints(), (SmallVector<int64_t>{-7, 9}));
  EXPECT_EQ(h->floatAt(0), 1.0);
  EXPECT_EQ(h->floatAt(1), -2.0);
  EXPECT_TRUE(u->type.getElementType().isUnsignedInteger(8));
  EXPECT_EQ(u->ints(), (SmallVector<int64_t>{255, 1}));

  ModelBuilder bad;
  bad.input("x", {3}).output("y");
  bad.initializer("w", {3})->set_raw_data(std::string(11, '\0'));  // 12 needed
  bad.node("Add", {"x", "w"}, {"y"}, "add");
  Imported rb = importFile(bad.save("badraw.onnx"));
  EXPECT_FALSE(rb);
  EXPECT_NE(rb.firstError().find("tensor 'w' has 11 bytes of raw_data"), std::string::npos)
      << rb.allErrors();
}

TEST(OnnxImport, TypesWebNNLacksAreWidenedAndKeptAtTheBoundary) {
  // float64/bfloat16 compute as f32, int16/uint16 as i32; inputs and outputs
  // keep the declared type as their interface type. (float64 narrows because
  // Elu, below, has no float64 form: Float64KeptWhenEveryOpHasAFloat64Form.)
  ModelBuilder m;
  m.input("d", {3}, onnx::TensorProto::DOUBLE);
  m.input("s", {2}, onnx::TensorProto::INT16);
  m.input("u", {2}, onnx::TensorProto::UINT16);
  m.input("b", {2}, onnx::TensorProto::BFLOAT16);
  auto *dd = m.initializer("dd", {3}, onnx::TensorProto::DOUBLE);
  for (double v : {0.1, -2.5, 1e300}) dd->add_double_data(v);
  int16_t srv[2] = {-3, 4};
  m.initializer("sr", {2}, onnx::TensorProto::INT16)
      ->set_raw_data(std::string(reinterpret_cast<const char *>(srv), 4));
  auto *ui = m.initializer("ui", {2}, onnx::TensorProto::UINT16);
  ui->add_int32_data(65535);
  ui->add_int32_data(1);
  auto *bf = m.initializer("bf", {2}, onnx::TensorProto::BFLOAT16);
  bf->add_int32_data(0x3f80);  // 1.0
  bf->add_int32_data(0xc000);  // -2.0
  m.node("Add", {"d", "dd"}, {"a"}, "a");
  m.node("Add", {"s", "sr"}, {"b2"}, "b2");
  m.node("Add", {"u", "ui"}, {"c"}, "c");
  m.node("Add", {"b", "bf"}, {"e"}, "e");
  setInt(m.node("Cast", {"a"}, {"f"}, "f"), "to", onnx::TensorProto::INT16);
  setInt(m.node("Cast", {"s"}, {"g"}, "g"), "to", onnx::TensorProto::DOUBLE);
  m.valueInfo(m.graph->add_output(), "a", {3}, onnx::TensorProto::DOUBLE);
  m.valueInfo(m.graph->add_output(), "b2", {2}, onnx::TensorProto::INT16);
  m.valueInfo(m.graph->add_output(), "c", {2}, onnx::TensorProto::UINT16);
  m.valueInfo(m.graph->add_output(), "e", {2}, onnx::TensorProto::BFLOAT16);
  m.valueInfo(m.graph->add_output(), "f", {3}, onnx::TensorProto::INT16);
  m.valueInfo(m.graph->add_output(), "g", {2}, onnx::TensorProto::DOUBLE);
  m.valueInfo(m.graph->add_output(), "d2", {3}, onnx::TensorProto::FLOAT);
  m.node("Identity", {"d"}, {"d2"}, "d2");
  m.node("Elu", {"d"}, {"el"}, "el");
  Imported r = importFile(m.save("widened.onnx"));
  ASSERT_TRUE(r) << r.allErrors();
  // One note says why float64 is narrowed, naming the op.
  ASSERT_EQ(r.remarks.size(), 1u);
  EXPECT_NE(r.remarks[0].find("float64 is computed as float32 in this graph: node 'el' (Elu)"), std::string::npos)
      << r.remarks[0];
  EXPECT_NE(r.remarks[0].find("f64"), std::string::npos) << r.remarks[0];

  MLIRContext &ctx = *r.ctx;
  Type f32 = Float32Type::get(&ctx), i32 = IntegerType::get(&ctx, 32);
  auto inputs = r.ops("webnn.input");
  ASSERT_EQ(inputs.size(), 4u);
  std::vector<Type> computed, interface;
  for (Operation *op : inputs) {
    computed.push_back(cast<RankedTensorType>(op->getResult(0).getType()).getElementType());
    auto attr = op->getAttrOfType<TypeAttr>("webnn.interface_type");
    interface.push_back(attr ? attr.getValue() : Type());
  }
  EXPECT_EQ(computed, (std::vector<Type>{f32, i32, i32, f32}));
  EXPECT_EQ(interface, (std::vector<Type>{Float64Type::get(&ctx), IntegerType::get(&ctx, 16),
                                          IntegerType::get(&ctx, 16, IntegerType::Unsigned),
                                          BFloat16Type::get(&ctx)}));

  auto adds = r.ops("webnn.add");
  ASSERT_EQ(adds.size(), 4u);
  auto dv = onnx_import::getConstantData(adds[0]->getOperand(1));
  auto sv = onnx_import::getConstantData(adds[1]->getOperand(1));
  auto uv = onnx_import::getConstantData(adds[2]->getOperand(1));
  auto bv = onnx_import::getConstantData(adds[3]->getOperand(1));
  ASSERT_TRUE(dv && sv && uv && bv);
  EXPECT_EQ(dv->type.getElementType(), f32);
  EXPECT_EQ(dv->floatAt(0), static_cast<double>(0.1f));
  EXPECT_EQ(dv->floatAt(1), -2.5);
  EXPECT_TRUE(std::isinf(dv->floatAt(2)));  // beyond float32: the precision cost
  EXPECT_EQ(sv->ints(), (SmallVector<int64_t>{-3, 4}));
  EXPECT_EQ(uv->type.getElementType(), i32);
  EXPECT_EQ(uv->ints(), (SmallVector<int64_t>{65535, 1}));
  EXPECT_EQ(bv->floatAt(0), 1.0);
  EXPECT_EQ(bv->floatAt(1), -2.0);

  // Cast to INT16 casts to int32, to DOUBLE to float32.
  auto casts = r.ops("webnn.cast");
  ASSERT_EQ(casts.size(), 2u);
  EXPECT_EQ(cast<RankedTensorType>(casts[0]->getResult(0).getType()).getElementType(), i32);
  EXPECT_EQ(cast<RankedTensorType>(casts[1]->getResult(0).getType()).getElementType(), f32);

  auto outTypes = r.main()->getAttrOfType<ArrayAttr>("webnn.output_interface_types");
  ASSERT_TRUE(outTypes);
  std::vector<Type> outs;
  for (Attribute a : outTypes) outs.push_back(cast<TypeAttr>(a).getValue());
  EXPECT_EQ(outs, (std::vector<Type>{Float64Type::get(&ctx), IntegerType::get(&ctx, 16),
                                     IntegerType::get(&ctx, 16, IntegerType::Unsigned),
                                     BFloat16Type::get(&ctx), IntegerType::get(&ctx, 16),
                                     Float64Type::get(&ctx), f32}));

  // Sizes in messages are the declared type's.
  ModelBuilder bad;
  bad.input("x", {3}).output("y");
  bad.initializer("w", {3}, onnx::TensorProto::DOUBLE)->set_raw_data(std::string(12, '\0'));
  bad.node("Add", {"x", "w"}, {"y"}, "add");
  Imported rb = importFile(bad.save("baddouble.onnx"));
  EXPECT_FALSE(rb);
  EXPECT_NE(rb.firstError().find("tensor 'w' has 12 bytes of raw_data, 'tensor<3xf64>' needs 24"),
            std::string::npos)
      << rb.allErrors();
}

TEST(OnnxImport, Float64KeptWhenEveryOpHasAFloat64Form) {
  // Add, Sqrt, ReduceSum, Transpose and Cast all have float64 forms: the graph
  // computes in f64 (the dialect's extension), initializers keep every bit,
  // Cast to DOUBLE is a cast to f64, and nothing needs an interface type.
  ModelBuilder m;
  m.input("d", {3}, onnx::TensorProto::DOUBLE);
  m.input("f", {3}, onnx::TensorProto::FLOAT);
  auto *dd = m.initializer("dd", {3}, onnx::TensorProto::DOUBLE);
  for (double v : {0.1, -2.5, 1e300}) dd->add_double_data(v);
  m.node("Add", {"d", "dd"}, {"a"}, "a");
  m.node("Sqrt", {"a"}, {"r"}, "r");
  setInt(m.node("Cast", {"f"}, {"c"}, "c"), "to", onnx::TensorProto::DOUBLE);
  m.node("Mul", {"r", "c"}, {"y"}, "y");
  m.valueInfo(m.graph->add_output(), "y", {3}, onnx::TensorProto::DOUBLE);
  Imported r = importFile(m.save("float64.onnx"));
  ASSERT_TRUE(r) << r.allErrors();
  EXPECT_TRUE(r.remarks.empty());

  MLIRContext &ctx = *r.ctx;
  Type f64 = Float64Type::get(&ctx);
  auto inputs = r.ops("webnn.input");
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(cast<RankedTensorType>(inputs[0]->getResult(0).getType()).getElementType(), f64);
  EXPECT_FALSE(inputs[0]->hasAttr("webnn.interface_type"));
  auto adds = r.ops("webnn.add");
  ASSERT_EQ(adds.size(), 1u);
  auto dv = onnx_import::getConstantData(adds[0]->getOperand(1));
  ASSERT_TRUE(dv);
  EXPECT_EQ(dv->type.getElementType(), f64);
  EXPECT_EQ(dv->floatAt(0), 0.1);
  EXPECT_EQ(dv->floatAt(2), 1e300);
  auto casts = r.ops("webnn.cast");
  ASSERT_EQ(casts.size(), 1u);
  EXPECT_EQ(cast<RankedTensorType>(casts[0]->getResult(0).getType()).getElementType(), f64);
  EXPECT_EQ(r.main().getFunctionType().getResult(0), RankedTensorType::get({3}, f64));
  EXPECT_FALSE(r.main()->hasAttr("webnn.output_interface_types"));
}

TEST(OnnxImport, LargeInitializersBecomeResources) {
  ModelBuilder m;
  m.input("x", {32, 64}).floats("w", {64, 16}).output("y");  // 4 KiB of weights
  m.node("MatMul", {"x", "w"}, {"y"}, "mm");
  Imported r = importFile(m.save("resource.onnx"));
  ASSERT_TRUE(r) << r.allErrors();
  auto cst = r.ops("webnn.constant");
  ASSERT_EQ(cst.size(), 1u);
  auto value = cst[0]->getAttrOfType<ElementsAttr>("value");
  EXPECT_TRUE(isa<DenseResourceElementsAttr>(value));
  auto data = onnx_import::getConstantData(cst[0]->getResult(0));
  ASSERT_TRUE(data);
  EXPECT_EQ(data->floatAt(3), 1.5);
}

TEST(OnnxImport, ConstantInputsFromTensorFiles) {
  ModelBuilder m;
  m.input("x", {2, 3, 4}).input("shape", {2}, onnx::TensorProto::INT64).output("y");
  m.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  std::string model = m.save("reshape_input.onnx");
  Imported notConst = importFile(model);
  EXPECT_FALSE(notConst);
  EXPECT_EQ(notConst.firstError(),
            "node 'reshape' (Reshape): input 'shape' ('shape') must be a constant (an "
            "initializer or computable from constants)");

  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::INT64);
  t.add_dims(2);
  t.add_int64_data(6);
  t.add_int64_data(-1);
  std::string bytes;
  t.SerializeToString(&bytes);
  std::string pb = tempPath("shape.pb");
  writeBytes(pb, bytes);
  OnnxImportOptions opts;
  opts.constantInputs = {{"shape", pb}};
  Imported r = importFile(model, opts);
  ASSERT_TRUE(r) << r.allErrors();
  EXPECT_EQ(i64s(r.ops("webnn.reshape")[0], "newShape"), (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(r.ops("webnn.input").size(), 1u);

  t.set_data_type(onnx::TensorProto::INT32);  // the input is declared int64
  t.clear_int64_data();
  t.add_int32_data(6);
  t.add_int32_data(-1);
  t.SerializeToString(&bytes);
  writeBytes(pb, bytes);
  Imported wrongType = importFile(model, opts);
  EXPECT_FALSE(wrongType);
  EXPECT_NE(wrongType.firstError().find("does not match the input's declared type"),
            std::string::npos)
      << wrongType.allErrors();
}

TEST(OnnxOptions, ShapeFlags) {
  OnnxImportOptions o;
  std::string err;
  EXPECT_TRUE(parseShapeFlag("input=1x3x224x224", o, &err)) << err;
  EXPECT_TRUE(parseShapeFlag("batch:8", o, &err)) << err;
  EXPECT_TRUE(parseShapeFlag("x=seq:128", o, &err)) << err;
  EXPECT_TRUE(parseShapeFlag("s=", o, &err)) << err;
  ASSERT_EQ(o.shapes.size(), 2u);
  EXPECT_EQ(o.shapes[0].first, "input");
  EXPECT_EQ(o.shapes[0].second, (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_TRUE(o.shapes[1].second.empty());
  ASSERT_EQ(o.dimParams.size(), 2u);
  EXPECT_EQ(o.dimParams[0], (std::pair<std::string, int64_t>{"batch", 8}));
  EXPECT_EQ(o.dimParams[1], (std::pair<std::string, int64_t>{"seq", 128}));
  for (const char *bad : {"input", "input=1x0", "input=1xx2", "batch:", "batch:-1", "=2x2", ":3"})
    EXPECT_FALSE(parseShapeFlag(bad, o, &err)) << bad;
  EXPECT_TRUE(parseConstInputFlag("shape=/tmp/s.pb", o, &err));
  EXPECT_EQ(o.constantInputs.back().second, "/tmp/s.pb");
  EXPECT_FALSE(parseConstInputFlag("shape", o, &err));
}

// ------------------------------------------------------ the dispatch table
LogicalResult fakeA(onnx_import::NodeConverter &) { return success(); }
LogicalResult fakeB(onnx_import::NodeConverter &) { return failure(); }

TEST(OnnxOpTable, PicksNewestSinceVersionNotAboveOpset) {
  onnx_import::OpConverterTable t;
  t.add("", "Op", 13, fakeB);
  t.add("", "Op", 5, fakeA);
  EXPECT_EQ(t.lookup("", "Op", 4), nullptr);
  EXPECT_EQ(t.lookup("", "Op", 5), &fakeA);
  EXPECT_EQ(t.lookup("ai.onnx", "Op", 12), &fakeA);
  EXPECT_EQ(t.lookup("", "Op", 13), &fakeB);
  EXPECT_EQ(t.lookup("", "Op", 21), &fakeB);
  EXPECT_EQ(t.lookup("com.microsoft", "Op", 21), nullptr);
  EXPECT_NE(onnx_import::onnxOpConverters().lookup("", "Softmax", 11),
            onnx_import::onnxOpConverters().lookup("", "Softmax", 13));
}

// -------------------------------------- ONNX backend node tests (import only)
class OnnxNodeTest : public ::testing::TestWithParam<const char *> {};

TEST_P(OnnxNodeTest, Imports) {
  std::string dir = std::string(WEBNN_ONNX_NODE_TESTS_DIR "/") + GetParam();
  std::string path = dir + "/model.onnx";
  if (!llvm::sys::fs::exists(path)) GTEST_SKIP() << path << " is not installed";
  onnx::ModelProto model;
  std::string bytes = readBytes(path);
  ASSERT_TRUE(model.ParseFromString(bytes));
  // Operands these tests pass as graph inputs but a WebNN graph needs as
  // constants (Reshape's shape, Squeeze's axes, Clip's bounds) are frozen
  // from the test's own data.
  static const std::set<std::string> kFrozen = {"shape", "axes", "min", "max"};
  OnnxImportOptions opts;
  for (int k = 0; k < model.graph().input_size(); ++k)
    if (kFrozen.count(model.graph().input(k).name()))
      opts.constantInputs.emplace_back(model.graph().input(k).name(),
                                       dir + "/test_data_set_0/input_" + std::to_string(k) + ".pb");
  Imported r = importFile(path, opts);
  ASSERT_TRUE(r) << r.allErrors();
  EXPECT_EQ(r.main().getNumResults(), static_cast<unsigned>(model.graph().output_size()));
}

// Every installed node test either imports or fails with diagnostics (and
// never crashes): the robustness floor for models we do not support yet.
TEST(OnnxNodeTests, EveryModelImportsOrExplains) {
  std::error_code ec;
  int imported = 0, rejected = 0;
  std::map<std::string, int> reasons;
  for (llvm::sys::fs::directory_iterator it(WEBNN_ONNX_NODE_TESTS_DIR, ec), end; it != end && !ec;
       it.increment(ec)) {
    std::string path = it->path() + "/model.onnx";
    if (!llvm::sys::fs::exists(path)) continue;
    Imported r = importFile(path);
    if (r) {
      ++imported;
      EXPECT_TRUE(r.errors.empty()) << path << "\n" << r.allErrors();
    } else {
      ++rejected;
      EXPECT_FALSE(r.errors.empty()) << path << " failed without a diagnostic";
      std::string first = r.firstError();
      reasons[first.substr(0, first.find(':'))]++;
      if (getenv("WEBNN_ONNX_VERBOSE") && first.rfind("unsupported ONNX", 0) != 0)
        std::cout << path << ": " << first << "\n";
    }
  }
  if (imported + rejected == 0) GTEST_SKIP() << "libonnx-testdata is not installed";
  std::cout << "ONNX node tests: " << imported << " imported, " << rejected << " rejected\n";
  for (const auto &[reason, n] : reasons)
    if (n >= 10) std::cout << "  " << n << " x " << reason << "\n";
}

INSTANTIATE_TEST_SUITE_P(
    Backend, OnnxNodeTest,
    ::testing::Values("test_conv_with_autopad_same", "test_conv_with_strides_and_asymmetric_padding",
                      "test_conv_with_strides_padding", "test_gemm_all_attributes",
                      "test_gemm_default_scalar_bias", "test_gemm_transposeA", "test_relu",
                      "test_maxpool_2d_same_lower", "test_maxpool_2d_ceil",
                      "test_maxpool_2d_dilations", "test_maxpool_1d_default",
                      "test_averagepool_2d_pads_count_include_pad",
                      "test_averagepool_2d_precomputed_same_upper", "test_globalaveragepool",
                      "test_batchnorm_epsilon", "test_batchnorm_example",
                      "test_reshape_negative_extended_dims", "test_reshape_zero_and_negative_dim",
                      "test_reshape_reordered_all_dims", "test_transpose_all_permutations_3",
                      "test_transpose_default", "test_concat_3d_axis_negative_2",
                      "test_softmax_axis_0", "test_softmax_negative_axis", "test_flatten_axis0",
                      "test_flatten_negative_axis3", "test_matmul_4d", "test_clip_splitbounds",
                      "test_squeeze_negative_axes", "test_unsqueeze_unsorted_axes",
                      "test_dropout_default_mask", "test_shape_start_1_end_negative_1",
                      "test_gather_negative_indices", "test_identity", "test_sigmoid", "test_tanh"),
    [](const ::testing::TestParamInfo<const char *> &info) { return std::string(info.param); });

}  // namespace
