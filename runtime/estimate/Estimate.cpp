#include "estimate/Estimate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "backends/cpu/CostFunctions.h"
#include "core/ArtifactLoader.h"
#include "core/Executor.h"

namespace webnn::est {
namespace {

struct TierBound {
  Tier tier;
  const char *name;
  double belowMs;
};
constexpr TierBound kTiers[] = {
    {Tier::kExcellent, "excellent", 16},   {Tier::kGood, "good", 100},      {Tier::kFair, "fair", 1000},
    {Tier::kModerate, "moderate", 10000},  {Tier::kSlow, "slow", 30000},    {Tier::kVerySlow, "very-slow", 60000},
    {Tier::kPoor, "poor", INFINITY},
};

// Where an uncalibrated family borrows its efficiency from: the nearest
// kernel shape that calibration measures.
const char *fallbackFamily(const std::string &f) {
  if (f == "matmulNBits.int8") return "matmulNBits";
  if (f == "attention.gqa") return "attention";
  if (f == "conv2d.pointwise" || f == "matmul.batched" || f == "attention" || f == "recurrent" || f == "matmulNBits")
    return "gemm";
  if (f == "conv2d.depthwise.onednn") return "conv2d.depthwise";
  if (f == "conv2d.transpose") return "conv2d";
  if (f == "copy.transpose") return "copy";
  if (f == "binary.pow") return "unary.exp";
  if (f == "recurrent.repacked") return "recurrent";
  if (f == "gemm.portable") return "gemm";
  if (f == "resample.linear" || f == "resample.nearest") return "copy";
  if (f == "conv2d.rowwindow") return "conv2d.im2col";  // the same packed SGEMM
  if (f == "conv2d.winograd4") return "conv2d.winograd";  // 4x4 tiles: profiles before 3bf9310
  if (f == "conv2d.winograd" || f == "conv2d.im2col" || f == "conv2d.portable" || f == "conv2d.grouped4" ||
      f == "conv2d.grouped.onednn")  // profiles before it
    return "conv2d";
  if (f == "conv2d" || f == "conv2d.depthwise") return "conv2d.pointwise";
  if (f == "unary.exp" || f == "softmax" || f == "norm" || f == "norm.nhwc") return "unary";
  if (f.rfind("unary.", 0) == 0) return "unary.exp";  // a transcendental op without a grid of its own
  if (f == "unary" || f == "binary" || f == "pool" || f == "reduce" || f == "copy.contiguous") return "copy";
  return nullptr;
}

double bandwidthGBs(const DeviceProfile &p, const ThreadProfile &t, double bytes) {
  double cores = double(t.threads);
  if (p.l1Bytes && bytes <= double(p.l1Bytes) * cores) return t.l1GBs > 0 ? t.l1GBs : t.l2GBs;
  if (p.l2Bytes && bytes <= double(p.l2Bytes) * cores) return t.l2GBs;
  if (p.l3Bytes && bytes <= double(p.l3Bytes)) return t.l3GBs;
  return t.dramGBs;
}

// The shapes of this estimate: the maxima, or the --shape sizes bound like a run binds them.
Status bindShapes(const rt::PreparedGraph &g, const EstimateOptions &o, std::vector<cpu::OperandDesc> *operands) {
  const rt::LoadedGraph &lg = g.graph;
  *operands = g.operands;
  std::vector<Shape> shapes;
  std::vector<std::string> names;
  std::vector<const rt::TensorDims *> dims;
  std::vector<bool> used(o.shapes.size(), false);
  for (uint32_t idx : lg.inputs) {
    const rt::LoadedTensor &t = lg.tensors[idx];
    names.push_back(t.name);
    dims.push_back(t.dims.empty() ? nullptr : &t.dims);
    Shape s = t.shape;
    for (size_t k = 0; k < o.shapes.size(); ++k)
      if (o.shapes[k].first == t.name) {
        s = o.shapes[k].second;
        used[k] = true;
        if (t.dims.empty() && s != t.shape)
          return invalidArgument("--shape " + t.name + ": the input's shape is static, " + shapeToString(t.shape) +
                                 ", not " + shapeToString(s));
      }
    shapes.push_back(std::move(s));
  }
  for (size_t k = 0; k < o.shapes.size(); ++k)
    if (!used[k]) return invalidArgument("--shape " + o.shapes[k].first + ": the graph has no input of that name");
  if (lg.dynamicDims.empty()) return Status::ok();
  std::vector<int64_t> sizes;
  WEBNN_RETURN_IF_ERROR(rt::bindDynamicDimensions(lg.dynamicDims, names, dims, shapes, &sizes));
  for (size_t t = 0; t < lg.tensors.size(); ++t) {
    const rt::TensorDims &td = lg.tensors[t].dims;
    for (size_t d = 0; d < td.size() && d < (*operands)[t].shape.size(); ++d) {
      int64_t v = td[d].evaluate(sizes);
      if (v < 0)
        return invalidArgument("tensor '" + lg.tensors[t].name + "' dimension '" + td[d].spelling + "' is " +
                               std::to_string(v) + " with " + rt::dynamicSizesText(lg.dynamicDims, sizes));
      (*operands)[t].shape[d] = v;
    }
  }
  return Status::ok();
}

struct Model {
  const DeviceProfile &profile;
  const ThreadProfile &tp;   // the run's thread count
  const ThreadProfile &tp1;  // one thread: pieces and nodes run whole on the calling thread
  int threads = 1;
  const rt::PreparedGraph &graph;
  const std::vector<cpu::OperandDesc> &operands;
  std::set<std::string> uncalibrated;
  std::set<std::string> unknownOps;
  std::map<std::string, double> familyMs;
  double packedBytes = 0;
  int jitNodes = 0;
  // The run's working set (weights, arena, graph inputs and outputs)
  // exceeds the last-level cache: what a run reads from outside its arena
  // has been evicted by the next run.
  bool coldWeights = false;
  // Of the bytes that are not the run's own intermediates, the share that
  // comes from DRAM: a run cycling through a working set W larger than the
  // L3 finds about L3 / W of it still cached (1 - L3 / W from DRAM).
  double dramShare = 0;
  // The whole working set fits one core's L2: no node evicts another's
  // operands, so nodes run as calibration's reruns on hot caches did.
  bool hotCaches = false;
  std::vector<bool> graphOutput;  // per tensor
  // Per tensor, the bytes the kernel that wrote it moved (0: not written
  // by a node, or not yet): past the L2, its producer's own stream pushed
  // the tensor's first rows and the next node's output region out of it.
  std::vector<double> producerBytes;

