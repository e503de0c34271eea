// The portable kernel behind a oneDNN-backed one, built only if needed.
//
// oneDNN compiles its primitive on the first run (not at load: JIT of one
// Winograd layer alone takes ~25 ms). Should that fail (out of memory for
// code), the kernel runs the portable implementation instead, and should
// that fail too, the run's Status carries both reasons; building it
// eagerly would cost its load-time work (float16 constants converted) for a
// path that is almost never taken. No dnnl.hpp here.
#ifndef WEBNN_RUNTIME_BACKENDS_CPU_ONEDNN_DEFERREDKERNEL_H
#define WEBNN_RUNTIME_BACKENDS_CPU_ONEDNN_DEFERREDKERNEL_H

#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/backends/cpu/Kernel.h"
#include "runtime/backends/cpu/onednn/OneDnn.h"

namespace webnn::cpu::onednn {

class DeferredKernel {
 public:
  // Copies what `node` points to: the loader's descriptions do not outlive
  // load, the constant bytes (mmapped) outlive the session.
  DeferredKernel(const NodeDesc &node, KernelFactory factory) : factory_(factory) {
    op_ = node.op;
    name_ = node.name;
    attributes_ = node.attributes;
    relaxed_ = node.relaxedPrecision;
    for (const OperandDesc *d : node.inputs) inputs_.push_back(d ? std::make_unique<OperandDesc>(*d) : nullptr);
    for (const OperandDesc *d : node.outputs) outputs_.push_back(std::make_unique<OperandDesc>(*d));
  }

  // Builds the portable kernel on the first call and runs it. `why` says why
  // oneDNN's kernel gave up, for the error should the portable one fail too.
  Status run(const KernelContext &ctx, const std::string &why) {
    std::call_once(once_, [&] {
      NodeDesc node;
      node.op = op_;
      node.name = name_;
      node.attributes = attributes_;
      node.relaxedPrecision = relaxed_;
      for (const auto &d : inputs_) node.inputs.push_back(d.get());
      for (const auto &d : outputs_) node.outputs.push_back(d.get());
      // The same checks passed when the oneDNN kernel was made, so this
      // fails only for want of memory.
      built_ = factory_(node, &kernel_);
      if (built_.isOk() && !kernel_) built_ = Status(StatusCode::kInternal, "no kernel");
    });
    if (!built_.isOk())
      return Status(built_.code(), why + "; the portable " + op_ + " kernel could not be built: " + built_.message());
    return kernel_->run(ctx);
  }

 private:
  KernelFactory factory_;
  std::string op_, name_;
  NodeAttributes attributes_;
  bool relaxed_ = false;
  std::vector<std::unique_ptr<OperandDesc>> inputs_, outputs_;
  std::once_flag once_;
  Status built_;
  std::unique_ptr<Kernel> kernel_;
};

// The artifact's prepacked forms of operand `input` (NodeDesc::packed).
inline std::vector<PackedOperandRef> packedOperands(const NodeDesc &node, int input) {
  std::vector<PackedOperandRef> refs;
  for (const PackedOperand &p : node.packed)
    if (p.input == input) refs.push_back({p.layout, p.data, p.bytes});
  return refs;
}

// Kernel::packConstants for one operand: its layout for `numThreads` (empty:
// nothing to store) and the bytes `pack` writes into it.
template <class LayoutFn, class SizeFn, class PackFn>
Status packOperand(int input, LayoutFn layout, SizeFn size, PackFn pack, std::vector<PackedBytes> *out) {
  try {
    std::string name = layout();
    if (name.empty()) return Status::ok();
    PackedBytes p;
    p.input = input;
    p.layout = std::move(name);
    p.bytes.resize(size());
    pack(p.bytes.data());
    out->push_back(std::move(p));
    return Status::ok();
  } catch (const std::exception &e) {
    return Status(StatusCode::kInternal, std::string("packing operand ") + std::to_string(input) + ": " + e.what());
  }
}

}  // namespace webnn::cpu::onednn

#endif
