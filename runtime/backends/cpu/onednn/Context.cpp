#include "runtime/backends/cpu/onednn/Context.h"

#include <immintrin.h>
#include <omp.h>
#include <oneapi/dnnl/dnnl_debug.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <thread>

#include "runtime/backends/cpu/DebugOptions.h"
#include "runtime/backends/cpu/ThreadPool.h"
#include "runtime/backends/cpu/onednn/OneDnn.h"

namespace webnn::cpu::onednn {
namespace {

std::mutex &policyMutex() {
  static std::mutex m;
  return m;
}
Policy &policyStorage() {
  static Policy p;  // enabled and bf16 are DebugOptions' (policy(), setPolicy)
  return p;
}

}  // namespace

std::atomic<uint64_t> gExecutions{0};

bool compiledIn() { return true; }

uint64_t executionCount() { return gExecutions.load(std::memory_order_relaxed); }

void noteExecution() {
  if (debugOptions().countRuns.load(std::memory_order_relaxed)) gExecutions.fetch_add(1, std::memory_order_relaxed);
}

namespace {
std::atomic<uint64_t> gBuilt{0};
}  // namespace

uint64_t primitivesBuilt() { return gBuilt.load(std::memory_order_relaxed); }

bool bf16Available(std::string *why) {
  Policy pol = policy();
  std::string reason;
  if (!pol.enabled) {
    reason = "oneDNN is disabled (WEBNN_ONEDNN=0)";
  } else if (!pol.bf16) {
    reason = "bf16 is disabled (WEBNN_BF16=0)";
  } else if (!__builtin_cpu_supports("avx512bf16")) {
    reason = "this CPU has no AVX512-BF16";
  } else {
    // DNNL_MAX_CPU_ISA may cap oneDNN below the bf16 instructions.
    unsigned isa = unsigned(dnnl::get_effective_cpu_isa());
    unsigned need = unsigned(dnnl::cpu_isa::avx512_core_bf16);
    if ((isa & need) != need) reason = "oneDNN is limited below avx512_core_bf16 (DNNL_MAX_CPU_ISA)";
  }
  if (reason.empty()) return true;
  if (why) *why = reason;
  return false;
}

Policy policy() {
  std::lock_guard<std::mutex> lock(policyMutex());
  Policy p = policyStorage();
  p.enabled = debugOptions().oneDnn.load(std::memory_order_relaxed);
  p.bf16 = debugOptions().bf16.load(std::memory_order_relaxed);
  return p;
}

void setPolicy(const Policy &p) {
  std::lock_guard<std::mutex> lock(policyMutex());
  policyStorage() = p;
  debugOptions().oneDnn.store(p.enabled, std::memory_order_relaxed);
  debugOptions().bf16.store(p.bf16, std::memory_order_relaxed);
}

dnnl::engine &cpuEngine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

dnnl::stream &cpuStream() {
  // A CPU stream carries no queue state: primitives run synchronously on the
  // calling thread's OpenMP team, so one stream serves every thread.
  static dnnl::stream s(cpuEngine());
  return s;
}

namespace {
// OpenMP's idle threads spin GOMP_SPINCOUNT pauses (300000 unless the
// environment says otherwise, milliseconds) before sleeping, except while the
// process has more OpenMP threads than CPUs: then 100 (libgomp's manual,
// GOMP_SPINCOUNT). Threads that spin for milliseconds without yielding
// collapse on a core shared with other work (each barrier waits out a time
// slice for a thread queued behind another process). OpenMP reads the spin
// count only from the environment, before any code of ours runs, so the
// short spin comes from the rule above: the first multi-threaded primitive
// starts a team as large as the CPU count from a thread of ours, which then
// sleeps for good with its team (blocked, no CPU).
void parkOpenMpTeam() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Waits until the team exists: started in the background, it could be
    // kept off the cores by the very spinning it is meant to shorten.
    static std::mutex m;
    static std::condition_variable cv;
    static bool started = false;
    try {
      std::thread([] {
        // The region must do something: without a body no team is made.
        std::atomic<int> members{0};
#pragma omp parallel num_threads(omp_get_num_procs())
        {
          members.fetch_add(1, std::memory_order_relaxed);
        }
        {
          std::lock_guard<std::mutex> lock(m);
          started = true;
        }
        cv.notify_all();
        // Parked for the life of the process, on objects never destroyed.
        std::mutex parkedMutex;
        std::condition_variable parked;
        std::unique_lock<std::mutex> lock(parkedMutex);
        parked.wait(lock, [] { return false; });
      }).detach();
    } catch (const std::system_error &) {
      return;
    }
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [] { return started; });
  });
}
}  // namespace

