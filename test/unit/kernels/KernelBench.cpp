// webnn-kernel-bench: GFLOP/s of conv2d and matmul on ResNet-50, BERT-base,
// ViT-B/16 and audio-encoder layer shapes, our kernels vs oneDNN, at 1 and 2
// threads. A matmul with constant B (a Linear layer) compares the packed
// SGEMM (PackedSgemm.h) with oneDNN's matmul, the packed kernel switched
// off; a variable B the portable SGEMM with oneDNN. Not a test (not in
// ctest): run by hand, on a quiet machine, alternating the two paths.
// "speedup" is our time over oneDNN's: below 1x ours is the faster.
//
//   webnn-kernel-bench [reps] [--interleave] [--cold] [--matmul] [--attention]
//
// --interleave also times each oneDNN layer with a pool-parallel relu over
// 4 MB run between calls, as in a graph: the pool's workers spin for a while
// after a job (ThreadPool.cpp) and OpenMP's after a region, and on 2 cores
// each side's spinning can steal the other's time.
//
// --cold evicts the caches before every timed run (a pass over 128 MB), so
// a layer's weights come from memory as they do in a graph whose weights
// outgrow the L3 (ViT-B/16, BERT-base); --matmul skips the
// convolutions, --attention runs fusedAttention alone.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "runtime/backends/cpu/Kernel.h"
#include "runtime/backends/cpu/ThreadPool.h"
#include "runtime/backends/cpu/kernels/EncoderAttention.h"
#include "runtime/backends/cpu/kernels/PackedSgemm.h"
#if WEBNN_HAVE_ONEDNN
#include "runtime/backends/cpu/onednn/OneDnn.h"
#endif

namespace webnn::cpu {
namespace {

struct Operand {
  OperandDesc desc;
  std::vector<float> data;
  TensorBuffer buffer{};
};

// One node built through the registry, with its buffers.
struct Node {
  std::vector<std::unique_ptr<Operand>> ins, outs;
  std::vector<const TensorBuffer *> inPtrs;
  std::vector<TensorBuffer *> outPtrs;
  std::unique_ptr<Kernel> kernel;

