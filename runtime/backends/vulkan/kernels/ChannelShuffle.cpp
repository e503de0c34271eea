// channelShuffle (docs/FUSED_OPS.md): concat(inputs, axis), output channel
// j * groups + g = concat channel g * (C / groups) + j, cut into pieces
// along the axis. Strided copies (shaders/copy.comp), no shader of its own.
//
// Within one (input, piece) pair, the groups g whose channels j in [j0, j1)
// lie in that input and land in that piece form one copy over
// [outer, j, g, inner]: the input walks j by `inner` and g by P * inner
// (P = C / groups), the piece j by groups * inner and g by `inner`. A
// dispatch binds one input and one output, so a pair is at least one copy;
// the j range changes with g only where a piece or an input boundary falls
// inside a group's turn, so a pair is at most a few. ShuffleNetV2's unit
// (two branches, groups 2, two halves) is four copies.
#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "backends/vulkan/VulkanKernel.h"

namespace webnn::vk {
namespace {

// Past this many copies a node is refused (it runs on the CPU): inputs of a
// few channels each, groups and pieces that never line up.
constexpr size_t kMaxCopies = 4096;

// Groups g..g+count-1 of one input, channels j in [j0, j1) of each.
struct Run {
  size_t input;
  int64_t j0, j1, g, count;
};

// The smallest j with j * groups + g >= o (o, g >= 0).
int64_t firstJ(int64_t o, int64_t g, int64_t groups) { return o <= g ? 0 : (o - g + groups - 1) / groups; }

Status makeChannelShuffle(const NodeDesc &node, const DeviceInfo &device, KernelPlan *plan) {
  if (node.inputs.empty()) return nodeUnsupported(node, "needs at least one input");
  for (const OperandDesc *x : node.inputs)
    if (!x) return nodeUnsupported(node, "absent input");
  for (const OperandDesc *y : node.outputs)
    if (!y) return nodeUnsupported(node, "absent output");
  for (const char *name : {"axis", "groups", "splits"})
    if (!node.attributes.has(name)) return nodeUnsupported(node, std::string("missing attribute '") + name + "'");
  int64_t axis = node.attributes.getInt("axis", 0);
  const int64_t groups = node.attributes.getInt("groups", 1);
  const std::vector<int64_t> splits = node.attributes.getInts("splits", {});
  WEBNN_RETURN_IF_ERROR(node.attributes.status());
  const OperandDesc &x0 = *node.inputs[0];
  const int64_t rank = int64_t(x0.shape.size());
  if (elementBytes(x0.dtype) == 0) return nodeUnsupported(node, "data type " + std::string(dataTypeName(x0.dtype)));
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return nodeUnsupported(node, "axis out of range");
  if (node.outputs.size() != splits.size())
    return nodeUnsupported(node, std::to_string(splits.size()) + " splits but " +
                                     std::to_string(node.outputs.size()) + " outputs");
  std::vector<int64_t> start;  // each input's first concat channel
  int64_t channels = 0;
  for (const OperandDesc *x : node.inputs) {
    if (x->dtype != x0.dtype) return nodeUnsupported(node, "inputs have different data types");
    if (int64_t(x->shape.size()) != rank) return nodeUnsupported(node, "inputs have different ranks");
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && x->shape[size_t(d)] != x0.shape[size_t(d)])
        return nodeUnsupported(node, "input shapes differ outside the axis");
    start.push_back(channels);
    channels += x->shape[size_t(axis)];
  }
  if (groups < 1 || channels % groups != 0)
    return nodeUnsupported(node, "groups " + std::to_string(groups) + " does not divide the " +
                                     std::to_string(channels) + " channels");
  int64_t sum = 0;
  for (int64_t s : splits) {
    if (s <= 0) return nodeUnsupported(node, "splits must be positive");
    if (__builtin_add_overflow(sum, s, &sum)) return nodeUnsupported(node, "splits overflow int64");
  }
  if (sum != channels) return nodeUnsupported(node, "splits do not sum to the channels");
  for (size_t k = 0; k < splits.size(); ++k) {
    const OperandDesc &y = *node.outputs[k];
    bool same = y.dtype == x0.dtype && int64_t(y.shape.size()) == rank;
    for (int64_t d = 0; d < rank && same; ++d)
      same = y.shape[size_t(d)] == (d == axis ? splits[k] : x0.shape[size_t(d)]);
    if (!same) return nodeUnsupported(node, "output " + std::to_string(k) + " is not its piece's type and shape");
  }
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x0.shape[size_t(d)];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x0.shape[size_t(d)];
  const int64_t perGroup = channels / groups;
  const uint64_t in1 = uint64_t(inner);

