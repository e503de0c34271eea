// The dense-operand adapter for strided operands (RowPitch.h): the fallback
// that keeps any kernel correct inside a concat-view plan; the kernels that
// matter for speed read and write the pitch themselves.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/RowPitch.h"

namespace webnn::cpu::kernels {

bool hasRowPitch(const NodeDesc &node) {
  for (const OperandDesc *in : node.inputs)
    if (in && in->rowPitch) return true;
  for (const OperandDesc *o : node.outputs)
    if (o && o->rowPitch) return true;
  return false;
}

void copyRows(const KernelContext &ctx, const uint8_t *src, int64_t srcPitch, uint8_t *dst, int64_t dstPitch,
              int64_t rows, int64_t rowBytes) {
  if (rows <= 0 || rowBytes <= 0) return;
  parallelFor(ctx, rows, std::max<int64_t>(1, 65536 / rowBytes), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) std::memcpy(dst + r * dstPitch, src + r * srcPitch, size_t(rowBytes));
  });
}

namespace {

// One strided operand: its rows, their dense length and the pitch, in bytes,
// and where its dense copy starts in the scratch.
struct StridedOperand {
  size_t index = 0;
  int64_t rows = 0, rowBytes = 0, pitchBytes = 0;
  size_t scratchOffset = 0;
};

// The dense copies: one buffer per thread that runs kernels (a session runs
// its nodes one after another on the caller's thread), grown to the largest
// adapted node's need at its first run, 64-byte aligned like the arena.
struct Scratch {
  void *data = nullptr;
  size_t bytes = 0;
  ~Scratch() { std::free(data); }
  uint8_t *reserve(size_t need) {
    if (need > bytes) {
      std::free(data);
      bytes = (need + 63) / 64 * 64;
      data = std::aligned_alloc(64, bytes);
      if (!data) bytes = 0;
    }
    return static_cast<uint8_t *>(data);
  }
};
thread_local Scratch tScratch;

class RowPitchAdapter final : public Kernel {
 public:
  explicit RowPitchAdapter(const NodeDesc &node) : dense_(node) {
    for (const OperandDesc *in : node.inputs)
      if (in) operands_.push_back(*in);
    for (const OperandDesc *o : node.outputs) operands_.push_back(*o);
    size_t k = 0;
    for (const OperandDesc *&in : dense_.inputs)
      if (in) in = &operands_[k++];
    for (const OperandDesc *&o : dense_.outputs) o = &operands_[k++];
    for (OperandDesc &d : operands_) d.rowPitch = 0;
    auto describe = [&](const OperandDesc &d, size_t index) {
      StridedOperand s;
      s.index = index;
      const int64_t last = d.shape.empty() ? 1 : d.shape.back();
      s.rowBytes = last * int64_t(elementBytes(d.dtype));
      s.rows = last ? numElements(d.shape) / last : 0;
      s.pitchBytes = d.rowPitch * int64_t(elementBytes(d.dtype));
      s.scratchOffset = scratchBytes_;
      scratchBytes_ += (size_t(s.rows * s.rowBytes) + 63) / 64 * 64;
      return s;
    };
    for (size_t i = 0; i < node.inputs.size(); ++i)
      if (node.inputs[i] && node.inputs[i]->rowPitch) inputs_.push_back(describe(*node.inputs[i], i));
    for (size_t i = 0; i < node.outputs.size(); ++i)
      if (node.outputs[i]->rowPitch) outputs_.push_back(describe(*node.outputs[i], i));
  }

  Status make(KernelFactory factory) {
    WEBNN_RETURN_IF_ERROR(factory(dense_, &inner_));
    if (!inner_) return Status(StatusCode::kInternal, "kernel factory returned no kernel");
    return Status::ok();
  }

  Status run(const KernelContext &ctx) override {
    uint8_t *scratch = tScratch.reserve(scratchBytes_);
    if (!scratch && scratchBytes_)
      return Status(StatusCode::kOutOfMemory,
                    "cannot allocate " + std::to_string(scratchBytes_) + " bytes for dense copies of strided operands");
    std::vector<const TensorBuffer *> ins(ctx.inputs, ctx.inputs + ctx.numInputs);
    std::vector<TensorBuffer *> outs(ctx.outputs, ctx.outputs + ctx.numOutputs);
    std::vector<TensorBuffer> dense(inputs_.size() + outputs_.size());
    size_t k = 0;
    auto redirect = [&](const TensorBuffer *b, const StridedOperand &s) {
      TensorBuffer &d = dense[k++];
      d = *b;
      d.data = scratch + s.scratchOffset;
      d.buffer = nullptr, d.offset = 0;
      return &d;
    };
    for (const StridedOperand &s : inputs_) {
      ins[s.index] = redirect(ctx.inputs[s.index], s);
      copyRows(ctx, static_cast<const uint8_t *>(ctx.inputs[s.index]->data), s.pitchBytes,
               scratch + s.scratchOffset, s.rowBytes, s.rows, s.rowBytes);
    }
    for (const StridedOperand &s : outputs_) outs[s.index] = redirect(ctx.outputs[s.index], s);
    KernelContext dctx{ins.data(), ins.size(), outs.data(), outs.size(), ctx.backendState};
    WEBNN_RETURN_IF_ERROR(inner_->run(dctx));
    for (const StridedOperand &s : outputs_)
      copyRows(ctx, scratch + s.scratchOffset, s.rowBytes, static_cast<uint8_t *>(ctx.outputs[s.index]->data),
               s.pitchBytes, s.rows, s.rowBytes);
    return Status::ok();
  }

  bool honoursRowPitch() const override { return true; }
  // In place only between dense operands, which the inner kernel sees as
  // they are.
  bool allowsInPlace(size_t output, size_t input) const override {
    for (const StridedOperand &s : inputs_)
      if (s.index == input) return false;
    for (const StridedOperand &s : outputs_)
      if (s.index == output) return false;
    return inner_->allowsInPlace(output, input);
  }
  Status packConstants(int numThreads, std::vector<PackedBytes> *out) override {
    return inner_->packConstants(numThreads, out);
  }
  void warmUp(int numThreads) override { inner_->warmUp(numThreads); }

 private:
  std::vector<OperandDesc> operands_;  // the node's, dense; sized once (dense_ points into it)
  NodeDesc dense_;
  std::unique_ptr<Kernel> inner_;
  std::vector<StridedOperand> inputs_, outputs_;
  size_t scratchBytes_ = 0;
};

}  // namespace

Status makeRowPitchAdapter(const NodeDesc &node, KernelFactory factory, std::unique_ptr<Kernel> *out) {
  auto adapter = std::make_unique<RowPitchAdapter>(node);
  WEBNN_RETURN_IF_ERROR(adapter->make(factory));
  *out = std::move(adapter);
  return Status::ok();
}

}  // namespace webnn::cpu::kernels
