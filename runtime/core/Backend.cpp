// The backend registry: the backends this runtime was built with (the
// generated backends.def, see core/Backend.h) plus any a test registers.
#include "core/Backend.h"

#include <mutex>

// One `rt::Backend *create<Name>Backend();` per backend in the build.
#define WEBNN_BACKEND(Name) \
  namespace webnn::rt {     \
  Backend *create##Name##Backend(); \
  }
#include "backends.def"
#undef WEBNN_BACKEND

namespace webnn::rt {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<Backend *> list;
};

Registry &registry() {
  static Registry *r = [] {
    auto *reg = new Registry();
#define WEBNN_BACKEND(Name) reg->list.push_back(create##Name##Backend());
#include "backends.def"
#undef WEBNN_BACKEND
    return reg;
  }();
  return *r;
}

}  // namespace

const std::vector<Backend *> &backends() { return registry().list; }

Backend *findBackend(std::string_view name) {
  for (Backend *b : backends())
    if (b->name() == name) return b;
  return nullptr;
}

Backend *findBackendForOp(std::string_view op) {
  for (Backend *b : backends())
    if (b->hasOp(op)) return b;
  return nullptr;
}

Backend *defaultBackend() {
  const std::vector<Backend *> &all = backends();
  return all.empty() ? nullptr : all.front();
}

std::string backendsText() {
  const std::vector<Backend *> &all = backends();
  if (all.empty()) return "no backend (this runtime was built without any)";
  std::string s = all.size() == 1 ? "backend " : "backends ";
  for (size_t i = 0; i < all.size(); ++i) s += (i ? ", '" : "'") + std::string(all[i]->name()) + "'";
  return s;
}

void registerBackend(std::unique_ptr<Backend> backend) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.list.push_back(backend.release());
}

}  // namespace webnn::rt
