/* The webnn runtime's C API: opaque handles, status codes, no exceptions.
 *
 *   webnn_model *model = NULL;
 *   if (webnn_model_load("net.wnn", NULL, &model) != WEBNN_OK)
 *     fprintf(stderr, "%s\n", webnn_last_error());
 *   webnn_session *session = NULL;
 *   webnn_session_create(model, 4, &session);
 *   webnn_session_set_input(session, "x", x, sizeof x);
 *   webnn_session_run(session);
 *   const void *y; size_t y_bytes;
 *   webnn_session_get_output(session, "y", &y, &y_bytes);
 *   webnn_session_free(session);
 *   webnn_model_free(model);
 *
 * Errors: every call returns a webnn_status; webnn_last_error() then gives
 * this thread's message for the last failed call. See docs/RUNTIME.md. */
#ifndef WEBNN_C_H
#define WEBNN_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default) /* exported from libwebnn.so */
#endif

typedef enum webnn_status {
  WEBNN_OK = 0,
  WEBNN_INVALID_ARGUMENT = 1,
  WEBNN_INVALID_ARTIFACT = 2,
  WEBNN_UNSUPPORTED = 3,
  WEBNN_IO_ERROR = 4,
  WEBNN_OUT_OF_MEMORY = 5,
  WEBNN_INTERNAL = 6,
  /* The session was called while a call from another thread was still in
   * it. A session serves one thread at a time: a run, and the binding of its
   * inputs and reading of its outputs, belong to one thread; use one session
   * per thread (they may share one webnn_model). Overlapping calls are
   * detected and refused with this status; calls that merely interleave
   * between threads cannot be told apart and give wrong outputs. */
  WEBNN_SESSION_BUSY = 7
} webnn_status;

/* Values match webnn::DataType and the artifact schema. FLOAT64 .. BOOL
 * appear only on inputs/outputs of models that declared them (BOOL: one byte
 * per element, 0 or 1, computed as UINT8): the session
 * converts them to and from the type the graph computes in, unless the graph
 * computes in FLOAT64 itself (webnnc's float64 extension), which needs no
 * conversion. */
typedef enum webnn_data_type {
  WEBNN_FLOAT32 = 0, WEBNN_FLOAT16 = 1, WEBNN_INT32 = 2, WEBNN_UINT32 = 3, WEBNN_INT64 = 4,
  WEBNN_UINT64 = 5, WEBNN_INT8 = 6, WEBNN_UINT8 = 7, WEBNN_INT4 = 8, WEBNN_UINT4 = 9,
  WEBNN_FLOAT64 = 10, WEBNN_INT16 = 11, WEBNN_UINT16 = 12, WEBNN_BFLOAT16 = 13,
  WEBNN_BOOL = 14
} webnn_data_type;

typedef struct webnn_model webnn_model;
typedef struct webnn_session webnn_session;

/* Describes one input or output; pointers stay valid while the model lives.
 * For a tensor with dynamic dimensions, dims hold their maximum sizes and
 * is_dynamic is 1 (see webnn_session_set_input_shaped). */
typedef struct webnn_tensor_info {
  const char *name;
  webnn_data_type data_type;
  size_t rank;
  const int64_t *dims;
  size_t byte_size;
  int is_dynamic;
} webnn_tensor_info;

/* The message of this thread's last failed call ("" if none). */
const char *webnn_last_error(void);
const char *webnn_data_type_name(webnn_data_type t);

/* weights_path: the weights file of a weightless artifact, else NULL. */
webnn_status webnn_model_load(const char *path, const char *weights_path, webnn_model **out);
void webnn_model_free(webnn_model *model);
size_t webnn_model_input_count(const webnn_model *model);
size_t webnn_model_output_count(const webnn_model *model);
webnn_status webnn_model_input_info(const webnn_model *model, size_t index, webnn_tensor_info *out);
webnn_status webnn_model_output_info(const webnn_model *model, size_t index, webnn_tensor_info *out);

/* A session may outlive its model. threads >= 1 counts the calling thread.
 * Threads: a model may be shared by any number of threads; a session serves
 * one thread at a time (see WEBNN_SESSION_BUSY). */
webnn_status webnn_session_create(const webnn_model *model, int threads, webnn_session **out);
void webnn_session_free(webnn_session *session);
/* Copies `bytes` (exactly the input's byte size) into the session
 * (webnn_session_bind_input avoids the copy). */
webnn_status webnn_session_set_input(webnn_session *session, const char *name, const void *data, size_t bytes);
/* The same with the input's shape this run: required for an input with
 * dynamic dimensions (their sizes are bound from these shapes at run),
 * checked for any other. */
webnn_status webnn_session_set_input_shaped(webnn_session *session, const char *name, const void *data,
                                            size_t bytes, const int64_t *dims, size_t rank);
/* Binds an input to caller memory without copying when `data` is 64-byte
 * aligned (it must then stay valid and unchanged while bound; later runs
 * read it as it is then); other memory is copied now. dims/rank as for
 * webnn_session_set_input_shaped, or dims NULL and rank 0 for an input
 * without dynamic dimensions. */
webnn_status webnn_session_bind_input(webnn_session *session, const char *name, const void *data, size_t bytes,
                                      const int64_t *dims, size_t rank);
/* Later runs write output `name` straight into `data` (64-byte aligned,
 * `capacity` >= the output's maximum byte size, not also bound as an input);
 * webnn_session_get_output then returns `data`. NULL data unbinds. */
webnn_status webnn_session_bind_output(webnn_session *session, const char *name, void *data, size_t capacity);
/* Later runs compute output `output` in the memory of input `input` (bound
 * with webnn_session_bind_input to 64-byte aligned memory), taking its
 * shape: a KV cache whose past and present share one buffer, so a decode
 * step writes only its new rows. Checked now (the input is read by that
 * node only, the output by none, same type) and at run (the node's kernel
 * supports it, the input is bound without a copy). webnn_session_bind_output
 * on the output ends it. */
webnn_status webnn_session_bind_output_in_place(webnn_session *session, const char *output, const char *input);
webnn_status webnn_session_run(webnn_session *session);
/* The output's bytes, owned by the session, valid until the next run. */
webnn_status webnn_session_get_output(const webnn_session *session, const char *name, const void **data,
                                      size_t *bytes);
/* Output `index`'s shape in the last run: *dims points into the session
 * (valid until the next run). */
webnn_status webnn_session_output_shape(const webnn_session *session, size_t index, const int64_t **dims,
                                        size_t *rank);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