void useThreads(int numThreads) {
  if (numThreads < 1) numThreads = 1;
  if (numThreads > 1) parkOpenMpTeam();
  // omp_set_num_threads is per calling thread (its ICV), so check cheaply.
  if (omp_get_max_threads() != numThreads) omp_set_num_threads(numThreads);
}

int currentThreads() { return omp_get_max_threads(); }

const dnnl::primitive &CachedPrimitive::get() {
  std::lock_guard<std::mutex> lock(mutex);
  if (!built) {
    primitive = dnnl::primitive(pd.get());
    built = true;
    gBuilt.fetch_add(1, std::memory_order_relaxed);
  }
  return primitive;
}

std::shared_ptr<CachedPrimitive> cachedPrimitive(const std::string &key,
                                                 const std::function<dnnl::primitive_desc_base()> &make) {
  static std::mutex mutex;
  static auto *cache = new std::unordered_map<std::string, std::shared_ptr<CachedPrimitive>>();
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache->find(key);
    if (it != cache->end()) return it->second;
  }
  auto entry = std::make_shared<CachedPrimitive>();
  entry->pd = make();
  entry->impl = entry->pd.impl_info_str();
  std::lock_guard<std::mutex> lock(mutex);
  return cache->emplace(key, entry).first->second;
}

void packWeightsInto(const dnnl::memory::desc &from, const dnnl::memory::desc &to, const void *weights,
                     void *packed) {
  WeightPacker w;
  w.init(from, to, packed);
  w.run(weights, nullptr);
}

bool isReferenceImpl(const std::string &impl) {
  return impl.rfind("ref", 0) == 0 || impl.find(":ref") != std::string::npos ||
         impl.find("ref:") != std::string::npos;
}

void AlignedBuffer::resize(size_t bytes) {
  if (bytes <= size_) return;
  size_t rounded = (bytes + 63) / 64 * 64;
  void *p = allocatePacked(rounded);  // packed weights: huge pages when large
  if (!p) throw std::bad_alloc();
  data_.reset(p);
  size_ = rounded;
}

uint8_t *threadWorkspace(size_t bytes) {
  thread_local AlignedBuffer buffer;
  thread_local std::unique_ptr<void, void (*)(void *)> huge(nullptr, std::free);
  thread_local size_t hugeBytes = 0;
  // From 1 MB on (Winograd and brgemm scratchpads: ResNet-50's grows to
  // 2.9 MB over its first run), 2 MB pages: a few faults instead of hundreds.
  if (bytes >= (size_t(1) << 20)) {
    if (bytes > hugeBytes) {
      size_t allocated = 0;
      void *p = allocateHugePages(bytes, &allocated);
      if (!p) throw std::bad_alloc();
      huge.reset(p);
      hugeBytes = allocated;
    }
    return static_cast<uint8_t *>(huge.get());
  }
  buffer.resize(bytes ? bytes : 64);  // never a null base
  return static_cast<uint8_t *>(buffer.data());
}

void Reorder::init(const dnnl::memory::desc &fromDesc, void *fromData, const dnnl::memory::desc &toDesc,
                   void *toData) {
  from = dnnl::memory(fromDesc, cpuEngine(), fromData ? fromData : DNNL_MEMORY_NONE);
  to = dnnl::memory(toDesc, cpuEngine(), toData ? toData : DNNL_MEMORY_NONE);
  prim = dnnl::reorder(from, to);
  args = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
}

void Reorder::run(const void *fromData, void *toData) {
  if (fromData) from.set_data_handle(const_cast<void *>(fromData));
  if (toData) to.set_data_handle(toData);
  prim.execute(cpuStream(), args);
}

void WeightPacker::init(const dnnl::memory::desc &from, const dnnl::memory::desc &to, void *toData) {
  try {
    direct.init(from, nullptr, to, toData);
    twoStep = false;
    return;
  } catch (const dnnl::error &) {
  }
  dnnl::memory::dims dims = from.dims();
  dnnl::memory::dims strides(dims.size(), 1);
  for (int i = int(dims.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * dims[i + 1];
  dnnl::memory::desc plainDesc(dims, dnnl::memory::data_type::f32, strides);
  plain.resize(plainDesc.get_size());
  toPlain.init(from, nullptr, plainDesc, plain.data());
  fromPlain.init(plainDesc, plain.data(), to, toData);
  twoStep = true;
}

void WeightPacker::run(const void *fromData, void *toData) {
  if (!twoStep) {
    direct.run(fromData, toData);
    return;
  }
  toPlain.run(fromData, nullptr);
  fromPlain.run(nullptr, toData);
}

namespace {
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void floatToBf16Range(const float *in, uint16_t *out,
                                                                             int64_t n) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m512bh v = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(in + i + 16), _mm512_loadu_ps(in + i));
    _mm512_storeu_si512(out + i, reinterpret_cast<__m512i>(v));
  }
  for (; i < n; i += 16) {
    int64_t r = std::min<int64_t>(16, n - i);
    __mmask16 m = __mmask16((1u << r) - 1);
    __m256bh v = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(m, in + i));
    _mm256_mask_storeu_epi16(out + i, m, reinterpret_cast<__m256i>(v));
  }
}
}  // namespace