  bool build(const std::string &op, const NodeAttributes &attrs) {
    NodeDesc node;
    node.op = op;
    node.name = "bench";
    node.attributes = attrs;
    for (auto &o : ins) {
      o->buffer = TensorBuffer{o->desc.dtype, &o->desc.shape, o->data.data()};
      node.inputs.push_back(&o->desc);
      inPtrs.push_back(&o->buffer);
    }
    for (auto &o : outs) {
      o->buffer = TensorBuffer{o->desc.dtype, &o->desc.shape, o->data.data()};
      node.outputs.push_back(&o->desc);
      outPtrs.push_back(&o->buffer);
    }
    Status s = findCpuKernel(op)(node, &kernel);
    if (!s.isOk()) std::fprintf(stderr, "%s: %s\n", op.c_str(), s.message().c_str());
    return s.isOk();
  }
  void run(ThreadPool &pool) {
    KernelContext ctx{inPtrs.data(), inPtrs.size(), outPtrs.data(), outPtrs.size(), &pool};
    Status s = kernel->run(ctx);
    if (!s.isOk()) {
      std::fprintf(stderr, "run failed: %s\n", s.message().c_str());
      std::exit(1);
    }
  }
};

std::unique_ptr<Operand> operand(Shape s, bool constant, uint32_t seed) {
  auto o = std::make_unique<Operand>();
  o->desc.shape = s;
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  o->data.resize(size_t(n));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  for (float &x : o->data) x = d(rng);
  if (constant) o->desc.constantData = o->data.data();
  return o;
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool gCold = false;  // --cold

// A read-modify-write of every line: memset's non-temporal stores would
// leave the caches' contents in place.
void evictCaches() {
  static std::vector<char> junk(size_t(128) << 20);
  for (size_t i = 0; i < junk.size(); i += 64) junk[i] = char(junk[i] + 1);
}

// Median seconds per run after one warm-up run (JIT and weight packing).
double timeRuns(Node &n, ThreadPool &pool, int reps, Node *between) {
  n.run(pool);
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    if (gCold) evictCaches();
    if (between) between->run(pool);
    double t0 = now();
    n.run(pool);
    t.push_back(now() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void setOneDnn(bool on) {
#if WEBNN_HAVE_ONEDNN
  onednn::Policy p = onednn::policy();
  p.enabled = on;
  onednn::setPolicy(p);
#else
  (void)on;
#endif
}

AttributeValue ints(std::vector<int64_t> v) {
  AttributeValue a;
  a.kind = AttributeValue::Kind::kInts;
  a.ints = std::move(v);
  return a;
}
AttributeValue str(std::string v) {
  AttributeValue a;
  a.kind = AttributeValue::Kind::kString;
  a.s = std::move(v);
  return a;
}

struct Conv {
  const char *name;
  int64_t C, H, O, K, S;
};

}  // namespace
}  // namespace webnn::cpu

int main(int argc, char **argv) {
  using namespace webnn::cpu;
  using webnn::Shape;
  int reps = argc > 1 ? std::atoi(argv[1]) : 20;
  bool interleave = false, matmulOnly = false, attentionOnly = false, usage = false;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--interleave") == 0) interleave = true;
    else if (std::strcmp(argv[i], "--cold") == 0) gCold = true;
    else if (std::strcmp(argv[i], "--matmul") == 0) matmulOnly = true;
    else if (std::strcmp(argv[i], "--attention") == 0) attentionOnly = true;
    else usage = true;
  }
  // The medians need at least one timed run.
  if (reps < 1 || usage) {
    std::fprintf(stderr, "usage: %s [reps >= 1] [--interleave] [--cold] [--matmul] [--attention]\n", argv[0]);
    return 2;
  }
  // What is timed: --matmul leaves out the convolutions, --attention all but
  // fusedAttention.
  const bool timeConvs = !matmulOnly && !attentionOnly, timeMatmuls = !attentionOnly;
  const Conv convs[] = {
      {"res2 3x3 64->64 @56", 64, 56, 64, 3, 1},     {"res2 1x1 256->64 @56", 256, 56, 64, 1, 1},
      {"res2 1x1 64->256 @56", 64, 56, 256, 1, 1},   {"res3 1x1 s2 512->256 @28", 512, 28, 256, 1, 2},
      {"res3 3x3 128->128 @28", 128, 28, 128, 3, 1}, {"res4 3x3 256->256 @14", 256, 14, 256, 3, 1},
      {"res5 3x3 512->512 @7", 512, 7, 512, 3, 1},   {"stem 7x7 s2 3->64 @224", 3, 224, 64, 7, 2},
  };
  std::printf("%-28s %-5s %3s %10s %10s %10s %8s\n", "layer", "lay", "thr", "ours GF/s", "oneDNN", "+interl.",
              "speedup");
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    // A pool-parallel op of a graph's elementwise tail: relu over 4 MB.
    Node relu;
    relu.ins.push_back(operand({1 << 20}, false, 1));
    relu.outs.push_back(operand({1 << 20}, false, 2));
    relu.build("relu", NodeAttributes());
    if (timeConvs)
      for (const Conv &c : convs)
        for (bool nhwc : {false, true}) {
          int64_t pad = c.K / 2, OH = (c.H + 2 * pad - c.K) / c.S + 1;
          NodeAttributes attrs;
          attrs.set("padding", ints({pad, pad, pad, pad}));
          attrs.set("strides", ints({c.S, c.S}));
          attrs.set("inputLayout", str(nhwc ? "nhwc" : "nchw"));
          attrs.set("filterLayout", str(nhwc ? "ohwi" : "oihw"));
          double t[2] = {0, 0}, tInter = 0;
          for (int path = 0; path < 2; ++path) {
            setOneDnn(path == 1);
            Node n;
            n.ins.push_back(operand(nhwc ? Shape{1, c.H, c.H, c.C} : Shape{1, c.C, c.H, c.H}, false, 3));
            n.ins.push_back(operand(nhwc ? Shape{c.O, c.K, c.K, c.C} : Shape{c.O, c.C, c.K, c.K}, true, 4));
            n.ins.push_back(operand({c.O}, true, 5));
            n.outs.push_back(operand(nhwc ? Shape{1, OH, OH, c.O} : Shape{1, c.O, OH, OH}, false, 6));
            if (!n.build("conv2d", attrs)) return 1;
            t[path] = timeRuns(n, pool, reps, nullptr);
            if (path == 1 && interleave) tInter = timeRuns(n, pool, reps, &relu);
          }
          double flops = 2.0 * c.C * c.O * c.K * c.K * OH * OH;
          std::printf("%-28s %-5s %3d %10.1f %10.1f %10.1f %7.2fx\n", c.name, nhwc ? "nhwc" : "nchw", threads,
                      flops / t[0] / 1e9, flops / t[1] / 1e9, tInter > 0 ? flops / tInter / 1e9 : 0.0, t[0] / t[1]);
        }
    // BERT-base (128 tokens), ViT-B/16 (197 tokens: qkv, out, fc1, fc2), the
    // audio encoder's 49 frames, a GEMV.
    const int64_t mms[][3] = {{128, 768, 768}, {128, 768, 3072}, {128, 3072, 768}, {197, 768, 2304},
                              {197, 768, 768}, {197, 768, 3072}, {197, 3072, 768}, {49, 384, 1536},
                              {49, 1536, 384}, {1, 4096, 4096}};
    if (timeMatmuls)
      for (const auto &m : mms)
        for (bool constantB : {true, false}) {
          double t[2] = {0, 0}, tInter = 0;
          for (int path = 0; path < 2; ++path) {
            setOneDnn(path == 1);
            webnn::cpu::kernels::setPackedSgemmEnabled(path == 0);
            Node n;
            n.ins.push_back(operand({m[0], m[1]}, false, 7));
            n.ins.push_back(operand({m[1], m[2]}, constantB, 8));
            n.outs.push_back(operand({m[0], m[2]}, false, 9));
            if (!n.build("matmul", NodeAttributes())) return 1;
            t[path] = timeRuns(n, pool, reps, nullptr);
            if (path == 1 && interleave) tInter = timeRuns(n, pool, reps, &relu);
          }
          double flops = 2.0 * m[0] * m[1] * m[2];
          char name[64];
          std::snprintf(name, sizeof name, "matmul %lldx%lldx%lld", (long long)m[0], (long long)m[1],
                        (long long)m[2]);
          std::printf("%-28s %-5s %3d %10.1f %10.1f %10.1f %7.2fx\n", name, constantB ? "constB" : "B", threads,
                      flops / t[0] / 1e9, flops / t[1] / 1e9, tInter > 0 ? flops / tInter / 1e9 : 0.0, t[0] / t[1]);
        }
    webnn::cpu::kernels::setPackedSgemmEnabled(true);
    // fusedAttention (B, S = T, heads, Dh): BERT-base, ViT-B/16, MiniLM-L6
    // (384 = 12 x 32), a Swin window. Ours: EncoderAttention.h's tiles.
    const int64_t atts[][4] = {{1, 128, 12, 64}, {1, 197, 12, 64}, {1, 128, 12, 32}, {64, 49, 3, 32}};
    for (const auto &at : atts) {
      double t[2] = {0, 0};
      const int64_t B = at[0], S = at[1], H = at[2], Dh = at[3];
      for (int path = 0; path < 2; ++path) {
        webnn::cpu::kernels::setEncoderAttentionEnabled(path == 0);
        Node n;
        for (uint32_t i = 0; i < 3; ++i) n.ins.push_back(operand({B, S, H * Dh}, false, 10 + i));
        n.outs.push_back(operand({B, S, H * Dh}, false, 13));
        NodeAttributes attrs;
        AttributeValue heads, scale;
        heads.kind = AttributeValue::Kind::kInt;
        heads.i = H;
        scale.kind = AttributeValue::Kind::kFloat;
        scale.f = 1.0 / std::sqrt(double(Dh));
        attrs.set("heads", heads);
        attrs.set("scale", scale);
        if (!n.build("fusedAttention", attrs)) return 1;
        t[path] = timeRuns(n, pool, reps, nullptr);
      }
      webnn::cpu::kernels::setEncoderAttentionEnabled(true);
      double flops = 4.0 * B * H * S * S * Dh;
      char name[64];
      std::snprintf(name, sizeof name, "attention %lldx%lldx%lldx%lld", (long long)B, (long long)S, (long long)H,
                    (long long)Dh);
      std::printf("%-28s %-5s %3d %10.1f %10.1f %10.1f %7.2fx\n", name, "f32", threads, flops / t[0] / 1e9,
                  flops / t[1] / 1e9, 0.0, t[0] / t[1]);
    }
  }
  return 0;
}
