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
 * this thread's message for the last failed call. See docs/RUNTIME.md and
 * docs/EMBEDDING.md.
 *
 * Threads:
 * - A webnn_model is immutable once loaded: any number of threads may use
 *   one model at once (describe it, create sessions from it). Free it only
 *   when no other thread is using it; sessions made from it may outlive it.
 * - A webnn_session serves one thread at a time (one session per thread,
 *   all sharing one model). A call made while another thread's call is
 *   inside the same session fails with WEBNN_SESSION_BUSY; handing a session
 *   from one thread to another between calls is allowed. Output pointers
 *   from webnn_session_get_output belong to the session's current thread.
 * - webnn_last_error() is per thread: it is the message of the calling
 *   thread's last failed call, untouched by other threads.
 * - The log callback (webnn_set_log_callback) is process-wide and may be
 *   called from any thread that calls into the runtime, concurrently.
 * - Kernel threads: a session with threads > 1 runs kernels on a pool of
 *   worker threads of its own. How they wait between parallel loops is the
 *   session's thread_wait option (webnn_thread_wait); no environment
 *   variable is read. */
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
  WEBNN_SESSION_BUSY = 7,
  /* webnn_session_cancel() ended the run before it finished (the message
   * names the node it stopped at); the session stays usable. */
  WEBNN_CANCELLED = 8,
  /* The model asks for more than a limit of the session's options allows
   * (webnn_session_options' max_* fields); the message names the limit, the
   * value asked for and the field to raise. */
  WEBNN_LIMIT_EXCEEDED = 9
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

/* This library's version, "MAJOR.MINOR.PATCH" (WEBNN_VERSION_STRING of the
 * webnn/version.h it was built with; the header an app compiled against may
 * differ when libwebnn.so was upgraded). Any of the pointers may be NULL. */
const char *webnn_version(int *major, int *minor, int *patch);
/* The artifact schema version this runtime reads (.wnn header and graph);
 * an artifact of another version is refused with WEBNN_INVALID_ARTIFACT. */
uint32_t webnn_artifact_schema_version(void);

/* WebNN's MLContext.opSupportLimits() for a backend of this runtime, named
 * by backend ("vulkan") or device type ("cpu", "gpu"): one JSON object,
 * {"backend", "preferredInputLayout", "maxTensorByteLength", "input",
 * "constant", "output", and per op {operand: {"dataTypes": [...],
 * "rankRange": {"min", "max"}}}} (docs/BACKENDS.md). *json stays valid for
 * the process. WEBNN_UNSUPPORTED when no backend answers to `device` or the
 * backend publishes no table. */
webnn_status webnn_op_support_limits(const char *device, const char **json);

/* Messages besides a call's status: what was loaded (INFO), why a faster
 * path is not taken (WARNING: a relaxed-precision model running float32;
 * DEBUG: an input bound from unaligned memory and copied), internal errors
 * (ERROR). One callback for the process, called with messages up to
 * max_level, possibly from several threads at once; `message` is valid
 * during the call only. NULL restores the default: ERROR to stderr, the
 * rest dropped. */
typedef enum webnn_log_level {
  WEBNN_LOG_ERROR = 0,
  WEBNN_LOG_WARNING = 1,
  WEBNN_LOG_INFO = 2,
  WEBNN_LOG_DEBUG = 3
} webnn_log_level;
typedef void (*webnn_log_fn)(webnn_log_level level, const char *message, void *user_data);
void webnn_set_log_callback(webnn_log_fn callback, webnn_log_level max_level, void *user_data);

/* weights_path: the weights file of a weightless artifact, else NULL. */
webnn_status webnn_model_load(const char *path, const char *weights_path, webnn_model **out);
void webnn_model_free(webnn_model *model);

