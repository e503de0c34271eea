#include "runtime/backends/cpu/kernels/conv/ConvGeometry.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/PackedSgemm.h"

namespace webnn::cpu::kernels {
namespace {

// A 1 x KW convolution in nhwc (conv1d: H = 1) reads, for each output pixel,
// KW neighbouring input pixels of one row: KW * C consecutive floats. Those
// windows are the rows of the im2col matrix already, one every sw * C
// floats, so the packed-B GEMM reads them in place (lda = sw * C) with the
// filter as [KW * C, O]; only the pixels whose window reaches into the
// padding are copied out (a few per row) and run as one small GEMM of their
// own. oneDNN 2.6 ran the audio encoder's 512 -> 512, kernel 3, stride 2
// conv1d layers at ~40% of the FMA peak (docs/PERFORMANCE.md, issue 19).
class RowWindowPackedConvKernel final : public PackedSgemmWeightsKernel {
 public:
  RowWindowPackedConvKernel(const NodeDesc &node, const ConvGeometry &g, const PackedProduct &p)
      : PackedSgemmWeightsKernel(node, p), g_(g), K_(p.K), lo_(p.lo), hi_(p.hi) {
    // Output columns [first_, last_) have their whole window inside the row.
    first_ = std::min(g.OW, (g.padLeft + g.sw - 1) / g.sw);
    const int64_t room = g.W + g.padLeft - g.KW;  // the last window's start, in padded columns
    last_ = room < 0 ? first_ : std::max(first_, std::min(g.OW, room / g.sw + 1));
    const int64_t rowsPerImageRow = g.N * g.OH, inside = last_ - first_;
    // Segments: one per output row for its inside windows, then all the edge
    // windows gathered as one product; each cut in the packed GEMM's chunks.
    for (int64_t r = 0; r < rowsPerImageRow && inside > 0; ++r) {
      const int64_t n = r / g.OH, oh = r % g.OH;
      Segment s;
      s.aOffset = ((n * g.H + oh * g.sh) * g.W + first_ * g.sw - g.padLeft) * g.C;
      s.lda = g.sw * g.C;
      s.yRow = r * g.OW + first_;
      s.rows = inside;
      segments_.push_back(s);
    }
    for (int64_t r = 0; r < rowsPerImageRow; ++r)
      for (int64_t ow = 0; ow < g.OW; ++ow)
        if (ow < first_ || ow >= last_) edgePixels_.push_back(r * g.OW + ow);
    if (!edgePixels_.empty()) {
      Segment s;
      s.edge = true;
      s.lda = K_;
      s.rows = int64_t(edgePixels_.size());
      segments_.push_back(s);
    }
    for (size_t i = 0; i < segments_.size(); ++i) {
      const int64_t rows = segments_[i].rows, chunk = PackedSgemmB::rowChunk(rows);
      for (int64_t r0 = 0; r0 < rows; r0 += chunk) chunks_.push_back({i, r0, std::min(rows, r0 + chunk)});
    }
  }

  // y over its residual (input 3): the edge pixels' residual rows are
  // copied out before any store, the rest read by each tile before it
  // stores the same elements (residualReadFirst: alpha is 1).
  bool allowsInPlace(size_t output, size_t input) const override { return output == 0 && input == 3; }

  Status run(const KernelContext &ctx) override {
    const float *packed = b_.get();
    const PackedSgemmB &layout = b_.layout();
    const float *x = in<float>(ctx, 0);
    float *y = outp<float>(ctx, 0);
    const float *bias = ctx.numInputs > 2 && ctx.inputs[2] ? static_cast<const float *>(ctx.inputs[2]->data) : nullptr;
    const float *residual =
        ctx.numInputs > 3 && ctx.inputs[3] ? static_cast<const float *>(ctx.inputs[3]->data) : nullptr;
    const int64_t O = g_.O, E = int64_t(edgePixels_.size());
    if (E > 0) gatherEdges(x, residual);  // a few pixels per row: serial
    const int64_t panels = layout.panels();
    parallelFor(ctx, int64_t(chunks_.size()) * panels, 1, [&](int64_t t0, int64_t t1) {
      while (t0 < t1) {  // one call per chunk the range touches
        const Chunk &c = chunks_[size_t(t0 / panels)];
        const int64_t p0 = t0 % panels, p1 = std::min(panels, p0 + (t1 - t0));
        const Segment &s = segments_[c.segment];
        SgemmEpilogue ep;
        ep.bias = bias;
        ep.lo = lo_, ep.hi = hi_;
        float *ys = s.edge ? edgeY_.data() : y + s.yRow * O;
        if (residual) ep.residual = s.edge ? edgeResidual_.data() : residual + s.yRow * O;
        const float *a = s.edge ? edgeCol_.data() : x + s.aOffset;
        packedSgemmAvx512(layout, packed, a, s.lda, ys, O, ep, c.r0, c.r1, p0, p1);
        t0 += p1 - p0;
      }
    });
    for (int64_t e = 0; e < E; ++e)
      std::memcpy(y + edgePixels_[size_t(e)] * O, edgeY_.data() + e * O, size_t(O) * sizeof(float));
    return Status::ok();
  }

