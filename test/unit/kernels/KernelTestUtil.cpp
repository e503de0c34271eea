#include "KernelTestUtil.h"

#include <cmath>
#include <limits>
#include <memory>

#include "runtime/backends/cpu/ThreadPool.h"
#include "runtime/backends/cpu/kernels/PackedSgemm.h"

namespace webnn::cpu::test {

using kernels::floatToHalf;
using kernels::halfToFloat;

std::vector<double> TestTensor::values() const {
  std::vector<double> out(static_cast<size_t>(count()));
  for (size_t i = 0; i < out.size(); ++i) {
    switch (dtype) {
      case DataType::kFloat32: out[i] = as<float>()[i]; break;
      case DataType::kFloat64: out[i] = as<double>()[i]; break;
      case DataType::kFloat16: out[i] = halfToFloat(as<uint16_t>()[i]); break;
      case DataType::kInt32: out[i] = as<int32_t>()[i]; break;
      case DataType::kUint32: out[i] = as<uint32_t>()[i]; break;
      case DataType::kInt64: out[i] = double(as<int64_t>()[i]); break;
      case DataType::kUint64: out[i] = double(as<uint64_t>()[i]); break;
      case DataType::kInt8: out[i] = as<int8_t>()[i]; break;
      case DataType::kUint8: out[i] = as<uint8_t>()[i]; break;
      default: out[i] = 0; break;
    }
  }
  return out;
}

TestTensor f16(Shape s, const std::vector<float> &v, bool c) {
  std::vector<uint16_t> h(v.size());
  for (size_t i = 0; i < v.size(); ++i) h[i] = floatToHalf(v[i]);
  return tensor(DataType::kFloat16, std::move(s), h, c);
}

template <typename T>
static std::vector<T> castAll(const std::vector<double> &v) {
  std::vector<T> r(v.size());
  for (size_t i = 0; i < v.size(); ++i) r[i] = T(v[i]);
  return r;
}

TestTensor fromDoubles(DataType dt, Shape s, const std::vector<double> &v, bool c) {
  switch (dt) {
    case DataType::kFloat32: return tensor(dt, s, castAll<float>(v), c);
    case DataType::kFloat64: return tensor(dt, s, v, c);
    case DataType::kFloat16: {
      std::vector<float> f(v.begin(), v.end());
      return f16(s, f, c);
    }
    case DataType::kInt32: return tensor(dt, s, castAll<int32_t>(v), c);
    case DataType::kUint32: return tensor(dt, s, castAll<uint32_t>(v), c);
    case DataType::kInt64: return tensor(dt, s, castAll<int64_t>(v), c);
    case DataType::kUint64: return tensor(dt, s, castAll<uint64_t>(v), c);
    case DataType::kInt8: return tensor(dt, s, castAll<int8_t>(v), c);
    default: return tensor(dt, s, castAll<uint8_t>(v), c);
  }
}

static AttributeValue makeAttr(AttributeValue::Kind k) {
  AttributeValue v;
  v.kind = k;
  return v;
}
OpCase &OpCase::attrInt(const std::string &n, int64_t x) {
  AttributeValue v = makeAttr(AttributeValue::Kind::kInt);
  v.i = x;
  attrs.set(n, v);
  return *this;
}
OpCase &OpCase::attrFloat(const std::string &n, double x) {
  AttributeValue v = makeAttr(AttributeValue::Kind::kFloat);
  v.f = x;
  attrs.set(n, v);
  return *this;
}
OpCase &OpCase::attrBool(const std::string &n, bool x) {
  AttributeValue v = makeAttr(AttributeValue::Kind::kBool);
  v.i = x ? 1 : 0;
  attrs.set(n, v);
  return *this;
}
OpCase &OpCase::attrString(const std::string &n, const std::string &x) {
  AttributeValue v = makeAttr(AttributeValue::Kind::kString);
  v.s = x;
  attrs.set(n, v);
  return *this;
}
OpCase &OpCase::attrInts(const std::string &n, const std::vector<int64_t> &x) {
  AttributeValue v = makeAttr(AttributeValue::Kind::kInts);
  v.ints = x;
  attrs.set(n, v);
  return *this;
}

int64_t broadcastIndex(const Shape &out, const Shape &in, int64_t o) {
  int64_t idx = 0, stride = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    size_t d = out.size() - 1 - i;
    int64_t c = o % out[d];
    o /= out[d];
    if (i < in.size()) {
      int64_t dim = in[in.size() - 1 - i];
      idx += (dim == 1 ? 0 : c) * stride;
      stride *= dim;
    }
  }
  return idx;
}