  const FamilyGrid *grid(const ThreadProfile &t, const std::string &family) {
    std::string f = family;
    for (int hops = 0; hops < 4; ++hops) {
      auto it = t.families.find(f);
      if (it != t.families.end() && !it->second.points.empty()) {
        if (f != family) uncalibrated.insert(family + " (as " + f + ")");
        return &it->second;
      }
      const char *next = fallbackFamily(f);
      if (!next) break;
      f = next;
    }
    uncalibrated.insert(family + " (no calibrated family: the roofline alone)");
    return nullptr;
  }

  // Whether moving the bytes takes longer than the arithmetic on `t`.
  bool memoryBound(const ThreadProfile &t, double flops, double bytes, bool bf16) const {
    double peak = bf16 && t.bf16Gflops > 0 ? t.bf16Gflops : t.peakGflops;
    return bytes / (bandwidthGBs(profile, t, bytes) * 1e6) > flops / (peak * 1e6);
  }

  // The family's grid for one node, its ratios comparable at the node's
  // size. A one-parameter family moves bytes in proportion to its
  // parameter (elementwise ops, copies, the nhwc instanceNormalization).
  // The grid timed each point after evicting L1/L2, so below the L3's size
  // every point read its operands from the L3, while the roofline puts a
  // point that fits the L2 (or L1) at that cache's bandwidth: the ratios of
  // points on either side of a cache's size are over different bandwidths,
  // and interpolating them priced the audio encoder's GELUs of 204K and
  // 409K values 24% low and 30% high (the same time per value measured on
  // both sides). Each such point's ratio is restated over the bandwidth of
  // the node's own cache level (the node's bytes and operations scaled to
  // the point's parameter), so what is interpolated is the time per value;
  // nothing is restated across the L3's size, where the reads do change.
  // Only for a family its own instructions bound: one whose hot reruns
  // (operands left in cache) ran at least half as long as its evicted runs
  // (the median over its points; GELU 0.5-0.8, erf ~1). A kernel bound by
  // moving bytes ran 3-4x faster hot (add, relu: 0.2-0.3), and in a graph,
  // its input left in the L2 by the node before, it runs nearer its hot
  // rate than the evicted grid says: the cache level's roofline under the
  // interpolated ratio stands for that (EfficientNet-B0's squeeze-excitation
  // muls of 47K-188K values ran 0.18 ns a value, the grid's add 0.65).
  const FamilyGrid *gridAt(const ThreadProfile &t, const std::string &family, const std::vector<double> &params,
                           double flops, double bytes, bool bf16, FamilyGrid *scratch) {
    const FamilyGrid *g = grid(t, family);
    const double l3 = double(profile.l3Bytes);
    if (!g || bytes <= 0 || l3 <= 0 || bytes > l3) return g;
    const double peak = bf16 && t.bf16Gflops > 0 ? t.bf16Gflops : t.peakGflops;
    const double here = bandwidthGBs(profile, t, bytes);
    if (peak <= 0 || here <= 0) return g;
    if (params.size() == 1 && params[0] >= 1 && instructionsBind(*g)) {
      *scratch = *g;
      for (GridPoint &p : scratch->points) {
        if (p.params.size() != 1 || p.params[0] < 1) continue;
        const double k = p.params[0] / params[0], pointBytes = bytes * k, pointFlops = flops * k;
        if (pointBytes > l3) continue;
        restate(t, peak, here, pointFlops, pointBytes, bf16, &p);
      }
      return scratch;
    }
    // A node past the L2 (the cores' L2s) reads from the L3, and so did
    // every grid point that fits the L2: the grid evicts L1 and L2 before
    // each run. Such a point's ratio, taken over the L2's (or L1's)
    // bandwidth, is restated over the node's own level, the L3's, for any
    // family: over the L2's, interpolated onto a node priced on the L3's
    // roofline, it counted the L3's slower reads twice.
    const double l2 = double(profile.l2Bytes) * double(std::max(1, t.threads));
    if (profile.l2Bytes == 0 || bytes <= l2) return g;
    bool restated = false;
    for (const GridPoint &p : g->points) restated = restated || (p.bytes > 0 && p.bytes <= l2);
    if (!restated) return g;
    *scratch = *g;
    for (GridPoint &p : scratch->points)
      if (p.bytes > 0 && p.bytes <= l2) restate(t, peak, here, p.flops, p.bytes, bf16, &p);
    return scratch;
  }

  // Whether a family's own instructions bound it: its hot reruns (operands
  // left in cache) ran at least half as long as its evicted runs (the
  // median over its points).
  static bool instructionsBind(const FamilyGrid &g) {
    std::vector<double> hotShare;
    for (const GridPoint &p : g.points)
      if (p.hotRatio > 0 && p.ratio > 0) hotShare.push_back(p.hotRatio / p.ratio);
    if (hotShare.empty()) return false;
    std::sort(hotShare.begin(), hotShare.end());
    const size_t n = hotShare.size();
    return (n % 2 ? hotShare[n / 2] : (hotShare[n / 2 - 1] + hotShare[n / 2]) / 2) >= 0.5;
  }

  // A grid point's ratios, taken over the roofline of its own flops and
  // bytes, restated over the roofline at `here` GB/s.
  void restate(const ThreadProfile &t, double peak, double here, double pointFlops, double pointBytes, bool bf16,
               GridPoint *p) const {
    const double own = rooflineMs(profile, t, pointFlops, pointBytes, bf16);
    const double atHere = std::max(pointFlops / (peak * 1e6), pointBytes / (here * 1e6));
    if (own <= 0 || atHere <= 0) return;
    const double f = own / atHere;
    p->ratio *= f;
    p->hotRatio *= f;
    p->coldRatio *= f;
  }

  // ratio x roofline of one kernel's work on `t`'s grid and peaks.
  double price(const ThreadProfile &t, const std::string &family, const std::vector<double> &params, double flops,
               double bytes, bool bf16, double *roofline = nullptr) {
    double roof = rooflineMs(profile, t, flops, bytes, bf16);
    if (roofline) *roofline = roof;
    FamilyGrid scratch;
    const FamilyGrid *g = gridAt(t, family, params, flops, bytes, bf16, &scratch);
    double ratio = 1;
    if (g && g->points[0].params.size() == params.size()) {
      if (hotCaches) {
        ratio = interpolateRatio(*g, params, -1, CacheState::kHot);
      } else {
        ratio = interpolateRatio(*g, params, -1, CacheState::kL3);
        // The part of the run's weights still in the L3 reads as calibration's
        // L3 runs did, the rest as its runs after evicting the L3; inside a
        // graph what that eviction adds is graphColdFactor times what it
        // added to the grid's kernels alone.
        if (coldWeights) {
          const double added = interpolateRatio(*g, params, -1, CacheState::kCold) - ratio;
          ratio += dramShare * (added > 0 ? t.graphColdFactor : 1) * added;
        }
      }
    }
    return ratio * roof;
  }

