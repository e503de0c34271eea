// C API over the C++ API. Every entry point catches everything: no exception
// crosses into C (std::bad_alloc from a huge but well-formed graph included).
#include "webnn/webnn_c.h"

#include <cstddef>
#include <algorithm>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "core/Backend.h"
#include "core/Log.h"
#include "core/OpSupport.h"
#include "estimate/Estimate.h"
#include "estimate/GpuEstimate.h"
#include "webnn/runtime.h"
#include "webnn/version.h"

struct webnn_model {
  std::unique_ptr<webnn::Model> model;
};

struct webnn_session {
  std::unique_ptr<webnn::Session> session;
  // What webnn_session_profile last returned (its strings point into `profile`).
  std::vector<webnn::Session::NodeProfile> profile;
  std::vector<webnn_node_profile> profileEntries;
};

namespace {

thread_local std::string tLastError;

webnn_status fail(webnn_status code, std::string message) {
  try {
    tLastError = std::move(message);
  } catch (...) {
  }
  return code;
}

webnn_status fromStatus(const webnn::Status &s) {
  if (s.isOk()) return WEBNN_OK;
  webnn_status code = WEBNN_INTERNAL;
  switch (s.code()) {
    case webnn::StatusCode::kOk: code = WEBNN_OK; break;
    case webnn::StatusCode::kInvalidArgument: code = WEBNN_INVALID_ARGUMENT; break;
    case webnn::StatusCode::kInvalidArtifact: code = WEBNN_INVALID_ARTIFACT; break;
    case webnn::StatusCode::kUnsupported: code = WEBNN_UNSUPPORTED; break;
    case webnn::StatusCode::kIo: code = WEBNN_IO_ERROR; break;
    case webnn::StatusCode::kOutOfMemory: code = WEBNN_OUT_OF_MEMORY; break;
    case webnn::StatusCode::kInternal: code = WEBNN_INTERNAL; break;
    case webnn::StatusCode::kBusy: code = WEBNN_SESSION_BUSY; break;
    case webnn::StatusCode::kCancelled: code = WEBNN_CANCELLED; break;
    case webnn::StatusCode::kLimitExceeded: code = WEBNN_LIMIT_EXCEEDED; break;
  }
  return fail(code, s.message());
}

template <typename Fn>
webnn_status guarded(Fn &&fn) {
  try {
    return fn();
  } catch (const std::bad_alloc &) {
    return fail(WEBNN_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception &e) {
    return fail(WEBNN_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(WEBNN_INTERNAL, "internal error");
  }
}

webnn_status describe(const std::vector<webnn::TensorInfo> &infos, size_t index, webnn_tensor_info *out,
                      const char *what) {
  if (!out) return fail(WEBNN_INVALID_ARGUMENT, "null webnn_tensor_info");
  if (index >= infos.size())
    return fail(WEBNN_INVALID_ARGUMENT, std::string(what) + " index " + std::to_string(index) + " out of range (" +
                                            std::to_string(infos.size()) + ")");
  const webnn::TensorInfo &t = infos[index];
  out->name = t.name.c_str();
  out->data_type = static_cast<webnn_data_type>(t.dtype);
  out->rank = t.shape.size();
  out->dims = t.shape.data();
  out->byte_size = static_cast<size_t>(t.byteSize);
  out->is_dynamic = t.isDynamic() ? 1 : 0;
  return WEBNN_OK;
}

// The C++ buffer for a webnn_memory; its release calls the C callback.
webnn::MemoryBuffer toBuffer(const webnn_memory *m) {
  webnn::MemoryBuffer b;
  if (!m) return b;
  b.data = m->data;
  b.bytes = m->bytes;
  if (m->release) {
    webnn_release_fn fn = m->release;
    const void *data = m->data;
    size_t bytes = m->bytes;
    void *user = m->user_data;
    b.release = [fn, data, bytes, user] { fn(data, bytes, user); };
  }
  return b;
}
}  // namespace

extern "C" {

const char *webnn_last_error(void) { return tLastError.c_str(); }

const char *webnn_data_type_name(webnn_data_type t) {
  // The names are string literals, so data() is NUL-terminated.
  return webnn::dataTypeName(static_cast<webnn::DataType>(t)).data();
}

const char *webnn_version(int *major, int *minor, int *patch) {
  if (major) *major = WEBNN_VERSION_MAJOR;
  if (minor) *minor = WEBNN_VERSION_MINOR;
  if (patch) *patch = WEBNN_VERSION_PATCH;
  return webnn::version();
}

uint32_t webnn_artifact_schema_version(void) { return webnn::artifactSchemaVersion(); }

webnn_status webnn_op_support_limits(const char *device, const char **json) {
  return guarded([&]() -> webnn_status {
    if (!device || !json) return fail(WEBNN_INVALID_ARGUMENT, "webnn_op_support_limits: null device or json");
    *json = nullptr;
    const std::string want(device);
    webnn::rt::Backend *b = webnn::rt::findBackend(want);
    for (webnn::rt::Backend *c : webnn::rt::backends())
      if (!b && c->deviceType() == want) b = c;
    if (!b)
      return fail(WEBNN_UNSUPPORTED, "no backend or device '" + want + "' in this runtime (" +
                                         webnn::rt::backendsText() + ")");
    const webnn::rt::OpSupportTable *table = b->opSupportLimits();
    if (!table)
      return fail(WEBNN_UNSUPPORTED, "backend '" + std::string(b->name()) +
                                         "' publishes no op support limits table (only per-node answers)");
    // One string per backend, made once: callers keep the pointer.
    static std::mutex mutex;
    static std::map<const webnn::rt::Backend *, std::string> cache;
    std::lock_guard<std::mutex> lock(mutex);
    std::string &text = cache[b];
    if (text.empty()) text = webnn::rt::opSupportLimitsJson(*table);
    *json = text.c_str();
    return WEBNN_OK;
  });
}

void webnn_set_log_callback(webnn_log_fn callback, webnn_log_level max_level, void *user_data) {
  try {
    if (!callback) return webnn::rt::setLogSink(nullptr, webnn::LogLevel::kError);
    int level = max_level < WEBNN_LOG_ERROR ? WEBNN_LOG_ERROR : max_level > WEBNN_LOG_DEBUG ? WEBNN_LOG_DEBUG : max_level;
    webnn::rt::setLogSink(
        [callback, user_data](webnn::LogLevel l, const char *message) {
          callback(static_cast<webnn_log_level>(l), message, user_data);
        },
        static_cast<webnn::LogLevel>(level));
  } catch (...) {  // out of memory: the previous sink stays
  }
}

webnn_status webnn_model_load(const char *path, const char *weights_path, webnn_model **out) {
  return guarded([&] {
    if (!path || !out) return fail(WEBNN_INVALID_ARGUMENT, "webnn_model_load: null path or out");
    *out = nullptr;
    webnn::LoadOptions options;
    if (weights_path) options.weightsPath = weights_path;
    std::unique_ptr<webnn::Model> model;
    webnn::Status s = webnn::Model::load(path, options, &model);
    if (!s.isOk()) return fromStatus(s);
    *out = new webnn_model{std::move(model)};
    return WEBNN_OK;
  });
}

void webnn_model_free(webnn_model *model) { delete model; }

webnn_status webnn_model_load_memory(const webnn_memory *artifact, const webnn_memory *weights, webnn_model **out) {
  // Built before anything can fail, so each release runs exactly once
  // (by loadFromMemory, or by these buffers' owner on an early return).
  webnn::MemoryBuffer artifactBuffer, weightsBuffer;
  try {
    artifactBuffer = toBuffer(artifact);
    weightsBuffer = toBuffer(weights);
  } catch (...) {
    if (artifact && artifact->release) artifact->release(artifact->data, artifact->bytes, artifact->user_data);
    if (weights && weights->release) weights->release(weights->data, weights->bytes, weights->user_data);
    return fail(WEBNN_OUT_OF_MEMORY, "out of memory");
  }
  return guarded([&] {
    if (!artifact || !out) {
      if (artifactBuffer.release) artifactBuffer.release();
      if (weightsBuffer.release) weightsBuffer.release();
      return fail(WEBNN_INVALID_ARGUMENT, "webnn_model_load_memory: null artifact or out");
    }
    *out = nullptr;
    std::unique_ptr<webnn::Model> model;
    webnn::Status s =
        webnn::Model::loadFromMemory(std::move(artifactBuffer), std::move(weightsBuffer), {}, &model);
    if (!s.isOk()) return fromStatus(s);
    *out = new webnn_model{std::move(model)};
    return WEBNN_OK;
  });
}

size_t webnn_model_input_count(const webnn_model *model) { return model ? model->model->inputs().size() : 0; }
size_t webnn_model_output_count(const webnn_model *model) { return model ? model->model->outputs().size() : 0; }

webnn_status webnn_model_input_info(const webnn_model *model, size_t index, webnn_tensor_info *out) {
  if (!model) return fail(WEBNN_INVALID_ARGUMENT, "null model");
  return describe(model->model->inputs(), index, out, "input");
}

webnn_status webnn_model_output_info(const webnn_model *model, size_t index, webnn_tensor_info *out) {
  if (!model) return fail(WEBNN_INVALID_ARGUMENT, "null model");
  return describe(model->model->outputs(), index, out, "output");
}

webnn_status webnn_session_create(const webnn_model *model, int threads, webnn_session **out) {
  return guarded([&] {
    if (!model || !out) return fail(WEBNN_INVALID_ARGUMENT, "webnn_session_create: null model or out");
    *out = nullptr;
    std::unique_ptr<webnn::Session> session;
    webnn::Status s = webnn::Session::create(*model->model, {threads}, &session);
    if (!s.isOk()) return fromStatus(s);
    *out = new webnn_session{std::move(session), {}, {}};
    return WEBNN_OK;
  });
}

void webnn_session_options_init(webnn_session_options *options) {
  if (!options) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->threads = 1;
  const webnn::Limits limits;
  options->max_loop_iterations = limits.maxLoopIterations;
  options->max_tensor_elements = limits.maxTensorElements;
  options->max_arena_bytes = limits.maxArenaBytes;
  options->max_constant_bytes = limits.maxConstantBytes;
  options->max_nodes = limits.maxNodes;
  options->max_nesting_depth = limits.maxNestingDepth;
}

webnn_status webnn_session_create_with_options(const webnn_model *model, const webnn_session_options *options,
                                               webnn_session **out) {
  return guarded([&] {
    if (!model || !options || !out)
      return fail(WEBNN_INVALID_ARGUMENT, "webnn_session_create_with_options: null model, options or out");
    *out = nullptr;
    // A caller built against an older header passes a shorter struct: the
    // fields it lacks keep their defaults.
    if (options->struct_size < offsetof(webnn_session_options, threads) + sizeof(int))
      return fail(WEBNN_INVALID_ARGUMENT,
                  "webnn_session_create_with_options: options.struct_size is " +
                      std::to_string(options->struct_size) + " (fill the options with webnn_session_options_init)");
    webnn::SessionOptions so;
    so.threads = options->threads;
    if (options->struct_size >= offsetof(webnn_session_options, profiling) + sizeof(int))
      so.profiling = options->profiling != 0;
    if (options->struct_size >= offsetof(webnn_session_options, thread_wait) + sizeof(int)) {
      switch (options->thread_wait) {
        case WEBNN_THREAD_WAIT_DEFAULT: so.threadWait = webnn::ThreadWait::kDefault; break;
        case WEBNN_THREAD_WAIT_SPIN: so.threadWait = webnn::ThreadWait::kSpin; break;
        case WEBNN_THREAD_WAIT_BLOCK: so.threadWait = webnn::ThreadWait::kBlock; break;
        default:
          return fail(WEBNN_INVALID_ARGUMENT, "webnn_session_create_with_options: options.thread_wait is " +
                                                  std::to_string(options->thread_wait) +
                                                  " (WEBNN_THREAD_WAIT_DEFAULT, _SPIN or _BLOCK)");
      }
    }
    // Each limit a shorter struct lacks keeps its default.
    const auto limit = [&](size_t offset, uint64_t value, uint64_t *field) {
      if (options->struct_size >= offset + sizeof(uint64_t)) *field = value;
    };
    limit(offsetof(webnn_session_options, max_loop_iterations), options->max_loop_iterations,
          &so.limits.maxLoopIterations);
    limit(offsetof(webnn_session_options, max_tensor_elements), options->max_tensor_elements,
          &so.limits.maxTensorElements);
    limit(offsetof(webnn_session_options, max_arena_bytes), options->max_arena_bytes, &so.limits.maxArenaBytes);
    limit(offsetof(webnn_session_options, max_constant_bytes), options->max_constant_bytes,
          &so.limits.maxConstantBytes);
    limit(offsetof(webnn_session_options, max_nodes), options->max_nodes, &so.limits.maxNodes);
    limit(offsetof(webnn_session_options, max_nesting_depth), options->max_nesting_depth,
          &so.limits.maxNestingDepth);
    std::unique_ptr<webnn::Session> session;
    webnn::Status s = webnn::Session::create(*model->model, so, &session);
    if (!s.isOk()) return fromStatus(s);
    *out = new webnn_session{std::move(session), {}, {}};
    return WEBNN_OK;
  });
}

void webnn_session_free(webnn_session *session) { delete session; }

webnn_status webnn_session_thread_wait(const webnn_session *session, webnn_thread_wait *out) {
  return guarded([&] {
    if (!session || !out) return fail(WEBNN_INVALID_ARGUMENT, "webnn_session_thread_wait: null session or out");
    switch (session->session->threadWait()) {
      case webnn::ThreadWait::kSpin: *out = WEBNN_THREAD_WAIT_SPIN; break;
      case webnn::ThreadWait::kBlock: *out = WEBNN_THREAD_WAIT_BLOCK; break;
      case webnn::ThreadWait::kDefault: *out = WEBNN_THREAD_WAIT_DEFAULT; break;
    }
    return WEBNN_OK;
  });
}

webnn_status webnn_session_set_profiling(webnn_session *session, int on) {
  return guarded([&] {
    if (!session) return fail(WEBNN_INVALID_ARGUMENT, "webnn_session_set_profiling: null session");
    session->session->enableProfiling(on != 0);
    return WEBNN_OK;
  });
}

webnn_status webnn_session_profile(webnn_session *session, const webnn_node_profile **entries, size_t *count,
                                   uint64_t *runs) {
  return guarded([&] {
    if (!session || !entries || !count) return fail(WEBNN_INVALID_ARGUMENT, "webnn_session_profile: null argument");
    uint64_t n = 0;
    session->profile = session->session->profile(&n);
    session->profileEntries.clear();
    for (const webnn::Session::NodeProfile &p : session->profile)
      session->profileEntries.push_back({p.op.c_str(), p.name.c_str(), p.totalMs, p.runBy});
    *entries = session->profileEntries.data();
    *count = session->profileEntries.size();
    if (runs) *runs = n;
    return WEBNN_OK;
  });
}

webnn_status webnn_session_set_input(webnn_session *session, const char *name, const void *data, size_t bytes) {
  return guarded([&] {
    if (!session || !name) return fail(WEBNN_INVALID_ARGUMENT, "webnn_session_set_input: null session or name");
    return fromStatus(session->session->copyInput(name, data, bytes));
  });
}

webnn_status webnn_session_set_input_shaped(webnn_session *session, const char *name, const void *data,
                                            size_t bytes, const int64_t *dims, size_t rank) {
  return guarded([&] {
    if (!session || !name || (!dims && rank))
      return fail(WEBNN_INVALID_ARGUMENT, "webnn_session_set_input_shaped: null session, name or dims");
    return fromStatus(session->session->copyInput(name, data, bytes, webnn::Shape(dims, dims + rank)));
  });
}

webnn_status webnn_session_bind_input(webnn_session *session, const char *name, const void *data, size_t bytes,
                                      const int64_t *dims, size_t rank) {
  return guarded([&] {
    if (!session || !name || (!dims && rank))
      return fail(WEBNN_INVALID_ARGUMENT, "webnn_session_bind_input: null session, name or dims");
    if (!dims) return fromStatus(session->session->setInput(name, data, bytes));
    return fromStatus(session->session->setInput(name, data, bytes, webnn::Shape(dims, dims + rank)));
  });
}

webnn_status webnn_session_bind_output(webnn_session *session, const char *name, void *data, size_t capacity) {
  return guarded([&] {
    if (!session || !name) return fail(WEBNN_INVALID_ARGUMENT, "webnn_session_bind_output: null session or name");
    return fromStatus(session->session->bindOutput(name, data, capacity));
  });
}

webnn_status webnn_session_bind_output_in_place(webnn_session *session, const char *output, const char *input) {
  return guarded([&] {
    if (!session || !output || !input)
      return fail(WEBNN_INVALID_ARGUMENT, "webnn_session_bind_output_in_place: null session, output or input");
    return fromStatus(session->session->bindOutputInPlace(output, input));
  });
}

webnn_status webnn_session_output_shape(const webnn_session *session, size_t index, const int64_t **dims,
                                        size_t *rank) {
  return guarded([&] {
    if (!session || !dims || !rank) return fail(WEBNN_INVALID_ARGUMENT, "webnn_session_output_shape: null argument");
    if (index >= session->session->outputs().size())
      return fail(WEBNN_INVALID_ARGUMENT, "webnn_session_output_shape: output index " + std::to_string(index) +
                                              " out of range");
    const webnn::Shape &s = session->session->outputShape(index);
    *dims = s.data();
    *rank = s.size();
    return WEBNN_OK;
  });
}

webnn_status webnn_session_run(webnn_session *session) {
  return guarded([&] {
    if (!session) return fail(WEBNN_INVALID_ARGUMENT, "webnn_session_run: null session");
    return fromStatus(session->session->run());
  });
}

void webnn_session_cancel(webnn_session *session) {
  if (session) session->session->cancel();
}

webnn_status webnn_session_get_output(const webnn_session *session, const char *name, const void **data,
                                      size_t *bytes) {
  return guarded([&] {
    if (!session || !name || !data || !bytes)
      return fail(WEBNN_INVALID_ARGUMENT, "webnn_session_get_output: null argument");
    return fromStatus(session->session->output(name, data, bytes));
  });
}

void webnn_estimate_options_init(webnn_estimate_options *options) {
  if (!options) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->threads = 1;
}

webnn_status webnn_estimate(const char *artifact_path, const webnn_estimate_options *options,
                            webnn_estimate_report *report) {
  return guarded([&] {
    if (!artifact_path || !report) return fail(WEBNN_INVALID_ARGUMENT, "webnn_estimate: null artifact_path or report");
    webnn_estimate_options o;
    webnn_estimate_options_init(&o);
    if (options) {
      if (options->struct_size < offsetof(webnn_estimate_options, profile_path) + sizeof(const char *))
        return fail(WEBNN_INVALID_ARGUMENT, "webnn_estimate: options.struct_size is too small (call _init)");
      // A caller built against an older header passes a shorter struct.
      std::memcpy(&o, options, std::min(options->struct_size, sizeof o));
    }
    webnn::est::EstimateOptions eo;
    eo.threads = o.threads;
    std::string device = o.device ? o.device : "cpu";
    const bool gpu = device != "cpu";
    if (gpu && !webnn::est::isGpuDeviceName(device))
      return fail(WEBNN_INVALID_ARGUMENT, "webnn_estimate: device '" + device + "': expected cpu, gpu or gpu:N");
    std::string profilePath = o.profile_path ? o.profile_path : "";
    if (profilePath.empty()) {
      webnn::Status s = gpu ? webnn::est::findDefaultGpuProfile(device, &profilePath)
                            : webnn::est::findDefaultProfile(o.threads, &profilePath);
      if (!s.isOk()) return fromStatus(s);
    }
    webnn::est::Estimate e;
    webnn::Status s;
    if (gpu) {
      webnn::est::GpuProfile profile;
      s = webnn::est::loadGpuProfile(profilePath, &profile);
      if (s.isOk()) s = webnn::est::estimateArtifactGpu(artifact_path, profile, eo, &e);
    } else {
      webnn::est::DeviceProfile profile;
      s = webnn::est::loadProfile(profilePath, &profile);
      if (s.isOk()) s = webnn::est::estimateArtifact(artifact_path, profile, eo, &e);
    }
    if (!s.isOk()) return fromStatus(s);
    report->median_ms = e.medianMs;
    report->p10_ms = e.p10Ms;
    report->p90_ms = e.p90Ms;
    report->cold_ms = e.coldMs;
    report->peak_bytes = e.peakBytes;
    report->tier = webnn::est::tierName(e.tier);
    return WEBNN_OK;
  });
}

webnn_status webnn_estimate_tier(const char *artifact_path, const webnn_estimate_options *options,
                                 const char **tier) {
  if (!tier) return fail(WEBNN_INVALID_ARGUMENT, "webnn_estimate_tier: null tier");
  webnn_estimate_report r;
  webnn_status st = webnn_estimate(artifact_path, options, &r);
  if (st == WEBNN_OK) *tier = r.tier;
  return st;
}

webnn_status webnn_estimate_meets(const char *artifact_path, const webnn_estimate_options *options,
                                  const char *tier, int *meets) {
  if (!tier || !meets) return fail(WEBNN_INVALID_ARGUMENT, "webnn_estimate_meets: null tier or meets");
  webnn::est::Tier want;
  if (!webnn::est::parseTier(tier, &want))
    return fail(WEBNN_INVALID_ARGUMENT, std::string("webnn_estimate_meets: '") + tier +
                                            "' is not a tier (excellent, good, fair, moderate, slow, very-slow, poor)");
  webnn_estimate_report r;
  webnn_status st = webnn_estimate(artifact_path, options, &r);
  if (st != WEBNN_OK) return st;
  webnn::est::Tier got = webnn::est::tierOf(r.p90_ms);
  *meets = int(got) <= int(want) ? 1 : 0;
  return WEBNN_OK;
}

}  // extern "C"
