#include "runtime/backends/cpu/onednn/Context.h"

#include <omp.h>

#include <atomic>
#include <cstring>

#include "runtime/backends/cpu/onednn/OneDnn.h"

namespace webnn::cpu::onednn {
namespace {

Policy initialPolicy() {
  Policy p;
  const char *env = std::getenv("WEBNN_ONEDNN");
  if (env && std::strcmp(env, "0") == 0) p.enabled = false;
  return p;
}

std::mutex &policyMutex() {
  static std::mutex m;
  return m;
}
Policy &policyStorage() {
  static Policy p = initialPolicy();
  return p;
}

}  // namespace

bool compiledIn() { return true; }

Policy policy() {
  std::lock_guard<std::mutex> lock(policyMutex());
  return policyStorage();
}

void setPolicy(const Policy &p) {
  std::lock_guard<std::mutex> lock(policyMutex());
  policyStorage() = p;
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

void useThreads(int numThreads) {
  if (numThreads < 1) numThreads = 1;
  // omp_set_num_threads is per calling thread (its ICV), so check cheaply.
  if (omp_get_max_threads() != numThreads) omp_set_num_threads(numThreads);
}

int currentThreads() { return omp_get_max_threads(); }

const dnnl::primitive &CachedPrimitive::get() {
  std::lock_guard<std::mutex> lock(mutex);
  if (!built) {
    primitive = dnnl::primitive(pd.get());
    built = true;
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

bool isReferenceImpl(const std::string &impl) {
  return impl.rfind("ref", 0) == 0 || impl.find(":ref") != std::string::npos ||
         impl.find("ref:") != std::string::npos;
}

void AlignedBuffer::resize(size_t bytes) {
  if (bytes <= size_) return;
  size_t rounded = (bytes + 63) / 64 * 64;
  void *p = std::aligned_alloc(64, rounded);
  if (!p) throw std::bad_alloc();
  data_.reset(p);
  size_ = rounded;
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

dnnl::memory::data_type toDnnl(DataType t) {
  return t == DataType::kFloat16 ? dnnl::memory::data_type::f16 : dnnl::memory::data_type::f32;
}

}  // namespace webnn::cpu::onednn