  // What the same kernel saves with its operands left in L1/L2 instead of
  // evicted: the grid's hot reruns against its evicted runs, interpolated
  // (a point the grid timed only evicted, one larger than the L2, saves
  // nothing); 0 where the whole graph is priced hot already, -1 (no bound)
  // where the family's grid has no hot reruns at all (older profiles).
  double hotSavingMs(const ThreadProfile &t, const std::string &family, const std::vector<double> &params,
                     double flops, double bytes, bool bf16) {
    const FamilyGrid *g = grid(t, family);
    if (!g || g->points[0].params.size() != params.size() ||
        std::none_of(g->points.begin(), g->points.end(), [](const GridPoint &p) { return p.hotRatio > 0; }))
      return -1;
    if (hotCaches) return 0;
    FamilyGrid scratch;
    g = gridAt(t, family, params, flops, bytes, bf16, &scratch);
    const double roof = rooflineMs(profile, t, flops, bytes, bf16);
    const double l3 = interpolateRatio(*g, params, -1, CacheState::kL3);
    const double hot = interpolateRatio(*g, params, -1, CacheState::kHot);
    return std::max(0.0, (l3 - hot) * roof);
  }

  // Work done in registers inside another kernel's loop: `elements` at the
  // family's in-cache rate, the fastest per element of its grid points
  // measured hot (operands left in L1/L2, the arithmetic alone). Such a
  // part has no bytes, so its roofline ratio, measured against the bytes a
  // pass of its own moves, does not apply.
  double inRegistersMs(const ThreadProfile &t, const std::string &family, double elements, double flops) {
    const FamilyGrid *g = grid(t, family);
    double perElementMs = 0;
    if (g)
      for (const GridPoint &p : g->points)
        if (p.hotRatio > 0 && p.ratio > 0 && !p.params.empty() && p.params[0] >= 1) {
          const double ms = p.ms * p.hotRatio / p.ratio / p.params[0];
          if (perElementMs == 0 || ms < perElementMs) perElementMs = ms;
        }
    if (perElementMs == 0) return price(t, family, {elements}, flops, 0, false);
    return perElementMs * elements;
  }

