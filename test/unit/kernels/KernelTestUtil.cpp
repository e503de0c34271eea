#include "KernelTestUtil.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <thread>
#include <type_traits>

#include "runtime/backends/cpu/DebugOptions.h"
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
      case DataType::kInt4:
      case DataType::kUint4: {  // two per byte, element 2k in the low nibble
        int v = (bytes[i / 2] >> (i % 2 * 4)) & 15;
        out[i] = dtype == DataType::kInt4 && v >= 8 ? v - 16 : v;
        break;
      }
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

// Narrow integers go through int64: a value outside the type (a negative
// one for uint8) then wraps as an integer conversion does, where a direct
// double-to-uint8 conversion is undefined (clang's UBSan reports it).
template <typename T>
static std::vector<T> castAll(const std::vector<double> &v) {
  std::vector<T> r(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if constexpr (std::is_integral_v<T> && sizeof(T) < 8)
      r[i] = T(int64_t(v[i]));
    else
      r[i] = T(v[i]);
  }
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

ScopedRunCounting::ScopedRunCounting() : saved_(debugOptions().countRuns.exchange(true)) {}
ScopedRunCounting::~ScopedRunCounting() { debugOptions().countRuns.store(saved_); }

ScopedPackedSgemm::ScopedPackedSgemm(bool enabled) : saved_(kernels::packedSgemmEnabled()) {
  kernels::setPackedSgemmEnabled(enabled);
}
ScopedPackedSgemm::~ScopedPackedSgemm() { kernels::setPackedSgemmEnabled(saved_); }

namespace {

// An OpCase as the executor would hand it to a kernel: its NodeDesc, and
// buffers over the case's tensors (outputs poisoned, one byte past the end
// to catch overruns).
struct BoundOp {
  std::vector<OperandDesc> inDescs, outDescs;
  NodeDesc node;
  std::vector<TensorBuffer> inBufs, outBufs;
  std::vector<const TensorBuffer *> inPtrs;
  std::vector<TensorBuffer *> outPtrs;
};

void bind(OpCase &c, BoundOp *b) {
  b->inDescs.resize(c.inputs.size());
  b->outDescs.resize(c.outputs.size());
  b->inBufs.resize(c.inputs.size());
  b->outBufs.resize(c.outputs.size());
  b->node.op = c.op;
  b->node.name = "test";
  b->node.attributes = c.attrs;
  b->node.relaxedPrecision = c.relaxed;
  b->node.packed = c.packed;
  b->node.outputOverInput = c.outputOverInput;  // as the arena plan tells the factory
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (!c.inputs[i]) {
      b->node.inputs.push_back(nullptr);
      b->inPtrs.push_back(nullptr);
      continue;
    }
    b->inDescs[i].dtype = c.inputs[i]->dtype;
    b->inDescs[i].shape = c.inputs[i]->shape;
    b->inDescs[i].constantData = c.inputs[i]->constant ? c.inputs[i]->bytes.data() : nullptr;
    b->node.inputs.push_back(&b->inDescs[i]);
    b->inBufs[i] = TensorBuffer{c.inputs[i]->dtype, &c.inputs[i]->shape, c.inputs[i]->bytes.data()};
    b->inPtrs.push_back(&b->inBufs[i]);
  }
  for (size_t i = 0; i < c.outputs.size(); ++i) {
    TestTensor &o = c.outputs[i];
    b->outDescs[i].dtype = o.dtype;
    b->outDescs[i].shape = o.shape;
    b->node.outputs.push_back(&b->outDescs[i]);
    uint64_t bytes = 0;
    tensorByteSize(o.dtype, o.shape, &bytes);
    o.bytes.assign(size_t(bytes) + 1, 0xA5);
    b->outBufs[i] = TensorBuffer{o.dtype, &o.shape, o.bytes.data()};
    if (i == 0 && c.outputOverInput >= 0) b->outBufs[i].data = c.inputs[size_t(c.outputOverInput)]->bytes.data();
    b->outPtrs.push_back(&b->outBufs[i]);
  }
}

Status checkOutputs(OpCase &c) {
  for (TestTensor &o : c.outputs) {
    if (o.bytes.back() != 0xA5) return Status(StatusCode::kInternal, "kernel wrote past the end of its output");
    o.bytes.pop_back();
  }
  if (c.outputOverInput >= 0) {
    const std::vector<uint8_t> &over = c.inputs[size_t(c.outputOverInput)]->bytes;
    if (over.size() != c.outputs[0].bytes.size())
      return Status(StatusCode::kInternal, "an in-place output must have its input's size");
    c.outputs[0].bytes = over;
  }
  return Status::ok();
}

}  // namespace

Status runOp(OpCase &c, int threads) {
  KernelFactory f = findCpuKernel(c.op);
  if (!f) return unsupported("no CPU kernel for " + c.op);
  BoundOp b;
  bind(c, &b);
  std::unique_ptr<Kernel> k;
  Status s = f(b.node, &k);
  if (!s.isOk()) return s;
  // What KernelResolution checks before the plan's in-place output runs.
  if (c.outputOverInput >= 0 && !k->allowsInPlace(0, size_t(c.outputOverInput)))
    return Status(StatusCode::kInternal, "the kernel does not allow output 0 over input " +
                                             std::to_string(c.outputOverInput));
  ThreadPool pool(threads);
  KernelContext ctx{b.inPtrs.data(), b.inPtrs.size(), b.outPtrs.data(), b.outPtrs.size(), &pool};
  WEBNN_RETURN_IF_ERROR(k->run(ctx));
  return checkOutputs(c);
}