/* Bytes lent to webnn_model_load_memory. release NULL: the bytes are copied
 * during the call (the caller may free them on return). Otherwise, bytes at
 * a 64-byte aligned address are used in place, must stay valid and
 * unchanged, and release(data, bytes, user_data) is called exactly once,
 * when the model and every session made from it have been freed; bytes at
 * another address are copied once and release is called before the load
 * returns. release is also called, before the return, when the load fails
 * for any reason. 64 bytes: the weight segment's alignment, which kernels
 * rely on (docs/ARTIFACT.md). */
typedef void (*webnn_release_fn)(const void *data, size_t bytes, void *user_data);
typedef struct webnn_memory {
  const void *data;
  size_t bytes;
  webnn_release_fn release;
  void *user_data;
} webnn_memory;

/* Loads an artifact from memory: `artifact` holds a .wnn file's bytes;
 * `weights` the weights file's bytes of a weightless artifact (webnnc
 * compile --weightless --weights-out), else NULL. The same checks as
 * webnn_model_load (header, FlatBuffer verifier, graph, SHA-256 of external
 * weights) with the same messages, naming "<artifact in memory>" and
 * "<weights in memory>" where the paths would be. */
webnn_status webnn_model_load_memory(const webnn_memory *artifact, const webnn_memory *weights, webnn_model **out);
size_t webnn_model_input_count(const webnn_model *model);
size_t webnn_model_output_count(const webnn_model *model);
webnn_status webnn_model_input_info(const webnn_model *model, size_t index, webnn_tensor_info *out);
webnn_status webnn_model_output_info(const webnn_model *model, size_t index, webnn_tensor_info *out);

/* A session may outlive its model. threads >= 1 counts the calling thread.
 * Threads: a model may be shared by any number of threads; a session serves
 * one thread at a time (see WEBNN_SESSION_BUSY). */
webnn_status webnn_session_create(const webnn_model *model, int threads, webnn_session **out);

/* Session settings; fill with webnn_session_options_init first, so fields
 * added later keep their defaults. */
/* How a session's kernel threads wait between parallel loops (idle
 * workers) and for each other's share of a loop (the calling thread). */
typedef enum webnn_thread_wait {
  /* Spin for a bounded time (1 ms, yielding the core to other runnable
   * threads), then block. */
  WEBNN_THREAD_WAIT_DEFAULT = 0,
  /* Spin until there is work: lowest latency on cores of your own; burns
   * them between runs while the session lives. */
  WEBNN_THREAD_WAIT_SPIN = 1,
  /* Block at once: leaves the cores to others; each loop pays a wake-up. */
  WEBNN_THREAD_WAIT_BLOCK = 2
} webnn_thread_wait;

typedef struct webnn_session_options {
  size_t struct_size; /* sizeof(webnn_session_options), set by _init */
  int threads;        /* kernel threads counting the caller, >= 1 (default 1) */
  int profiling;      /* nonzero: time every node from the first run (default 0) */
  int thread_wait;    /* a webnn_thread_wait (default WEBNN_THREAD_WAIT_DEFAULT) */
  /* Limits on what the model may make the session do (docs/SECURITY.md,
   * "Limits"); _init sets the defaults shown. Going past one fails with
   * WEBNN_LIMIT_EXCEEDED: at webnn_session_create_with_options for what the
   * graph fixes, at webnn_session_run for dynamic shapes and loops. */
  uint64_t max_loop_iterations; /* loop iterations per run, all loops together (2^24) */
  uint64_t max_tensor_elements; /* elements of any one tensor (2^32; at most 2^56) */
  uint64_t max_arena_bytes;     /* bytes of the intermediate-tensor arena (16 GiB) */
  uint64_t max_constant_bytes;  /* bytes of the graph's constants (64 GiB) */
  uint64_t max_nodes;           /* nodes, subgraphs' included (1000000) */
  uint64_t max_nesting_depth;   /* subgraphs inside subgraphs (64; at most 256) */
} webnn_session_options;
void webnn_session_options_init(webnn_session_options *options);
webnn_status webnn_session_create_with_options(const webnn_model *model, const webnn_session_options *options,
                                               webnn_session **out);