void floatToBf16(const float *in, void *out, int64_t n, int numThreads) {
  uint16_t *o = static_cast<uint16_t *>(out);
  // Below ~128K elements (~30 us on one core) a parallel region costs more than it saves.
  constexpr int64_t kSerial = int64_t(1) << 17;
  if (numThreads <= 1 || n <= kSerial) {
    floatToBf16Range(in, o, n);
    return;
  }
  int64_t chunk = (n + numThreads - 1) / numThreads;
  chunk = (chunk + 31) / 32 * 32;
#pragma omp parallel for num_threads(numThreads) schedule(static, 1)
  for (int t = 0; t < numThreads; ++t) {
    int64_t b = std::min<int64_t>(n, int64_t(t) * chunk), e = std::min<int64_t>(n, b + chunk);
    if (b < e) floatToBf16Range(in + b, o + b, e - b);
  }
}

void halfToFloat(const void *in, float *out, int64_t n) {
  const uint16_t *h = static_cast<const uint16_t *>(in);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(h + i))));
  for (; i < n; ++i) out[i] = _cvtsh_ss(h[i]);
}

void floatToHalf(const float *in, void *out, int64_t n) {
  uint16_t *h = static_cast<uint16_t *>(out);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i *>(h + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
  for (; i < n; ++i) h[i] = _cvtss_sh(in[i], _MM_FROUND_TO_NEAREST_INT);
}

namespace {
void appendDims(std::string *s, const char *label, int n, const dnnl_dims_t v) {
  *s += label;
  for (int i = 0; i < n; ++i) *s += (i ? "," : "") + std::to_string(v[i]);
}
}  // namespace

std::string packedLayoutName(const dnnl::memory::desc &desc) {
  const dnnl_memory_desc_t &d = desc.data;
  const dnnl_version_t *v = dnnl_version();
  std::string s = "onednn " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
                  std::to_string(v->patch) + " " + dnnl_dt2str(d.data_type);
  appendDims(&s, " dims=", d.ndims, d.dims);
  appendDims(&s, " padded=", d.ndims, d.padded_dims);
  appendDims(&s, " padded_offsets=", d.ndims, d.padded_offsets);
  s += " offset0=" + std::to_string(d.offset0);
  if (d.format_kind == dnnl_blocked) {
    const dnnl_blocking_desc_t &b = d.format_desc.blocking;
    appendDims(&s, " blocked strides=", d.ndims, b.strides);
    appendDims(&s, " inner_blks=", b.inner_nblks, b.inner_blks);
    appendDims(&s, " inner_idxs=", b.inner_nblks, b.inner_idxs);
  } else if (d.format_kind == dnnl_format_kind_wino) {
    const dnnl_wino_desc_t &w = d.format_desc.wino_desc;
    char scale[32];
    std::snprintf(scale, sizeof(scale), "%a", double(w.adj_scale));  // exact
    s += " wino format=" + std::to_string(int(w.wino_format)) + " r=" + std::to_string(w.r) +
         " alpha=" + std::to_string(w.alpha) + " ic=" + std::to_string(w.ic) + " oc=" + std::to_string(w.oc) +
         " ic_block=" + std::to_string(w.ic_block) + " oc_block=" + std::to_string(w.oc_block) +
         " ic2_block=" + std::to_string(w.ic2_block) + " oc2_block=" + std::to_string(w.oc2_block) +
         " adj_scale=" + scale + " size=" + std::to_string(w.size);
  } else {
    return {};
  }
  if (d.extra.flags != 0) return {};  // int8 compensation: not produced for float weights
  s += " bytes=" + std::to_string(desc.get_size());
  return s;
}

const void *findPacked(const std::vector<PackedOperandRef> &packed, const std::string &layout, size_t bytes) {
  if (layout.empty()) return nullptr;
  for (const PackedOperandRef &p : packed)
    if (p.layout == layout && p.bytes == bytes) return p.data;
  return nullptr;
}

}  // namespace webnn::cpu::onednn