Status runPair(OpCase &producer, OpCase &consumer, int threads, bool *fused, bool warmUpBeside) {
  BoundOp a, b;
  bind(producer, &a);
  bind(consumer, &b);
  std::unique_ptr<Kernel> k;
  Status s = makeCpuKernelPair(a.node, b.node, &k);
  if (!s.isOk()) return s;
  *fused = k != nullptr;
  if (!k) return Status::ok();
  // The consumer's output over one of its inputs: the pair's run-time input
  // after the producer's (KernelResolution's check).
  if (consumer.outputOverInput >= 0 &&
      !k->allowsInPlace(0, producer.inputs.size() + size_t(consumer.outputOverInput)))
    return Status(StatusCode::kInternal, "the pair kernel does not allow output 0 over the consumer's input " +
                                             std::to_string(consumer.outputOverInput));
  std::vector<const TensorBuffer *> inputs(a.inPtrs);
  inputs.push_back(nullptr);  // the intermediate: never computed
  inputs.insert(inputs.end(), b.inPtrs.begin() + 1, b.inPtrs.end());
  ThreadPool pool(threads);
  KernelContext ctx{inputs.data(), inputs.size(), b.outPtrs.data(), b.outPtrs.size(), &pool};
  std::thread warm;
  if (warmUpBeside) warm = std::thread([&] { k->warmUp(threads); });
  Status s2 = k->run(ctx);
  if (warm.joinable()) warm.join();
  WEBNN_RETURN_IF_ERROR(s2);
  WEBNN_RETURN_IF_ERROR(checkOutputs(producer));
  return checkOutputs(consumer);
}

Status runPairOverInput(OpCase &producer, OpCase &consumer, int threads, std::vector<float> *out, bool *fused,
                        int64_t yOffset, std::vector<float> *intermediate) {
  std::vector<OperandDesc> pIn(producer.inputs.size()), cIn(consumer.inputs.size());
  OperandDesc mid{}, y{};
  mid.dtype = y.dtype = DataType::kFloat32;
  mid.shape = producer.outputs[0].shape, y.shape = consumer.outputs[0].shape;
  NodeDesc a, b;
  a.op = producer.op, b.op = consumer.op;
  a.name = b.name = "test";
  a.attributes = producer.attrs, b.attributes = consumer.attrs;
  auto describe = [](const std::optional<TestTensor> &t, OperandDesc *d) -> const OperandDesc * {
    if (!t) return nullptr;
    d->dtype = t->dtype, d->shape = t->shape, d->constantData = t->constant ? t->bytes.data() : nullptr;
    return d;
  };
  for (size_t i = 0; i < producer.inputs.size(); ++i) a.inputs.push_back(describe(producer.inputs[i], &pIn[i]));
  a.outputs.push_back(&mid);
  b.inputs.push_back(&mid);
  for (size_t i = 1; i < consumer.inputs.size(); ++i) b.inputs.push_back(describe(consumer.inputs[i], &cIn[i]));
  b.outputs.push_back(&y);
  std::unique_ptr<Kernel> k;
  WEBNN_RETURN_IF_ERROR(makeCpuKernelPair(a, b, &k));
  *fused = k != nullptr;
  if (!k) return Status::ok();
  const int64_t xCount = producer.inputs[0]->count(), yCount = consumer.outputs[0].count();
  const int64_t xAt = std::max<int64_t>(0, -yOffset), yAt = xAt + yOffset;
  std::vector<float> shared(size_t(std::max(xAt + xCount, yAt + yCount)), 0.f),
      midBytes(size_t(producer.outputs[0].count()));
  std::copy_n(producer.inputs[0]->as<float>(), xCount, shared.begin() + xAt);
  std::vector<TensorBuffer> bufs;
  bufs.reserve(producer.inputs.size() + consumer.inputs.size() + 1);
  std::vector<const TensorBuffer *> ins;
  auto bind = [&](const std::optional<TestTensor> &t, void *data) {
    if (!t) return ins.push_back(nullptr);
    bufs.push_back(TensorBuffer{t->dtype, &t->shape, data});
    ins.push_back(&bufs.back());
  };
  bind(producer.inputs[0], shared.data() + xAt);
  for (size_t i = 1; i < producer.inputs.size(); ++i)
    bind(producer.inputs[i], const_cast<uint8_t *>(producer.inputs[i]->bytes.data()));
  bufs.push_back(TensorBuffer{DataType::kFloat32, &mid.shape, midBytes.data()});
  ins.push_back(&bufs.back());
  for (size_t i = 1; i < consumer.inputs.size(); ++i)
    bind(consumer.inputs[i], const_cast<uint8_t *>(consumer.inputs[i]->bytes.data()));
  TensorBuffer yBuf{DataType::kFloat32, &y.shape, shared.data() + yAt};
  TensorBuffer *outs[] = {&yBuf};
  ThreadPool pool(threads);
  KernelContext ctx{ins.data(), ins.size(), outs, 1, &pool};
  WEBNN_RETURN_IF_ERROR(k->run(ctx));
  out->assign(shared.begin() + yAt, shared.begin() + yAt + yCount);
  if (intermediate) *intermediate = std::move(midBytes);
  return Status::ok();
}

std::vector<float> uniformFloats(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float &x : v) x = d(rng);
  return v;
}

std::vector<float> roundFor(DataType dt, std::vector<float> v) {
  if (dt == DataType::kFloat16)
    for (float &x : v) x = kernels::halfToFloat(kernels::floatToHalf(x));
  return v;
}

TestTensor makeTensor(DataType dt, Shape s, const std::vector<float> &v, bool constant) {
  return dt == DataType::kFloat16 ? f16(std::move(s), v, constant) : f32(std::move(s), v, constant);
}

}  // namespace webnn::cpu::test