void webnn_session_free(webnn_session *session);
/* The session's webnn_thread_wait (as created). */
webnn_status webnn_session_thread_wait(const webnn_session *session, webnn_thread_wait *out);

/* Per-node timing (session created with profiling, or turned on here;
 * turning it on or off resets it). */
webnn_status webnn_session_set_profiling(webnn_session *session, int on);
/* One entry per node in execution order: its op, its name in the source
 * model, the wall milliseconds summed over `*runs` runs; run_by >= 0 when
 * the backend ran the node together with that earlier node (its time is
 * counted there). *entries points into the session, valid until the next
 * call on it. */
typedef struct webnn_node_profile {
  const char *op;
  const char *name;
  double total_ms;
  int64_t run_by;
} webnn_node_profile;
webnn_status webnn_session_profile(webnn_session *session, const webnn_node_profile **entries, size_t *count,
                                   uint64_t *runs);
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
/* Asks the run in progress on `session` to stop: callable from any thread
 * (the one exception to "one thread at a time"), it returns at once; the
 * running webnn_session_run returns WEBNN_CANCELLED at the next node
 * boundary (between nodes, and between a loop's or if's subgraph runs), so a
 * single long kernel still finishes first. Each run clears the request as it
 * starts: a cancel with no run in progress, or one that arrives before the
 * run starts its first node, is forgotten and the next run goes ahead. The
 * session stays usable; a cancelled run's outputs are undefined. Null is
 * ignored. The session must not be freed while this call is in flight. */
void webnn_session_cancel(webnn_session *session);
/* The output's bytes, owned by the session, valid until the next run. */
webnn_status webnn_session_get_output(const webnn_session *session, const char *name, const void **data,
                                      size_t *bytes);
/* Output `index`'s shape in the last run: *dims points into the session
 * (valid until the next run). */
webnn_status webnn_session_output_shape(const webnn_session *session, size_t index, const int64_t **dims,
                                        size_t *rank);

/* Estimation (DAOP, webmachinelearning/daop): will this graph run well
 * here, before its weights are fetched? Loads the artifact as
 * webnn_model_load does but reads no weights (a weightless artifact needs
 * none) and predicts its latency from the device profile that
 * `webnn-run calibrate` wrote (docs/ESTIMATE.md). Tiers: "excellent"
 * < 16 ms, "good" < 100 ms, "fair" < 1 s, "moderate" < 10 s, "slow" < 30 s,
 * "very-slow" < 60 s, "poor". */
typedef struct webnn_estimate_options {
  size_t struct_size;       /* sizeof(webnn_estimate_options), set by _init */
  int threads;              /* the session's thread count (1) */
  const char *profile_path; /* NULL: this machine's profile in the user's cache directory */
  const char *device;       /* NULL or "cpu": the CPU backend; "gpu" / "gpu:N": the Vulkan backend's
                               plan, priced with `webnn-run calibrate --device gpu`'s profile */
} webnn_estimate_options;
void webnn_estimate_options_init(webnn_estimate_options *options);
typedef struct webnn_estimate_report {
  double median_ms, p10_ms, p90_ms; /* steady-state latency and its 10-90% interval */
  double cold_ms;                   /* first run of a fresh process */
  uint64_t peak_bytes;
  const char *tier;                 /* of the median; a static string */
} webnn_estimate_report;
/* options NULL: defaults. */
webnn_status webnn_estimate(const char *artifact_path, const webnn_estimate_options *options,
                            webnn_estimate_report *report);
/* The tier alone (static string), the coarse answer DAOP exposes. */
webnn_status webnn_estimate_tier(const char *artifact_path, const webnn_estimate_options *options,
                                 const char **tier);
/* *meets = 1 when the graph meets `tier`, judged from the p90 (erring toward 0). */
webnn_status webnn_estimate_meets(const char *artifact_path, const webnn_estimate_options *options,
                                  const char *tier, int *meets);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
