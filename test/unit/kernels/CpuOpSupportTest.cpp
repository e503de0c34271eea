// The CPU op support table (runtime/backends/cpu/CpuOpSupport.cpp) against
// the kernel factories it restates: the same op set, and for every op, every
// data type and every rank up to kCpuMaxRank, a plain node of that type and
// rank is made by the factory exactly when the table takes it. A second sweep
// varies the operand whose type is chosen apart from the main one (cast's
// output, gather's indices, quantizeLinear's zero point, argMax's output).
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

#include "runtime/backends/cpu/CpuOpSupport.h"
#include "runtime/backends/cpu/Kernel.h"
#include "runtime/core/OpSupport.h"

namespace webnn::cpu::test {
namespace {

using T = DataType;

// A node of some op over operands it owns.
struct TestNode {
  std::vector<OperandDesc> ins, outs;
  NodeDesc node;
  void in(DataType dt, Shape s) { ins.push_back(OperandDesc{dt, std::move(s), nullptr}); }
  // A constant operand (zero bytes; the factories read scales and zero points).
  void constant(DataType dt, Shape s) {
    alignas(64) static const uint8_t zeros[4096] = {};
    ins.push_back(OperandDesc{dt, std::move(s), zeros});
  }
  void out(DataType dt, Shape s) { outs.push_back(OperandDesc{dt, std::move(s), nullptr}); }
  void ints(const char *name, std::vector<int64_t> v) {
    node.attributes.set(name, AttributeValue{AttributeValue::Kind::kInts, 0, 0, "", std::move(v), {}});
  }
  void integer(const char *name, int64_t v) {
    node.attributes.set(name, AttributeValue{AttributeValue::Kind::kInt, v, 0, "", {}, {}});
  }
  void string(const char *name, std::string v) {
    node.attributes.set(name, AttributeValue{AttributeValue::Kind::kString, 0, 0, std::move(v), {}, {}});
  }
  // Points the node at its operands (after the last in()/out()).
  void finish(const std::string &op) {
    node.op = op;
    node.name = "n";
    for (const OperandDesc &o : ins) node.inputs.push_back(&o);
    for (const OperandDesc &o : outs) node.outputs.push_back(&o);
  }
};

// Rank r, every dimension 2.
Shape dims(size_t r) { return Shape(r, 2); }

// Builds a plain node of the op with main data type `dt` at rank `r`, the
// separately chosen operand of type `aux`. Ops with a fixed geometry (4-D,
// recurrent, fused) get a stand-in of rank `r` for their leading operand
// when `r` is not theirs. False: no node (none does today).
using Builder = std::function<bool(DataType dt, size_t r, DataType aux, TestNode *n)>;

struct OpBuilder {
  Builder build;
  DataType aux = T::kFloat32;  // the aux type of the main sweep
  bool sweepAux = false;       // also sweep aux over every type, the main type `auxMain`
  DataType auxMain = T::kFloat32;
};

std::map<std::string, OpBuilder> builders() {
  std::map<std::string, OpBuilder> b;
  auto same = [](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, dims(r));
    n->out(dt, dims(r));
    return true;
  };
  for (const char *op : {"abs", "neg", "sign", "relu", "identity", "ceil", "floor", "exp", "log", "sqrt", "sigmoid",
                         "tanh", "erf", "reciprocal", "sin", "cos", "tan", "roundEven", "hardSwish", "softsign",
                         "softplus", "gelu", "elu", "leakyRelu", "hardSigmoid", "linear", "clamp", "logicalNot",
                         "reverse", "triangular"})
    b[op] = {same};
  auto binary = [](DataType outType) {
    return [outType](DataType dt, size_t r, DataType, TestNode *n) {
      n->in(dt, dims(r));
      n->in(dt, dims(r));
      n->out(outType == T::kInt4 ? dt : outType, dims(r));
      return true;
    };
  };
  for (const char *op : {"add", "sub", "mul", "div", "max", "min", "pow", "prelu"}) b[op] = {binary(T::kInt4)};
  for (const char *op : {"equal", "notEqual", "greater", "greaterOrEqual", "lesser", "lesserOrEqual", "logicalAnd",
                         "logicalOr", "logicalXor"})
    b[op] = {binary(T::kUint8)};
  for (const char *op : {"isNaN", "isInfinite"})
    b[op] = {[](DataType dt, size_t r, DataType, TestNode *n) {
      n->in(dt, dims(r));
      n->out(T::kUint8, dims(r));
      return true;
    }};
  b["cast"] = {[](DataType dt, size_t r, DataType aux, TestNode *n) {
                 n->in(dt, dims(r));
                 n->out(aux, dims(r));
                 n->string("type", std::string(dataTypeName(aux)));
                 return true;
               },
               T::kFloat32, true};
  b["where"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(T::kUint8, dims(r));
    n->in(dt, dims(r));
    n->in(dt, dims(r));
    n->out(dt, dims(r));
    return true;
  }};
  // Reductions over every axis (the default) to a scalar.
  for (const char *op : {"reduceL1", "reduceL2", "reduceLogSum", "reduceLogSumExp", "reduceMax", "reduceMean",
                         "reduceMin", "reduceProduct", "reduceSum", "reduceSumSquare"})
    b[op] = {[](DataType dt, size_t r, DataType, TestNode *n) {
      n->in(dt, dims(r));
      n->out(dt, {});
      return true;
    }};
  for (const char *op : {"argMax", "argMin"})
    b[op] = {[](DataType dt, size_t r, DataType aux, TestNode *n) {
               n->in(dt, dims(r));
               n->out(aux, dims(r ? r - 1 : 0));
               n->integer("axis", 0);
               n->string("outputDataType", std::string(dataTypeName(aux)));
               return true;
             },
             T::kInt32, true};
  b["cumulativeSum"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, dims(r));
    n->out(dt, dims(r));
    n->integer("axis", 0);
    return true;
  }};
  b["softmax"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, dims(r));
    n->out(dt, dims(r));
    n->integer("axis", r ? int64_t(r) - 1 : 0);
    return true;
  }};
  // Data movement.
  b["reshape"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, dims(r));
    n->out(dt, {int64_t(1) << r});
    n->ints("newShape", {int64_t(1) << r});
    return true;
  }};
  b["expand"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, dims(r));
    n->out(dt, dims(r));
    n->ints("newShape", dims(r));
    return true;
  }};
  b["transpose"] = {same};
  b["slice"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, dims(r));
    n->out(dt, Shape(r, 1));
    n->ints("starts", Shape(r, 1));
    n->ints("sizes", Shape(r, 1));
    return true;
  }};
  b["tile"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, dims(r));
    n->out(dt, dims(r));
    n->ints("repetitions", Shape(r, 1));
    return true;
  }};
  b["pad"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, dims(r));
    n->out(dt, Shape(r, 3));
    n->ints("beginningPadding", Shape(r, 1));
    n->ints("endingPadding", Shape(r, 0));
    return true;
  }};
  b["concat"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    Shape o = dims(r);
    if (r) o[0] = 4;
    n->in(dt, dims(r));
    n->in(dt, dims(r));
    n->out(dt, o);
    n->integer("axis", 0);
    return true;
  }};
  b["channelShuffle"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, dims(r));
    n->in(dt, dims(r));
    n->out(dt, dims(r));
    n->out(dt, dims(r));
    n->integer("axis", 0);
    n->integer("groups", 2);
    n->ints("splits", {2, 2});
    return true;
  }};
  b["split"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    Shape o = dims(r);
    if (r) o[0] = 1;
    n->in(dt, dims(r));
    n->out(dt, o);
    n->out(dt, o);
    n->ints("splits", {1, 1});
    n->integer("axis", 0);
    return true;
  }};
  // Indexing: `aux` is the indices' type.
  b["gather"] = {[](DataType dt, size_t r, DataType aux, TestNode *n) {
                   n->in(dt, dims(r));
                   n->in(aux, {});
                   n->out(dt, dims(r ? r - 1 : 0));
                   return true;
                 },
                 T::kInt32, true};
  b["gatherElements"] = {[](DataType dt, size_t r, DataType aux, TestNode *n) {
                           n->in(dt, dims(r));
                           n->in(aux, dims(r));
                           n->out(dt, dims(r));
                           return true;
                         },
                         T::kInt32, true};
  b["gatherND"] = {[](DataType dt, size_t r, DataType aux, TestNode *n) {
                     n->in(dt, dims(r));
                     n->in(aux, {1, int64_t(r)});
                     n->out(dt, {1});
                     return true;
                   },
                   T::kInt32, true};
  b["scatterElements"] = {[](DataType dt, size_t r, DataType aux, TestNode *n) {
                            n->in(dt, dims(r));
                            n->in(aux, dims(r));
                            n->in(dt, dims(r));
                            n->out(dt, dims(r));
                            return true;
                          },
                          T::kInt32, true};
  b["scatterND"] = {[](DataType dt, size_t r, DataType aux, TestNode *n) {
                      n->in(dt, dims(r));
                      n->in(aux, {1, int64_t(r)});
                      n->in(dt, {1});
                      n->out(dt, dims(r));
                      return true;
                    },
                    T::kInt32, true};
  // Products.
  for (const char *op : {"matmul", "fusedMatmul", "gemm"})
    b[op] = {[](DataType dt, size_t r, DataType, TestNode *n) {
      n->in(dt, dims(r));
      n->in(dt, dims(r));
      n->out(dt, dims(r));
      return true;
    }};
  b["fusedAttention"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    for (int i = 0; i < 3; ++i) n->in(dt, dims(r));
    n->out(dt, dims(r));
    n->integer("heads", 1);
    return true;
  }};
  // 4-D ops: rank 4 is the real geometry, other ranks a same-rank stand-in.
  auto fourD = [](size_t r, Shape s) { return r == 4 ? s : dims(r); };
  for (const char *op : {"conv2d", "fusedConv2d"})
    b[op] = {[fourD](DataType dt, size_t r, DataType, TestNode *n) {
      n->in(dt, fourD(r, {1, 2, 5, 5}));
      n->in(dt, {3, 2, 3, 3});
      n->in(dt, {3});
      n->out(dt, fourD(r, {1, 3, 3, 3}));
      return true;
    }};
  // quantizedConv2d: an 8-bit nhwc input with its zero point's type, int8 ohwi filter.
  b["quantizedConv2d"] = {[fourD](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, fourD(r, {1, 5, 5, 2}));
    n->constant(T::kFloat32, {1});
    n->constant(dt == T::kInt8 ? T::kInt8 : T::kUint8, {1});
    n->constant(T::kInt8, {3, 3, 3, 2});
    n->constant(T::kFloat32, {3});
    n->out(T::kFloat32, fourD(r, {1, 3, 3, 3}));
    return true;
  }};
  b["convTranspose2d"] = {[fourD](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, fourD(r, {1, 2, 3, 3}));
    n->in(dt, {2, 3, 3, 3});
    n->in(dt, {3});
    n->out(dt, fourD(r, {1, 3, 5, 5}));
    return true;
  }};
  for (const char *op : {"averagePool2d", "maxPool2d", "l2Pool2d"})
    b[op] = {[fourD](DataType dt, size_t r, DataType, TestNode *n) {
      n->in(dt, fourD(r, {1, 2, 4, 4}));
      n->out(dt, fourD(r, {1, 2, 1, 1}));
      return true;
    }};
  b["resample2d"] = {[fourD](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, fourD(r, {1, 2, 2, 2}));
    n->out(dt, fourD(r, {1, 2, 4, 4}));
    return true;
  }};
  b["instanceNormalization"] = {[fourD](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, fourD(r, {1, 2, 3, 3}));
    n->in(dt, {2});
    n->in(dt, {2});
    n->out(dt, fourD(r, {1, 2, 3, 3}));
    return true;
  }};
  b["batchNormalization"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, dims(r));
    for (int i = 0; i < 4; ++i) n->in(dt, {2});
    n->out(dt, dims(r));
    n->integer("axis", 0);
    return true;
  }};
  b["layerNormalization"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, dims(r));
    n->in(dt, dims(r ? r - 1 : 0));
    n->in(dt, dims(r ? r - 1 : 0));
    n->out(dt, dims(r));
    return true;
  }};
  // Quantization: `aux` is quantizeLinear's integer side, dequantizeLinear's float side.
  b["quantizeLinear"] = {[](DataType dt, size_t r, DataType aux, TestNode *n) {
                           n->in(dt, dims(r));
                           n->in(dt, dims(r));
                           n->in(aux, dims(r));
                           n->out(aux, dims(r));
                           return true;
                         },
                         T::kInt8, true};
  b["dequantizeLinear"] = {[](DataType dt, size_t r, DataType aux, TestNode *n) {
                             n->in(dt, dims(r));
                             n->in(aux, dims(r));
                             n->in(dt, dims(r));
                             n->out(aux, dims(r));
                             return true;
                           },
                           T::kFloat32, true, T::kInt8};
  // Recurrent ops: one geometry (hidden size 2, input size 3, batch 1, one step);
  // at other ranks the input is a stand-in of that rank.
  b["gruCell"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, r == 2 ? Shape{1, 3} : dims(r));
    n->in(dt, {6, 3});
    n->in(dt, {6, 2});
    n->in(dt, {1, 2});
    n->out(dt, {1, 2});
    n->integer("hiddenSize", 2);
    return true;
  }};
  b["lstmCell"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, r == 2 ? Shape{1, 3} : dims(r));
    n->in(dt, {8, 3});
    n->in(dt, {8, 2});
    n->in(dt, {1, 2});
    n->in(dt, {1, 2});
    n->out(dt, {1, 2});
    n->out(dt, {1, 2});
    n->integer("hiddenSize", 2);
    return true;
  }};
  b["gru"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, r == 3 ? Shape{1, 1, 3} : dims(r));
    n->in(dt, {1, 6, 3});
    n->in(dt, {1, 6, 2});
    n->out(dt, {1, 1, 2});
    n->integer("hiddenSize", 2);
    n->integer("steps", 1);
    return true;
  }};
  b["lstm"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, r == 3 ? Shape{1, 1, 3} : dims(r));
    n->in(dt, {1, 8, 3});
    n->in(dt, {1, 8, 2});
    n->out(dt, {1, 1, 2});
    n->out(dt, {1, 1, 2});
    n->integer("hiddenSize", 2);
    n->integer("steps", 1);
    return true;
  }};
  // Fused LLM ops: the leading operand's type; the others float32 (a
  // float16 node runs through the float32 kernel, so they follow it there).
  b["rmsNormalization"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, dims(r));
    n->in(T::kFloat32, r ? Shape{2} : Shape{});
    n->out(dt, dims(r));
    Shape stat = dims(r);
    if (r) stat.back() = 1;
    n->out(T::kFloat32, stat);
    return true;
  }};
  b["skipRmsNormalization"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, dims(r));
    n->in(dt, dims(r));
    n->in(dt, {2});
    n->out(dt, dims(r));
    Shape stat = dims(r);
    if (r) stat.back() = 1;
    n->out(T::kFloat32, stat);
    n->out(dt, dims(r));
    return true;
  }};
  // rotaryEmbedding: [B, S, hidden] or [B, heads, S, D], one head of 4.
  b["rotaryEmbedding"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    Shape x = r == 3 ? Shape{1, 1, 4} : r == 4 ? Shape{1, 1, 1, 4} : dims(r);
    n->in(dt, x);
    n->in(T::kInt64, {1, 1});
    n->constant(T::kFloat32, {4, 2});
    n->constant(T::kFloat32, {4, 2});
    n->out(dt, x);
    n->integer("numHeads", 1);
    return true;
  }};
  // groupQueryAttention: one head of 2, one past row, separate key and value.
  b["groupQueryAttention"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, r == 3 ? Shape{1, 1, 2} : dims(r));
    n->in(dt, {1, 1, 2});
    n->in(dt, {1, 1, 2});
    n->in(dt, {1, 1, 1, 2});
    n->in(dt, {1, 1, 1, 2});
    n->in(T::kInt32, {1});
    n->out(dt, {1, 1, 2});
    n->out(dt, {1, 1, 2, 2});
    n->out(dt, {1, 1, 2, 2});
    n->integer("numHeads", 1);
    n->integer("kvNumHeads", 1);
    return true;
  }};
  // matmulNBits: K 16 in one 4-bit block, N 2.
  b["matmulNBits"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    Shape a = dims(r), y = dims(r);
    if (r) a.back() = 16;
    n->in(dt, a);
    n->constant(T::kUint8, {2, 1, 8});
    n->constant(T::kFloat32, {2, 1});
    n->out(dt, y);
    n->integer("K", 16);
    n->integer("N", 2);
    n->integer("blockSize", 16);
    n->integer("bits", 4);
    return true;
  }};
  // quantizedMatmul: a float32 or quantized with its zero point's type, b int8 [2, 2].
  b["quantizedMatmul"] = {[](DataType dt, size_t r, DataType, TestNode *n) {
    n->in(dt, dims(r));
    n->constant(T::kFloat32, {1});
    n->constant(dt == T::kFloat32 ? T::kInt8 : dt, {1});
    n->constant(T::kInt8, {2, 2});
    n->constant(T::kFloat32, {1});
    n->constant(T::kInt8, {1});
    n->out(T::kFloat32, dims(r));
    return true;
  }};
  return b;
}

