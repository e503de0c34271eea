// gruCell, gru, lstmCell, lstm against a direct transcription of the spec's
// emulation code (per-gate slices, matmuls and activations in double), over
// both weight layouts, resetAfter, peepholes, activations and directions.
// The sequence kernels (LstmLayer.cpp, GruLayer.cpp) are also run over their
// own paths: AVX-512 and AVX2 panels, PackedSgemm or sgemm input projection,
// constant or run-time weights, one or two threads, hidden sizes that leave a
// partial panel.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "KernelTestUtil.h"
#include "runtime/backends/cpu/kernels/PackedSgemm.h"
#include "runtime/backends/cpu/kernels/TransformerSimd.h"

namespace webnn::cpu::test {
namespace {

using Vec = std::vector<double>;

Vec randomVec(size_t n, std::mt19937 &rng) {
  std::uniform_real_distribution<double> d(-0.8, 0.8);
  Vec v(n);
  for (double &x : v) x = d(rng);
  return v;
}
std::vector<float> toFloat(const Vec &v) { return std::vector<float>(v.begin(), v.end()); }

double act(const std::string &a, double x) {
  if (a == "relu") return x > 0 ? x : 0;
  if (a == "sigmoid") return 1 / (1 + std::exp(-x));
  return std::tanh(x);
}

// y[b, j] = sum_k x[b, k] * W[(gate * H + j), k]   (W row-major [G*H, K])
double proj(const Vec &x, const Vec &W, int64_t b, int64_t K, int64_t row) {
  double s = 0;
  for (int64_t k = 0; k < K; ++k) s += x[size_t(b * K + k)] * W[size_t(row * K + k)];
  return s;
}

struct GruRef {
  int64_t B, I, H;
  bool resetAfter;
  std::string layout, a0, a1;
  // Returns the next hidden state [B, H].
  Vec step(const Vec &x, const Vec &W, const Vec &R, const Vec *bias, const Vec *rbias, const Vec &h) const {
    int z = layout == "zrn" ? 0 : 1, r = layout == "zrn" ? 1 : 0, n = 2;
    auto bb = [&](const Vec *v, int g, int64_t j) { return v ? (*v)[size_t(g * H + j)] : 0.0; };
    Vec out(size_t(B * H)), rt(size_t(B * H));
    for (int64_t b = 0; b < B; ++b)
      for (int64_t j = 0; j < H; ++j)
        rt[size_t(b * H + j)] =
            act(a0, bb(bias, r, j) + bb(rbias, r, j) + proj(x, W, b, I, r * H + j) + proj(h, R, b, H, r * H + j));
    Vec rh(size_t(B * H));
    for (size_t i = 0; i < rh.size(); ++i) rh[i] = rt[i] * h[i];
    for (int64_t b = 0; b < B; ++b)
      for (int64_t j = 0; j < H; ++j) {
        double zt = act(a0, bb(bias, z, j) + bb(rbias, z, j) + proj(x, W, b, I, z * H + j) + proj(h, R, b, H, z * H + j));
        double nt;
        if (resetAfter)
          nt = act(a1, bb(bias, n, j) + proj(x, W, b, I, n * H + j) +
                           rt[size_t(b * H + j)] * (bb(rbias, n, j) + proj(h, R, b, H, n * H + j)));
        else
          nt = act(a1, bb(bias, n, j) + bb(rbias, n, j) + proj(x, W, b, I, n * H + j) + proj(rh, R, b, H, n * H + j));
        out[size_t(b * H + j)] = zt * h[size_t(b * H + j)] + nt * (1 - zt);
      }
    return out;
  }
};

struct LstmRef {
  int64_t B, I, H;
  std::string layout, a0, a1, a2;
  void step(const Vec &x, const Vec &W, const Vec &R, const Vec *bias, const Vec *rbias, const Vec *peep, const Vec &h,
            const Vec &c, Vec *hOut, Vec *cOut) const {
    bool iofg = layout == "iofg";
    int gi = 0, go = iofg ? 1 : 3, gf = iofg ? 2 : 1, gg = iofg ? 3 : 2;
    auto bb = [&](const Vec *v, int g, int64_t j) { return v ? (*v)[size_t(g * H + j)] : 0.0; };
    auto pre = [&](int g, int64_t b, int64_t j) {
      return bb(bias, g, j) + bb(rbias, g, j) + proj(x, W, b, I, g * H + j) + proj(h, R, b, H, g * H + j);
    };
    hOut->assign(size_t(B * H), 0);
    cOut->assign(size_t(B * H), 0);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t j = 0; j < H; ++j) {
        double ct = c[size_t(b * H + j)];
        double it = act(a0, pre(gi, b, j) + (peep ? (*peep)[size_t(j)] * ct : 0));
        double ft = act(a0, pre(gf, b, j) + (peep ? (*peep)[size_t(2 * H + j)] * ct : 0));
        double gt = act(a1, pre(gg, b, j));
        double ot = act(a0, pre(go, b, j) + (peep ? (*peep)[size_t(H + j)] * ct : 0));
        double next = ft * ct + it * gt;
        (*cOut)[size_t(b * H + j)] = next;
        (*hOut)[size_t(b * H + j)] = ot * act(a2, next);
      }
  }
};

void expectNear(const TestTensor &got, const Vec &want, double tol, const std::string &what) {
  std::vector<double> g = got.values();
  ASSERT_EQ(g.size(), want.size()) << what;
  for (size_t i = 0; i < g.size(); ++i) ASSERT_NEAR(g[i], want[i], tol) << what << " element " << i;
}

Vec slice(const Vec &v, int64_t start, int64_t len) {
  return Vec(v.begin() + start, v.begin() + start + len);
}

TEST(RecurrentKernels, GruCellMatchesSpecEmulation) {
  std::mt19937 rng(3);
  const int64_t B = 3, I = 5, H = 4;
  for (const char *layout : {"zrn", "rzn"})
    for (bool resetAfter : {true, false})
      for (bool withBias : {false, true})
        for (const char *acts : {"sigmoid,tanh", "relu,sigmoid"}) {
          Vec x = randomVec(B * I, rng), W = randomVec(3 * H * I, rng), R = randomVec(3 * H * H, rng);
          Vec h = randomVec(B * H, rng), b = randomVec(3 * H, rng), rb = randomVec(3 * H, rng);
          std::string a(acts);
          GruRef ref{B, I, H, resetAfter, layout, a.substr(0, a.find(',')), a.substr(a.find(',') + 1)};
          Vec want = ref.step(x, W, R, withBias ? &b : nullptr, withBias ? &rb : nullptr, h);
          OpCase c;
          c.op = "gruCell";
          c.inputs = {f32({B, I}, toFloat(x)), f32({3 * H, I}, toFloat(W), true), f32({3 * H, H}, toFloat(R), true),
                      f32({B, H}, toFloat(h))};
          if (withBias) {
            c.inputs.push_back(f32({3 * H}, toFloat(b)));
            c.inputs.push_back(f32({3 * H}, toFloat(rb)));
          }
          c.outputs = {outSpec(DataType::kFloat32, {B, H})};
          c.attrInt("hiddenSize", H).attrString("layout", layout).attrBool("resetAfter", resetAfter);
          c.attrString("activations", acts);
          ASSERT_TRUE(runOp(c).isOk());
          expectNear(c.outputs[0], want, 1e-5, std::string("gruCell ") + layout);
        }
}

TEST(RecurrentKernels, GruSequenceDirectionsAndFloat16) {
  std::mt19937 rng(5);
  const int64_t S = 4, B = 2, I = 3, H = 5;
  for (const char *direction : {"forward", "backward", "both"}) {
    for (DataType dt : {DataType::kFloat32, DataType::kFloat16}) {
      int64_t D = std::string(direction) == "both" ? 2 : 1;
      Vec x = randomVec(S * B * I, rng), W = randomVec(D * 3 * H * I, rng), R = randomVec(D * 3 * H * H, rng);
      Vec b = randomVec(D * 3 * H, rng), h0 = randomVec(D * B * H, rng);
      GruRef ref{B, I, H, true, "zrn", "sigmoid", "tanh"};
      Vec last(size_t(D * B * H)), seq(size_t(S * D * B * H));
      for (int64_t d = 0; d < D; ++d) {
        Vec h = slice(h0, d * B * H, B * H), bd = slice(b, d * 3 * H, 3 * H);
        bool backward = std::string(direction) == "backward" || d == 1;
        for (int64_t t = 0; t < S; ++t) {
          int64_t s = backward ? S - 1 - t : t;
          h = ref.step(slice(x, s * B * I, B * I), slice(W, d * 3 * H * I, 3 * H * I), slice(R, d * 3 * H * H, 3 * H * H),
                       &bd, nullptr, h);
          std::copy(h.begin(), h.end(), seq.begin() + (s * D + d) * B * H);
        }
        std::copy(h.begin(), h.end(), last.begin() + d * B * H);
      }
      auto mk = [&](Shape s, const Vec &v) { return dt == DataType::kFloat32 ? f32(s, toFloat(v)) : f16(s, toFloat(v)); };
      OpCase c;
      c.op = "gru";
      c.inputs = {mk({S, B, I}, x), mk({D, 3 * H, I}, W), mk({D, 3 * H, H}, R), mk({D, 3 * H}, b), std::nullopt,
                  mk({D, B, H}, h0)};
      c.outputs = {outSpec(dt, {D, B, H}), outSpec(dt, {S, D, B, H})};
      c.attrInt("steps", S).attrInt("hiddenSize", H).attrString("direction", direction).attrBool("returnSequence", true);
      ASSERT_TRUE(runOp(c, 2).isOk()) << direction;
      double tol = dt == DataType::kFloat32 ? 1e-5 : 2e-2;
      expectNear(c.outputs[0], last, tol, std::string("gru last ") + direction);
      expectNear(c.outputs[1], seq, tol, std::string("gru sequence ") + direction);
    }
  }
}

TEST(RecurrentKernels, LstmCellMatchesSpecEmulation) {
  std::mt19937 rng(11);
  const int64_t B = 2, I = 3, H = 4;
  for (const char *layout : {"iofg", "ifgo"})
    for (bool extras : {false, true}) {
      Vec x = randomVec(B * I, rng), W = randomVec(4 * H * I, rng), R = randomVec(4 * H * H, rng);
      Vec h = randomVec(B * H, rng), cs = randomVec(B * H, rng), b = randomVec(4 * H, rng), rb = randomVec(4 * H, rng);
      Vec p = randomVec(3 * H, rng);
      LstmRef ref{B, I, H, layout, "sigmoid", "tanh", extras ? "relu" : "tanh"};
      Vec wantH, wantC;
      ref.step(x, W, R, extras ? &b : nullptr, extras ? &rb : nullptr, extras ? &p : nullptr, h, cs, &wantH, &wantC);
      OpCase c;
      c.op = "lstmCell";
      c.inputs = {f32({B, I}, toFloat(x)), f32({4 * H, I}, toFloat(W)), f32({4 * H, H}, toFloat(R)),
                  f32({B, H}, toFloat(h)), f32({B, H}, toFloat(cs))};
      if (extras) {
        c.inputs.push_back(f32({4 * H}, toFloat(b)));
        c.inputs.push_back(f32({4 * H}, toFloat(rb)));
        c.inputs.push_back(f32({3 * H}, toFloat(p)));
        c.attrString("activations", "sigmoid,tanh,relu");
      }
      c.outputs = {outSpec(DataType::kFloat32, {B, H}), outSpec(DataType::kFloat32, {B, H})};
      c.attrInt("hiddenSize", H).attrString("layout", layout);
      ASSERT_TRUE(runOp(c).isOk());
      expectNear(c.outputs[0], wantH, 1e-5, std::string("lstmCell hidden ") + layout);
      expectNear(c.outputs[1], wantC, 1e-5, std::string("lstmCell cell ") + layout);
    }
}

TEST(RecurrentKernels, LstmSequenceBothDirections) {
  std::mt19937 rng(13);
  const int64_t S = 3, B = 2, I = 4, H = 3, D = 2;
  Vec x = randomVec(S * B * I, rng), W = randomVec(D * 4 * H * I, rng), R = randomVec(D * 4 * H * H, rng);
  Vec rb = randomVec(D * 4 * H, rng), p = randomVec(D * 3 * H, rng), c0 = randomVec(D * B * H, rng);
  LstmRef ref{B, I, H, "ifgo", "sigmoid", "tanh", "tanh"};
  Vec lastH(size_t(D * B * H)), lastC(size_t(D * B * H)), seq(size_t(S * D * B * H));
  for (int64_t d = 0; d < D; ++d) {
    Vec h(size_t(B * H), 0.0), cs = slice(c0, d * B * H, B * H);
    Vec rbd = slice(rb, d * 4 * H, 4 * H), pd = slice(p, d * 3 * H, 3 * H);
    for (int64_t t = 0; t < S; ++t) {
      int64_t s = d == 1 ? S - 1 - t : t;
      Vec nh, nc;
      ref.step(slice(x, s * B * I, B * I), slice(W, d * 4 * H * I, 4 * H * I), slice(R, d * 4 * H * H, 4 * H * H),
               nullptr, &rbd, &pd, h, cs, &nh, &nc);
      h = nh;
      cs = nc;
      std::copy(h.begin(), h.end(), seq.begin() + (s * D + d) * B * H);
    }
    std::copy(h.begin(), h.end(), lastH.begin() + d * B * H);
    std::copy(cs.begin(), cs.end(), lastC.begin() + d * B * H);
  }
  OpCase c;
  c.op = "lstm";
  c.inputs = {f32({S, B, I}, toFloat(x)), f32({D, 4 * H, I}, toFloat(W)), f32({D, 4 * H, H}, toFloat(R)), std::nullopt,
              f32({D, 4 * H}, toFloat(rb)), f32({D, 3 * H}, toFloat(p)), std::nullopt, f32({D, B, H}, toFloat(c0))};
  c.outputs = {outSpec(DataType::kFloat32, {D, B, H}), outSpec(DataType::kFloat32, {D, B, H}),
               outSpec(DataType::kFloat32, {S, D, B, H})};
  c.attrInt("steps", S).attrInt("hiddenSize", H).attrString("direction", "both").attrString("layout", "ifgo");
  c.attrBool("returnSequence", true);
  ASSERT_TRUE(runOp(c, 2).isOk());
  expectNear(c.outputs[0], lastH, 1e-5, "lstm hidden");
  expectNear(c.outputs[1], lastC, 1e-5, "lstm cell");
  expectNear(c.outputs[2], seq, 1e-5, "lstm sequence");
  // Without returnSequence there are exactly two results.
  OpCase two = c;
  two.attrs = NodeAttributes();
  two.attrInt("steps", S).attrInt("hiddenSize", H).attrString("direction", "both").attrString("layout", "ifgo");
  EXPECT_FALSE(runOp(two).isOk());
  two.outputs.pop_back();
  ASSERT_TRUE(runOp(two).isOk());
  expectNear(two.outputs[1], lastC, 1e-5, "lstm cell (no sequence)");
}

// |got - want| <= tol * max(1, |want|): relu activations let values grow.
void expectClose(const TestTensor &got, const Vec &want, double tol, const std::string &what) {
  std::vector<double> g = got.values();
  ASSERT_EQ(g.size(), want.size()) << what;
  for (size_t i = 0; i < g.size(); ++i)
    ASSERT_LE(std::fabs(g[i] - want[i]), tol * std::max(1.0, std::fabs(want[i]))) << what << " element " << i;
}

// The kernel paths a sequence op can take, switched for one test case.
struct LayerPath {
  bool avx512, packedSgemm, constant;
  int threads;
  std::string name() const {
    return std::string(avx512 ? "avx512" : "avx2") + (packedSgemm ? " packed" : " sgemm") +
           (constant ? " const" : " runtime") + " t" + std::to_string(threads);
  }
};

std::vector<LayerPath> layerPaths() {
  std::vector<LayerPath> paths;
  for (bool avx512 : {true, false})
    for (bool packed : {true, false})
      for (bool constant : {true, false})
        for (int threads : {1, 2}) paths.push_back({avx512, packed, constant, threads});
  return paths;
}

// Runs `c` on `path` (restoring the global switches after).
Status runOnPath(OpCase &c, const LayerPath &path) {
  bool oldAvx = kernels::setUseAvx512(path.avx512);
  bool oldPacked = kernels::packedSgemmEnabled();
  kernels::setPackedSgemmEnabled(path.packedSgemm);
  Status s = runOp(c, path.threads);
  kernels::setPackedSgemmEnabled(oldPacked);
  kernels::setUseAvx512(oldAvx);
  return s;
}

// One case of a layer test: the variant-th cycles through the directions
// and activation lists, and 3 in 5 cases give initial states.
struct LayerVariant {
  std::string direction, acts;
  bool withStates;
  int64_t dirs;
};
LayerVariant layerVariant(int variant, const char *const *directions, const char *const *activations) {
  LayerVariant v{directions[variant % 3], activations[variant / 3 % 3], variant % 5 < 3, 0};
  v.dirs = v.direction == "both" ? 2 : 1;
  return v;
}

// The operands both layers take, random, for `gates` gates: x [S, B, I],
// W [D, gates * H, I], R [D, gates * H, H] (scaled down, so relu
// activations stay bounded), biases [D, gates * H].
struct LayerOperands {
  Vec x, W, R, b, rb;
};
LayerOperands randomLayerOperands(std::mt19937 &rng, int64_t S, int64_t B, int64_t I, int64_t H, int64_t D,
                                  int64_t gates) {
  LayerOperands o;
  o.x = randomVec(S * B * I, rng);
  o.W = randomVec(D * gates * H * I, rng);
  o.R = randomVec(D * gates * H * H, rng);
  for (double &v : o.R) v *= 0.3;
  o.b = randomVec(D * gates * H, rng);
  o.rb = randomVec(D * gates * H, rng);
  return o;
}

// c's first `count` inputs: x, W and R (constant on a constant path), the
// biases when asked for, the rest absent.
void setLayerInputs(OpCase &c, const LayerPath &path, const LayerOperands &o, int64_t S, int64_t B, int64_t I,
                    int64_t H, int64_t D, int64_t gates, bool withBias, size_t count) {
  c.inputs.assign(count, std::nullopt);
  c.inputs[0] = f32({S, B, I}, toFloat(o.x));
  c.inputs[1] = f32({D, gates * H, I}, toFloat(o.W), path.constant);
  c.inputs[2] = f32({D, gates * H, H}, toFloat(o.R), path.constant);
  if (withBias) {
    c.inputs[3] = f32({D, gates * H}, toFloat(o.b), path.constant);
    c.inputs[4] = f32({D, gates * H}, toFloat(o.rb));
  }
}

TEST(RecurrentKernels, GruLayerPathsMatchReference) {
  std::mt19937 rng(17);
  const int64_t S = 7, B = 2, I = 11, H = 37;  // 37: two full AVX-512 panels and a partial one
  const char *directions[] = {"forward", "backward", "both"};
  // No relu update gate: z > 1 makes h grow geometrically (to ~1e9 in 7
  // steps), beyond what a float32 comparison can check.
  const char *activations[] = {"sigmoid,tanh", "sigmoid,relu", "tanh,sigmoid"};
  int variant = 0;
  for (const LayerPath &path : layerPaths())
    for (const char *layout : {"zrn", "rzn"})
      for (bool resetAfter : {true, false})
        for (bool withBias : {true, false}) {
          const LayerVariant v = layerVariant(++variant, directions, activations);
          const auto &[direction, acts, withH0, D] = v;
          const LayerOperands o = randomLayerOperands(rng, S, B, I, H, D, 3);
          const auto &[x, W, R, b, rb] = o;
          Vec h0 = randomVec(D * B * H, rng);
          GruRef ref{B, I, H, resetAfter, layout, acts.substr(0, acts.find(',')), acts.substr(acts.find(',') + 1)};
          Vec last(size_t(D * B * H)), seq(size_t(S * D * B * H));
          for (int64_t d = 0; d < D; ++d) {
            Vec h = withH0 ? slice(h0, d * B * H, B * H) : Vec(size_t(B * H), 0.0);
            Vec bd = slice(b, d * 3 * H, 3 * H), rbd = slice(rb, d * 3 * H, 3 * H);
            const bool backward = direction == "backward" || d == 1;
            for (int64_t t = 0; t < S; ++t) {
              const int64_t s = backward ? S - 1 - t : t;
              h = ref.step(slice(x, s * B * I, B * I), slice(W, d * 3 * H * I, 3 * H * I),
                           slice(R, d * 3 * H * H, 3 * H * H), withBias ? &bd : nullptr, withBias ? &rbd : nullptr, h);
              std::copy(h.begin(), h.end(), seq.begin() + (s * D + d) * B * H);
            }
            std::copy(h.begin(), h.end(), last.begin() + d * B * H);
          }
          OpCase c;
          c.op = "gru";
          setLayerInputs(c, path, o, S, B, I, H, D, 3, withBias, 6);
          if (withH0) c.inputs[5] = f32({D, B, H}, toFloat(h0));
          c.outputs = {outSpec(DataType::kFloat32, {D, B, H}), outSpec(DataType::kFloat32, {S, D, B, H})};
          c.attrInt("steps", S).attrInt("hiddenSize", H).attrString("direction", direction.c_str());
          c.attrString("layout", layout).attrBool("resetAfter", resetAfter).attrString("activations", acts.c_str());
          c.attrBool("returnSequence", true);
          const std::string what = "gru " + path.name() + " " + layout + (resetAfter ? " resetAfter " : " ") +
                                   direction + " " + acts;
          ASSERT_TRUE(runOnPath(c, path).isOk()) << what;
          expectClose(c.outputs[0], last, 2e-5, what + " last");
          expectClose(c.outputs[1], seq, 2e-5, what + " sequence");
        }
}

TEST(RecurrentKernels, LstmLayerPathsMatchReference) {
  std::mt19937 rng(19);
  const int64_t S = 6, B = 3, I = 9, H = 21;  // 21: a full AVX2 panel pair and a partial one
  const char *directions[] = {"both", "forward", "backward"};
  const char *activations[] = {"sigmoid,tanh,tanh", "sigmoid,relu,tanh", "relu,tanh,sigmoid"};
  int variant = 0;
  for (const LayerPath &path : layerPaths())
    for (const char *layout : {"iofg", "ifgo"})
      for (bool peephole : {false, true})
        for (bool withBias : {true, false}) {
          const LayerVariant v = layerVariant(++variant, directions, activations);
          const auto &[direction, acts, withStates, D] = v;
          const LayerOperands o = randomLayerOperands(rng, S, B, I, H, D, 4);
          const auto &[x, W, R, b, rb] = o;
          Vec p = randomVec(D * 3 * H, rng);
          Vec h0 = randomVec(D * B * H, rng), c0 = randomVec(D * B * H, rng);
          std::vector<std::string> a;
          for (size_t from = 0;;) {
            size_t comma = acts.find(',', from);
            a.push_back(acts.substr(from, comma - from));
            if (comma == std::string::npos) break;
            from = comma + 1;
          }
          LstmRef ref{B, I, H, layout, a[0], a[1], a[2]};
          Vec lastH(size_t(D * B * H)), lastC(size_t(D * B * H)), seq(size_t(S * D * B * H));
          for (int64_t d = 0; d < D; ++d) {
            Vec h = withStates ? slice(h0, d * B * H, B * H) : Vec(size_t(B * H), 0.0);
            Vec cs = withStates ? slice(c0, d * B * H, B * H) : Vec(size_t(B * H), 0.0);
            Vec bd = slice(b, d * 4 * H, 4 * H), rbd = slice(rb, d * 4 * H, 4 * H), pd = slice(p, d * 3 * H, 3 * H);
            const bool backward = direction == "backward" || d == 1;
            for (int64_t t = 0; t < S; ++t) {
              const int64_t s = backward ? S - 1 - t : t;
              Vec nh, nc;
              ref.step(slice(x, s * B * I, B * I), slice(W, d * 4 * H * I, 4 * H * I), slice(R, d * 4 * H * H, 4 * H * H),
                       withBias ? &bd : nullptr, withBias ? &rbd : nullptr, peephole ? &pd : nullptr, h, cs, &nh, &nc);
              h = nh;
              cs = nc;
              std::copy(h.begin(), h.end(), seq.begin() + (s * D + d) * B * H);
            }
            std::copy(h.begin(), h.end(), lastH.begin() + d * B * H);
            std::copy(cs.begin(), cs.end(), lastC.begin() + d * B * H);
          }
          OpCase c;
          c.op = "lstm";
          setLayerInputs(c, path, o, S, B, I, H, D, 4, withBias, 8);
          if (peephole) c.inputs[5] = f32({D, 3 * H}, toFloat(p), path.constant);
          if (withStates) {
            c.inputs[6] = f32({D, B, H}, toFloat(h0));
            c.inputs[7] = f32({D, B, H}, toFloat(c0));
          }
          c.outputs = {outSpec(DataType::kFloat32, {D, B, H}), outSpec(DataType::kFloat32, {D, B, H}),
                       outSpec(DataType::kFloat32, {S, D, B, H})};
          c.attrInt("steps", S).attrInt("hiddenSize", H).attrString("direction", direction.c_str());
          c.attrString("layout", layout).attrString("activations", acts.c_str()).attrBool("returnSequence", true);
          const std::string what = "lstm " + path.name() + " " + layout + (peephole ? " peephole " : " ") + direction +
                                   " " + acts;
          ASSERT_TRUE(runOnPath(c, path).isOk()) << what;
          expectClose(c.outputs[0], lastH, 2e-5, what + " hidden");
          expectClose(c.outputs[1], lastC, 2e-5, what + " cell");
          expectClose(c.outputs[2], seq, 2e-5, what + " sequence");
        }
}

// A long sequence: errors of the vector exp/tanh must not accumulate, and the
// zig-zag panel order must visit every panel on odd and even steps alike.
TEST(RecurrentKernels, LongSequencesStayClose) {
  std::mt19937 rng(23);
  const int64_t S = 64, B = 1, I = 24, H = 48;
  Vec x = randomVec(S * B * I, rng), W = randomVec(4 * H * I, rng), R = randomVec(4 * H * H, rng);
  for (double &v : R) v *= 0.3;
  Vec b = randomVec(4 * H, rng);
  LstmRef ref{B, I, H, "iofg", "sigmoid", "tanh", "tanh"};
  Vec h(size_t(B * H), 0.0), cs(size_t(B * H), 0.0);
  for (int64_t t = 0; t < S; ++t) {
    Vec nh, nc;
    ref.step(slice(x, t * B * I, B * I), W, R, &b, nullptr, nullptr, h, cs, &nh, &nc);
    h = nh;
    cs = nc;
  }
  for (const LayerPath &path : layerPaths()) {
    OpCase c;
    c.op = "lstm";
    c.inputs = {f32({S, B, I}, toFloat(x)), f32({1, 4 * H, I}, toFloat(W), path.constant),
                f32({1, 4 * H, H}, toFloat(R), path.constant), f32({1, 4 * H}, toFloat(b))};
    c.outputs = {outSpec(DataType::kFloat32, {1, B, H}), outSpec(DataType::kFloat32, {1, B, H})};
    c.attrInt("steps", S).attrInt("hiddenSize", H);
    ASSERT_TRUE(runOnPath(c, path).isOk()) << path.name();
    expectClose(c.outputs[0], h, 2e-5, "lstm long " + path.name() + " hidden");
    expectClose(c.outputs[1], cs, 2e-5, "lstm long " + path.name() + " cell");
  }
}

// One direction with enough panels to be split over two threads
// (StepSplit): every step's hidden state is read whole by both threads.
TEST(RecurrentKernels, OneDirectionSplitOverThreads) {
  std::mt19937 rng(29);
  const int64_t S = 9, B = 2, I = 10, H = 130;  // 9 AVX-512 / 17 AVX2 panels: two parts
  for (const char *direction : {"forward", "backward"}) {
    const bool backward = std::string(direction) == "backward";
    Vec x = randomVec(S * B * I, rng), Wg = randomVec(3 * H * I, rng), Rg = randomVec(3 * H * H, rng);
    Vec Wl = randomVec(4 * H * I, rng), Rl = randomVec(4 * H * H, rng);
    for (double &v : Rg) v *= 0.2;
    for (double &v : Rl) v *= 0.2;
    Vec bg = randomVec(3 * H, rng), rbg = randomVec(3 * H, rng), bl = randomVec(4 * H, rng);
    GruRef gru{B, I, H, true, "zrn", "sigmoid", "tanh"};
    LstmRef lstm{B, I, H, "iofg", "sigmoid", "tanh", "tanh"};
    Vec hg(size_t(B * H), 0.0), hl(size_t(B * H), 0.0), cl(size_t(B * H), 0.0);
    Vec seqG(size_t(S * B * H)), seqL(size_t(S * B * H));
    for (int64_t t = 0; t < S; ++t) {
      const int64_t s = backward ? S - 1 - t : t;
      Vec xs = slice(x, s * B * I, B * I), nh, nc;
      hg = gru.step(xs, Wg, Rg, &bg, &rbg, hg);
      lstm.step(xs, Wl, Rl, &bl, nullptr, nullptr, hl, cl, &nh, &nc);
      hl = nh;
      cl = nc;
      std::copy(hg.begin(), hg.end(), seqG.begin() + s * B * H);
      std::copy(hl.begin(), hl.end(), seqL.begin() + s * B * H);
    }
    for (const LayerPath &path : layerPaths()) {
      if (path.threads != 2) continue;
      OpCase g;
      g.op = "gru";
      g.inputs = {f32({S, B, I}, toFloat(x)), f32({1, 3 * H, I}, toFloat(Wg), path.constant),
                  f32({1, 3 * H, H}, toFloat(Rg), path.constant), f32({1, 3 * H}, toFloat(bg)),
                  f32({1, 3 * H}, toFloat(rbg))};
      g.outputs = {outSpec(DataType::kFloat32, {1, B, H}), outSpec(DataType::kFloat32, {S, 1, B, H})};
      g.attrInt("steps", S).attrInt("hiddenSize", H).attrString("direction", direction);
      g.attrBool("returnSequence", true);
      ASSERT_TRUE(runOnPath(g, path).isOk()) << path.name();
      expectClose(g.outputs[0], hg, 2e-5, std::string("gru split last ") + direction + " " + path.name());
      expectClose(g.outputs[1], seqG, 2e-5, std::string("gru split sequence ") + direction + " " + path.name());
      OpCase l;
      l.op = "lstm";
      l.inputs = {f32({S, B, I}, toFloat(x)), f32({1, 4 * H, I}, toFloat(Wl), path.constant),
                  f32({1, 4 * H, H}, toFloat(Rl), path.constant), f32({1, 4 * H}, toFloat(bl))};
      l.outputs = {outSpec(DataType::kFloat32, {1, B, H}), outSpec(DataType::kFloat32, {1, B, H}),
                   outSpec(DataType::kFloat32, {S, 1, B, H})};
      l.attrInt("steps", S).attrInt("hiddenSize", H).attrString("direction", direction);
      l.attrBool("returnSequence", true);
      ASSERT_TRUE(runOnPath(l, path).isOk()) << path.name();
      expectClose(l.outputs[0], hl, 2e-5, std::string("lstm split hidden ") + direction + " " + path.name());
      expectClose(l.outputs[1], cl, 2e-5, std::string("lstm split cell ") + direction + " " + path.name());
      expectClose(l.outputs[2], seqL, 2e-5, std::string("lstm split sequence ") + direction + " " + path.name());
    }
  }
}

TEST(RecurrentKernels, RejectsBadOptionsAndShapes) {
  OpCase c;
  c.op = "gruCell";
  c.inputs = {f32({1, 2}, {1, 2}), f32({6, 2}, std::vector<float>(12, 0.1f)), f32({6, 2}, std::vector<float>(12, 0.1f)),
              f32({1, 2}, {0, 0})};
  c.outputs = {outSpec(DataType::kFloat32, {1, 2})};
  c.attrInt("hiddenSize", 2);
  ASSERT_TRUE(runOp(c).isOk());
  OpCase a = c;
  a.attrString("activations", "sigmoid");
  EXPECT_FALSE(runOp(a).isOk());  // two activations required
  OpCase e = c;
  e.attrString("activations", "sigmoid,gelu");
  EXPECT_FALSE(runOp(e).isOk());
  OpCase l = c;
  l.attrString("layout", "nrz");
  EXPECT_FALSE(runOp(l).isOk());
  OpCase w = c;
  w.inputs[1] = f32({4, 2}, std::vector<float>(8, 0.1f));
  EXPECT_FALSE(runOp(w).isOk());  // weight must be [3 * hiddenSize, inputSize]
  OpCase i = c;
  i.inputs[0] = fromDoubles(DataType::kInt32, {1, 2}, {1, 2});
  EXPECT_FALSE(runOp(i).isOk());
  // A hiddenSize whose gate count (3x, 4x) overflows int64 (fuzz_artifact).
  for (const char *op : {"gruCell", "gru", "lstm"}) {
    OpCase h = c;
    h.op = op;
    h.attrInt("hiddenSize", int64_t(1) << 62);
    Status s = runOp(h);
    EXPECT_NE(s.message().find("is too large"), std::string::npos) << op << ": " << s.message();
  }
}

}  // namespace
}  // namespace webnn::cpu::test