  NodeEstimate node(const cpu::NodeDesc &d, const rt::LoadedNode &ln, size_t index,
                    const cpu::NodeDesc *pairedConsumer = nullptr) {
    NodeEstimate e;
    e.index = index;
    e.op = d.op;
    e.name = d.name;
    std::vector<bool> constant;
    for (int32_t in : ln.inputs)
      constant.push_back(in >= 0 && graph.graph.tensors[size_t(in)].role == rt::TensorRole::kConstant);
    // The node's operands with this estimate's shapes.
    cpu::NodeDesc local;
    local.op = d.op;
    local.attributes = d.attributes;
    local.relaxedPrecision = d.relaxedPrecision;
    local.outputOverInput = d.outputOverInput;
    auto remap = [&](const cpu::OperandDesc *o) -> const cpu::OperandDesc * {
      if (!o) return nullptr;
      ptrdiff_t i = o - graph.operands.data();
      return i >= 0 && size_t(i) < operands.size() ? &operands[size_t(i)] : o;
    };
    for (const cpu::OperandDesc *o : d.inputs) local.inputs.push_back(remap(o));
    for (const cpu::OperandDesc *o : d.outputs) local.outputs.push_back(remap(o));
    cpu::CostFunction fn = cpu::findCostFunction(d.op);
    cpu::NodeCost c;
    if (fn && pairedConsumer) {
      cpu::NodeDesc consumer;
      consumer.op = pairedConsumer->op;
      consumer.attributes = pairedConsumer->attributes;
      for (const cpu::OperandDesc *o : pairedConsumer->inputs) consumer.inputs.push_back(remap(o));
      for (const cpu::OperandDesc *o : pairedConsumer->outputs) consumer.outputs.push_back(remap(o));
      c = cpu::pairedProducerCost(local, consumer, constant, threads);
    } else if (fn) {
      c = fn(local, constant, threads);
    } else {
      unknownOps.insert(d.op);
      c.family = "copy";
      double bytes = 0;
      for (const cpu::OperandDesc *o : local.outputs)
        if (o) {
          double n = 1;
          for (int64_t v : o->shape) n *= double(std::max<int64_t>(v, 0));
          bytes += n * dataTypeBits(o->dtype) / 8.0;
        }
      c.params = {std::max(1.0, bytes / 4)};
      c.bytes = 2 * bytes;
    }
    e.family = c.family;
    e.writesPitch = c.writesPitch;
    e.flops = c.flops;
    e.bytes = c.bytes;
    // Our grouped kernel has no bf16 form: relaxed layers run it in float32.
    bool bf16 = d.relaxedPrecision && (c.family == "gemm" || c.family.rfind("conv2d", 0) == 0) &&
                c.family != "conv2d.grouped4";
    double kernelMs;
    // The most the node's operands left in cache by the nodes before it can
    // save (below); negative: no bound of that kind.
    double cacheSavingMs = -1;
    if (threads > 1 && c.threading == cpu::Threading::kPieces) {
      // Single-threaded pieces side by side: the largest one alone on one
      // thread, slowed by its neighbours as calibration measured, and one
      // fork/join of the pool.
      kernelMs = price(tp1, c.piece.family, c.piece.params, c.piece.flops, c.piece.bytes, bf16) * tp.pieceSlowdown +
                 tp.forkJoinUs * 1e-3;
      e.rooflineMs = rooflineMs(profile, tp, c.flops, c.bytes, bf16);
      e.pricedThreads = 1;
    } else if (threads > 1 && c.threading == cpu::Threading::kOneThread) {
      kernelMs = price(tp1, c.family, c.params, c.flops, c.bytes, bf16, &e.rooflineMs);
      cacheSavingMs = hotSavingMs(tp1, c.family, c.params, c.flops, c.bytes, bf16);
      e.pricedThreads = 1;
    } else if (threads > 1 && !c.instructionBound && !c.rowsPerThread && memoryBound(tp1, c.flops, c.bytes, bf16) &&
               !streamsWeights(local, ln, c.bytes) &&
               !((c.contiguousRanges || streamsWeights(local, ln, c.bytes, true)) && pastOneL2(c.bytes))) {
      // Bound by moving bytes, a kernel gains little from a second thread
      // inside a graph, where the same kernel timed alone runs ~2x: the
      // fitting models' per-node profiles at 2 threads show elementwise,
      // copies, norms and pools no faster than at 1 (the bytes the previous
      // node's threads left in their own caches, split another way, likely
      // cross between the cores), and their whole-run medians agree (the
      // audio encoder at 2 threads: -11% priced on the 2-thread grid, -1%
      // on the one-thread one).
      // A kernel streaming weights (most of its bytes) with its own
      // parallel loop is not: each core adds its own read rate from the L3
      // and DRAM (10 -> 20 GB/s at 1 -> 2 threads on a 2-vCPU Xeon VM, where
      // the fit decoder's step of int4 GEMVs ran 2.1x faster on two).
      // Nor is one that gives each thread the output rows the node before
      // wrote on it (rowsPerThread: our depthwise kernel, the global
      // average pool, the packed 1x1 of a 14x14 map): its reads stay on
      // their core, so it is priced on the run's thread count. Nor an
      // elementwise kernel of contiguous ranges moving more than one core's
      // L2 holds: one thread would read it from the L3, two each stream
      // their half (PP-OCR det's adds, muls and clamps of 2.4-10 MB ran
      // 1.8-3x faster at 2 threads than at 1, those under 1 MB 1.1x). Nor,
      // past it, a kernel reading mostly the caller's inputs, which no node
      // left in one core's cache: groupQueryAttention over a decoder's KV
      // cache, cut by KV heads (the 1024-token decode step, 2.1 MB a layer,
      // ran 1.9x faster at 2 threads than at 1, where the one-thread grid
      // priced its attention, 57% of the step, as at 1).
      kernelMs = price(tp1, c.family, c.params, c.flops, c.bytes, bf16, &e.rooflineMs);
      cacheSavingMs = hotSavingMs(tp1, c.family, c.params, c.flops, c.bytes, bf16);
      e.pricedThreads = 1;
    } else {
      kernelMs = price(tp, c.family, c.params, c.flops, c.bytes, bf16, &e.rooflineMs);
      cacheSavingMs = hotSavingMs(tp, c.family, c.params, c.flops, c.bytes, bf16);
      e.pricedThreads = threads;
    }
    for (const cpu::WorkPart &a : c.after) {
      if (a.inRegisters) {
        kernelMs += inRegistersMs(tp, a.family, a.params.empty() ? 1 : a.params[0], a.flops);
        continue;
      }
      kernelMs += price(tp, a.family, a.params, a.flops, a.bytes, false);
      const double saving = hotSavingMs(tp, a.family, a.params, a.flops, a.bytes, false);
      cacheSavingMs = cacheSavingMs >= 0 && saving >= 0 ? cacheSavingMs + saving : -1;
    }
    // Bytes that do not stay in the last-level cache between runs come from
    // DRAM at every run: the weights and what the caller's buffers hold
    // (graph inputs such as a decoder's past KV cache, and the outputs it
    // writes, such as the present one). Calibration timed each kernel with
    // its operands in the L3; streaming them from DRAM bounds the node from
    // below (the fitting decoder's int4 GEMVs run at DRAM's read rate, their
    // dequantization hidden under it: adding the two priced its decode steps
    // 30-60% high). Reads are priced at DRAM's read bandwidth, writes of
    // cold outputs at its copy bandwidth (a write first fetches the line).
    // A node streams no more of them than it moves (a gather reads a few
    // rows of its table).
    if (coldWeights) {
      auto bytesOf = [](const cpu::OperandDesc *o) {
        double n = 1;
        for (int64_t v : o->shape) n *= double(std::max<int64_t>(v, 0));
        return n * dataTypeBits(o->dtype) / 8.0;
      };
      double readBytes = 0, writeBytes = 0;
      for (size_t k = 0; k < local.inputs.size() && k < ln.inputs.size(); ++k) {
        int32_t t = ln.inputs[k];
        if (!local.inputs[k] || t < 0) continue;
        rt::TensorRole role = graph.graph.tensors[size_t(t)].role;
        if (role == rt::TensorRole::kConstant || role == rt::TensorRole::kInput) readBytes += bytesOf(local.inputs[k]);
      }
      for (size_t k = 0; k < local.outputs.size() && k < ln.outputs.size(); ++k) {
        int32_t t = ln.outputs[k];
        if (local.outputs[k] && t >= 0 && size_t(t) < graphOutput.size() && graphOutput[size_t(t)])
          writeBytes += bytesOf(local.outputs[k]);
      }
      readBytes = std::min(readBytes, c.bytes);
      writeBytes = std::min(writeBytes, c.bytes - readBytes);
      e.dramBytes = readBytes + writeBytes;
      // The thread count whose bandwidth the kernel's memory traffic sees.
      const ThreadProfile &moving = threads > 1 && c.threading == cpu::Threading::kOneThread ? tp1 : tp;
      double readGBs = moving.dramReadGBs > 0 ? moving.dramReadGBs : moving.dramGBs;
      double streamMs = dramShare * moving.graphColdFactor *
                        (readBytes / (readGBs * 1e6) + writeBytes / (moving.dramGBs * 1e6));
      kernelMs = std::max(kernelMs, streamMs);
    }
    // Inside a graph a kernel costs more (or less) than the grid's kernels
    // timed alone: calibration's mobile-net chain, per node. Less: the grid
    // evicts a kernel's operands from the L2 before timing it, where in a
    // graph the previous nodes left them there, so no node saves more than
    // moving its arena bytes (inputs and outputs that are not weights) at
    // the L3's rate instead of the L2's. Where the L3 is slow (a VM's share
    // of a server's: 10-20 GB/s a core against 65 for the L2) the chain of
    // 2-50 us kernels ran 5.9 us a node faster in a graph, which as a flat
    // term zeroed microsecond nodes moving a few hundred bytes.
    double graphUs = tp.graphNodeUs;
    const ThreadProfile &moving = e.pricedThreads == 1 ? tp1 : tp;
    double arenaBytes = 0;
    if (graphUs != 0) {
      auto bytesOf = [](const cpu::OperandDesc *o) {
        double n = 1;
        for (int64_t v : o->shape) n *= double(std::max<int64_t>(v, 0));
        return n * dataTypeBits(o->dtype) / 8.0;
      };
      for (size_t k = 0; k < local.inputs.size() && k < ln.inputs.size(); ++k)
        if (local.inputs[k] && ln.inputs[k] >= 0 &&
            graph.graph.tensors[size_t(ln.inputs[k])].role != rt::TensorRole::kConstant)
          arenaBytes += bytesOf(local.inputs[k]);
      for (const cpu::OperandDesc *o : local.outputs)
        if (o) arenaBytes += bytesOf(o);
    }
    // A cost: what the chain's nodes (tens to hundreds of KB each) paid
    // beyond the grid's is where their operands lay, which a node pays in
    // proportion to its bytes: no more than moving its arena bytes once at
    // the L3's rate. As a flat term it priced nodes of a few KB, which run
    // in a fraction of a microsecond, at several times their time.
    if (graphUs > 0 && moving.l3GBs > 0) graphUs = std::min(graphUs, arenaBytes / moving.l3GBs * 1e-3);
    if (graphUs < 0) {
      const double perByteUs = moving.l3GBs > 0 && moving.l2GBs > moving.l3GBs
                                   ? (1 / moving.l3GBs - 1 / moving.l2GBs) * 1e-3
                                   : 0;
      graphUs = std::max(graphUs, -arenaBytes * perByteUs);
      // Nothing where an input's producer moved more than the L2 holds
      // (the cores' L2s where it ran on several): streaming its weights
      // and maps flushed what the grid's eviction would have (the audio
      // encoder's GELUs after its conv1d layers ran at the evicted rate).
      const double l2 = double(profile.l2Bytes) * std::max(1, threads);
      for (size_t k = 0; k < ln.inputs.size(); ++k) {
        const int32_t t = ln.inputs[k];
        if (t >= 0 && size_t(t) < producerBytes.size() && profile.l2Bytes > 0 && producerBytes[size_t(t)] > l2)
          graphUs = 0;
      }
      // Nor more than the grid's own hot reruns of the kernel saved: a
      // kernel bound by its instructions (a GELU's erf) runs no faster on
      // operands in cache, so the flat term would price it low.
      if (cacheSavingMs >= 0) graphUs = std::max(graphUs, -cacheSavingMs * 1e3);
    }
    e.graphMs = std::max(-kernelMs, graphUs * 1e-3);
    double moved = c.bytes;
    for (const cpu::WorkPart &a : c.after) moved += a.bytes;
    for (int32_t t : ln.outputs)
      if (t >= 0 && size_t(t) < producerBytes.size()) producerBytes[size_t(t)] = moved;
    e.ms = tp.nodeOverheadUs * 1e-3 + kernelMs + e.graphMs;
    familyMs[c.family] += e.ms;
    if (ln.packed.empty()) packedBytes += c.packedBytes;
    jitNodes += c.jit;
    return e;
  }