TEST(CpuOpSupport, ListsExactlyTheOpsWithKernels) {
  std::set<std::string> kernels, table;
  for (std::string_view op : cpuKernelNames()) kernels.insert(std::string(op));
  for (const rt::OpLimits &l : cpuOpSupport().ops) table.insert(l.op);
  EXPECT_EQ(kernels, table);
  EXPECT_EQ(cpuOpSupport().backend, "cpu");
}

// Checks the factory and the table agree on one node; counts what each took.
struct Tally {
  int agreed = 0, accepted = 0;
};
void expectAgree(TestNode &n, DataType dt, size_t r, DataType aux, Tally *tally) {
  KernelFactory f = findCpuKernel(n.node.op);
  ASSERT_TRUE(f) << n.node.op;
  std::unique_ptr<Kernel> k;
  Status s = f(n.node, &k);
  std::string why;
  bool table = rt::withinLimits(cpuOpSupport(), n.node, &why);
  EXPECT_EQ(s.isOk(), table) << n.node.op << " " << dataTypeName(dt) << " rank " << r << " (aux "
                             << dataTypeName(aux) << "): factory says '" << (s.isOk() ? "ok" : s.message())
                             << "', table says '" << (table ? "ok" : why) << "'";
  tally->agreed += s.isOk() == table;
  tally->accepted += s.isOk() && table;
}

