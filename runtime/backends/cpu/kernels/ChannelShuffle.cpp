// channelShuffle (docs/FUSED_OPS.md): concat(inputs, axis), the channel
// shuffle (output channel j * groups + i is concat channel i * C/groups + j),
// cut into consecutive pieces along the axis; any data type, moved as bytes.
//
// Each piece's channels are precomputed as interleave segments: `groups`
// runs of source channels, each inside one input, taken in turn (in a
// ShuffleNetV2 unit, each half of the shuffled channels interleaves a
// quarter of each branch). A segment copies per pixel with the group count
// a compile-time constant where it is 2, 3 or 4 (2 with 4-byte elements:
// AVX2 unpacks; with AVX-512, two permutes per 16 pairs and masked loads
// and stores for the rest, so a ShuffleNetV2 x0.5 piece of 12 pairs a pixel
// is two loads, two permutes and two stores), walking all of a thread's
// pixels per segment; channels that do not form whole segments
// (a piece boundary inside a group's turn) are copied one by one. Pixels
// are split over the pool.
#include <algorithm>
#include <cstring>
#if defined(__AVX2__)
#include <immintrin.h>
#endif
#include <string>
#include <vector>

#include "runtime/backends/cpu/kernels/Common.h"
#include "runtime/backends/cpu/kernels/QuantizedMatMul.h"
#include "runtime/backends/cpu/kernels/Registry.h"

namespace webnn::cpu::kernels {
namespace {

#if defined(__AVX2__)
// y[2j] = a[j], y[2j + 1] = b[j], j < count, for `pixels` pixels, each
// operand `*Stride` floats after the last. The per-pixel AVX2 loop spent
// more on its scalar tail and loop set-up than on the copy where a pixel
// holds only 12-29 pairs (ShuffleNetV2's 24-116 channel halves).
__attribute__((target("avx512f"))) void interleave2PixelsAvx512(const float *a, int64_t aStride, const float *b,
                                                                 int64_t bStride, float *y, int64_t yStride,
                                                                 int64_t count, int64_t pixels) {
  // permutex2var: index bit 4 picks b. lo: a0 b0 .. a7 b7; hi: a8 b8 .. a15 b15.
  const __m512i lo = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  const __m512i hi = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
  const int64_t whole = count & ~int64_t(15), tail = count - whole;
  const __mmask16 inMask = __mmask16((1u << tail) - 1);
  const __mmask16 loMask = __mmask16((1u << std::min<int64_t>(2 * tail, 16)) - 1);
  const __mmask16 hiMask = __mmask16((1u << std::max<int64_t>(2 * tail - 16, 0)) - 1);
  for (int64_t p = 0; p < pixels; ++p, a += aStride, b += bStride, y += yStride) {
    for (int64_t j = 0; j < whole; j += 16) {
      const __m512 va = _mm512_loadu_ps(a + j), vb = _mm512_loadu_ps(b + j);
      _mm512_storeu_ps(y + 2 * j, _mm512_permutex2var_ps(va, lo, vb));
      _mm512_storeu_ps(y + 2 * j + 16, _mm512_permutex2var_ps(va, hi, vb));
    }
    if (tail) {
      const __m512 va = _mm512_maskz_loadu_ps(inMask, a + whole), vb = _mm512_maskz_loadu_ps(inMask, b + whole);
      _mm512_mask_storeu_ps(y + 2 * whole, loMask, _mm512_permutex2var_ps(va, lo, vb));
      if (hiMask) _mm512_mask_storeu_ps(y + 2 * whole + 16, hiMask, _mm512_permutex2var_ps(va, hi, vb));
    }
  }
}
#endif

struct Source {
  int64_t input, channel;  // an input and a channel of it
};

// Channels outStart + j * sources.size() + i, j < count, of one piece come
// from sources[i].channel + j of input sources[i].input.
struct Segment {
  int64_t outStart, count;
  std::vector<Source> sources;
};

struct Piece {
  int64_t channels;
  std::vector<Segment> segments;
  std::vector<std::pair<int64_t, Source>> singles;  // (output channel, source)
};

class ChannelShuffleKernel final : public Kernel {
 public:
  ChannelShuffleKernel(int64_t outer, int64_t inner, size_t elemBytes, std::vector<int64_t> inputChannels,
                       std::vector<Piece> pieces)
      : outer_(outer), inner_(inner), esz_(elemBytes), inputChannels_(std::move(inputChannels)),
        pieces_(std::move(pieces)) {
    int64_t total = 0;
    for (int64_t c : inputChannels_) total += c;
    pixelElements_ = total * inner_;
  }

