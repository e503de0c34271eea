// The head layout of rotaryEmbedding that every backend's kernel runs (the
// op: docs/LLM.md): one rule, so the backends cannot disagree on which
// shapes they take.
#ifndef WEBNN_RUNTIME_CORE_ROTARYGEOMETRY_H
#define WEBNN_RUNTIME_CORE_ROTARYGEOMETRY_H

#include <cstdint>
#include <string>

#include "webnn/types.h"

namespace webnn::rt {

struct RotaryGeometry {
  bool bnsh = false;  // input [B, H, S, D]; else [B, S, H * D]
  int64_t B = 0, S = 0, H = 0, D = 0;
  int64_t rot = 0;  // rotated channels of each head: 2 x the caches' width
};

// `x` is the input's shape (rank 3 or 4), `half` the cos/sin caches' second
// dimension, `numHeads` and `rotaryDim` the options (0: not given). Empty
// when the layout holds, else why not.
inline std::string rotaryGeometry(const Shape &x, int64_t half, int64_t numHeads, int64_t rotaryDim,
                                  RotaryGeometry *g) {
  g->bnsh = x.size() == 4;
  g->B = x[0];
  g->S = g->bnsh ? x[2] : x[1];
  g->rot = rotaryDim == 0 ? 2 * half : rotaryDim;
  if (g->bnsh) {
    g->H = x[1];
    g->D = x[3];
  } else {
    g->D = numHeads > 0 ? x[2] / numHeads : g->rot;
    if (g->D <= 0 || x[2] % g->D) return "hidden size is not a multiple of the head size";
    g->H = x[2] / g->D;
  }
  if (g->rot != 2 * half || g->rot > g->D) return "rotary dimension must be 2 * cosCache.shape[1] <= head size";
  return "";
}

}  // namespace webnn::rt

#endif