TEST(CpuOpSupport, AgreesWithTheFactoriesOnEveryTypeAndRank) {
  const std::map<std::string, OpBuilder> all = builders();
  std::vector<std::string> unbuilt;
  for (const rt::OpLimits &l : cpuOpSupport().ops) {
    auto it = all.find(l.op);
    if (it == all.end()) {
      unbuilt.push_back(l.op);
      continue;
    }
    const OpBuilder &ob = it->second;
    Tally tally;
    int tried = 0;
    for (int k = 0; k < kNumDataTypes; ++k)
      for (size_t r = 0; r <= kCpuMaxRank; ++r) {
        const DataType dt = DataType(k);
        TestNode n;
        if (!ob.build(dt, r, ob.aux, &n)) continue;
        n.finish(l.op);
        ++tried;
        expectAgree(n, dt, r, ob.aux, &tally);
        // Each type and rank the table lists for the leading operand is one
        // this node reaches (else the sweep proves nothing about it).
        const rt::TensorLimits &lead = l.inputs[0].limits;
        if (lead.allows(dt, r)) {
          std::string why;
          EXPECT_TRUE(rt::withinLimits(cpuOpSupport(), n.node, &why))
              << l.op << " " << dataTypeName(dt) << " rank " << r << ": the test's node leaves the table: " << why;
        }
      }
    if (ob.sweepAux)
      for (int k = 0; k < kNumDataTypes; ++k) {
        const DataType aux = DataType(k);
        TestNode n;
        if (!ob.build(ob.auxMain, 2, aux, &n)) continue;
        n.finish(l.op);
        ++tried;
        expectAgree(n, ob.auxMain, 2, aux, &tally);
      }
    EXPECT_GT(tally.accepted, 0) << l.op << ": no node taken by both (the builder is wrong)";
    EXPECT_EQ(tally.agreed, tried) << l.op;
  }
  // Every op of the table has a builder.
  EXPECT_EQ(unbuilt, std::vector<std::string>({}));
}