  Status run(const KernelContext &ctx) override {
    if (outer_ == 0 || inner_ == 0) return Status::ok();
    dispatchBytes(esz_, [&](auto tag) {
      using E = decltype(tag);
      // At least ~16k elements per thread's share: a hand-off costs microseconds.
      const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, pixelElements_));
      parallelFor(ctx, outer_, grain, [&](int64_t p0, int64_t p1) {
        for (size_t k = 0; k < pieces_.size(); ++k) {
          const Piece &piece = pieces_[k];
          E *y = static_cast<E *>(ctx.outputs[k]->data) + p0 * piece.channels * inner_;
          const int64_t yStride = piece.channels * inner_;
          // Segment by segment over the pixels: each keeps its sources in
          // registers and streams through the rows.
          for (const Segment &seg : piece.segments) copySegment<E>(ctx, seg, p0, p1, y, yStride);
          for (const auto &[o, s] : piece.singles) {
            const E *x = in<E>(ctx, size_t(s.input)) + (p0 * inputChannels_[size_t(s.input)] + s.channel) * inner_;
            const int64_t xStride = inputChannels_[size_t(s.input)] * inner_;
            for (int64_t p = p0; p < p1; ++p)
              std::memcpy(y + (p - p0) * yStride + o * inner_, x + (p - p0) * xStride, size_t(inner_) * sizeof(E));
          }
        }
      });
    });
    return Status::ok();
  }

 private:
  // Segment `seg` of pixels [p0, p1); y: the piece at pixel p0.
  template <typename E>
  void copySegment(const KernelContext &ctx, const Segment &seg, int64_t p0, int64_t p1, E *y, int64_t yStride) const {
    const int64_t g = int64_t(seg.sources.size());
    std::vector<const E *> from(static_cast<size_t>(g));
    std::vector<int64_t> stride(static_cast<size_t>(g));
    for (int64_t i = 0; i < g; ++i) {
      const Source &s = seg.sources[size_t(i)];
      stride[size_t(i)] = inputChannels_[size_t(s.input)] * inner_;
      from[size_t(i)] = in<E>(ctx, size_t(s.input)) + p0 * stride[size_t(i)] + s.channel * inner_;
    }
    E *out = y + seg.outStart * inner_;
#if defined(__AVX2__)
    if constexpr (sizeof(E) == 4) {
      if (inner_ == 1 && g == 2 && avx512_) {
        interleave2PixelsAvx512(reinterpret_cast<const float *>(from[0]), stride[0],
                                reinterpret_cast<const float *>(from[1]), stride[1], reinterpret_cast<float *>(out),
                                yStride, seg.count, p1 - p0);
        return;
      }
    }
#endif
    for (int64_t p = p0; p < p1; ++p) {
      if (inner_ == 1 && g == 2) {
        interleave2(from[0], from[1], out, seg.count);
      } else if (inner_ == 1 && g == 3) {
        interleave<3>(from.data(), out, seg.count);
      } else if (inner_ == 1 && g == 4) {
        interleave<4>(from.data(), out, seg.count);
      } else {
        for (int64_t j = 0; j < seg.count; ++j)
          for (int64_t i = 0; i < g; ++i)
            std::memcpy(out + (j * g + i) * inner_, from[size_t(i)] + j * inner_, size_t(inner_) * sizeof(E));
      }
      for (int64_t i = 0; i < g; ++i) from[size_t(i)] += stride[size_t(i)];
      out += yStride;
    }
  }

  // y[2j] = a[j], y[2j + 1] = b[j]: for 4-byte elements eight pairs per
  // step through AVX2 unpacks (the compiler's own vectorization of the
  // scalar loop gathers lane by lane).
  template <typename E>
  static void interleave2(const E *a, const E *b, E *y, int64_t count) {
    int64_t j = 0;
#if defined(__AVX2__)
    if constexpr (sizeof(E) == 4) {
      for (; j + 8 <= count; j += 8) {
        const __m256 va = _mm256_loadu_ps(reinterpret_cast<const float *>(a + j));
        const __m256 vb = _mm256_loadu_ps(reinterpret_cast<const float *>(b + j));
        const __m256 lo = _mm256_unpacklo_ps(va, vb), hi = _mm256_unpackhi_ps(va, vb);  // per 128-bit lane
        _mm256_storeu_ps(reinterpret_cast<float *>(y + 2 * j), _mm256_permute2f128_ps(lo, hi, 0x20));
        _mm256_storeu_ps(reinterpret_cast<float *>(y + 2 * j + 8), _mm256_permute2f128_ps(lo, hi, 0x31));
      }
    }
#endif
    for (; j < count; ++j) {
      y[2 * j] = a[j];
      y[2 * j + 1] = b[j];
    }
  }

  template <int G, typename E>
  static void interleave(const E *const *from, E *y, int64_t count) {
    for (int64_t j = 0; j < count; ++j)
#pragma GCC unroll 4
      for (int i = 0; i < G; ++i) y[j * G + i] = from[i][j];
  }

  int64_t outer_, inner_;
  size_t esz_;
  std::vector<int64_t> inputChannels_;
  std::vector<Piece> pieces_;
  int64_t pixelElements_ = 0;
  const bool avx512_ = avx512Available();
};