 private:
  struct Segment {
    bool edge = false;     // rows of the gathered edge copy, else of the input in place
    int64_t aOffset = 0;   // first row's window, in floats from the input's start
    int64_t lda = 0;       // floats between consecutive windows
    int64_t yRow = 0;      // first output pixel (flattened n, oh, ow)
    int64_t rows = 0;
  };
  struct Chunk {
    size_t segment;
    int64_t r0, r1;
  };

  // The edge pixels' windows, zeros where they reach into the padding, and
  // their residual rows, in edgePixels_'s order.
  void gatherEdges(const float *x, const float *residual) {
    const int64_t E = int64_t(edgePixels_.size()), C = g_.C, O = g_.O;
    if (edgeCol_.empty()) {  // first run, not load
      edgeCol_.resize(size_t(E * K_));
      edgeY_.resize(size_t(E * O));
    }
    if (residual && edgeResidual_.empty()) edgeResidual_.resize(size_t(E * O));
    for (int64_t e = 0; e < E; ++e) {
      const int64_t pixel = edgePixels_[size_t(e)], r = pixel / g_.OW, ow = pixel % g_.OW;
      const int64_t n = r / g_.OH, oh = r % g_.OH;
      const float *row = x + (n * g_.H + oh * g_.sh) * g_.W * C;
      float *dst = edgeCol_.data() + e * K_;
      for (int64_t kw = 0; kw < g_.KW; ++kw, dst += C) {
        const int64_t iw = ow * g_.sw - g_.padLeft + kw * g_.dw;
        if (iw < 0 || iw >= g_.W) std::memset(dst, 0, size_t(C) * sizeof(float));
        else std::memcpy(dst, row + iw * C, size_t(C) * sizeof(float));
      }
      if (residual) std::memcpy(edgeResidual_.data() + e * O, residual + pixel * O, size_t(O) * sizeof(float));
    }
  }

  ConvGeometry g_;
  int64_t K_;
  float lo_, hi_;
  int64_t first_ = 0, last_ = 0;
  std::vector<Segment> segments_;
  std::vector<Chunk> chunks_;
  std::vector<int64_t> edgePixels_;  // flattened output pixels whose window reaches into the padding
  std::vector<float> edgeCol_, edgeY_, edgeResidual_;
};

}  // namespace

// Where it applies: nhwc, ungrouped, one filter row over unpadded rows
// (conv1d as conv2d with H = 1), several taps along the row, undilated, and
// at least 64 output columns (each row's windows are one product that reads
// all of the packed filter; fewer pixels are the im2col kernel's), and at
// least 128 output channels (the 48-column panels). A 1 x 1
// filter is the pointwise kernels' (strided ones: not measured here).
std::unique_ptr<Kernel> makeRowWindowPackedConv(const NodeDesc &node, const ConvGeometry &g, const FilterIndexer &fi,
                                                float lo, float hi, std::string *why) {
  if (!g.nhwc) return refuse(why, "not nhwc");
  if (g.groups != 1) return refuse(why, "grouped");
  if (g.KH != 1) return refuse(why, "filter height is not 1");
  if (g.KW == 1) return refuse(why, "1x1");
  if (g.padTop || g.padBottom) return refuse(why, "padded rows");
  if (g.dw != 1) return refuse(why, "dilated along the row");
  if (g.OW < 64) return refuse(why, "fewer than 64 output columns");
  if (g.O < 128) return refuse(why, "fewer than 128 output channels");
  // A short window (wav2vec2's first layer: 10 taps of 1 channel) makes the
  // product bound by writing its output, where oneDNN's direct kernel
  // measured 1.4x faster.
  if (g.KW * g.C < 64) return refuse(why, "window of fewer than 64 floats");
  if (!packedSgemmApplies(node)) return refuse(why, "the packed SGEMM does not apply (" + packedSgemmRefusal(node) + ")");
  PackedProduct p;
  p.M = g.N * g.OH * g.OW;
  p.K = g.KW * g.C;
  p.N = g.O;
  if (!packedSgemmSuits(p.M, p.K, p.N)) return refuse(why, "too small for the packed SGEMM");
  p.bKOffsets.reserve(size_t(p.K));  // k = kw * C + c, as a window's floats
  for (int64_t kw = 0; kw < g.KW; ++kw)
    for (int64_t c = 0; c < g.C; ++c) p.bKOffsets.push_back(fi.at(0, c, 0, kw));
  p.bNStride = fi.so;
  p.lo = lo;
  p.hi = hi;
  return std::make_unique<RowWindowPackedConvKernel>(node, g, p);
}

}  // namespace webnn::cpu::kernels