// Operands after the leading one, at types and ranks the table excludes:
// the factory refuses them too (and takes the listed neighbours).
TEST(CpuOpSupport, AgreesWithTheFactoriesOnOtherOperands) {
  Tally tally;
  int tried = 0;
  auto check = [&](TestNode &n, const char *op) {
    n.finish(op);
    ++tried;
    expectAgree(n, n.ins[0].dtype, n.ins[0].shape.size(), n.ins.size() > 1 ? n.ins[1].dtype : T::kFloat32, &tally);
  };
  for (Shape filter : {Shape{3, 2, 3, 3}, Shape{3, 2, 9}, Shape{1, 3, 2, 3, 3}})
    for (Shape bias : {Shape{3}, Shape{1, 3}}) {
      TestNode n;
      n.in(T::kFloat32, {1, 2, 5, 5});
      n.in(T::kFloat32, filter);
      n.in(T::kFloat32, bias);
      n.out(T::kFloat32, {1, 3, 3, 3});
      check(n, "conv2d");
    }
  for (Shape mean : {Shape{2}, Shape{1, 2}}) {
    TestNode n;
    n.in(T::kFloat32, {2, 2});
    for (int i = 0; i < 4; ++i) n.in(T::kFloat32, mean);
    n.out(T::kFloat32, {2, 2});
    n.integer("axis", 0);
    check(n, "batchNormalization");
  }
  for (Shape c : {Shape{}, Shape{2}, Shape{2, 2}, Shape{1, 2, 2}}) {
    TestNode n;
    n.in(T::kFloat32, {2, 2});
    n.in(T::kFloat32, {2, 2});
    n.in(T::kFloat32, c);
    n.out(T::kFloat32, {2, 2});
    check(n, "gemm");
  }
  for (DataType scale : {T::kFloat32, T::kFloat16, T::kInt32}) {
    TestNode n;
    n.in(T::kInt8, {2, 2});
    n.in(scale, {2, 2});
    n.in(T::kInt8, {2, 2});
    n.out(scale, {2, 2});
    check(n, "dequantizeLinear");
  }
  for (DataType condition : {T::kUint8, T::kInt8, T::kFloat32}) {
    TestNode n;
    n.in(condition, {2});
    n.in(T::kFloat32, {2});
    n.in(T::kFloat32, {2});
    n.out(T::kFloat32, {2});
    check(n, "where");
  }
  for (DataType output : {T::kUint8, T::kFloat32}) {
    TestNode n;
    n.in(T::kFloat32, {2});
    n.in(T::kFloat32, {2});
    n.out(output, {2});
    check(n, "equal");
  }
  EXPECT_EQ(tally.agreed, tried);
  // Taken: conv2d, batchNormalization, where and equal's plain node, gemm's
  // c of rank 0 to 2, dequantizeLinear's float32 and float16 scales.
  EXPECT_EQ(tally.accepted, 9);
}