// Cuts the shuffled channels [lo, lo + size) into segments and singles.
// `where[c]`: concat channel c as (input, channel).
Piece planPiece(int64_t lo, int64_t size, int64_t groups, int64_t perGroup, const std::vector<Source> &where) {
  Piece piece;
  piece.channels = size;
  auto sourceOf = [&](int64_t o) { return where[size_t((o % groups) * perGroup + o / groups)]; };
  int64_t o = lo;
  const int64_t hi = lo + size;
  while (o < hi) {
    // A segment starts at a group's first turn and runs while every group's
    // next channel stays in the input it started in.
    if (o % groups == 0 && o + groups <= hi && groups > 1) {
      Segment seg{o - lo, 0, {}};
      for (int64_t i = 0; i < groups; ++i) seg.sources.push_back(sourceOf(o + i));
      int64_t j = 0;
      while (o + (j + 1) * groups <= hi) {
        bool same = true;
        for (int64_t i = 0; i < groups && same; ++i) {
          const Source s = sourceOf(o + j * groups + i);
          same = s.input == seg.sources[size_t(i)].input && s.channel == seg.sources[size_t(i)].channel + j;
        }
        if (!same) break;
        ++j;
      }
      if (j > 0) {
        seg.count = j;
        piece.segments.push_back(std::move(seg));
        o += j * groups;
        continue;
      }
    }
    piece.singles.emplace_back(o - lo, sourceOf(o));
    ++o;
  }
  return piece;
}

Status makeChannelShuffle(const NodeDesc &node, std::unique_ptr<Kernel> *out) {
  if (node.inputs.empty()) return nodeError(node, "needs at least one input");
  for (const char *name : {"axis", "groups", "splits"})
    if (!node.attributes.has(name)) return nodeError(node, std::string("missing required attribute '") + name + "'");
  const int64_t axisAttr = node.attributes.getInt("axis", 0), groups = node.attributes.getInt("groups", 1);
  const std::vector<int64_t> splits = node.attributes.getInts("splits", {});
  WEBNN_RETURN_IF_ERROR(checkAttributes(node));
  WEBNN_RETURN_IF_ERROR(checkArity(node, node.inputs.size(), node.inputs.size(), splits.size()));
  const OperandDesc &x0 = *node.inputs[0];
  const size_t esz = elementBytes(x0.dtype);
  if (esz == 0) return nodeUnsupported(node, "unsupported data type " + std::string(dataTypeName(x0.dtype)));
  int64_t axis;
  if (!normalizeAxis(axisAttr, x0.shape.size(), &axis)) return nodeError(node, "axis is out of range");
  Shape joined = x0.shape;
  joined[axis] = 0;
  std::vector<int64_t> inputChannels;
  for (const OperandDesc *x : node.inputs) {
    if (x->dtype != x0.dtype) return nodeError(node, "inputs have different data types");
    if (x->shape.size() != x0.shape.size()) return nodeError(node, "inputs have different ranks");
    for (size_t i = 0; i < joined.size(); ++i)
      if (int64_t(i) != axis && x->shape[i] != x0.shape[i])
        return nodeError(node, "input shapes " + shapeToString(x0.shape) + " and " + shapeToString(x->shape) +
                                   " differ outside axis " + std::to_string(axis));
    if (__builtin_add_overflow(joined[axis], x->shape[axis], &joined[axis]))
      return nodeError(node, "the inputs' sizes along the axis overflow int64");
    inputChannels.push_back(x->shape[axis]);
  }
  const int64_t channels = joined[axis];
  if (groups < 1 || channels % groups != 0)
    return nodeError(node, "groups " + std::to_string(groups) + " does not divide the " + std::to_string(channels) +
                               " channels along axis " + std::to_string(axis));
  int64_t sum = 0;
  for (int64_t s : splits) {
    if (s <= 0) return nodeError(node, "splits must be positive");
    if (__builtin_add_overflow(sum, s, &sum)) return nodeError(node, "splits overflow int64");
  }
  if (sum != channels)
    return nodeError(node, "splits sum to " + std::to_string(sum) + ", not the " + std::to_string(channels) +
                               " channels along axis " + std::to_string(axis));
  for (size_t k = 0; k < splits.size(); ++k) {
    Shape os = joined;
    os[axis] = splits[k];
    WEBNN_RETURN_IF_ERROR(checkOutput(node, k, os, x0.dtype));
  }
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= joined[i];
  for (size_t i = size_t(axis) + 1; i < joined.size(); ++i) inner *= joined[i];
  // Channel counts are bounded by the loader's element limit; the tables
  // below hold one entry per channel.
  std::vector<Source> where;
  where.reserve(size_t(channels));
  for (size_t i = 0; i < inputChannels.size(); ++i)
    for (int64_t c = 0; c < inputChannels[i]; ++c) where.push_back({int64_t(i), c});
  std::vector<Piece> pieces;
  int64_t lo = 0;
  for (int64_t s : splits) {
    pieces.push_back(planPiece(lo, s, groups, channels / groups, where));
    lo += s;
  }
  *out = std::make_unique<ChannelShuffleKernel>(outer, inner, esz, std::move(inputChannels), std::move(pieces));
  return Status::ok();
}

}  // namespace

void registerChannelShuffleKernels(KernelTable &t) { t.add("channelShuffle", &makeChannelShuffle); }

}  // namespace webnn::cpu::kernels