int64_t broadcastMatrixIndex(const Shape &operand, const Shape &batch, int64_t bi) {
  return broadcastIndex(batch, Shape(operand.begin(), operand.end() - 2), bi);
}

ScopedPackedSgemm::ScopedPackedSgemm(bool enabled) : saved_(kernels::packedSgemmEnabled()) {
  kernels::setPackedSgemmEnabled(enabled);
}
ScopedPackedSgemm::~ScopedPackedSgemm() { kernels::setPackedSgemmEnabled(saved_); }

Status runOp(OpCase &c, int threads) {
  KernelFactory f = findCpuKernel(c.op);
  if (!f) return unsupported("no CPU kernel for " + c.op);
  std::vector<OperandDesc> inDescs(c.inputs.size()), outDescs(c.outputs.size());
  NodeDesc node;
  node.op = c.op;
  node.name = "test";
  node.attributes = c.attrs;
  node.relaxedPrecision = c.relaxed;
  node.packed = c.packed;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (!c.inputs[i]) {
      node.inputs.push_back(nullptr);
      continue;
    }
    inDescs[i].dtype = c.inputs[i]->dtype;
    inDescs[i].shape = c.inputs[i]->shape;
    inDescs[i].constantData = c.inputs[i]->constant ? c.inputs[i]->bytes.data() : nullptr;
    node.inputs.push_back(&inDescs[i]);
  }
  for (size_t i = 0; i < c.outputs.size(); ++i) {
    outDescs[i].dtype = c.outputs[i].dtype;
    outDescs[i].shape = c.outputs[i].shape;
    node.outputs.push_back(&outDescs[i]);
  }
  std::unique_ptr<Kernel> k;
  Status s = f(node, &k);
  if (!s.isOk()) return s;
  std::vector<TensorBuffer> inBufs(c.inputs.size()), outBufs(c.outputs.size());
  std::vector<const TensorBuffer *> inPtrs;
  std::vector<TensorBuffer *> outPtrs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (!c.inputs[i]) {
      inPtrs.push_back(nullptr);
      continue;
    }
    inBufs[i] = TensorBuffer{c.inputs[i]->dtype, &c.inputs[i]->shape, c.inputs[i]->bytes.data()};
    inPtrs.push_back(&inBufs[i]);
  }
  for (size_t i = 0; i < c.outputs.size(); ++i) {
    TestTensor &o = c.outputs[i];
    uint64_t bytes = 0;
    tensorByteSize(o.dtype, o.shape, &bytes);
    // Poison so that unwritten elements show up.
    o.bytes.assign(size_t(bytes) + 1, 0xA5);
    outBufs[i] = TensorBuffer{o.dtype, &o.shape, o.bytes.data()};
    outPtrs.push_back(&outBufs[i]);
  }
  ThreadPool pool(threads);
  KernelContext ctx{inPtrs.data(), inPtrs.size(), outPtrs.data(), outPtrs.size(), &pool};
  k->run(ctx);
  for (TestTensor &o : c.outputs) {
    if (o.bytes.back() != 0xA5) return Status(StatusCode::kInternal, "kernel wrote past the end of its output");
    o.bytes.pop_back();
  }
  return Status::ok();
}

}  // namespace webnn::cpu::test