TEST(CpuOpSupport, RefusalNamesTheOperand) {
  TestNode n;
  n.in(T::kInt8, {1, 2, 5, 5});
  n.in(T::kInt8, {3, 2, 3, 3});
  n.out(T::kInt8, {1, 3, 3, 3});
  n.finish("conv2d");
  std::string why;
  EXPECT_FALSE(rt::withinLimits(cpuOpSupport(), n.node, &why));
  EXPECT_EQ(why, "input 'input' (int8, rank 4): allowed float32, float16 of rank 4");
  TestNode unknown;
  unknown.in(T::kFloat32, {2});
  unknown.out(T::kFloat32, {2});
  unknown.finish("noSuchOp");
  EXPECT_FALSE(rt::withinLimits(cpuOpSupport(), unknown.node, &why));
  EXPECT_EQ(why, "backend 'cpu' has no kernel for noSuchOp");
}

TEST(CpuOpSupport, JsonHasTheSpecShape) {
  std::string j = rt::opSupportLimitsJson(cpuOpSupport());
  EXPECT_EQ(j.rfind("{\"backend\": \"cpu\", \"preferredInputLayout\": \"nchw\"", 0), 0u) << j.substr(0, 200);
  EXPECT_NE(j.find("\"conv2d\": {\"input\": {\"dataTypes\": [\"float32\", \"float16\"], \"rankRange\": "
                   "{\"min\": 4, \"max\": 4}}"),
            std::string::npos);
  EXPECT_NE(j.find("\"lstm\": {"), std::string::npos);
}

}  // namespace
}  // namespace webnn::cpu::test