  int64_t lo = 0;
  size_t copies = 0;
  for (size_t k = 0; k < splits.size(); ++k) {
    const int64_t hi = lo + splits[k];
    // The groups this piece takes channels of: all, or (narrower than a
    // turn) those of o = lo..hi-1.
    std::vector<int64_t> gs;
    if (splits[k] >= groups) {
      for (int64_t g = 0; g < groups; ++g) gs.push_back(g);
    } else {
      for (int64_t o = lo; o < hi; ++o) gs.push_back(o % groups);
    }
    std::vector<Run> runs;
    for (int64_t g : gs) {
      const int64_t j0 = firstJ(lo, g, groups), j1 = firstJ(hi, g, groups);
      if (j0 >= j1) continue;
      // Concat channels [c0, c1) over the inputs they lie in.
      const int64_t c0 = g * perGroup + j0, c1 = g * perGroup + j1;
      size_t i = size_t(std::upper_bound(start.begin(), start.end(), c0) - start.begin()) - 1;
      for (; i < start.size() && start[i] < c1; ++i) {
        const int64_t end = start[i] + node.inputs[i]->shape[size_t(axis)];
        const int64_t a = std::max(c0, start[i]), b = std::min(c1, end);
        if (a < b) runs.push_back({i, a - g * perGroup, b - g * perGroup, g, 1});
      }
    }
    // Consecutive groups of one input with the same j range: one copy.
    std::sort(runs.begin(), runs.end(), [](const Run &p, const Run &q) {
      return std::tie(p.input, p.j0, p.j1, p.g) < std::tie(q.input, q.j0, q.j1, q.g);
    });
    std::vector<Run> merged;
    for (const Run &r : runs) {
      Run *last = merged.empty() ? nullptr : &merged.back();
      if (last && last->input == r.input && last->j0 == r.j0 && last->j1 == r.j1 && last->g + last->count == r.g)
        ++last->count;
      else
        merged.push_back(r);
    }
    copies += merged.size();
    if (copies > kMaxCopies)
      return nodeUnsupported(node, "more than " + std::to_string(kMaxCopies) +
                                       " strided copies (inputs and pieces that do not line up with the groups)");
    for (const Run &r : merged) {
      const uint64_t ci = uint64_t(node.inputs[r.input]->shape[size_t(axis)]);
      const Shape dims = {outer, r.j1 - r.j0, r.count, inner};
      const std::vector<uint64_t> inStride = {ci * in1, in1, uint64_t(perGroup) * in1, 1};
      const std::vector<uint64_t> outStride = {uint64_t(splits[k]) * in1, uint64_t(groups) * in1, in1, 1};
      const uint64_t inOffset = uint64_t(r.g * perGroup + r.j0 - start[r.input]) * in1;
      const uint64_t outOffset = uint64_t(r.j0 * groups + r.g - lo) * in1;
      WEBNN_RETURN_IF_ERROR(addCopy(node, device, plan, in(uint32_t(r.input)), out(uint32_t(k)), x0.dtype, dims,
                                    inStride, outStride, inOffset, outOffset));
    }
    lo = hi;
  }
  return Status::ok();
}

}  // namespace

void registerChannelShuffleKernels(std::vector<KernelEntry> *out) {
  out->push_back({"channelShuffle", makeChannelShuffle});
}

}  // namespace webnn::vk