  // Whether a kernel moves more than one core's L2 holds.
  bool pastOneL2(double bytes) const { return profile.l2Bytes > 0 && bytes > double(profile.l2Bytes); }

  // Whether more than half of what a node moves is weights (constants),
  // or with `callerInputs` weights and the caller's inputs (a decoder's KV
  // cache): no node before it left those bytes in one core's cache.
  bool streamsWeights(const cpu::NodeDesc &local, const rt::LoadedNode &ln, double bytes,
                      bool callerInputs = false) const {
    double weights = 0;
    for (size_t k = 0; k < local.inputs.size() && k < ln.inputs.size(); ++k) {
      if (!local.inputs[k] || ln.inputs[k] < 0) continue;
      const rt::TensorRole role = graph.graph.tensors[size_t(ln.inputs[k])].role;
      if (role != rt::TensorRole::kConstant && !(callerInputs && role == rt::TensorRole::kInput)) continue;
      double n = 1;
      for (int64_t v : local.inputs[k]->shape) n *= double(std::max<int64_t>(v, 0));
      weights += n * dataTypeBits(local.inputs[k]->dtype) / 8.0;
    }
    return weights > 0.5 * bytes;
  }

  // A control-flow node: the larger branch of an if, one iteration of a loop.
  double subgraph(uint32_t s) {
    if (s >= graph.subgraphs.size() || s >= graph.graph.subgraphs.size()) return 0;
    double ms = 0;
    const auto &nodes = graph.subgraphs[s].nodes;
    for (size_t i = 0; i < nodes.size(); ++i) ms += node(nodes[i], graph.graph.subgraphs[s].nodes[i], i).ms;
    return ms;
  }
};

// Of a concat's input bytes, the share that still moves under the
// concat-view plan a CPU session runs (core/ExecutionPlan.h's
// ConcatViewPlan; none: 1): an input the plan placed inside the output (its
// bytes there, at the output's row pitch) is skipped by the concat kernel.
// (Its producer wrote it there: in place, or through the CPU backend's
// dense copy, priced with the producer: stridedOutputCopyBytes.)
double concatShareMoved(const rt::PreparedGraph &graph, size_t index) {
  const rt::ConcatViewPlan *views = graph.concatViews.get();
  const rt::LoadedGraph &lg = graph.graph;
  const rt::LoadedNode &ln = lg.nodes[index];
  if (!views || ln.op != "concat" || ln.outputs.size() != 1 || ln.inputs.empty()) return 1;
  auto tensorOk = [&](int32_t t) { return t >= 0 && size_t(t) < lg.tensors.size() && size_t(t) < views->arenaOffset.size(); };
  const int32_t out = ln.outputs[0];
  if (!tensorOk(out) || views->arenaOffset[size_t(out)] == rt::kNotInArena) return 1;
  const Shape &os = lg.tensors[size_t(out)].shape;
  int64_t axis = ln.attributes.getInt("axis", 0);
  if (axis < 0) axis += int64_t(os.size());
  if (axis < 0 || axis >= int64_t(os.size())) return 1;
  const double esize = dataTypeBits(lg.tensors[size_t(out)].dtype) / 8.0;
  double outer = 1, inner = esize;
  for (int64_t d = 0; d < axis; ++d) outer *= double(os[size_t(d)]);
  for (size_t d = size_t(axis) + 1; d < os.size(); ++d) inner *= double(os[d]);
  std::vector<double> blocks;
  double rowBytes = 0;
  for (int32_t t : ln.inputs) {
    if (!tensorOk(t) || lg.tensors[size_t(t)].shape.size() != os.size()) return 1;
    blocks.push_back(double(lg.tensors[size_t(t)].shape[size_t(axis)]) * inner);
    rowBytes += blocks.back();
  }
  const double outPitch = views->rowPitch[size_t(out)] ? double(views->rowPitch[size_t(out)]) * esize : rowBytes;
  double at = 0, moved = 0;
  for (size_t k = 0; k < ln.inputs.size(); ++k) {
    const int32_t t = ln.inputs[k];
    const double inPitch = views->rowPitch[size_t(t)] ? double(views->rowPitch[size_t(t)]) * esize : blocks[k];
    const uint64_t offset = views->arenaOffset[size_t(t)];
    const bool placed = offset != rt::kNotInArena &&
                        double(offset) == double(views->arenaOffset[size_t(out)]) + at &&
                        (outer == 1 || inPitch == outPitch);
    if (!placed) moved += blocks[k];
    at += blocks[k];
  }
  return rowBytes > 0 ? moved / rowBytes : 1;
}

// The bytes node `index` writes through the CPU backend's dense copy under
// the concat-view plan: outputs placed at a row pitch inside a concat's
// output, made by a kernel that writes only dense rows (all but concat and
// an nhwc pool of a dense input, kernels/RowPitch.h): its result is
// scattered into the slice after it runs, once.
double stridedOutputCopyBytes(const rt::PreparedGraph &graph, size_t index) {
  const rt::ConcatViewPlan *views = graph.concatViews.get();
  const rt::LoadedGraph &lg = graph.graph;
  if (!views || index >= lg.nodes.size()) return 0;
  const rt::LoadedNode &ln = lg.nodes[index];
  if (ln.op == "concat") return 0;
  if ((ln.op == "maxPool2d" || ln.op == "averagePool2d") && ln.attributes.getString("layout", "nchw") == "nhwc" &&
      !ln.inputs.empty() && ln.inputs[0] >= 0 && size_t(ln.inputs[0]) < views->rowPitch.size() &&
      views->rowPitch[size_t(ln.inputs[0])] == 0)
    return 0;
  double bytes = 0;
  for (int32_t t : ln.outputs)
    if (t >= 0 && size_t(t) < views->rowPitch.size() && views->rowPitch[size_t(t)] != 0)
      bytes += double(lg.tensors[size_t(t)].byteSize);
  return bytes;
}

}  // namespace

const char *tierName(Tier t) {
  for (const TierBound &b : kTiers)
    if (b.tier == t) return b.name;
  return "poor";
}

bool parseTier(const std::string &name, Tier *out) {
  for (const TierBound &b : kTiers)
    if (name == b.name) {
      *out = b.tier;
      return true;
    }
  return false;
}

Tier tierOf(double ms) {
  for (const TierBound &b : kTiers)
    if (ms < b.belowMs) return b.tier;
  return Tier::kPoor;
}

bool meetsRequirement(const Estimate &e, Tier requirement) { return int(tierOf(e.p90Ms)) <= int(requirement); }

double interpolateRatio(const FamilyGrid &grid, const std::vector<double> &params, long skip, CacheState state) {
  // The three nearest points in log space, weighted by 1 / distance^2.
  struct Near {
    double d2;
    double logRatio;
  };
  Near best[3] = {{INFINITY, 0}, {INFINITY, 0}, {INFINITY, 0}};
  for (size_t i = 0; i < grid.points.size(); ++i) {
    if (long(i) == skip) continue;
    const GridPoint &p = grid.points[i];
    if (p.params.size() != params.size()) continue;
    double d2 = 0;
    for (size_t k = 0; k < params.size(); ++k) {
      double d = std::log(std::max(params[k], 1.0)) - std::log(std::max(p.params[k], 1.0));
      d2 += d * d;
    }
    double r = state == CacheState::kHot && p.hotRatio > 0    ? p.hotRatio
               : state == CacheState::kCold && p.coldRatio > 0 ? p.coldRatio
                                                               : p.ratio;
    Near n{d2, std::log(std::max(r, 1e-6))};
    for (Near &b : best)
      if (n.d2 < b.d2) std::swap(n, b);
  }
  if (!std::isfinite(best[0].d2)) return 1;
  if (best[0].d2 < 1e-9) return std::exp(best[0].logRatio);
  double num = 0, den = 0;
  for (const Near &b : best)
    if (std::isfinite(b.d2)) {
      num += b.logRatio / b.d2;
      den += 1 / b.d2;
    }
  return std::exp(num / den);
}

double rooflineMs(const DeviceProfile &p, const ThreadProfile &t, double flops, double bytes, bool bf16) {
  double peak = bf16 && t.bf16Gflops > 0 ? t.bf16Gflops : t.peakGflops;
  return std::max(flops / (peak * 1e6), bytes / (bandwidthGBs(p, t, bytes) * 1e6));
}

void updateFamilySigmas(std::map<std::string, FamilyGrid> *families) {
  for (auto &[name, g] : *families) {
    double sum = 0;
    int n = 0;
    if (g.points.size() >= 2)
      for (size_t i = 0; i < g.points.size(); ++i) {
        double e = std::log(interpolateRatio(g, g.points[i].params, long(i))) - std::log(g.points[i].ratio);
        sum += e * e;
        ++n;
      }
    // Leave-one-out overstates the error at the grid's own points and
    // understates it far from them; it is the family's scale of error.
    g.logSigma = n ? std::sqrt(sum / n) : 0.5;
  }
}

void updateSigmas(ThreadProfile *t) { updateFamilySigmas(&t->families); }

Status estimateGraph(const rt::PreparedGraph &graph, const DeviceProfile &profile, const EstimateOptions &options,
                     Estimate *out) {
  if (options.threads < 1) return invalidArgument("threads must be >= 1");
  const ThreadProfile *tp = profile.forThreads(options.threads);
  if (!tp) return invalidArgument("the device profile has no measurements for " + std::to_string(options.threads) +
                                  " thread(s) or fewer");
  std::vector<cpu::OperandDesc> operands;
  WEBNN_RETURN_IF_ERROR(bindShapes(graph, options, &operands));
  // Under the concat-view plan (static shapes) a placed tensor is a strided
  // slice of its concat's output, as the executor gives it to the kernels:
  // the cost functions see the pitch (a convolution may write it itself).
  if (options.shapes.empty() && graph.graph.dynamicDims.empty() && graph.concatViews)
    for (size_t t = 0; t < operands.size() && t < graph.concatViews->rowPitch.size(); ++t)
      operands[t].rowPitch = graph.concatViews->rowPitch[t];
  Estimate e;
  e.threads = options.threads;
  e.profileThreads = tp->threads;
  e.profileComplete = profile.complete;
  const ThreadProfile *tp1 = profile.forThreads(1);
  if (!tp1) tp1 = tp;
  Model m{profile, *tp, *tp1, tp->threads, graph, operands, {}, {}, {}, 0, 0, false};
  const rt::LoadedGraph &lg = graph.graph;
  // A run cycles through its weights and its arena: when both together
  // exceed the last-level cache, each weight has been evicted by the time
  // the next run reads it again.
  double callerBytes = 0;
  m.graphOutput.assign(lg.tensors.size(), false);
  m.producerBytes.assign(lg.tensors.size(), 0);
  // A node that writes what another node wrote (a reshape over its input,
  // the consumer a pair ran in its producer's kernel) passes it on.
  auto passOn = [&](const rt::LoadedNode &ln) {
    double b = 0;
    for (int32_t t : ln.inputs)
      if (t >= 0 && size_t(t) < m.producerBytes.size()) b = std::max(b, m.producerBytes[size_t(t)]);
    for (int32_t t : ln.outputs)
      if (t >= 0 && size_t(t) < m.producerBytes.size()) m.producerBytes[size_t(t)] = b;
  };
  for (uint32_t idx : lg.outputs)
    if (idx < lg.tensors.size()) m.graphOutput[idx] = true;
  for (const auto *list : {&lg.inputs, &lg.outputs})
    for (uint32_t idx : *list)
      if (idx < operands.size()) {
        double n = 1;
        for (int64_t v : operands[idx].shape) n *= double(std::max<int64_t>(v, 0));
        callerBytes += n * dataTypeBits(operands[idx].dtype) / 8.0;
      }
  // What a run touches: the weights less the tables only gathered from (a
  // few rows each), the arena scaled to this estimate's shapes (a dynamic
  // graph's is planned for its largest), the caller's inputs and outputs.
  auto bytesOfOperand = [](const cpu::OperandDesc &o) {
    double n = 1;
    for (int64_t v : o.shape) n *= double(std::max<int64_t>(v, 0));
    return n * dataTypeBits(o.dtype) / 8.0;
  };
  double weightsTouched = double(lg.weightsSize);
  std::vector<bool> gatheredOnly(lg.tensors.size(), false), readOtherwise(lg.tensors.size(), false);
  for (const rt::LoadedNode &ln : lg.nodes)
    for (size_t k = 0; k < ln.inputs.size(); ++k) {
      int32_t t = ln.inputs[k];
      if (t < 0 || size_t(t) >= lg.tensors.size() || lg.tensors[size_t(t)].role != rt::TensorRole::kConstant) continue;
      if (ln.op == "gather" && k == 0) gatheredOnly[size_t(t)] = true;
      else readOtherwise[size_t(t)] = true;
    }
  for (size_t t = 0; t < lg.tensors.size(); ++t)
    if (gatheredOnly[t] && !readOtherwise[t]) weightsTouched -= double(lg.tensors[t].byteSize);
  double maxIntermediates = 0, intermediates = 0;
  for (size_t t = 0; t < lg.tensors.size() && t < operands.size(); ++t)
    if (lg.tensors[t].role == rt::TensorRole::kIntermediate) {
      maxIntermediates += bytesOfOperand(graph.operands[t]);
      intermediates += bytesOfOperand(operands[t]);
    }
  double arenaTouched = double(graph.arenaBytes) * (maxIntermediates > 0 ? std::min(1.0, intermediates / maxIntermediates) : 1.0);
  double workingSet = std::max(0.0, weightsTouched) + arenaTouched + callerBytes;
  m.coldWeights = profile.l3Bytes > 0 && workingSet > double(profile.l3Bytes);
  if (m.coldWeights) m.dramShare = 1 - double(profile.l3Bytes) / workingSet;
  e.dramShare = m.dramShare;
  m.hotCaches = profile.l2Bytes > 0 && workingSet <= double(profile.l2Bytes);
  // A run's fixed entry and exit, once (calibrated on graphs of tiny nodes).
  double total = tp->runOverheadUs * 1e-3;
  e.runOverheadMs = total;
  // Adjacent nodes the executor offers the backend as one kernel (the
  // producer's only output read only by the next node, as its first input,
  // rt::Executor::findPairCandidates) and that the backend takes
  // (cpu::pairedAway): one of the two runs nothing of its own.
  const std::vector<int64_t> reads = rt::countReads(lg);
  std::vector<bool> pairedAway(graph.nodes.size(), false);
  std::vector<int64_t> pairedWith(graph.nodes.size(), -1);  // a producer's consumer run in its kernel
  for (size_t i = 0; i + 1 < graph.nodes.size() && i + 1 < lg.nodes.size(); ++i) {
    const rt::LoadedNode &a = lg.nodes[i], &b = lg.nodes[i + 1];
    if (!a.subgraphs.empty() || !b.subgraphs.empty() || a.outputs.size() != 1 || a.outputs[0] < 0 ||
        size_t(a.outputs[0]) >= reads.size() || reads[size_t(a.outputs[0])] != 1 || b.inputs.empty() ||
        b.inputs[0] != int32_t(a.outputs[0]))
      continue;
    // A producer planned over its input is never paired; a consumer (a
    // 1x1 over its dying residual) is, where the pair kernel keeps it
    // (the scaled-pointwise pair, KernelResolution.cpp's check).
    if (i < graph.outputOverInput.size() && graph.outputOverInput[i] >= 0) continue;
    // The two nodes with this estimate's shapes.
    auto bound = [&](const cpu::OperandDesc *o) -> const cpu::OperandDesc * {
      if (!o) return nullptr;
      ptrdiff_t k = o - graph.operands.data();
      return k >= 0 && size_t(k) < operands.size() ? &operands[size_t(k)] : o;
    };
    cpu::NodeDesc pa, pb;
    for (auto [desc, local] : {std::pair{&graph.nodes[i], &pa}, std::pair{&graph.nodes[i + 1], &pb}}) {
      local->op = desc->op;
      local->attributes = desc->attributes;
      local->outputOverInput = desc->outputOverInput;
      for (const cpu::OperandDesc *o : desc->inputs) local->inputs.push_back(bound(o));
      for (const cpu::OperandDesc *o : desc->outputs) local->outputs.push_back(bound(o));
    }
    std::vector<bool> constant;
    for (int32_t in : b.inputs)
      constant.push_back(in >= 0 && size_t(in) < lg.tensors.size() &&
                         lg.tensors[size_t(in)].role == rt::TensorRole::kConstant);
    cpu::PairedAway away = cpu::pairedAway(pa, pb, constant);
    if (away == cpu::PairedAway::kConsumer) pairedAway[i + 1] = true, pairedWith[i] = int64_t(i + 1);
    if (away == cpu::PairedAway::kProducer) pairedAway[i] = true;
    if (away != cpu::PairedAway::kNone) ++i;  // a node is in one pair at most
  }
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    NodeEstimate n;
    const rt::LoadedNode &ln = lg.nodes[i];
    if (pairedAway[i]) {
      n.index = i;
      n.op = ln.op;
      n.name = ln.name;
      n.family = "paired";
      n.ms = tp->nodeOverheadUs * 1e-3;
      passOn(ln);
    } else if (!ln.subgraphs.empty()) {
      n.index = i;
      n.op = ln.op;
      n.name = ln.name;
      n.family = "control";
      double ms = 0;
      for (uint32_t s : ln.subgraphs) ms = ln.op == "if" ? std::max(ms, m.subgraph(s)) : ms + m.subgraph(s);
      n.ms = ms + tp->nodeOverheadUs * 1e-3;
      m.uncalibrated.insert(ln.op == "loop" ? "loop: one iteration of its body"
                                            : "if: the slower branch");
    } else if (ln.op == "reshape" && i < graph.outputOverInput.size() && graph.outputOverInput[i] >= 0) {
      // The arena plan put the reshape's output over its dying input: the
      // bytes are already there and the kernel copies nothing.
      n.index = i;
      n.op = ln.op;
      n.name = ln.name;
      n.family = "copy.contiguous";
      n.ms = tp->nodeOverheadUs * 1e-3;
      passOn(ln);
    } else {
      n = m.node(graph.nodes[i], ln, i, pairedWith[i] >= 0 ? &graph.nodes[size_t(pairedWith[i])] : nullptr);
      // Under the concat-view plan (static shapes) a producer of a strided
      // slice that writes dense rows pays the scatter into it, once.
      if (options.shapes.empty() && lg.dynamicDims.empty()) {
        const double scatter = n.writesPitch ? 0 : stridedOutputCopyBytes(graph, i);
        if (scatter > 0) {
          const ThreadProfile &moving = tp->threads > 1 ? *tp1 : *tp;  // bound by moving bytes
          const double ms = m.price(moving, "copy", {std::max(1.0, scatter / 4)}, 0, 2 * scatter, false);
          n.ms += ms;
          m.familyMs["copy"] += ms;
        }
      }
      // A concat copies only the inputs the concat-view plan did not put
      // in place: none of them, and it costs the node overhead alone.
      if (ln.op == "concat" && options.shapes.empty() && lg.dynamicDims.empty()) {
        const double moved = concatShareMoved(graph, i);
        if (moved < 1) {
          const double overhead = tp->nodeOverheadUs * 1e-3;
          const double before = n.ms;
          n.ms = moved > 0 ? overhead + (n.ms - overhead - n.graphMs) * moved + n.graphMs : overhead;
          m.familyMs[n.family] -= before - n.ms;
        }
      }
    }
    total += n.ms;
    e.flops += n.flops;
    e.nodes.push_back(std::move(n));
  }
  if (tp->threads < options.threads)
    e.notes.push_back("calibrated with at most " + std::to_string(tp->threads) + " thread(s): estimated with those");
  if (!profile.complete) e.notes.push_back("the calibration stopped at its deadline before the grid was complete");
  // The same FMA work on every thread ran well under N times one thread's
  // rate: a core was elsewhere while the peaks were measured (another
  // process, or a VM's host), and likely during parts of the grid too: on
  // a 2-vCPU VM such a profile priced 2-thread runs up to 75% high.
  if (tp->threads > 1 && tp1->peakGflops > 0 && tp->peakGflops < 1.3 * tp1->peakGflops)
    e.notes.push_back("the calibration's " + std::to_string(tp->threads) + "-thread FMA peak is under 1.3x its " +
                      "1-thread one: a core was busy elsewhere while it ran; calibrate again on a quieter machine");
  for (const std::string &f : m.uncalibrated) e.notes.push_back("uncalibrated family " + f);
  for (const std::string &op : m.unknownOps) e.notes.push_back("no cost function for op '" + op + "': costed as a copy");
  // Uncertainty: the families' interpolation errors, weighted by their share
  // of the time (a family errs the same way on all its nodes), and the
  // run-to-run noise seen in calibration.
  double var = tp->runSpread * tp->runSpread;
  for (const auto &[family, ms] : m.familyMs) {
    auto it = tp->families.find(family);
    double sigma = it != tp->families.end() && !it->second.points.empty() ? it->second.logSigma : 0.35;
    double share = total > 0 ? ms / total : 0;
    var += share * share * sigma * sigma;
  }
  double sigma = std::max(0.03, std::sqrt(var));
  e.medianMs = total;
  e.p10Ms = total * std::exp(-1.2816 * sigma);
  e.p90Ms = total * std::exp(1.2816 * sigma);
  e.tier = tierOf(total);
  e.arenaBytes = graph.arenaBytes;
  e.weightsBytes = lg.weightsSize;
  e.packedBytes = uint64_t(m.packedBytes);
  uint64_t inputBytes = 0;
  for (uint32_t idx : lg.inputs) inputBytes += lg.tensors[idx].byteSize;
  e.peakBytes = e.arenaBytes + e.weightsBytes + e.packedBytes + inputBytes;
  // Cold: page faults on weights and arena, one JIT per oneDNN node, the
  // packing copies (those not prepacked), then a steady run.
  double touchGBs = profile.firstTouchGBs > 0 ? profile.firstTouchGBs : tp->dramGBs;
  e.coldMs = total + double(e.weightsBytes + e.arenaBytes + e.packedBytes) / (touchGBs * 1e6) +
             m.packedBytes / (tp->dramGBs * 1e6) + profile.jitMs * m.jitNodes;
  *out = std::move(e);
  return Status::ok();
}

Status estimateArtifact(const std::string &path, const DeviceProfile &profile, const EstimateOptions &options,
                        Estimate *out) {
  rt::LoaderOptions lo;
  lo.allowUnboundWeights = true;
  lo.hasKernel = [](std::string_view op) { return rt::findBackendForOp(op) != nullptr; };
  lo.backends = rt::backendsText();
  rt::LoadedGraph loaded;
  WEBNN_RETURN_IF_ERROR(rt::loadArtifact(path, lo, &loaded));
  std::shared_ptr<rt::PreparedGraph> prepared;
  if (Status s = rt::prepareGraph(std::move(loaded), &prepared); !s) return Status(s.code(), path + ": " + s.message());
  if (Status s = estimateGraph(*prepared, profile, options, out); !s) return Status(s.code(), path + ": " + s.message());
  return Status::ok();
}

}  // namespace webnn::est
