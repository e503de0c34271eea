// C API over the C++ API. Every entry point catches everything: no exception
// crosses into C (std::bad_alloc from a huge but well-formed graph included).
#include "webnn/webnn_c.h"

#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "webnn/runtime.h"

struct webnn_model {
  std::unique_ptr<webnn::Model> model;
};

struct webnn_session {
  std::unique_ptr<webnn::Session> session;
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

}  // namespace

extern "C" {

const char *webnn_last_error(void) { return tLastError.c_str(); }

const char *webnn_data_type_name(webnn_data_type t) {
  // The names are string literals, so data() is NUL-terminated.
  return webnn::dataTypeName(static_cast<webnn::DataType>(t)).data();
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
    *out = new webnn_session{std::move(session)};
    return WEBNN_OK;
  });
}

void webnn_session_free(webnn_session *session) { delete session; }

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

webnn_status webnn_session_get_output(const webnn_session *session, const char *name, const void **data,
                                      size_t *bytes) {
  return guarded([&] {
    if (!session || !name || !data || !bytes)
      return fail(WEBNN_INVALID_ARGUMENT, "webnn_session_get_output: null argument");
    return fromStatus(session->session->output(name, data, bytes));
  });
}

}  // extern "C"
