// The CPU backend's cost functions (CostFunctions.h), one per op, grouped
// by the kernel family that runs the op: the same grouping as
// kernels/*.cpp, where the families' factories live.
#include "backends/cpu/CostFunctions.h"

#include "backends/cpu/PieceSplit.h"
#include "backends/cpu/ThreadPool.h"
#include "backends/cpu/kernels/EncoderAttention.h"
#include "backends/cpu/kernels/InstanceNormNhwc.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace webnn::cpu {
namespace {

double count(const Shape &s) {
  double n = 1;
  for (int64_t d : s) n *= double(std::max<int64_t>(d, 0));
  return n;
}
double bytesOf(const OperandDesc *o) { return o ? count(o->shape) * double(dataTypeBits(o->dtype)) / 8.0 : 0.0; }
double allBytes(const NodeDesc &n) {
  double b = 0;
  for (const OperandDesc *o : n.inputs) b += bytesOf(o);
  for (const OperandDesc *o : n.outputs) b += bytesOf(o);
  return b;
}
double outCount(const NodeDesc &n) { return n.outputs.empty() || !n.outputs[0] ? 0.0 : count(n.outputs[0]->shape); }
double inCount(const NodeDesc &n, size_t i) {
  return i < n.inputs.size() && n.inputs[i] ? count(n.inputs[i]->shape) : 0.0;
}
int64_t dim(const OperandDesc *o, int64_t i) {  // negative i counts from the end; 1 when absent
  if (!o) return 1;
  int64_t r = int64_t(o->shape.size());
  if (i < 0) i += r;
  return i >= 0 && i < r ? std::max<int64_t>(o->shape[size_t(i)], 1) : 1;
}
double atLeast1(double v) { return v < 1 ? 1 : v; }
bool isConstant(const std::vector<bool> &c, size_t i) { return i < c.size() && c[i]; }

NodeCost make(std::string family, std::vector<double> params, double flops, double bytes) {
  NodeCost c;
  c.family = std::move(family);
  for (double &p : params) p = atLeast1(p);
  c.params = std::move(params);
  c.flops = flops;
  c.bytes = bytes;
  return c;
}

// ---- elementwise (kernels/Elementwise.cpp, Binary.cpp): one pass over the
// elements; transcendental functions cost an order more per element.
NodeCost unaryCost(const NodeDesc &n, const std::vector<bool> &, int) {
  double e = outCount(n);
  NodeCost c = make("unary", {e}, e, allBytes(n));
  c.contiguousRanges = true;  // UnaryFloatKernel: kernels::parallelForUnits
  return c;
}
// Each transcendental op is a family of its own: their kernels differ by
// more than an order of magnitude per element (tanh vs sigmoid).
NodeCost mathCost(const NodeDesc &n, const std::vector<bool> &, int) {
  double e = outCount(n);
  return make("unary." + n.op, {e}, 10 * e, allBytes(n));
}
NodeCost binaryCost(const NodeDesc &n, const std::vector<bool> &, int) {
  double e = outCount(n);
  NodeCost c = make("binary", {e}, e, allBytes(n));
  c.contiguousRanges = true;  // Binary.cpp: kernels::parallelForUnits over the output
  return c;
}
// Floating-point pow calls std::pow per element (Binary.cpp's Pow), a
// scalar libm call 50-100x an add's time per element: a family of its own,
// as the transcendental unary ops are.
NodeCost powCost(const NodeDesc &n, const std::vector<bool> &c, int t) {
  NodeCost k = binaryCost(n, c, t);
  const OperandDesc *a = n.inputs.empty() ? nullptr : n.inputs[0];
  if (a && (a->dtype == DataType::kFloat32 || a->dtype == DataType::kFloat16)) {
    k.family = "binary.pow";
    k.flops = 10 * k.params[0];
  }
  return k;
}

// ---- data movement (kernels/Shape.cpp, Indexing.cpp, Resample.cpp).
NodeCost copyCost(const NodeDesc &n, const std::vector<bool> &, int) {
  double e = std::max(outCount(n), 1.0);
  for (const OperandDesc *o : n.outputs) e = std::max(e, o ? count(o->shape) : 0.0);
  return make("copy", {e}, 0, allBytes(n));
}
// transpose (kernels/Shape.cpp's makeTranspose): once the dims that stay
// adjacent are merged, a swap of the two inner ones of [batch, rows, cols]
// (NCHW <-> NHWC) runs the tiled transpose kernel, scalar element by element
// (a side of at most 4 elements: the narrow loops), not the index-map
// kernel's row copies that the copy grid's transposes measure (runs of a
// head's 64 floats). Family "copy.transpose", parameters (elements, the
// shorter side). The merge restates asBatchedTranspose there.
bool batchedTransposeShape(const Shape &shape, const std::vector<int64_t> &perm, double *rows, double *cols) {
  if (perm.size() != shape.size()) return false;
  std::vector<int64_t> start, size;
  for (int64_t p : perm) {
    if (p < 0 || size_t(p) >= shape.size()) return false;
    if (shape[size_t(p)] == 1) continue;
    if (!start.empty() && p == start.back() + size.back()) {
      ++size.back();
      continue;
    }
    start.push_back(p);
    size.push_back(1);
  }
  auto extent = [&](size_t g) {
    double e = 1;
    for (int64_t d = start[g]; d < start[g] + size[g]; ++d) e *= double(shape[size_t(d)]);
    return e;
  };
  if (start.size() == 2 && start[0] > start[1]) {
    *rows = extent(1), *cols = extent(0);
  } else if (start.size() == 3 && start[0] < start[2] && start[2] < start[1]) {
    *rows = extent(2), *cols = extent(1);
  } else {
    return false;
  }
  return *rows >= 2 && *cols >= 2;
}
NodeCost transposeCost(const NodeDesc &n, const std::vector<bool> &c, int t) {
  NodeCost k = copyCost(n, c, t);
  const OperandDesc *x = n.inputs.empty() ? nullptr : n.inputs[0];
  if (!x) return k;
  std::vector<int64_t> perm(x->shape.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = int64_t(perm.size() - 1 - i);
  perm = n.attributes.getInts("permutation", perm);
  double rows = 0, cols = 0;
  if (!batchedTransposeShape(x->shape, perm, &rows, &cols)) return k;
  k.family = "copy.transpose";
  k.params = {k.params[0], std::min(rows, cols)};
  return k;
}
// reshape moves its bytes only when the executor cannot alias them (the
// planner gives it an arena slot of its own): one memcpy, a family of its
// own (the copy grid's transposes gather with strides, 10-70x slower per
// byte on small tensors).
NodeCost reshapeCost(const NodeDesc &n, const std::vector<bool> &c, int t) {
  NodeCost k = copyCost(n, c, t);
  k.family = "copy.contiguous";
  return k;
}
// gather and slice read only what they write (and the indices), not the
// whole source: an embedding table is mostly never touched.
NodeCost gatherCost(const NodeDesc &n, const std::vector<bool> &, int) {
  double e = std::max(outCount(n), 1.0);
  double out = n.outputs.empty() ? 0.0 : bytesOf(n.outputs[0]);
  double indices = n.op == "slice" || n.inputs.size() < 2 ? 0.0 : bytesOf(n.inputs[1]);
  return make("copy", {e}, 0, 2 * out + indices);
}
// resample2d (kernels/Resample.cpp) walks the output as rows and, per
// output pixel, blends (linear) or copies (nearest) a run of `inner`
// contiguous elements: nhwc's channels, 1 for nchw, whose pixels then cost
// a table lookup and a scalar step each. Float32 linear resampling of two
// adjacent axes runs the separable kernel (ResampleSeparable.cpp: each
// source row gathered along W once, then contiguous blends), on the same
// family's grid, whose linear points all take it. Parameters: output
// elements, the run. Axes in descending order take the element-wise path
// (a run of 1).
NodeCost resampleCost(const NodeDesc &n, const std::vector<bool> &, int) {
  const OperandDesc *y = n.outputs.empty() ? nullptr : n.outputs[0];
  std::vector<int64_t> axes = n.attributes.getInts("axes", {2, 3});
  double inner = 1;
  if (y && y->shape.size() == 4 && axes.size() == 2 && axes[0] < axes[1] && axes[1] >= 0 && axes[1] < 4)
    for (size_t d = size_t(axes[1]) + 1; d < 4; ++d) inner *= double(std::max<int64_t>(y->shape[d], 1));
  double out = outCount(n);
  bool linear = n.attributes.getString("mode", "nearest-neighbor") == "linear";
  // Linear: four reads, three blends (two multiply-adds each) per element.
  NodeCost c = make(linear ? "resample.linear" : "resample.nearest", {out, inner}, linear ? 6 * out : 0, allBytes(n));
  // Runs shorter than a cache line: the per-pixel table walk (nearest), or
  // the separable linear kernel's per-source-row gather along W, bounds it
  // (4-75x its byte roofline in calibration, against 1-3x for nhwc runs).
  c.instructionBound = inner * double(y ? dataTypeBits(y->dtype) : 32) / 8.0 < 64;
  return c;
}
// channelShuffle (kernels/ChannelShuffle.cpp): the concat of its inputs,
// the interleave of `groups` runs along `axis` and the split into its
// outputs in one pass, each element read once and written once. With few
// elements after the axis (nhwc channels: one) it interleaves elements,
// `groups` at a time: a transpose whose shorter side is the group count,
// on copy.transpose's grid; runs of a cache line or more are row copies.
NodeCost channelShuffleCost(const NodeDesc &n, const std::vector<bool> &, int) {
  const OperandDesc *x = n.inputs.empty() ? nullptr : n.inputs[0];
  double elements = 0;
  for (const OperandDesc *o : n.inputs) elements += o ? count(o->shape) : 0.0;
  int64_t rank = x ? int64_t(x->shape.size()) : 0, axis = n.attributes.getInt("axis", 0);
  if (axis < 0) axis += rank;
  double inner = 1;
  for (int64_t d = axis + 1; x && d >= 1 && d < rank; ++d) inner *= double(std::max<int64_t>(x->shape[size_t(d)], 1));
  const double groups = double(std::max<int64_t>(n.attributes.getInt("groups", 1), 1));
  const double elementBytes = x ? double(dataTypeBits(x->dtype)) / 8.0 : 4.0;
  if (inner * elementBytes >= 64) return make("copy.contiguous", {atLeast1(elements)}, 0, allBytes(n));
  return make("copy.transpose", {atLeast1(elements), std::max(2.0, groups)}, 0, allBytes(n));
}
NodeCost splitCost(const NodeDesc &n, const std::vector<bool> &, int) {
  double e = inCount(n, 0);
  return make("copy", {e}, 0, allBytes(n));
}

// ---- reductions (kernels/Reduction.cpp): read everything, write little.
NodeCost reduceCost(const NodeDesc &n, const std::vector<bool> &, int) {
  double in = inCount(n, 0), out = outCount(n);
  return make("reduce", {in, in / atLeast1(out)}, 2 * in, allBytes(n));
}
NodeCost cumsumCost(const NodeDesc &n, const std::vector<bool> &, int) {
  double in = inCount(n, 0);
  return make("reduce", {in, 1}, in, allBytes(n));
}

// ---- softmax and normalizations (kernels/Softmax.cpp, Normalization.cpp,
// LLM.cpp's RMS norms): a few passes over each row.
NodeCost softmaxCost(const NodeDesc &n, const std::vector<bool> &, int) {
  double e = inCount(n, 0);
  int64_t axis = n.attributes.getInt("axis", -1);
  const OperandDesc *x = n.inputs.empty() ? nullptr : n.inputs[0];
  double row = double(dim(x, axis));
  NodeCost c = make("softmax", {e, row}, 12 * e, allBytes(n));
  // Along the last axis: contiguous rows in the pool's units (Softmax.cpp).
  // ViT-B/16's 3.7 MB attention softmaxes ran ~1.6x faster at 2 threads.
  const int64_t rank = x ? int64_t(x->shape.size()) : 0;
  c.contiguousRanges = rank > 0 && (axis == -1 || axis == rank - 1);
  return c;
}
bool hasAvx512();
NodeCost normCost(const NodeDesc &n, const std::vector<bool> &, int threads) {
  double e = inCount(n, 0);
  const OperandDesc *x = n.inputs.empty() ? nullptr : n.inputs[0];
  double row = double(dim(x, -1));
  NodeCost c = make("norm", {e, row}, 6 * e, allBytes(n));
  // batchNormalization (and its pair with relu) applies one multiply-add per
  // value over contiguous ranges of rows (Normalization.cpp's
  // applyBatchNormAs): DenseNet-121's and PP-OCR det's of 2-5 MB ran ~2x
  // faster at 2 threads than at 1, those under 0.5 MB 1.1x.
  c.contiguousRanges = n.op == "batchNormalization";
  // kernels/Normalization.cpp's InstanceNormNhwcKernel on AVX-512 (float32;
  // float16 adds its conversions, left on the norm grid): whole pixel rows
  // per channel group, x read twice in memory order (statistics, output)
  // and y written once; ceil(threads / N) groups per image of whole
  // 16-channel vectors, N x groups tasks on the pool (one: the calling
  // thread alone).
  if (n.op == "instanceNormalization" && x && x->dtype == DataType::kFloat32 && x->shape.size() == 4 &&
      hasAvx512() && n.attributes.getString("layout", "nchw") == "nhwc") {
    // Streaming passes with a few operations per value, nothing like the
    // layerNormalization rows the norm grid times: a family of its own,
    // timed by calibration on this kernel (its statistics chunks, its
    // channel groups); older profiles price it on the unary grid.
    c = make("norm.nhwc", {e}, 6 * e, allBytes(n) + bytesOf(x));
    const int64_t N = std::max<int64_t>(x->shape[0], 1), C = std::max<int64_t>(x->shape[3], 1);
    const int64_t width = kernels::instanceNormGroupWidth(C, N, threads);
    if (threads > 1 && N * ((C + width - 1) / width) < 2) c.threading = Threading::kOneThread;
  }
  return c;
}

// ---- GEMM-shaped kernels: oneDNN matmul/conv, the packed-B SGEMM, ours.
// Parameters (M, K, N): rows of the output, the reduction, columns.

// Below this many FLOPs the factories keep convolutions and matmuls off
// oneDNN (onednn::Policy::minFlops): the portable kernels run them.
constexpr double kOneDnnMinFlops = double(1 << 20);

bool hasAvx512() {
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0;
  }();
  return yes;
}

// The packed-B SGEMM (kernels/PackedSgemm.cpp) takes float32 products with
// a constant 2-D B of at least 16 rows on AVX-512 CPUs, before oneDNN;
// relaxed precision goes to oneDNN's bf16 kernels instead.
// gemm (MatMul.cpp's makeGemmImpl) takes it too, before oneDNN, as a
// Linear layer: a not transposed, c absent or, with beta 1, one row of N
// values ([N] or [1, N]) added in the epilogue.
bool packedSgemmTakes(const NodeDesc &n, bool constantB, double M, double K, double N) {
  const OperandDesc *a = n.inputs.size() > 0 ? n.inputs[0] : nullptr;
  const OperandDesc *b = n.inputs.size() > 1 ? n.inputs[1] : nullptr;
  if (!constantB || !a || !b || a->dtype != DataType::kFloat32 || b->dtype != DataType::kFloat32) return false;
  if (n.relaxedPrecision || !hasAvx512()) return false;
  if (n.op == "gemm") {
    if (n.attributes.getBool("aTranspose", false)) return false;
    const OperandDesc *c = n.inputs.size() > 2 ? n.inputs[2] : nullptr;
    if (c) {
      Shape cs = c->shape;
      while (cs.size() < 2) cs.insert(cs.begin(), 1);
      if (n.attributes.getFloat("beta", 1.0) != 1.0 || cs.size() != 2 || cs[0] != 1 || cs[1] == 1) return false;
    }
  }
  for (size_t i = 0; i + 2 < b->shape.size(); ++i)
    if (b->shape[i] != 1) return false;
  return M >= 16 && K >= 8 && N >= 8;
}

NodeCost matmulCost(const NodeDesc &n, const std::vector<bool> &constant, int threads) {
  const OperandDesc *a = n.inputs.size() > 0 ? n.inputs[0] : nullptr;
  const OperandDesc *b = n.inputs.size() > 1 ? n.inputs[1] : nullptr;
  const OperandDesc *y = n.outputs.empty() ? nullptr : n.outputs[0];
  bool gemm = n.op == "gemm";
  double M = double(dim(a, gemm && n.attributes.getBool("aTranspose", false) ? -1 : -2));
  double K = double(dim(a, gemm && n.attributes.getBool("aTranspose", false) ? -2 : -1));
  double N = double(dim(y, -1));
  double out = outCount(n);
  double batch = out / atLeast1(M * N);
  double flops = 2 * out * K;
  bool constantB = isConstant(constant, 1) && b;
  bool packed = packedSgemmTakes(n, constantB, M * batch, K, N);
  // gemm (ONNX Gemm: classifiers, Linear layers) under oneDNN's size floor
  // runs the portable SGEMM (MatMul.cpp's GemmKernel), which packs B from
  // its strided view on every call: a family of its own (a 1 x 512 x 1000
  // classifier ran 7x the oneDNN GEMV's ratio).
  bool portableGemm = gemm && !packed && flops < kOneDnnMinFlops;
  // A b without batch dimensions of its own is shared by every batch.
  bool shared = b && b->shape.size() >= 2;
  for (size_t i = 0; shared && i + 2 < b->shape.size(); ++i) shared = b->shape[i] == 1;
  // The work of rows m x columns x batches of it, in its family's terms.
  auto work = [&](double m, double cols, double bat) {
    WorkPart w;
    double aBytes = bytesOf(a) * (m / atLeast1(M)) * (bat / atLeast1(batch));
    double bBytes = bytesOf(b) * (cols / atLeast1(N)) * (shared ? 1.0 : bat / atLeast1(batch));
    double yBytes = y ? bytesOf(y) * (m / atLeast1(M)) * (cols / atLeast1(N)) * (bat / atLeast1(batch)) : 0;
    w.flops = 2 * m * cols * bat * K;
    w.bytes = aBytes + bBytes + yBytes;
    if (constantB) {
      w.family = portableGemm ? "gemm.portable" : "gemm";
      w.params = {atLeast1(m * bat), atLeast1(K), atLeast1(cols)};
    } else {
      w.family = "matmul.batched";
      w.params = {atLeast1(m), atLeast1(K), atLeast1(cols), atLeast1(bat)};
    }
    return w;
  };
  WorkPart whole = work(M, N, batch);
  NodeCost c = make(whole.family, whole.params, flops, allBytes(n));
  if (constantB) c.packedBytes = bytesOf(b);
  c.jit = !packed && flops >= kOneDnnMinFlops;
  // oneDNN's matmul cuts itself into single-threaded pieces (PieceSplit.h).
  if (threads > 1 && c.jit && y && !y->shape.empty()) {
    // As onednn/MatMul.cpp: a b shared by every batch folds a's batch into rows.
    std::vector<int64_t> yDims = y->shape;
    bool folded = shared && yDims.size() > 2;
    if (folded) yDims = {int64_t(out / atLeast1(N)), int64_t(N)};
    MatMulPiecePlan plan = planMatMulPieces(yDims, int64_t(K), threads);
    if (plan.kind == PieceKind::kOneThread) {
      c.threading = Threading::kOneThread;
    } else if (plan.kind == PieceKind::kPieces) {
      const int r = int(yDims.size());
      const double per = double(plan.per), extent = double(yDims[size_t(plan.axis)]);
      c.threading = Threading::kPieces;
      c.pieces = int(plan.count);
      if (plan.axis == r - 1) c.piece = work(M, std::min(per, N), batch);
      else if (plan.axis == r - 2 && folded) c.piece = work(std::min(per, extent), N, 1);  // rows of every batch
      else if (plan.axis == r - 2) c.piece = work(std::min(per, M), N, batch);
      else c.piece = work(M, N, batch * std::min(per, extent) / atLeast1(extent));
    }
  }
  if (n.op == "fusedMatmul") {
    // GELU is computed per element wherever it runs; bias, residual and
    // scaling are a pass of their own unless the packed SGEMM applies them
    // to its tiles (kernels/Transformer.cpp).
    std::string act = n.attributes.getString("activation", "none");
    // The packed SGEMM applies it in registers in its tile epilogue.
    if (act == "gelu") c.after.push_back({"unary.gelu", {atLeast1(out)}, 10 * out, 0, packed});
    bool bias = n.inputs.size() > 2 && n.inputs[2], residual = n.inputs.size() > 3 && n.inputs[3];
    bool alpha = n.attributes.getFloat("alpha", 1.0) != 1.0;
    if (!packed && (bias || residual || alpha || act != "none")) {
      double yb = y ? bytesOf(y) : 0;
      c.after.push_back({"binary", {atLeast1(out)}, out, 2 * yb + (residual ? yb : 0)});
    }
  }
  return c;
}

// A convolution's geometry from its shapes and options (the same reading
// as kernels/conv/ConvGeometry.cpp, without its checks: cost functions
// never fail).
struct ConvShape {
  bool nhwc = false;
  int64_t N = 1, C = 1, H = 1, W = 1, O = 1, OH = 1, OW = 1, KH = 1, KW = 1, groups = 1;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1, padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
};
ConvShape convShape(const NodeDesc &n) {
  ConvShape g;
  const OperandDesc *x = n.inputs.size() > 0 ? n.inputs[0] : nullptr;
  const OperandDesc *w = n.inputs.size() > 1 ? n.inputs[1] : nullptr;
  const OperandDesc *y = n.outputs.empty() ? nullptr : n.outputs[0];
  g.nhwc = n.attributes.getString("inputLayout", "nchw") == "nhwc";
  g.groups = std::max<int64_t>(n.attributes.getInt("groups", 1), 1);
  g.N = dim(x, 0);
  g.C = dim(x, g.nhwc ? 3 : 1);
  g.H = dim(x, g.nhwc ? 1 : 2);
  g.W = dim(x, g.nhwc ? 2 : 3);
  g.O = dim(y, g.nhwc ? 3 : 1);
  g.OH = dim(y, g.nhwc ? 1 : 2);
  g.OW = dim(y, g.nhwc ? 2 : 3);
  std::string fl = n.attributes.getString("filterLayout", "oihw");
  size_t h = fl.find('h'), wpos = fl.find('w');
  g.KH = h != std::string::npos ? dim(w, int64_t(h)) : 1;
  g.KW = wpos != std::string::npos ? dim(w, int64_t(wpos)) : 1;
  std::vector<int64_t> st = n.attributes.getInts("strides", {1, 1}), dil = n.attributes.getInts("dilations", {1, 1});
  std::vector<int64_t> pad = n.attributes.getInts("padding", {0, 0, 0, 0});
  if (st.size() == 2) g.sh = std::max<int64_t>(st[0], 1), g.sw = std::max<int64_t>(st[1], 1);
  if (dil.size() == 2) g.dh = std::max<int64_t>(dil[0], 1), g.dw = std::max<int64_t>(dil[1], 1);
  if (pad.size() == 4)
    g.padTop = std::max<int64_t>(pad[0], 0), g.padBottom = std::max<int64_t>(pad[1], 0),
    g.padLeft = std::max<int64_t>(pad[2], 0), g.padRight = std::max<int64_t>(pad[3], 0);
  return g;
}

// The taps of a window along one axis that land inside the input, summed
// over the output positions (in doubles: a hostile dilation cannot overflow).
double axisTapsInside(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t dil, int64_t pad) {
  if (k > 4096) return double(out) * double(k);  // beyond any real filter: nominal
  double inside = 0;
  for (int64_t t = 0; t < k; ++t) {
    // Output o reads input o * stride - pad + t * dil.
    double lo = double(pad) - double(t) * double(dil), hi = double(in) - 1 + lo;
    double first = std::max(0.0, std::ceil(lo / double(stride)));
    double last = std::min(double(out) - 1, std::floor(hi / double(stride)));
    if (last >= first) inside += last - first + 1;
  }
  return inside;
}

// Our 1x1 kernels (kernels/conv/Pointwise{Narrow,Packed}Conv.cpp) take
// plain nhwc float32 layers with a constant filter whose activation is a
// clamp (none, relu, clamp) or SiLU: the narrow one up to 32 output
// channels (or a short residual block end), the packed SGEMM from 512 on
// few pixels (under 784; with a residual or from <= 160 inputs under 196),
// from 192 on 64 pixels or fewer. Sigmoid (a squeeze-and-excitation expand) and the widths
// between go to oneDNN, and under its floor to the portable kernel.
// kPackedThenPass: the packed SGEMM under oneDNN's floor for an activation
// our epilogues lack (sigmoid, SiLU, hardSwish), then the portable kernel's
// epilogue pass (Conv2dSelection.cpp's pointwise-packed-sgemm-then-epilogue-
// after-onednn).
enum class OwnPointwise { kNone, kNarrow, kPacked, kPackedThenPass };
// A convolution whose output is a strided slice (a concat's) that its
// kernel may write at the pitch: the CPU backend runs one with SiLU (a pass
// after its kernel) or a strided input on dense copies instead.
bool writesSlice(const NodeDesc &n) {
  const OperandDesc *x = n.inputs.empty() ? nullptr : n.inputs[0];
  const OperandDesc *y = n.outputs.empty() ? nullptr : n.outputs[0];
  const std::string act = n.op == "fusedConv2d" ? n.attributes.getString("activation", "none") : "none";
  return y && y->rowPitch && x && !x->rowPitch && act != "silu";
}
// `asPair`: the narrow tiles inside a kernel pair (the scaled-pointwise
// pair makes them itself): the rules that only order them after oneDNN in
// Conv2dSelection.cpp do not apply.
OwnPointwise ownPointwise(const NodeDesc &n, const std::vector<bool> &constant, bool asPair = false) {
  const OperandDesc *x = n.inputs.size() > 0 ? n.inputs[0] : nullptr;
  const ConvShape g = convShape(n);
  const bool residual = n.op == "fusedConv2d" && n.inputs.size() > 3 && n.inputs[3];
  const std::string act = n.op == "fusedConv2d" ? n.attributes.getString("activation", "none") : "none";
  const double outPixels = double(g.N * g.OH * g.OW);
  const bool plain1x1 = g.KH == 1 && g.KW == 1 && g.groups == 1 && g.sh == 1 && g.sw == 1 && g.padTop == 0 &&
                        g.padLeft == 0 && g.nhwc && x && x->dtype == DataType::kFloat32 && isConstant(constant, 1) &&
                        !n.relaxedPrecision && hasAvx512() && act != "sigmoid";
  // Its output a concat's slice (e589cc9): written at the pitch, taken at
  // any width from <= 64 input channels. With SiLU (a pass after it) or a
  // strided x the CPU backend runs the layer on dense copies instead.
  // A block end of 56x56 or more written over its dying residual
  // (n.outputOverInput, the arena plan's) goes to oneDNN's brgconv_1x1
  // first (e3e2741): its sum post-op then needs no copy of the residual.
  const bool residualInPlaceToOneDnn = residual && n.outputOverInput == 3 && outPixels >= 3136;
  // A 1x1 to 16 channels from 64 or more over 784 pixels or more goes to
  // brgconv_1x1 first (5cb3a9e: one output vector per row costs the narrow
  // tiles a broadcast per FMA); under oneDNN's floor the narrow tiles after it.
  const double flops = 2 * outPixels * double(g.C) * double(g.O);
  const bool sixteenToOneDnn = g.O == 16 && g.C >= 64 && !residual && outPixels >= 784 && flops >= kOneDnnMinFlops;
  if (plain1x1 && g.C <= 1024 && (asPair || (!residualInPlaceToOneDnn && !sixteenToOneDnn)) &&
      (g.O <= 32 || (residual && g.C <= 128 && outPixels >= 784) || (writesSlice(n) && g.C <= 64)))
    return OwnPointwise::kNarrow;
  // The packed SGEMM's 1x1 is tried after oneDNN's brgconv_1x1 from 784
  // output pixels up (9b5aa2a), with a residual from 196 up (ff8b620), and
  // for an inverted-residual expand (<= 160 input channels) from 196 up
  // (3b9179f): it keeps the 7x7 layers and the 14x14-28x28 ones of wider
  // inputs. Its floor is 192 output channels over 64 pixels or fewer, 512
  // above (759daad; PointwisePackedConv.cpp).
  if (plain1x1 && outPixels >= 16 && outPixels < 784 && !(residual && outPixels >= 196) &&
      !(g.C <= 160 && outPixels >= 196) && g.O >= (outPixels <= 64 ? 192 : 512) && g.C >= 8)
    return OwnPointwise::kPacked;
  // Under oneDNN's FLOP floor (it refuses the layer) the packed SGEMM takes
  // any other plain 1x1 with a clamp epilogue and 8 channels each way,
  // after oneDNN (1233121, 3704786; the portable kernel before: ShuffleNetV2
  // x0.5's 14x14 48 -> 48 and 7x7 96 -> 96, RegNetY-400MF's one-pixel
  // squeeze-and-excitation 208 -> 52), except one output pixel with a
  // filter of 64 KB or more, oneDNN's matrix-vector product.
  // Other activations (a squeeze-and-excitation expand's sigmoid) there
  // run it without them, then the portable kernel's epilogue pass.
  const bool clampEpilogue = act == "none" || act == "relu" || act == "clamp";
  const bool oneDnnMatrixVector = outPixels == 1 && double(g.C) * double(g.O) * 4 >= double(1 << 16);
  const bool plainAnyActivation = g.KH == 1 && g.KW == 1 && g.groups == 1 && g.sh == 1 && g.sw == 1 &&
                                  g.padTop == 0 && g.padLeft == 0 && g.nhwc && x &&
                                  x->dtype == DataType::kFloat32 && isConstant(constant, 1) && !n.relaxedPrecision &&
                                  hasAvx512();
  if (plainAnyActivation && flops < kOneDnnMinFlops && !oneDnnMatrixVector && g.C >= 8 && g.O >= 8)
    return clampEpilogue ? OwnPointwise::kPacked : OwnPointwise::kPackedThenPass;
  return OwnPointwise::kNone;
}

// The share of an SGEMM's multiply-adds (kernels/Sgemm.cpp's sgemm, M x N x
// K) that the largest of the pool's chunks holds at `threads`: its tasks are
// blocks of 96 rows x 256 columns, at least a grain of ~128K multiply-adds
// each, and ThreadPool::parallelFor gives each thread an even run of them;
// 1 where it runs whole on the calling thread. The portable convolution
// (kernels/conv/PortableConv2d.cpp) calls it per column tile; a layer of a
// few output pixels with 258 output channels has two tasks, 256 columns
// and 2: the other thread gets almost nothing.
double sgemmLargestChunkShare(int64_t M, int64_t N, int64_t K, int threads) {
  constexpr int64_t kMC = 96, kNC = 256;
  if (M <= 0 || N <= 0 || threads <= 1) return 1;
  const int64_t nBlocks = (N + kNC - 1) / kNC, mBlocks = (M + kMC - 1) / kMC, tasks = nBlocks * mBlocks;
  const int64_t grain =
      std::max<int64_t>(1, (int64_t(1) << 17) / std::max<int64_t>(1, std::min(M, kMC) * std::min(N, kNC) * K));
  if (tasks <= grain) return 1;
  int64_t chunks = std::min<int64_t>(threads, (tasks + grain - 1) / grain);
  const int64_t chunk = (tasks + chunks - 1) / chunks;
  double largest = 0;
  for (int64_t b = 0; b < tasks; b += chunk) {
    double cells = 0;
    for (int64_t t = b; t < std::min(tasks, b + chunk); ++t) {
      const int64_t nb = t / mBlocks, mb = t % mBlocks;
      cells += double(std::min(kNC, N - nb * kNC)) * double(std::min(kMC, M - mb * kMC));
    }
    largest = std::max(largest, cells);
  }
  return largest / (double(M) * double(N));
}

// conv2d/fusedConv2d (kernels/conv/Conv2dSelection.cpp): the factory's
// table picks our depthwise, 1x1 (pointwise) and few-pixel im2col kernels,
// oneDNN's Winograd for 3x3 stride-1 layers, oneDNN's direct kernels for
// the rest; each is a family of its own (Winograd does fewer multiplies per
// nominal FLOP than direct, so they cannot share a grid).
NodeCost convCost(const NodeDesc &n, const std::vector<bool> &constant, int threads) {
  const OperandDesc *x = n.inputs.size() > 0 ? n.inputs[0] : nullptr;
  const OperandDesc *w = n.inputs.size() > 1 ? n.inputs[1] : nullptr;
  const OperandDesc *y = n.outputs.empty() ? nullptr : n.outputs[0];
  const ConvShape g = convShape(n);
  const double C = double(g.C), O = double(g.O), groups = double(g.groups);
  const double window = double(g.KH * g.KW);
  const double elementBytes = x ? double(dataTypeBits(x->dtype)) / 8.0 : 4.0;
  const bool float32 = x && x->dtype == DataType::kFloat32;
  const bool constantFilter = isConstant(constant, 1);
  const bool residual = n.op == "fusedConv2d" && n.inputs.size() > 3 && n.inputs[3];
  const bool depthwise = g.groups > 1 && g.groups == g.C && g.O == g.groups;
  const bool pointwise = g.KH == 1 && g.KW == 1 && g.groups == 1;
  const bool packedFilter = constantFilter && float32 && !n.relaxedPrecision && hasAvx512();
  const std::string act = n.op == "fusedConv2d" ? n.attributes.getString("activation", "none") : "none";
  // Our own kernels below take a clamp (none, relu, clamp) in their tiles,
  // SiLU and hardSwish as a pass after them; sigmoid goes to oneDNN's post-op.
  const bool ownEpilogue = act != "sigmoid";
  const double outPixels = double(g.N * g.OH * g.OW);
  // The im2col kernel takes strided and padded 1x1 layers too (a ResNet
  // shortcut's 1x1 stride 2): only a plain 1x1 needs no copy.
  const bool plain1x1 = pointwise && g.sh == 1 && g.sw == 1 && g.padTop == 0 && g.padBottom == 0 &&
                        g.padLeft == 0 && g.padRight == 0;
  const bool im2col = g.nhwc && g.groups == 1 && !plain1x1 && outPixels <= 64 && outPixels >= 16 && g.O >= 256 &&
                      packedFilter && ownEpilogue;
  // The row-window kernel (kernels/conv/RowWindowPackedConv.cpp, after the
  // im2col one in Conv2dSelection.cpp) runs conv1d layers (one filter row
  // over unpadded rows) as the packed SGEMM with the windows read in place:
  // long rows of thousands of pixels, a family of its own.
  const bool rowWindow = g.nhwc && g.groups == 1 && g.KH == 1 && g.KW > 1 && g.padTop == 0 && g.padBottom == 0 &&
                         g.dw == 1 && g.OW >= 64 && g.O >= 128 && g.KW * g.C >= 64 && packedFilter && ownEpilogue &&
                         !im2col;
  // Not at >= 256 channels each way with 15-20 output columns, where
  // onednn/Conv2d.cpp keeps the direct kernel (Winograd ran slower there).
  const bool slowWinograd = g.C >= 256 && g.O >= 256 && g.OW >= 15 && g.OW <= 20;
  // Nor where the direct kernel wins on few input channels over a small
  // map (18d101a; PieceSplit.h's rule, which onednn/Conv2d.cpp builds by).
  const bool winograd = g.groups == 1 && g.KH == 3 && g.KW == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 &&
                        g.dw == 1 && g.C >= 16 && g.O >= 16 && !n.relaxedPrecision && !slowWinograd &&
                        !winogradLosesOnSmallMaps(g.C, g.OH, g.OW);
  // Of those, the layers oneDNN runs on 4x4 output tiles (jit_wino_4x3:
  // 2.25 multiplies an output per channel pair, 2x2 tiles 4; as oneDNN
  // answers, PieceSplit.h) are a family of their own.
  const bool winograd4 =
      winograd && winogradRunsFourByFourTiles({g.C, g.O, g.H, g.W, g.OH, g.OW, g.padTop, g.padBottom, g.padLeft, g.padRight});
  // Our grouped kernel (kernels/conv/GroupedNarrowConv.cpp) takes layers of 4
  // channels per group before oneDNN (in any precision: it has no bf16
  // form): a direct loop of its own that skips the taps in the padding, at
  // about twice oneDNN's rate, cut by rows; a family of its own.
  const bool groupedNarrow = g.nhwc && float32 && hasAvx512() && g.groups > 1 && g.C == 4 * g.groups &&
                             g.O == 4 * g.groups && g.O % 16 == 0 && constantFilter && !residual && ownEpilogue;
  const OwnPointwise own1x1 = ownPointwise(n, constant);
  const bool narrow1x1 = own1x1 == OwnPointwise::kNarrow;
  const bool ownPointwise = own1x1 != OwnPointwise::kNone;
  // Below oneDNN's size floor the portable kernel (im2col + SGEMM) runs
  // what our depthwise, pointwise and im2col kernels do not take: a family
  // of its own, several times slower per FLOP than oneDNN's. oneDNN takes
  // one output pixel with a filter of 64 KB or more whatever its FLOPs
  // (onednn/Conv2d.cpp: a squeeze-and-excitation layer on a pooled map is
  // a matrix-vector product bound by reading the filter).
  const bool matrixVector = g.N == 1 && g.OH * g.OW == 1 && O * (C / groups) * window * 4 >= double(1 << 16);
  const bool belowFloor = 2 * outPixels * O * (C / groups) * window < kOneDnnMinFlops && !matrixVector;
  const bool portable = !depthwise && !ownPointwise && !im2col && !rowWindow && !groupedNarrow && belowFloor;
  // Our AVX-512 depthwise kernel takes nhwc float32 stride-1 layers first:
  // 3x3, and 5x5 from 14 output columns up (padding up to half the filter);
  // oneDNN's (jit_dw: smaller 5x5, strided, dilated) the other depthwise
  // layers above its size floor, a kernel of its own.
  const bool ownDepthwise = depthwise && g.nhwc && float32 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 &&
                            hasAvx512() &&
                            ((g.KH == 3 && g.KW == 3 && g.padTop <= 1 && g.padLeft <= 1) ||
                             (g.KH == 5 && g.KW == 5 && g.padTop <= 2 && g.padLeft <= 2 && g.OW >= 14));
  const bool oneDnnDepthwise = depthwise && !ownDepthwise && !belowFloor;
  // oneDNN's direct kernel blocks a grouped layer's channels per group by
  // the vector: groups of fewer than 16 channels each way (RegNet's 8, a
  // grouped layer of 4 our grouped kernel does not take) run in 8-float
  // blocks at half the vector's width, and their per-group row loops
  // amortise less on small maps (a 7x7 map ran at 35 GFLOP/s, 28x28 at
  // 70): priced apart from the dense layers of the same per-group shape.
  const bool narrowGroups = g.groups > 1 && !depthwise && g.C / g.groups < 16 && g.O / g.groups < 16;
  std::string family = oneDnnDepthwise ? "conv2d.depthwise.onednn"
                       : depthwise     ? "conv2d.depthwise"
                       : groupedNarrow ? "conv2d.grouped4"
                       : portable      ? "conv2d.portable"
                       : im2col        ? "conv2d.im2col"
                       : pointwise     ? "conv2d.pointwise"
                       : rowWindow     ? "conv2d.rowwindow"
                       : winograd4     ? "conv2d.winograd4"
                       : winograd      ? "conv2d.winograd"
                       : narrowGroups  ? "conv2d.grouped.onednn"
                                       : "conv2d";
  // oneDNN's direct kernels (and jit_dw) skip the taps that fall in the
  // padding: a large dilation on a small map does a fraction of its nominal
  // multiply-adds. Winograd, our kernels and the portable im2col compute
  // every tap (our grouped kernel skips them too). The whole layer's share
  // prices its pieces too.
  const bool direct = family == "conv2d" || family == "conv2d.grouped.onednn" || oneDnnDepthwise || groupedNarrow;
  const double tapsInside = !direct ? 1.0
                            : axisTapsInside(g.H, g.OH, g.KH, g.sh, g.dh, g.padTop) *
                                  axisTapsInside(g.W, g.OW, g.KW, g.sw, g.dw, g.padLeft) /
                                  std::max(1.0, double(g.OH) * double(g.KH) * double(g.OW) * double(g.KW));
  // The work of images n x output rows oh x output columns ow x output
  // channels o, reading the input rows and columns they need.
  auto work = [&](double imgs, double oh, double ow, double o) {
    WorkPart p;
    p.family = family;
    double inRows = std::min(double(g.H), (oh - 1) * double(g.sh) + double((g.KH - 1) * g.dh + 1));
    double inCols = std::min(double(g.W), (ow - 1) * double(g.sw) + double((g.KW - 1) * g.dw + 1));
    double outCount = imgs * oh * ow * o;
    double filter = o * (C / groups) * window;
    p.flops = 2 * outCount * (C / groups) * window * tapsInside;
    p.bytes = (imgs * inRows * inCols * C + filter + outCount * (residual ? 2 : 1) + o) * elementBytes;
    double pixels = imgs * oh * ow;
    // Depthwise layers stream their input once: how many input elements
    // each output reads from memory (about the stride's area) sets their
    // rate as much as the window does, so strided and stride-1 layers of
    // one size sit apart on the grid.
    if (depthwise) p.params = {atLeast1(outCount), atLeast1(window), atLeast1(inRows * inCols / atLeast1(oh * ow))};
    // The grouped kernel's rate is set by its tiles: 8 output pixels x 16
    // channels, and the window and stride (a 3-wide stride-1 window reuses
    // each input column's spread channels; others read the input per tap).
    else if (groupedNarrow) p.params = {atLeast1(pixels), atLeast1(o), atLeast1(window * double(g.sh * g.sw))};
    else if (pointwise) p.params = {atLeast1(pixels), atLeast1(C), atLeast1(o)};
    else p.params = {atLeast1(pixels), atLeast1(C / groups * window), atLeast1(o / groups)};
    return p;
  };
  double out = outCount(n);
  double flops = 2 * out * (C / groups) * window * tapsInside;
  WorkPart whole = work(double(g.N), double(g.OH), double(g.OW), O);
  NodeCost c = make(family, whole.params, flops, allBytes(n));
  if (constantFilter) c.packedBytes = bytesOf(w);
  // Which of them run on oneDNN: Winograd and direct layers, and the
  // depthwise ones our AVX-512 kernel does not take first (it takes nhwc
  // float32 3x3 stride 1), above oneDNN's size floor.
  const bool oneDnn = family == "conv2d" || family == "conv2d.grouped.onednn" || family == "conv2d.winograd" ||
                      family == "conv2d.winograd4" || oneDnnDepthwise;  // above the floor
  c.jit = oneDnn || (pointwise && !portable && !im2col);
  // A concat's slice as its output (e589cc9): the narrow 1x1 writes it at
  // the pitch; oneDNN's Winograd in the reorder out of its blocked layout
  // it makes anyway (nhwc float32, no residual). Other kernels write a
  // dense y the backend then scatters (priced by the estimate).
  if (writesSlice(n)) {
    const bool narrow = own1x1 == OwnPointwise::kNarrow && family == "conv2d.pointwise";
    const bool winogradWrites = (family == "conv2d.winograd" || family == "conv2d.winograd4") && g.nhwc &&
                                float32 && !residual;
    c.writesPitch = narrow || winogradWrites;
  }
  if (threads > 1 && oneDnn) {
    ConvSplitShape s;
    s.N = g.N, s.C = g.C, s.H = g.H, s.W = g.W, s.O = g.O, s.OH = g.OH, s.OW = g.OW, s.KH = g.KH, s.KW = g.KW;
    s.groups = g.groups, s.strideH = g.sh, s.strideW = g.sw, s.dilationH = g.dh, s.dilationW = g.dw;
    s.padTop = g.padTop, s.padLeft = g.padLeft;
    s.nhwc = g.nhwc;
    s.float16 = x && x->dtype == DataType::kFloat16;
    s.constantFilter = constantFilter;
    s.hasResidual = residual;
    s.winograd = family == "conv2d.winograd" || family == "conv2d.winograd4";  // wide ones are cut by output channels
    ConvPiecePlan plan = planConv2dPieces(s, threads);
    if (plan.kind == PieceKind::kOneThread) {
      c.threading = Threading::kOneThread;
    } else if (plan.kind == PieceKind::kPieces) {
      c.threading = Threading::kPieces;
      c.pieces = int(plan.pieces.size());
      double best = -1;
      for (const ConvPiece &p : plan.pieces) {
        double cols = p.ow1 > p.ow0 ? double(p.ow1 - p.ow0) : double(g.OW);  // pieces of columns, else all
        WorkPart wp = work(double(p.n), double(p.oh1 - p.oh0), cols, double(p.o));
        // oneDNN picks a Winograd piece's tiles itself (onednn/Conv2d.cpp
        // builds each piece as a layer): by its own output channels and
        // rows, and 4x4 tiles for a piece of rows padded on one side only,
        // which the 2x2 kernel refuses.
        if (family == "conv2d.winograd" || family == "conv2d.winograd4") {
          const int64_t padBefore = p.oh0 == 0 ? g.padTop : 0, padAfter = p.oh1 == g.OH ? g.padBottom : 0;
          const int64_t rows = p.oh1 - p.oh0;
          const bool four = winogradRunsFourByFourTiles(
              {g.C, p.o, rows + 2 - padBefore - padAfter, g.W, rows, g.OW, padBefore, padAfter, g.padLeft, g.padRight});
          wp.family = four ? "conv2d.winograd4" : "conv2d.winograd";
          // A piece of a small map's rows can fall under the direct kernel's rule.
          if (winogradLosesOnSmallMaps(g.C, p.oh1 - p.oh0, int64_t(cols))) wp.family = "conv2d";
        }
        if (wp.flops > best) best = wp.flops, c.piece = wp;
      }
    }
  }
  // The portable kernel's time is its SGEMM's (im2col and the bias pass
  // are cut too, but light): where the SGEMM's largest chunk holds nearly
  // all of it, the layer runs as on one thread (Silero VAD v5's conv1d
  // layers of 1-3 output frames: 0.18 ms at one thread and at two, priced
  // 0.09 from the 2-thread grid).
  if (threads > 1 && portable) {
    const int64_t ICg = g.C / std::max<int64_t>(1, g.groups), OCg = g.O / std::max<int64_t>(1, g.groups);
    const int64_t K = ICg * g.KH * g.KW, P = g.OH * g.OW;
    const bool onePixelWindow = g.KH == 1 && g.KW == 1 && g.sh == 1 && g.sw == 1 && g.padTop == 0 &&
                                g.padLeft == 0 && g.padBottom == 0 && g.padRight == 0;
    const int64_t tile = onePixelWindow ? P : std::max<int64_t>(1, std::min<int64_t>(P, (int64_t(1) << 20) / std::max<int64_t>(1, K)));
    const double share = g.nhwc ? sgemmLargestChunkShare(tile, OCg, K, threads) : sgemmLargestChunkShare(OCg, tile, K, threads);
    if (share >= 0.9) c.threading = Threading::kOneThread;
  }
  // At 2+ threads our depthwise kernel splits output rows where they split
  // evenly (14x14 maps and up at 2 threads; DepthwiseAvx512Conv.cpp), or
  // where it has too few 16-channel blocks for the channel split; the
  // packed SGEMM of a 1x1 of one row chunk (<= 256 pixels) cuts 8-row tiles
  // where B's extra reads are repaid (PackedSgemm.cpp's splitRows).
  if (threads > 1 && ownDepthwise)
    c.rowsPerThread = rowsSplitEvenly(g.OH, threads) || (g.C + 15) / 16 < 2 * int64_t(threads);
  if (threads > 1 && (own1x1 == OwnPointwise::kPacked || own1x1 == OwnPointwise::kPackedThenPass)) {
    const int64_t M = g.N * g.OH * g.OW, tiles = (M + 7) / 8;
    const bool bRepaid = g.C * g.O * (threads - 1) <= M * (g.C + g.O);
    c.rowsPerThread = M <= 256 && bRepaid && tiles >= 8 * int64_t(threads) && rowsSplitEvenly(tiles, threads);
  }
  // Sigmoid and SiLU are computed per element: SiLU by the SiLU pass after
  // the convolution (oneDNN's, the packed SGEMM's), sigmoid in oneDNN's
  // post-op, and both in the epilogue pass after the portable kernel and
  // the packed SGEMM under oneDNN's floor (the vector exp since 414fe61, as
  // the sigmoid kernel's; std::exp per element before): all priced as the
  // sigmoid family's pass. The narrow 1x1 and the depthwise kernels
  // apply SiLU to each block of rows while it is in cache: no pass of its
  // own (their grids' points, with relu, leave out its few instructions).
  const bool inlineSilu = narrow1x1 || (ownDepthwise && !residual);
  if (act == "sigmoid" || (act == "silu" && !inlineSilu))
    c.after.push_back({"unary.sigmoid", {atLeast1(out)}, 10 * out, 2 * (y ? bytesOf(y) : 0)});
  // hardSwish: our depthwise, 1x1, im2col, row-window and grouped kernels
  // run without it, then a pass over the output (Conv2dSelection.cpp's
  // hardswish-after-own-kernel): a few instructions per element, priced as
  // an elementwise pass on the relu grid; oneDNN applies it as a post-op
  // inside its kernel.
  if (act == "hardSwish" && (ownPointwise || im2col || rowWindow || groupedNarrow || (ownDepthwise && !residual)))
    c.after.push_back({"unary", {atLeast1(out)}, 4 * out, 2 * (y ? bytesOf(y) : 0)});
  return c;
}
// convTranspose2d runs our own kernel (kernels/conv/ConvTranspose2d.cpp),
// not oneDNN's: an SGEMM of the input against the reordered filter into a
// column buffer of (input pixels, O/groups x kh x kw) per group, then a
// gather-form col2im that visits every tap of every output element and
// keeps those the stride lets land (a scalar loop, so it, not the GEMM,
// usually sets the time). A family of its own, parameters (output
// elements, taps kh x kw, input channels per group); work: the GEMM's
// multiply-adds, the operands and the column buffer written and read back.
NodeCost convTransposeCost(const NodeDesc &n, const std::vector<bool> &constant, int) {
  const OperandDesc *x = n.inputs.size() > 0 ? n.inputs[0] : nullptr;
  const OperandDesc *w = n.inputs.size() > 1 ? n.inputs[1] : nullptr;
  bool nhwc = n.attributes.getString("inputLayout", "nchw") == "nhwc";
  int64_t groups = std::max<int64_t>(n.attributes.getInt("groups", 1), 1);
  double C = double(dim(x, nhwc ? -1 : 1));
  double in = inCount(n, 0), filter = w ? count(w->shape) : 0.0;
  double pixels = in / atLeast1(C);
  double perPixel = filter / atLeast1(C);  // (O / groups) * kh * kw
  std::string fl = n.attributes.getString("filterLayout", "iohw");
  // Taps kh x kw: the filter's spatial dims in its layout (iohw: 2, 3; hwoi: 0, 1; ohwi: 1, 2).
  size_t h = fl == "hwoi" ? 0 : fl == "ohwi" ? 1 : 2;
  double taps = w && w->shape.size() == 4 ? double(std::max<int64_t>(w->shape[h], 1)) *
                                                double(std::max<int64_t>(w->shape[h + 1], 1))
                                          : 1.0;
  double colBytes = pixels * perPixel * double(groups) * 4;
  NodeCost c = make("conv2d.transpose", {outCount(n), taps, C / double(groups)}, 2 * in * perPixel,
                    allBytes(n) + 2 * colBytes);
  if (isConstant(constant, 1)) c.packedBytes = bytesOf(w);
  // The col2im's scalar loop (11-70x the byte roofline in calibration), cut
  // by output rows, bounds it, not the bytes: PP-OCR det's two layers ran
  // 1.5-1.7x faster at 2 threads than at 1 (webnn-run --profile).
  c.instructionBound = true;
  return c;
}

// ---- pooling (kernels/Pooling.cpp): the window's reads per output.
// One nhwc image's global average pool (a squeeze-and-excitation squeeze)
// gives threads contiguous rows where they split evenly and each part
// reads at least 8k floats (Pooling.cpp's globalRowParts), else channel
// blocks.
bool globalPoolRowsPerThread(const NodeDesc &n, int threads) {
  const OperandDesc *x = n.inputs.empty() ? nullptr : n.inputs[0];
  if (threads < 2 || n.op != "averagePool2d" || !x || x->shape.size() != 4) return false;
  if (n.attributes.getString("layout", "nchw") != "nhwc" || x->shape[0] != 1) return false;
  const int64_t H = x->shape[1], W = x->shape[2], C = x->shape[3];
  if (H < 1 || W < 1 || C < 1) return false;
  if (n.attributes.getInts("windowDimensions", {H, W}) != std::vector<int64_t>{H, W}) return false;
  const std::vector<int64_t> pad = n.attributes.getInts("padding", {0, 0, 0, 0});
  if (pad.size() != 4 || pad[0] != 0 || pad[2] != 0) return false;
  if (n.attributes.getInts("dilations", {1, 1}) != std::vector<int64_t>{1, 1}) return false;
  const OperandDesc *y = n.outputs.empty() ? nullptr : n.outputs[0];
  if (!y || y->shape.size() != 4 || y->shape[1] != 1 || y->shape[2] != 1) return false;
  const int64_t grainRows = std::max<int64_t>(1, 8192 / std::max<int64_t>(1, W * C));
  const int64_t parts = std::min<int64_t>(threads, H / grainRows);
  return parts > 1 && rowsSplitEvenly(H, parts);
}
NodeCost poolCost(const NodeDesc &n, const std::vector<bool> &, int threads) {
  const OperandDesc *x = n.inputs.empty() ? nullptr : n.inputs[0];
  bool nhwc = n.attributes.getString("layout", "nchw") == "nhwc";
  std::vector<int64_t> win =
      n.attributes.getInts("windowDimensions", {dim(x, nhwc ? 1 : 2), dim(x, nhwc ? 2 : 3)});
  double window = 1;
  for (int64_t v : win) window *= double(std::max<int64_t>(v, 1));
  double out = outCount(n);
  // The input elements per output (1 at stride 1, 4 at stride 2, the window
  // for a global pool): a pool's bytes are mostly its input, its time its
  // window reads, so without it a stride-1 pool's ratio to its byte roofline
  // (2.5x a stride-2 one's) is lent to strided pools of the same size.
  double in = x ? count(x->shape) : out;
  NodeCost c = make("pool", {out, window, atLeast1(in / atLeast1(out))}, out * window, allBytes(n));
  c.rowsPerThread = globalPoolRowsPerThread(n, threads);
  return c;
}

// ---- attention (kernels/Transformer.cpp, GqaAttention*): QK^T and PV.
// Parameters (S, T, heads, head size): with small heads the per-score work
// (scale, softmax, the short dot products' overhead) outweighs the
// multiply-adds, so the head size is a parameter of its own.
NodeCost attentionCost(const NodeDesc &n, const std::vector<bool> &, int) {
  const OperandDesc *q = n.inputs.size() > 0 ? n.inputs[0] : nullptr;
  const OperandDesc *k = n.inputs.size() > 1 ? n.inputs[1] : nullptr;
  double heads = double(std::max<int64_t>(n.attributes.getInt("heads", 1), 1));
  double S = double(dim(q, 1)), D = double(dim(q, 2)), T = double(dim(k, 1)), B = double(dim(q, 0));
  double flops = 4 * B * S * T * D;
  // The encoder tiles keep a block's scores in L1 and generate no code;
  // oneDNN's batched matmuls write all S x T scores and read them back.
  const bool tiles = kernels::encoderAttentionChosen(n);
  const double scores = tiles ? 0.0 : 4.0 * B * heads * S * T;
  NodeCost c = make("attention", {S, T, heads, D / heads}, flops, allBytes(n) + scores);
  c.jit = !tiles;
  return c;
}
NodeCost gqaCost(const NodeDesc &n, const std::vector<bool> &, int) {
  const OperandDesc *q = n.inputs.size() > 0 ? n.inputs[0] : nullptr;
  const OperandDesc *pk = n.inputs.size() > 3 ? n.inputs[3] : nullptr;
  double H = double(std::max<int64_t>(n.attributes.getInt("numHeads", 1), 1));
  double KvH = double(std::max<int64_t>(n.attributes.getInt("kvNumHeads", 1), 1));
  bool packedQkv = n.inputs.size() < 2 || !n.inputs[1];
  double B = double(dim(q, 0)), S = double(dim(q, 1));
  double D = double(dim(q, 2)) / (packedQkv ? H + 2 * KvH : H);
  // The present cache holds past and new rows (or, shared, as many as the
  // past); attention reads up to its length.
  const OperandDesc *present = n.outputs.size() > 1 ? n.outputs[1] : nullptr;
  double T = std::max(present && present->shape.size() == 4 ? double(dim(present, 2)) : double(dim(pk, 2)), S);
  double flops = 4 * B * H * S * T * D;
  double bytes = bytesOf(q) + 2 * B * KvH * T * D * 4 + (n.outputs.empty() ? 0 : bytesOf(n.outputs[0]));
  // Its own kernel (per-row decode loops, grouped heads): not fusedAttention's grid.
  return make("attention.gqa", {S, T, H, D}, flops, bytes);
}

// ---- quantized (kernels/QuantizedMatMul*): bound by the packed weights.
NodeCost matmulNBitsCost(const NodeDesc &n, const std::vector<bool> &constant, int) {
  double K = double(std::max<int64_t>(n.attributes.getInt("K", 1), 1));
  double N = double(std::max<int64_t>(n.attributes.getInt("N", 1), 1));
  double M = outCount(n) / N;
  // accuracyLevel 4 quantizes the activations to int8 (VNNI paths), the
  // others dequantize to float: different kernels (kernels/QuantizedMatMul.cpp).
  bool int8 = n.attributes.getInt("accuracyLevel", 0) == 4;
  NodeCost c = make(int8 ? "matmulNBits.int8" : "matmulNBits", {M, K, N}, 2 * M * K * N, allBytes(n));
  if (isConstant(constant, 1)) c.packedBytes = bytesOf(n.inputs.size() > 1 ? n.inputs[1] : nullptr);
  return c;
}
// quantizedMatmul (kernels/QdqMatmul.cpp): u8 x s8 products on VNNI, four
// multiply-adds per 32-bit lane where float32 does one, so the "gemm"
// family's float32 rate at a quarter of the work; a float operand is
// quantized first (one pass over it). Operands: a, its scale and zero
// point, then b (inputs[3]).
NodeCost quantizedMatmulCost(const NodeDesc &n, const std::vector<bool> &constant, int) {
  const OperandDesc *a = n.inputs.size() > 0 ? n.inputs[0] : nullptr;
  const OperandDesc *b = n.inputs.size() > 3 ? n.inputs[3] : nullptr;
  double K = double(dim(a, -1)), N = double(dim(n.outputs.empty() ? nullptr : n.outputs[0], -1));
  double out = outCount(n), M = out / atLeast1(N);
  NodeCost c = make("gemm", {M, K, N}, 2 * out * K / 4 + inCount(n, 0), allBytes(n));
  if (isConstant(constant, 3)) c.packedBytes = bytesOf(b);
  return c;
}
// quantizedConv2d (kernels/conv/QuantizedConv2d.cpp): oneDNN's int8 direct
// convolution, u8 x s8 on VNNI, so the direct "conv2d" family's float32
// rate at a quarter of the work (as quantizedMatmul). Operands: the nhwc
// input, its scale and zero point, then the ohwi filter (inputs[3]).
NodeCost quantizedConvCost(const NodeDesc &n, const std::vector<bool> &constant, int) {
  const OperandDesc *w = n.inputs.size() > 3 ? n.inputs[3] : nullptr;
  const double out = outCount(n), O = double(dim(w, 0));
  const double perOutput = double(dim(w, 1)) * double(dim(w, 2)) * double(dim(w, 3));  // KH * KW * C / groups
  const double pixels = out / atLeast1(O);
  const double groups = double(std::max<int64_t>(n.attributes.getInt("groups", 1), 1));
  NodeCost c = make("conv2d", {atLeast1(pixels), atLeast1(perOutput), atLeast1(O / groups)},
                    2 * out * perOutput / 4, allBytes(n));
  if (isConstant(constant, 3)) c.packedBytes = bytesOf(w);
  c.jit = true;
  return c;
}
NodeCost quantizeCost(const NodeDesc &n, const std::vector<bool> &, int) {
  double e = outCount(n);
  return make("unary", {e}, 2 * e, allBytes(n));
}

// ---- recurrent (kernels/Recurrent.cpp): per step a GEMV/GEMM of the gates.
// lstm and gru layers (LstmLayer.cpp, GruLayer.cpp) pack their weights into
// panels once when they are constants, but on every run when the graph
// computes them (a model that slices and concatenates its own weights):
// a family of its own, with the packed copy written and read back.
NodeCost recurrentCost(const NodeDesc &n, const std::vector<bool> &constant, int) {
  const OperandDesc *x = n.inputs.empty() ? nullptr : n.inputs[0];
  bool cell = n.op == "gruCell" || n.op == "lstmCell";
  double steps = cell ? 1 : double(dim(x, 0));
  double batch = double(dim(x, cell ? 0 : 1)), input = double(dim(x, -1));
  double hidden = double(std::max<int64_t>(n.attributes.getInt("hiddenSize", 0), 0));
  if (hidden < 1 && n.inputs.size() > 2 && n.inputs[2]) hidden = double(dim(n.inputs[2], -1));
  double gates = (n.op == "lstm" || n.op == "lstmCell") ? 4 : 3;
  std::string dir = n.attributes.getString("direction", "forward");
  double dirs = dir == "both" ? 2 : 1;
  double flops = 2 * dirs * steps * batch * gates * hidden * (input + hidden);
  bool layer = n.op == "lstm" || n.op == "gru";
  if (layer && !(isConstant(constant, 1) && isConstant(constant, 2))) {
    double weights = bytesOf(n.inputs.size() > 1 ? n.inputs[1] : nullptr) +
                     bytesOf(n.inputs.size() > 2 ? n.inputs[2] : nullptr);
    return make("recurrent.repacked", {steps * dirs, batch, hidden, input}, flops, allBytes(n) + 2 * weights);
  }
  return make("recurrent", {steps * dirs, batch, hidden, input}, flops, allBytes(n));
}

NodeCost rotaryCost(const NodeDesc &n, const std::vector<bool> &, int) {
  double e = inCount(n, 0);
  return make("binary", {e}, 3 * e, allBytes(n));
}

const std::vector<std::pair<std::string_view, CostFunction>> &table() {
  static const auto *entries = [] {
    auto *t = new std::vector<std::pair<std::string_view, CostFunction>>;
    auto add = [&](std::initializer_list<std::string_view> ops, CostFunction f) {
      for (std::string_view op : ops) t->emplace_back(op, f);
    };
    add({"abs", "neg", "sign", "relu", "identity", "ceil", "floor", "roundEven", "linear", "clamp", "leakyRelu",
         "hardSigmoid", "hardSwish", "logicalNot", "cast", "isNaN", "isInfinite", "softsign", "reciprocal"},
        &unaryCost);
    add({"exp", "log", "sqrt", "sigmoid", "tanh", "erf", "sin", "cos", "tan", "softplus", "gelu", "elu"}, &mathCost);
    add({"pow"}, &powCost);
    add({"add", "sub", "mul", "div", "max", "min", "equal", "notEqual", "greater", "greaterOrEqual", "lesser",
         "lesserOrEqual", "logicalAnd", "logicalOr", "logicalXor", "prelu", "where"},
        &binaryCost);
    add({"transpose"}, &transposeCost);
    add({"concat", "expand", "pad", "tile", "reverse", "triangular", "scatterElements", "scatterND"}, &copyCost);
    add({"channelShuffle"}, &channelShuffleCost);
    add({"resample2d"}, &resampleCost);
    add({"slice", "gather", "gatherElements", "gatherND"}, &gatherCost);
    add({"reshape"}, &reshapeCost);
    add({"split"}, &splitCost);
    add({"reduceL1", "reduceL2", "reduceLogSum", "reduceLogSumExp", "reduceMax", "reduceMean", "reduceMin",
         "reduceProduct", "reduceSum", "reduceSumSquare", "argMax", "argMin"},
        &reduceCost);
    add({"cumulativeSum"}, &cumsumCost);
    add({"softmax"}, &softmaxCost);
    add({"batchNormalization", "instanceNormalization", "layerNormalization", "rmsNormalization",
         "skipRmsNormalization"},
        &normCost);
    add({"matmul", "gemm", "fusedMatmul"}, &matmulCost);
    add({"conv2d", "fusedConv2d"}, &convCost);
    add({"convTranspose2d"}, &convTransposeCost);
    add({"averagePool2d", "maxPool2d", "l2Pool2d"}, &poolCost);
    add({"fusedAttention"}, &attentionCost);
    add({"groupQueryAttention"}, &gqaCost);
    add({"matmulNBits"}, &matmulNBitsCost);
    add({"quantizedMatmul"}, &quantizedMatmulCost);
    add({"quantizedConv2d"}, &quantizedConvCost);
    add({"quantizeLinear", "dequantizeLinear"}, &quantizeCost);
    add({"gru", "gruCell", "lstm", "lstmCell"}, &recurrentCost);
    add({"rotaryEmbedding"}, &rotaryCost);
    std::sort(t->begin(), t->end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    return t;
  }();
  return *entries;
}

}  // namespace

namespace {
// kernels/BatchNormReluPair.cpp: a float32 batchNormalization whose
// per-channel operands are vectors of its axis's length, and a relu of the
// same shape, in one pass.
bool batchNormRelu(const NodeDesc &producer, const NodeDesc &consumer) {
  if (producer.op != "batchNormalization" || consumer.op != "relu") return false;
  if (producer.inputs.size() < 3 || producer.inputs.size() > 5 || producer.outputs.size() != 1 ||
      !producer.inputs[0] || !producer.outputs[0] || consumer.inputs.size() != 1 || consumer.outputs.size() != 1 ||
      !consumer.outputs[0])
    return false;
  const OperandDesc &x = *producer.inputs[0], &y = *consumer.outputs[0];
  if (x.dtype != DataType::kFloat32 || y.dtype != DataType::kFloat32 || y.shape != x.shape ||
      producer.outputs[0]->shape != x.shape || producer.outputs[0]->dtype != x.dtype)
    return false;
  int64_t axis = producer.attributes.getInt("axis", 1), rank = int64_t(x.shape.size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return false;
  for (size_t i = 1; i < producer.inputs.size(); ++i) {
    const OperandDesc *v = producer.inputs[i];
    if (!v) {
      if (i < 3) return false;
      continue;
    }
    if (v->dtype != DataType::kFloat32 || v->shape != Shape{x.shape[size_t(axis)]}) return false;
  }
  return true;
}

// kernels/conv/ScaledPointwisePair.cpp: a float32 mul of the conv's nhwc
// input by one value per channel ([N or 1, 1, 1, C]), into a 1x1 the
// narrow tiles take (bias constant or absent), whose filter is no larger
// than the map it would scale.
bool scaledPointwise(const NodeDesc &mul, const NodeDesc &conv, const std::vector<bool> &constant) {
  if (mul.op != "mul" || (conv.op != "conv2d" && conv.op != "fusedConv2d")) return false;
  if (mul.inputs.size() != 2 || !mul.inputs[0] || !mul.inputs[1] || mul.outputs.size() != 1 || !mul.outputs[0])
    return false;
  if (ownPointwise(conv, constant, /*asPair=*/true) != OwnPointwise::kNarrow) return false;
  const ConvShape g = convShape(conv);
  const Shape x = {g.N, g.H, g.W, g.C};
  const OperandDesc &a = *mul.inputs[0], &b = *mul.inputs[1];
  const OperandDesc &xs = a.shape == x ? a : b, &ss = a.shape == x ? b : a;
  if (xs.shape != x || mul.outputs[0]->shape != x || xs.dtype != DataType::kFloat32 ||
      ss.dtype != DataType::kFloat32)
    return false;
  if (ss.shape != Shape{g.N, 1, 1, g.C} && ss.shape != Shape{1, 1, 1, g.C}) return false;
  if (conv.inputs.size() > 2 && conv.inputs[2] && !isConstant(constant, 2)) return false;
  return g.C * g.O <= g.H * g.W * g.C;
}

// kernels/Normalization.cpp's makeInstanceNormGeluPair: its operands
// (InstanceNormNhwc.h) on AVX-512.
bool instanceNormGelu(const NodeDesc &norm, const NodeDesc &gelu) {
  return hasAvx512() && kernels::instanceNormGeluOperandsFit(norm, gelu);
}
}  // namespace

NodeCost pairedProducerCost(const NodeDesc &producer, const NodeDesc &consumer,
                            const std::vector<bool> &producerConstant, int threads) {
  CostFunction f = findCostFunction(producer.op);
  NodeCost c = f ? f(producer, producerConstant, threads) : NodeCost{};
  if (instanceNormGelu(producer, consumer)) {
    // gelu in registers in the output sweep: its arithmetic, no bytes.
    // With it each thread's channel group is bound by its own instructions
    // more than by the map's bytes: the audio encoder's 3199 x 512 pair ran
    // 1.7x faster at 2 threads than at 1 (webnn-run --profile).
    const double e = outCount(consumer);
    c.after.push_back({"unary.gelu", {atLeast1(e)}, 10 * e, 0, true});
    c.instructionBound = true;
  }
  return c;
}

PairedAway pairedAway(const NodeDesc &producer, const NodeDesc &consumer, const std::vector<bool> &consumerConstant) {
  if (batchNormRelu(producer, consumer) || instanceNormGelu(producer, consumer)) return PairedAway::kConsumer;
  if (scaledPointwise(producer, consumer, consumerConstant)) return PairedAway::kProducer;
  return PairedAway::kNone;
}

CostFunction findCostFunction(std::string_view op) {
  const auto &t = table();
  auto it = std::lower_bound(t.begin(), t.end(), op, [](const auto &e, std::string_view k) { return e.first < k; });
  return (it != t.end() && it->first == op) ? it->second : nullptr;
}

std::vector<std::string_view> costFunctionNames() {
  std::vector<std::string_view> names;
  for (const auto &e : table()) names.push_back(e.first);
  return names;
}

const std::vector<CostFamily> &costFamilies() {
  static const std::vector<CostFamily> families = {
      {"unary", 1},    {"unary.exp", 1},  {"unary.log", 1},  {"unary.sqrt", 1}, {"unary.sigmoid", 1},
      {"unary.tanh", 1}, {"unary.erf", 1}, {"unary.sin", 1},  {"unary.cos", 1},  {"unary.tan", 1},
      {"unary.softplus", 1}, {"unary.gelu", 1}, {"unary.elu", 1}, {"binary", 1}, {"binary.pow", 1}, {"copy", 1}, {"copy.contiguous", 1},
      {"copy.transpose", 2},
      {"resample.linear", 2}, {"resample.nearest", 2},
      {"reduce", 2},   {"softmax", 2},        {"norm", 2},           {"norm.nhwc", 1},           {"gemm", 3}, {"gemm.portable", 3},
      {"matmul.batched", 4}, {"conv2d", 3},   {"conv2d.winograd", 3}, {"conv2d.winograd4", 3}, {"conv2d.im2col", 3}, {"conv2d.rowwindow", 3}, {"conv2d.grouped4", 3}, {"conv2d.grouped.onednn", 3}, {"conv2d.portable", 3},   {"conv2d.pointwise", 3}, {"conv2d.depthwise", 3},
      {"conv2d.depthwise.onednn", 3}, {"conv2d.transpose", 3},
      {"pool", 3},     {"attention", 4}, {"attention.gqa", 4}, {"matmulNBits", 3}, {"matmulNBits.int8", 3},    {"recurrent", 4},
      {"recurrent.repacked", 4},
  };
  return families;
}

}  // namespace webnn::cpu
