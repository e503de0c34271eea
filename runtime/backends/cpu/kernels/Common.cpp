#include "runtime/backends/cpu/kernels/Common.h"

#include <algorithm>
#include <cstdint>
#include <string>

#if WEBNN_HAVE_ONEDNN
#include "runtime/backends/cpu/onednn/OneDnn.h"
#endif

namespace webnn::cpu::kernels {

Status nodeError(const NodeDesc &node, const std::string &msg) {
  return invalidArgument(node.op + " node '" + node.name + "': " + msg);
}
Status nodeUnsupported(const NodeDesc &node, const std::string &msg) {
  return unsupported(node.op + " node '" + node.name + "': " + msg);
}

Status checkArity(const NodeDesc &node, size_t minIn, size_t maxIn, size_t numOut) {
  if (node.inputs.size() < minIn || node.inputs.size() > maxIn)
    return nodeError(node, "expected " + std::to_string(minIn) +
                               (minIn == maxIn ? "" : ".." + std::to_string(maxIn)) + " operands, got " +
                               std::to_string(node.inputs.size()));
  for (size_t i = 0; i < minIn; ++i)
    if (!node.inputs[i]) return nodeError(node, "required operand " + std::to_string(i) + " is missing");
  if (node.outputs.size() != numOut)
    return nodeError(node, "expected " + std::to_string(numOut) + " results, got " +
                               std::to_string(node.outputs.size()));
  for (const OperandDesc *o : node.outputs)
    if (!o) return nodeError(node, "missing result descriptor");
  return Status::ok();
}

Status checkDataType(const NodeDesc &node, const OperandDesc &operand, const char *what,
                     std::initializer_list<DataType> allowed) {
  for (DataType t : allowed)
    if (operand.dtype == t) return Status::ok();
  std::string list;
  for (DataType t : allowed) list += (list.empty() ? "" : ", ") + std::string(dataTypeName(t));
  std::string msg = std::string(what) + " has unsupported data type " + std::string(dataTypeName(operand.dtype)) +
                    " (allowed: " + list + ")";
  return nodeUnsupported(node, msg);
}

Status checkOutput(const NodeDesc &node, size_t index, const Shape &shape, DataType dtype) {
  const OperandDesc &o = *node.outputs[index];
  if (o.dtype != dtype)
    return nodeError(node, "result " + std::to_string(index) + " has data type " +
                               std::string(dataTypeName(o.dtype)) + ", expected " +
                               std::string(dataTypeName(dtype)));
  if (o.shape != shape)
    return nodeError(node, "result " + std::to_string(index) + " has shape " + shapeToString(o.shape) +
                               ", expected " + shapeToString(shape));
  return Status::ok();
}

Status checkAttributes(const NodeDesc &node) {
  if (!node.attributes.status().isOk()) return nodeError(node, node.attributes.status().message());
  return Status::ok();
}

int64_t numElements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

size_t elementBytes(DataType t) { return dataTypeBits(t) >= 8 ? size_t(dataTypeBits(t) / 8) : 0; }

std::vector<int64_t> contiguousStrides(const Shape &shape) {
  std::vector<int64_t> s(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

bool isFloat(DataType t) { return t == DataType::kFloat32 || t == DataType::kFloat16; }

bool pairOutputOverlaps(const void *a, size_t aBytes, const void *b, size_t bBytes) {
  const uintptr_t ab = reinterpret_cast<uintptr_t>(a), bb = reinterpret_cast<uintptr_t>(b);
  return aBytes && bBytes && ab < bb + bBytes && bb < ab + aBytes;
}

Status pairIntermediate(const KernelContext &ctx, size_t i, const char *what, float **out) {
  const TensorBuffer *t = i < ctx.numInputs ? ctx.inputs[i] : nullptr;
  if (!t || !t->data)
    return Status(StatusCode::kInternal,
                  std::string(what) + ": the output overlaps the input and the intermediate has no buffer");
  *out = static_cast<float *>(t->data);
  return Status::ok();
}

bool normalizeAxis(int64_t axis, size_t rank, int64_t *out) {
  int64_t r = int64_t(rank);
  if (axis < -r || axis >= r) return false;
  *out = axis < 0 ? axis + r : axis;
  return true;
}

namespace {
// Runs fn over [0, n) inline where there is nothing to split (or no pool:
// a kernel run outside a session) and returns true; else clamps `grain`.
bool ranInline(const KernelContext &ctx, int64_t n, int64_t *grain,
               const std::function<void(int64_t, int64_t)> &fn) {
  if (n <= 0) return true;
  if (*grain < 1) *grain = 1;
  if (n <= *grain || ctx.backendState == nullptr) {
    fn(0, n);
    return true;
  }
  return false;
}
}  // namespace

void parallelFor(const KernelContext &ctx, int64_t n, int64_t grain,
                 const std::function<void(int64_t, int64_t)> &fn) {
  if (!ranInline(ctx, n, &grain, fn)) threadPool(ctx).parallelFor(n, grain, fn);
}

void parallelForUnits(const KernelContext &ctx, int64_t n, int64_t grain,
                      const std::function<void(int64_t, int64_t)> &fn) {
  if (ranInline(ctx, n, &grain, fn)) return;
  ThreadPool &pool = threadPool(ctx);
  pool.parallelForUnits(n, std::max(grain, n / (int64_t(pool.numThreads()) * kUnitsPerThread)), fn);
}

bool relaxedRunsBf16(const NodeDesc &node) {
#if WEBNN_HAVE_ONEDNN
  std::string noBf16;
  return node.relaxedPrecision && onednn::bf16Available(&noBf16);
#else
  (void)node;
  return false;  // no bf16 kernels: relaxed nodes are float32
#endif
}

bool anyFloat16(const NodeDesc &node) {
  for (const OperandDesc *o : node.inputs)
    if (o && o->dtype == DataType::kFloat16) return true;
  for (const OperandDesc *o : node.outputs)
    if (o && o->dtype == DataType::kFloat16) return true;
  return false;
}

namespace {

class Float16Adapter final : public Kernel {
 public:
  struct Slot {
    bool convert = false;     // float16 operand run through a float32 buffer
    bool constant = false;    // converted once at load
    std::vector<float> data;  // float32 copy
    Shape shape;
    TensorBuffer buffer{};
  };

  Status init(const NodeDesc &node, KernelFactory f32Factory) {
    inDescs_.resize(node.inputs.size());
    outDescs_.resize(node.outputs.size());
    inSlots_.resize(node.inputs.size());
    outSlots_.resize(node.outputs.size());
    NodeDesc inner;
    inner.op = node.op;
    inner.name = node.name;
    inner.attributes = node.attributes;
    inner.relaxedPrecision = node.relaxedPrecision;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const OperandDesc *d = node.inputs[i];
      if (!d) {
        inner.inputs.push_back(nullptr);
        continue;
      }
      inDescs_[i] = *d;
      Slot &s = inSlots_[i];
      s.shape = d->shape;
      if (d->dtype == DataType::kFloat16) {
        s.convert = true;
        inDescs_[i].dtype = DataType::kFloat32;
        s.data.resize(size_t(numElements(d->shape)));
        if (d->constantData) {
          s.constant = true;
          halfToFloatN(static_cast<const uint16_t *>(d->constantData), s.data.data(), int64_t(s.data.size()));
          inDescs_[i].constantData = s.data.data();
        }
      }
      inner.inputs.push_back(&inDescs_[i]);
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      outDescs_[i] = *node.outputs[i];
      Slot &s = outSlots_[i];
      s.shape = outDescs_[i].shape;
      if (outDescs_[i].dtype == DataType::kFloat16) {
        s.convert = true;
        outDescs_[i].dtype = DataType::kFloat32;
        s.data.resize(size_t(numElements(s.shape)));
      }
      inner.outputs.push_back(&outDescs_[i]);
    }
    for (auto *slots : {&inSlots_, &outSlots_})
      for (Slot &s : *slots) s.buffer = TensorBuffer{DataType::kFloat32, &s.shape, s.data.data()};
    return f32Factory(inner, &inner_);
  }

  // Every converted input is read whole before any output is written, so
  // sharing memory is as safe as for the float32 kernel (which, given
  // separate float32 buffers, then copies what it would have kept).
  bool allowsInPlace(size_t output, size_t input) const override { return inner_->allowsInPlace(output, input); }

  Status run(const KernelContext &ctx) override {
    std::vector<const TensorBuffer *> &ins = inPtrs_;
    std::vector<TensorBuffer *> &outs = outPtrs_;
    ins.assign(ctx.inputs, ctx.inputs + ctx.numInputs);
    outs.assign(ctx.outputs, ctx.outputs + ctx.numOutputs);
    for (size_t i = 0; i < ctx.numInputs && i < inSlots_.size(); ++i) {
      Slot &s = inSlots_[i];
      if (!s.convert || !ins[i]) continue;
      if (!s.constant) {
        const uint16_t *src = static_cast<const uint16_t *>(ins[i]->data);
        float *dst = s.data.data();
        parallelFor(ctx, int64_t(s.data.size()), 1 << 15,
                    [&](int64_t b, int64_t e) { halfToFloatN(src + b, dst + b, e - b); });
      }
      ins[i] = &s.buffer;
    }
    for (size_t i = 0; i < ctx.numOutputs && i < outSlots_.size(); ++i)
      if (outSlots_[i].convert) outs[i] = &outSlots_[i].buffer;
    KernelContext innerCtx{ins.data(), ins.size(), outs.data(), outs.size(), ctx.backendState};
    WEBNN_RETURN_IF_ERROR(inner_->run(innerCtx));
    for (size_t i = 0; i < ctx.numOutputs && i < outSlots_.size(); ++i) {
      Slot &s = outSlots_[i];
      if (!s.convert) continue;
      const float *src = s.data.data();
      uint16_t *dst = static_cast<uint16_t *>(ctx.outputs[i]->data);
      parallelFor(ctx, int64_t(s.data.size()), 1 << 15,
                  [&](int64_t b, int64_t e) { floatToHalfN(src + b, dst + b, e - b); });
    }
    return Status::ok();
  }

 private:
  std::vector<OperandDesc> inDescs_, outDescs_;
  std::vector<Slot> inSlots_, outSlots_;
  std::vector<const TensorBuffer *> inPtrs_;
  std::vector<TensorBuffer *> outPtrs_;
  std::unique_ptr<Kernel> inner_;
};

}  // namespace

Status makeFloat16Adapter(const NodeDesc &node, KernelFactory f32Factory, std::unique_ptr<Kernel> *out) {
  auto k = std::make_unique<Float16Adapter>();
  WEBNN_RETURN_IF_ERROR(k->init(node, f32Factory));
  *out = std::move(k);
  return Status::ok();
}

}  // namespace webnn::cpu::kernels
