/* The C API from C: load (from files and from memory), describe, run, read
 * outputs, report errors without crashing, version, log callback, session
 * options and profiling, and the thread rules (sessions per thread on one
 * shared model; one session called from two threads; cancelling a run from
 * another thread). Usage:
 * webnn-c-api-test DIR (from make_test_artifacts). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "webnn/version.h"
#include "webnn/webnn_c.h"

static int failures = 0;
#define CHECK(cond)                                                         \
  do {                                                                      \
    if (!(cond)) {                                                          \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__, \
              __LINE__, #cond, webnn_last_error());                         \
      ++failures;                                                           \
    }                                                                       \
  } while (0)

static void path_in(char *out, size_t n, const char *dir, const char *file) {
  snprintf(out, n, "%s/%s", dir, file);
}

/* Loads DIR/FILE (with the weights file DIR/WEIGHTS unless NULL). NULL when
 * this build has no kernel for one of its ops (the test is skipped, and says
 * so) or after a failed check. */
static webnn_model *load_test_model(const char *dir, const char *file, const char *weights) {
  char path[4096], weights_path[4096];
  webnn_model *model = NULL;
  webnn_status s;
  path_in(path, sizeof path, dir, file);
  if (weights) path_in(weights_path, sizeof weights_path, dir, weights);
  s = webnn_model_load(path, weights ? weights_path : NULL, &model);
  if (s == WEBNN_UNSUPPORTED) {
    printf("skipping %s: %s\n", file, webnn_last_error());
    return NULL;
  }
  CHECK(s == WEBNN_OK);
  return model;
}

static void test_passthrough(const char *dir) {
  char path[4096];
  webnn_model *model = NULL;
  webnn_session *session = NULL;
  webnn_tensor_info info;
  const float x[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  const void *data = NULL;
  size_t bytes = 0;
  int32_t k[2];

  path_in(path, sizeof path, dir, "passthrough.wnn");
  CHECK(webnn_model_load(path, NULL, &model) == WEBNN_OK);
  if (!model) return;
  CHECK(webnn_model_input_count(model) == 1);
  CHECK(webnn_model_output_count(model) == 2);
  CHECK(webnn_model_input_info(model, 0, &info) == WEBNN_OK);
  CHECK(strcmp(info.name, "x") == 0);
  CHECK(info.data_type == WEBNN_FLOAT32);
  CHECK(info.rank == 1 && info.dims[0] == 4);
  CHECK(info.byte_size == 16);
  CHECK(webnn_model_output_info(model, 5, &info) == WEBNN_INVALID_ARGUMENT);
  CHECK(strstr(webnn_last_error(), "out of range") != NULL);
  CHECK(strcmp(webnn_data_type_name(WEBNN_UINT4), "uint4") == 0);
  CHECK(strcmp(webnn_data_type_name(WEBNN_BOOL), "bool") == 0);

  CHECK(webnn_session_create(model, 2, &session) == WEBNN_OK);
  webnn_model_free(model); /* the session outlives its model */
  if (!session) return;
  CHECK(webnn_session_run(session) == WEBNN_INVALID_ARGUMENT);
  CHECK(strstr(webnn_last_error(), "'x' was not set") != NULL);
  CHECK(webnn_session_set_input(session, "x", x, 12) == WEBNN_INVALID_ARGUMENT);
  CHECK(webnn_session_set_input(session, "nope", x, 16) == WEBNN_INVALID_ARGUMENT);
  CHECK(webnn_session_set_input(session, "x", x, sizeof x) == WEBNN_OK);
  CHECK(webnn_session_run(session) == WEBNN_OK);
  CHECK(webnn_session_get_output(session, "x", &data, &bytes) == WEBNN_OK);
  CHECK(bytes == 16 && data && memcmp(data, x, 16) == 0);
  CHECK(webnn_session_get_output(session, "k", &data, &bytes) == WEBNN_OK);
  CHECK(bytes == 8);
  if (data) {
    memcpy(k, data, 8);
    CHECK(k[0] == 7 && k[1] == -9);
  }
  CHECK(webnn_session_get_output(session, "zz", &data, &bytes) == WEBNN_INVALID_ARGUMENT);
  webnn_session_free(session);
}

/* y = relu(x + c) on x = 1: {0, 0, 0, 2, 3, 4}. */
static void check_add_relu_runs(const webnn_model *model) {
  webnn_session *session = NULL;
  const float x[6] = {1, 1, 1, 1, 1, 1};
  const float want[6] = {0, 0, 0, 2, 3, 4};
  const void *data = NULL;
  size_t bytes = 0;
  CHECK(webnn_session_create(model, 1, &session) == WEBNN_OK);
  if (!session) return;
  CHECK(webnn_session_set_input(session, "x", x, sizeof x) == WEBNN_OK);
  CHECK(webnn_session_run(session) == WEBNN_OK);
  CHECK(webnn_session_get_output(session, "y", &data, &bytes) == WEBNN_OK);
  CHECK(bytes == sizeof want && data && memcmp(data, want, sizeof want) == 0);
  webnn_session_free(session);
}

static void test_add_relu(const char *dir) {
  webnn_model *model = load_test_model(dir, "add_relu_wl.wnn", "add_relu_wl.weights");
  if (!model) return;
  check_add_relu_runs(model);
  webnn_model_free(model);
}

/* A graph with a dynamic dimension: x [n <= 8, 2] -> relu -> y [n, 2]. */
static void test_dynamic(const char *dir) {
  webnn_model *model = NULL;
  webnn_session *session = NULL;
  webnn_tensor_info info;
  const float x[6] = {-1, 2, -3, 4, -5, 6};
  const float want[6] = {0, 2, 0, 4, 0, 6};
  const int64_t dims[2] = {3, 2}, big[2] = {9, 2};
  const int64_t *out_dims = NULL;
  size_t rank = 0;
  const void *data = NULL;
  size_t bytes = 0;
  model = load_test_model(dir, "dynamic_relu.wnn", NULL);
  if (!model) return;
  CHECK(webnn_model_input_info(model, 0, &info) == WEBNN_OK);
  CHECK(info.is_dynamic == 1 && info.rank == 2 && info.dims[0] == 8);
  CHECK(webnn_session_create(model, 1, &session) == WEBNN_OK);
  if (session) {
    CHECK(webnn_session_set_input(session, "x", x, sizeof x) == WEBNN_INVALID_ARGUMENT);
    CHECK(strstr(webnn_last_error(), "dynamic") != NULL);
    CHECK(webnn_session_set_input_shaped(session, "x", x, sizeof x, big, 2) == WEBNN_INVALID_ARGUMENT);
    CHECK(webnn_session_set_input_shaped(session, "x", x, sizeof x, dims, 2) == WEBNN_OK);
    CHECK(webnn_session_run(session) == WEBNN_OK);
    CHECK(webnn_session_output_shape(session, 0, &out_dims, &rank) == WEBNN_OK);
    CHECK(rank == 2 && out_dims && out_dims[0] == 3 && out_dims[1] == 2);
    CHECK(webnn_session_get_output(session, "y", &data, &bytes) == WEBNN_OK);
    CHECK(bytes == sizeof want && data && memcmp(data, want, sizeof want) == 0);
    CHECK(webnn_session_output_shape(session, 5, &out_dims, &rank) == WEBNN_INVALID_ARGUMENT);
    webnn_session_free(session);
  }
  webnn_model_free(model);
}

/* Zero-copy inputs, outputs written into caller memory, and a refused
 * in-place binding, on add_relu: y = relu(x + c). */
static void test_bindings(const char *dir) {
  webnn_model *model = NULL;
  webnn_session *session = NULL;
  _Alignas(64) float x[16] = {1, 1, 1, 1, 1, 1};
  _Alignas(64) float y[16] = {0};
  const float want[6] = {0, 0, 0, 2, 3, 4}, want2[6] = {2, 3, 4, 0, 0, 0};
  const void *data = NULL;
  size_t bytes = 0;
  int64_t dims[2] = {2, 3};
  int i;

  model = load_test_model(dir, "add_relu.wnn", NULL);
  if (!model) return;
  CHECK(webnn_session_create(model, 2, &session) == WEBNN_OK);
  if (!session) {
    webnn_model_free(model);
    return;
  }
  CHECK(webnn_session_bind_input(NULL, "x", x, 24, NULL, 0) == WEBNN_INVALID_ARGUMENT);
  CHECK(webnn_session_bind_input(session, "x", x, 24, NULL, 2) == WEBNN_INVALID_ARGUMENT);
  CHECK(webnn_session_bind_input(session, "x", x, 20, NULL, 0) == WEBNN_INVALID_ARGUMENT);
  CHECK(webnn_session_bind_input(session, "x", x, 24, dims, 2) == WEBNN_OK);
  CHECK(webnn_session_bind_output(session, "y", y + 1, 60) == WEBNN_INVALID_ARGUMENT); /* not aligned */
  CHECK(strstr(webnn_last_error(), "aligned") != NULL);
  CHECK(webnn_session_bind_output(session, "y", y, 20) == WEBNN_INVALID_ARGUMENT); /* too small */
  CHECK(webnn_session_bind_output(session, "nope", y, sizeof y) == WEBNN_INVALID_ARGUMENT);
  CHECK(webnn_session_bind_output(session, "y", y, sizeof y) == WEBNN_OK);
  CHECK(webnn_session_run(session) == WEBNN_OK);
  CHECK(memcmp(y, want, sizeof want) == 0);
  CHECK(webnn_session_get_output(session, "y", &data, &bytes) == WEBNN_OK);
  CHECK(data == (const void *)y && bytes == sizeof want);
  /* The input was bound, not copied: the next run reads what x holds then. */
  for (i = 0; i < 6; ++i) x[i] = i < 3 ? 5.f : -5.f;
  CHECK(webnn_session_run(session) == WEBNN_OK);
  CHECK(memcmp(y, want2, sizeof want2) == 0);
  /* Unbound, the session's own memory holds the output again. */
  CHECK(webnn_session_bind_output(session, "y", NULL, 0) == WEBNN_OK);
  memset(y, 0, sizeof y);
  CHECK(webnn_session_run(session) == WEBNN_OK);
  CHECK(webnn_session_get_output(session, "y", &data, &bytes) == WEBNN_OK);
  CHECK(data != (const void *)y && memcmp(data, want2, sizeof want2) == 0 && y[0] == 0.f);
  /* y (relu0's) cannot be computed over x, which add0 reads: refused when
   * bound, naming the reader. */
  CHECK(webnn_session_bind_output_in_place(session, NULL, "x") == WEBNN_INVALID_ARGUMENT);
  CHECK(webnn_session_bind_output_in_place(session, "y", "nope") == WEBNN_INVALID_ARGUMENT);
  CHECK(webnn_session_bind_output_in_place(session, "y", "x") == WEBNN_INVALID_ARGUMENT);
  CHECK(strstr(webnn_last_error(), "'add0' also reads the input") != NULL);
  webnn_session_free(session);
  webnn_model_free(model);
}

static float pseudo_random(uint32_t *seed) {
  *seed = *seed * 1664525u + 1013904223u;
  return (float)(*seed >> 8) / (float)(1u << 24) * 2.f - 1.f;
}

/* The KV-cache flow of a decode loop from C: pastKey/pastValue bound
 * without a copy to one 12-row buffer each, presentKey/presentValue computed
 * in place over them, step after step; a session that copies its past into
 * a separate present gives the same outputs and rows. */
static void test_kv_cache_in_place(const char *dir) {
  enum { kCap = 12, D = 16 };
  webnn_model *model = NULL;
  webnn_session *shared = NULL, *plain = NULL;
  _Alignas(64) float kbuf[kCap * D], vbuf[kCap * D];
  float plainK[kCap * D], plainV[kCap * D], q[8 * 32], k[8 * 16], v[8 * 16];
  const int64_t steps[3] = {5, 1, 1};
  int64_t past = 0;
  uint32_t seed = 11;
  int step, i;

  model = load_test_model(dir, "gqa_cache.wnn", NULL);
  if (!model) return;
  CHECK(webnn_session_create(model, 2, &shared) == WEBNN_OK);
  CHECK(webnn_session_create(model, 1, &plain) == WEBNN_OK);
  if (!shared || !plain) goto done;
  CHECK(webnn_session_bind_output_in_place(shared, "presentKey", "pastKey") == WEBNN_OK);
  CHECK(webnn_session_bind_output_in_place(shared, "presentValue", "pastValue") == WEBNN_OK);
  for (i = 0; i < kCap * D; ++i) kbuf[i] = vbuf[i] = 0.f;
  for (step = 0; step < 3; ++step) {
    const int64_t seq = steps[step], total = past + seq;
    const int32_t seqlens = (int32_t)(total - 1);
    const int64_t qd[3] = {1, seq, 32}, kd[3] = {1, seq, 16}, one[1] = {1};
    const int64_t capDims[4] = {1, 1, kCap, D}, pastDims[4] = {1, 1, past, D};
    const void *ys = NULL, *yp = NULL, *pk = NULL, *pv = NULL;
    size_t ysBytes = 0, ypBytes = 0, pkBytes = 0, pvBytes = 0;
    const int64_t *dims = NULL;
    size_t rank = 0;
    webnn_session *both[2];
    int b;
    for (i = 0; i < seq * 32; ++i) q[i] = pseudo_random(&seed);
    for (i = 0; i < seq * 16; ++i) k[i] = pseudo_random(&seed), v[i] = pseudo_random(&seed);
    both[0] = shared, both[1] = plain;
    for (b = 0; b < 2; ++b) {
      CHECK(webnn_session_set_input_shaped(both[b], "q", q, (size_t)seq * 32 * 4, qd, 3) == WEBNN_OK);
      CHECK(webnn_session_set_input_shaped(both[b], "k", k, (size_t)seq * 16 * 4, kd, 3) == WEBNN_OK);
      CHECK(webnn_session_set_input_shaped(both[b], "v", v, (size_t)seq * 16 * 4, kd, 3) == WEBNN_OK);
      CHECK(webnn_session_set_input_shaped(both[b], "seqlensK", &seqlens, 4, one, 1) == WEBNN_OK);
    }
    CHECK(webnn_session_bind_input(shared, "pastKey", kbuf, sizeof kbuf, capDims, 4) == WEBNN_OK);
    CHECK(webnn_session_bind_input(shared, "pastValue", vbuf, sizeof vbuf, capDims, 4) == WEBNN_OK);
    CHECK(webnn_session_set_input_shaped(plain, "pastKey", plainK, (size_t)past * D * 4, pastDims, 4) == WEBNN_OK);
    CHECK(webnn_session_set_input_shaped(plain, "pastValue", plainV, (size_t)past * D * 4, pastDims, 4) == WEBNN_OK);
    CHECK(webnn_session_run(shared) == WEBNN_OK);
    CHECK(webnn_session_run(plain) == WEBNN_OK);
    CHECK(webnn_session_get_output(shared, "y", &ys, &ysBytes) == WEBNN_OK);
    CHECK(webnn_session_get_output(plain, "y", &yp, &ypBytes) == WEBNN_OK);
    CHECK(webnn_session_get_output(shared, "presentKey", &pk, &pkBytes) == WEBNN_OK);
    CHECK(pk == (const void *)kbuf && pkBytes == sizeof kbuf);
    CHECK(webnn_session_output_shape(shared, 1, &dims, &rank) == WEBNN_OK);
    CHECK(rank == 4 && dims[2] == kCap);
    CHECK(webnn_session_get_output(plain, "presentKey", &pk, &pkBytes) == WEBNN_OK);
    CHECK(webnn_session_get_output(plain, "presentValue", &pv, &pvBytes) == WEBNN_OK);
    CHECK(pkBytes == (size_t)total * D * 4 && pvBytes == pkBytes);
    if (!ys || !yp || !pk || !pv || ysBytes != ypBytes || ysBytes != (size_t)seq * 32 * 4) break;
    for (i = 0; i < seq * 32; ++i) {
      float d = ((const float *)ys)[i] - ((const float *)yp)[i];
      if (d > 1e-6f || d < -1e-6f) {
        CHECK(!"y differs between the in-place and the copying session");
        break;
      }
    }
    CHECK(memcmp(kbuf, pk, pkBytes) == 0);
    CHECK(memcmp(vbuf, pv, pvBytes) == 0);
    memcpy(plainK, pk, pkBytes);
    memcpy(plainV, pv, pvBytes);
    past = total;
  }
done:
  webnn_session_free(shared);
  webnn_session_free(plain);
  webnn_model_free(model);
}

static void test_errors(const char *dir) {
  char path[4096];
  webnn_model *model = (webnn_model *)1;
  CHECK(webnn_model_load("/nonexistent.wnn", NULL, &model) == WEBNN_IO_ERROR);
  CHECK(model == NULL);
  CHECK(strstr(webnn_last_error(), "/nonexistent.wnn") != NULL);
  path_in(path, sizeof path, dir, "add_relu_wl.wnn");
  CHECK(webnn_model_load(path, NULL, &model) == WEBNN_INVALID_ARTIFACT);
  CHECK(strstr(webnn_last_error(), "--weights") != NULL);
  path_in(path, sizeof path, dir, "add_relu_wl.weights");
  CHECK(webnn_model_load(path, NULL, &model) == WEBNN_INVALID_ARTIFACT);
  CHECK(webnn_model_load(NULL, NULL, &model) == WEBNN_INVALID_ARGUMENT);
  CHECK(webnn_session_run(NULL) == WEBNN_INVALID_ARGUMENT);
  webnn_model_free(NULL);
  webnn_session_free(NULL);
}

/* ---- version ---- */

static void test_version(const char *dir) {
  int major = -1, minor = -1, patch = -1;
  char spelled[64];
  char path[4096];
  unsigned char header[16];
  uint32_t file_version = 0;
  FILE *f;
  const char *v = webnn_version(&major, &minor, &patch);
  CHECK(v && strcmp(v, WEBNN_VERSION_STRING) == 0);
  CHECK(major == WEBNN_VERSION_MAJOR && minor == WEBNN_VERSION_MINOR && patch == WEBNN_VERSION_PATCH);
  snprintf(spelled, sizeof spelled, "%d.%d.%d", major, minor, patch);
  CHECK(strcmp(spelled, v) == 0);
  CHECK(webnn_version(NULL, NULL, NULL) == v);
  /* The schema version is the one the writer puts in every header (bytes 8..11). */
  path_in(path, sizeof path, dir, "add_relu.wnn");
  f = fopen(path, "rb");
  CHECK(f != NULL);
  if (!f) return;
  CHECK(fread(header, 1, sizeof header, f) == sizeof header);
  fclose(f);
  memcpy(&file_version, header + 8, 4);
  CHECK(webnn_artifact_schema_version() == file_version && file_version > 0);
}

/* ---- loading from memory ---- */

/* A file's bytes at a 64-byte aligned address plus `shift`. */
typedef struct file_bytes {
  unsigned char *base;
  unsigned char *data;
  size_t bytes;
} file_bytes;

static int read_file(const char *dir, const char *file, size_t shift, file_bytes *out) {
  char path[4096];
  FILE *f;
  long n;
  memset(out, 0, sizeof *out);
  path_in(path, sizeof path, dir, file);
  f = fopen(path, "rb");
  if (!f) return 0;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  out->bytes = (size_t)n;
  out->base = aligned_alloc(64, ((size_t)n + shift + 63) / 64 * 64 + 64);
  out->data = out->base + shift;
  if (fread(out->data, 1, out->bytes, f) != out->bytes) out->bytes = 0;
  fclose(f);
  return out->bytes > 0;
}

static void write_file(const char *path, const unsigned char *data, size_t bytes) {
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (!f) return;
  CHECK(fwrite(data, 1, bytes, f) == bytes);
  fclose(f);
}

/* What a release callback saw. */
typedef struct release_log {
  int calls;
  const void *data;
  size_t bytes;
} release_log;

static void count_release(const void *data, size_t bytes, void *user) {
  release_log *r = (release_log *)user;
  ++r->calls;
  r->data = data;
  r->bytes = bytes;
}

static webnn_memory lend(const file_bytes *b, release_log *r) {
  webnn_memory m;
  m.data = b->data;
  m.bytes = b->bytes;
  m.release = r ? count_release : NULL;
  m.user_data = r;
  return m;
}

static void test_load_memory(const char *dir) {
  file_bytes graph, weights, shifted, embedded;
  release_log rg = {0, NULL, 0}, rw = {0, NULL, 0};
  webnn_memory mg, mw;
  webnn_model *model = NULL;
  webnn_session *session = NULL;
  const float x[6] = {1, 1, 1, 1, 1, 1};
  const float want[6] = {0, 0, 0, 2, 3, 4};
  const void *data = NULL;
  size_t bytes = 0;

  CHECK(read_file(dir, "add_relu_wl.wnn", 0, &graph));
  CHECK(read_file(dir, "add_relu_wl.weights", 0, &weights));
  CHECK(read_file(dir, "add_relu_wl.weights", 8, &shifted));
  CHECK(read_file(dir, "add_relu.wnn", 0, &embedded));
  if (!graph.bytes || !weights.bytes || !shifted.bytes || !embedded.bytes) goto done;

  /* Aligned and lent: used in place, released once when the model and its
   * last session are gone (not before). */
  mg = lend(&graph, &rg);
  mw = lend(&weights, &rw);
  if (webnn_model_load_memory(&mg, &mw, &model) == WEBNN_UNSUPPORTED) {
    printf("skipping load from memory: %s\n", webnn_last_error());
    goto done;
  }
  CHECK(model != NULL);
  if (!model) goto done;
  CHECK(rg.calls == 0 && rw.calls == 0);
  CHECK(webnn_session_create(model, 1, &session) == WEBNN_OK);
  webnn_model_free(model);
  model = NULL;
  CHECK(rg.calls == 0 && rw.calls == 0); /* the session still reads the weights */
  if (session) {
    CHECK(webnn_session_set_input(session, "x", x, sizeof x) == WEBNN_OK);
    CHECK(webnn_session_run(session) == WEBNN_OK);
    CHECK(webnn_session_get_output(session, "y", &data, &bytes) == WEBNN_OK);
    CHECK(bytes == sizeof want && data && memcmp(data, want, sizeof want) == 0);
    webnn_session_free(session);
  }
  CHECK(rg.calls == 1 && rg.data == graph.data && rg.bytes == graph.bytes);
  CHECK(rw.calls == 1 && rw.data == weights.data && rw.bytes == weights.bytes);

  /* Weights not 64-byte aligned: copied, released before the load returns. */
  rg.calls = rw.calls = 0;
  mg = lend(&graph, &rg);
  mw = lend(&shifted, &rw);
  CHECK(webnn_model_load_memory(&mg, &mw, &model) == WEBNN_OK);
  CHECK(rw.calls == 1 && rw.data == shifted.data && rg.calls == 0);
  if (model) {
    memset(shifted.data, 0, shifted.bytes); /* the model has its own copy */
    check_add_relu_runs(model);
    webnn_model_free(model);
    model = NULL;
  }
  CHECK(rg.calls == 1 && rw.calls == 1);

  /* No release callback: copied during the call, the caller's to free. */
  mg = lend(&embedded, NULL);
  CHECK(webnn_model_load_memory(&mg, NULL, &model) == WEBNN_OK);
  if (model) {
    memset(embedded.data, 0, embedded.bytes);
    check_add_relu_runs(model);
    webnn_model_free(model);
    model = NULL;
  }

  /* A weightless artifact without its weights, and null arguments: refused,
   * and a lent buffer is still released exactly once. */
  rg.calls = 0;
  mg = lend(&graph, &rg);
  CHECK(webnn_model_load_memory(&mg, NULL, &model) == WEBNN_INVALID_ARTIFACT);
  CHECK(model == NULL && rg.calls == 1);
  CHECK(strstr(webnn_last_error(), "<artifact in memory>: weights are in a separate file") != NULL);
  rw.calls = 0;
  mw = lend(&weights, &rw);
  CHECK(webnn_model_load_memory(NULL, &mw, &model) == WEBNN_INVALID_ARGUMENT);
  CHECK(rw.calls == 1);
  mg.data = NULL;
  mg.bytes = 64;
  mg.release = NULL;
  CHECK(webnn_model_load_memory(&mg, NULL, &model) == WEBNN_INVALID_ARGUMENT);
done:
  free(graph.base);
  free(weights.base);
  free(shifted.base);
  free(embedded.base);
}

/* Loads bad bytes from a file and from memory: the same status and the same
 * message, each path replaced by its label (except where the message names
 * how to pass the weights: `exact` 0). */
static void same_error(const char *dir, const file_bytes *bad_graph, const file_bytes *bad_weights,
                       const char *expect, int exact) {
  char gpath[4096], wpath[4096], from_file[2048], expected[2048];
  const char *p;
  webnn_model *model = NULL;
  webnn_status sf, sm;
  release_log rg = {0, NULL, 0}, rw = {0, NULL, 0};
  webnn_memory mg = lend(bad_graph, &rg), mw;
  path_in(gpath, sizeof gpath, dir, "corrupt.wnn");
  path_in(wpath, sizeof wpath, dir, "corrupt.weights");
  write_file(gpath, bad_graph->data, bad_graph->bytes);
  if (bad_weights) write_file(wpath, bad_weights->data, bad_weights->bytes);
  sf = webnn_model_load(gpath, bad_weights ? wpath : NULL, &model);
  CHECK(sf != WEBNN_OK && model == NULL);
  snprintf(from_file, sizeof from_file, "%s", webnn_last_error());
  /* The file message with each path spelled as the memory label. */
  expected[0] = '\0';
  for (p = from_file; *p;) {
    size_t used = strlen(expected);
    if (strncmp(p, gpath, strlen(gpath)) == 0) {
      snprintf(expected + used, sizeof expected - used, "<artifact in memory>");
      p += strlen(gpath);
    } else if (bad_weights && strncmp(p, wpath, strlen(wpath)) == 0) {
      snprintf(expected + used, sizeof expected - used, "<weights in memory>");
      p += strlen(wpath);
    } else {
      snprintf(expected + used, sizeof expected - used, "%c", *p++);
    }
  }
  if (bad_weights) mw = lend(bad_weights, &rw);
  sm = webnn_model_load_memory(&mg, bad_weights ? &mw : NULL, &model);
  CHECK(sm == sf && model == NULL);
  CHECK(!exact || strcmp(webnn_last_error(), expected) == 0);
  CHECK(strstr(webnn_last_error(), expect) != NULL);
  CHECK(rg.calls == 1 && rw.calls == (bad_weights ? 1 : 0));
  if (exact && strcmp(webnn_last_error(), expected) != 0)
    fprintf(stderr, "  file:   %s\n  memory: %s\n", expected, webnn_last_error());
  webnn_model_free(model);
}

static void test_memory_errors(const char *dir) {
  file_bytes graph, weights, embedded, bad;
  size_t i;
  CHECK(read_file(dir, "add_relu_wl.wnn", 0, &graph));
  CHECK(read_file(dir, "add_relu_wl.weights", 0, &weights));
  CHECK(read_file(dir, "add_relu.wnn", 0, &embedded));
  CHECK(read_file(dir, "add_relu.wnn", 0, &bad));
  if (!graph.bytes || !weights.bytes || !embedded.bytes || !bad.bytes) goto done;
  bad.data[0] = 'X';
  same_error(dir, &bad, NULL, "not a webnn artifact (bad magic)", 1);
  memcpy(bad.data, embedded.data, bad.bytes);
  bad.bytes = 40;
  same_error(dir, &bad, NULL, "truncated", 1);
  bad.bytes = embedded.bytes - 1;
  same_error(dir, &bad, NULL, "truncated", 1);
  bad.bytes = embedded.bytes;
  for (i = 64; i < 80; ++i) bad.data[i] ^= 0x5a; /* the FlatBuffer's root */
  same_error(dir, &bad, NULL, "FlatBuffer", 1);
  same_error(dir, &weights, NULL, "this is a weights file, not an artifact", 1);
  memcpy(bad.data, weights.data, weights.bytes);
  bad.bytes = weights.bytes;
  bad.data[64] ^= 1; /* constant c's first byte */
  same_error(dir, &graph, &bad, "constant 'c' hash differs", 1);
  bad.data[64] ^= 1;
  bad.data[40] ^= 1; /* the digest in the weights header */
  same_error(dir, &graph, &bad, "weights digest differs", 1);
  same_error(dir, &graph, &graph, "this is an artifact, not a weights file", 1);
  same_error(dir, &graph, NULL, "weights are in a separate file", 0);
  same_error(dir, &embedded, &weights, "weights are embedded", 0);
done:
  free(graph.base);
  free(weights.base);
  free(embedded.base);
  free(bad.base);
}

/* ---- log callback ---- */

typedef struct log_record {
  int count[4];
  char last[4][512];
} log_record;

static void record_log(webnn_log_level level, const char *message, void *user) {
  log_record *r = (log_record *)user;
  if ((int)level < 0 || (int)level > (int)WEBNN_LOG_DEBUG) return;
  ++r->count[level];
  snprintf(r->last[level], sizeof r->last[level], "%s", message);
}

static void test_log_callback(const char *dir) {
  char path[4096];
  log_record r;
  webnn_model *model = NULL;
  webnn_session *session = NULL;
  _Alignas(64) float x[8] = {1, 1, 1, 1, 1, 1, 1};
  memset(&r, 0, sizeof r);
  path_in(path, sizeof path, dir, "add_relu.wnn");
  webnn_set_log_callback(record_log, WEBNN_LOG_DEBUG, &r);
  CHECK(webnn_model_load(path, NULL, &model) == WEBNN_OK);
  CHECK(r.count[WEBNN_LOG_INFO] == 1 && strstr(r.last[WEBNN_LOG_INFO], "loaded '") != NULL &&
        strstr(r.last[WEBNN_LOG_INFO], "add_relu.wnn") != NULL);
  if (!model) goto done;
  CHECK(webnn_session_create(model, 1, &session) == WEBNN_OK);
  CHECK(r.count[WEBNN_LOG_INFO] == 2 && strstr(r.last[WEBNN_LOG_INFO], "session") != NULL);
  if (!session) goto done;
  /* Aligned memory is bound in place (nothing to say); unaligned is copied. */
  CHECK(webnn_session_bind_input(session, "x", x, 24, NULL, 0) == WEBNN_OK);
  CHECK(r.count[WEBNN_LOG_DEBUG] == 0);
  CHECK(webnn_session_bind_input(session, "x", x + 1, 24, NULL, 0) == WEBNN_OK);
  CHECK(r.count[WEBNN_LOG_DEBUG] == 1 && strstr(r.last[WEBNN_LOG_DEBUG], "input 'x'") != NULL &&
        strstr(r.last[WEBNN_LOG_DEBUG], "not 64-byte aligned") != NULL);
  /* Above the chosen level nothing arrives; with no callback, nothing either. */
  webnn_set_log_callback(record_log, WEBNN_LOG_WARNING, &r);
  CHECK(webnn_session_bind_input(session, "x", x + 1, 24, NULL, 0) == WEBNN_OK);
  webnn_model_free(model);
  model = NULL;
  CHECK(webnn_model_load(path, NULL, &model) == WEBNN_OK);
  CHECK(r.count[WEBNN_LOG_DEBUG] == 1 && r.count[WEBNN_LOG_INFO] == 2);
  webnn_set_log_callback(NULL, WEBNN_LOG_DEBUG, NULL);
  webnn_model_free(model);
  model = NULL;
  CHECK(webnn_model_load(path, NULL, &model) == WEBNN_OK);
  CHECK(r.count[WEBNN_LOG_INFO] == 2);
  CHECK(r.count[WEBNN_LOG_ERROR] == 0 && r.count[WEBNN_LOG_WARNING] == 0);
done:
  webnn_set_log_callback(NULL, WEBNN_LOG_ERROR, NULL);
  webnn_session_free(session);
  webnn_model_free(model);
}

/* ---- session options and profiling ---- */

static void test_session_options(const char *dir) {
  webnn_model *model = NULL;
  webnn_session *session = NULL;
  webnn_session_options options;
  const webnn_node_profile *entries = NULL;
  size_t count = 0, i;
  uint64_t runs = 0;
  const float x[6] = {1, 1, 1, 1, 1, 1};
  int saw_add = 0, saw_relu = 0;

  model = load_test_model(dir, "add_relu.wnn", NULL);
  if (!model) return;
  webnn_session_options_init(&options);
  CHECK(options.struct_size == sizeof options && options.threads == 1 && options.profiling == 0);
  options.threads = 0;
  CHECK(webnn_session_create_with_options(model, &options, &session) == WEBNN_INVALID_ARGUMENT);
  CHECK(strstr(webnn_last_error(), "threads") != NULL);
  options.struct_size = 0;
  options.threads = 2;
  CHECK(webnn_session_create_with_options(model, &options, &session) == WEBNN_INVALID_ARGUMENT);
  CHECK(strstr(webnn_last_error(), "webnn_session_options_init") != NULL);
  webnn_session_options_init(&options);
  options.threads = 2;
  options.profiling = 1;
  CHECK(webnn_session_create_with_options(model, &options, &session) == WEBNN_OK);
  if (!session) goto done;
  CHECK(webnn_session_set_input(session, "x", x, sizeof x) == WEBNN_OK);
  CHECK(webnn_session_run(session) == WEBNN_OK);
  CHECK(webnn_session_run(session) == WEBNN_OK);
  CHECK(webnn_session_profile(session, &entries, &count, &runs) == WEBNN_OK);
  CHECK(runs == 2 && count == 2);
  for (i = 0; i < count && entries; ++i) {
    saw_add |= strcmp(entries[i].op, "add") == 0 && strcmp(entries[i].name, "add0") == 0;
    saw_relu |= strcmp(entries[i].op, "relu") == 0;
    CHECK(entries[i].total_ms >= 0);
  }
  CHECK(saw_add && saw_relu);
  /* Turning it on again resets the counts. */
  CHECK(webnn_session_set_profiling(session, 1) == WEBNN_OK);
  CHECK(webnn_session_profile(session, &entries, &count, &runs) == WEBNN_OK);
  CHECK(runs == 0);
  CHECK(webnn_session_profile(session, NULL, &count, &runs) == WEBNN_INVALID_ARGUMENT);
done:
  webnn_session_free(session);
  webnn_model_free(model);
}

/* The thread_wait option round-trips, each value runs, others are refused;
 * a caller with the older, shorter struct gets the default. */
static void test_thread_wait(const char *dir) {
  webnn_model *model = load_test_model(dir, "add_relu.wnn", NULL);
  webnn_session *session = NULL;
  webnn_session_options options;
  webnn_thread_wait got = WEBNN_THREAD_WAIT_DEFAULT;
  const webnn_thread_wait waits[3] = {WEBNN_THREAD_WAIT_DEFAULT, WEBNN_THREAD_WAIT_SPIN, WEBNN_THREAD_WAIT_BLOCK};
  const float x[6] = {1, 1, 1, 1, 1, 1};
  const float want[6] = {0, 0, 0, 2, 3, 4};
  const void *data = NULL;
  size_t bytes = 0;
  int i;
  if (!model) return;
  webnn_session_options_init(&options);
  CHECK(options.thread_wait == WEBNN_THREAD_WAIT_DEFAULT);
  for (i = 0; i < 3; ++i) {
    webnn_session_options_init(&options);
    options.threads = 2;
    options.thread_wait = waits[i];
    CHECK(webnn_session_create_with_options(model, &options, &session) == WEBNN_OK);
    if (!session) continue;
    got = (webnn_thread_wait)-1;
    CHECK(webnn_session_thread_wait(session, &got) == WEBNN_OK);
    CHECK(got == waits[i]);
    CHECK(webnn_session_set_input(session, "x", x, sizeof x) == WEBNN_OK);
    CHECK(webnn_session_run(session) == WEBNN_OK);
    CHECK(webnn_session_get_output(session, "y", &data, &bytes) == WEBNN_OK);
    CHECK(bytes == sizeof want && data && memcmp(data, want, sizeof want) == 0);
    CHECK(webnn_session_thread_wait(session, NULL) == WEBNN_INVALID_ARGUMENT);
    webnn_session_free(session);
    session = NULL;
  }
  CHECK(webnn_session_thread_wait(NULL, &got) == WEBNN_INVALID_ARGUMENT);
  webnn_session_options_init(&options);
  options.thread_wait = 3;
  CHECK(webnn_session_create_with_options(model, &options, &session) == WEBNN_INVALID_ARGUMENT);
  CHECK(session == NULL && strstr(webnn_last_error(), "thread_wait is 3") != NULL);
  /* The struct before thread_wait existed: the field is not read. */
  options.struct_size = offsetof(webnn_session_options, thread_wait);
  CHECK(webnn_session_create_with_options(model, &options, &session) == WEBNN_OK);
  if (session) {
    CHECK(webnn_session_thread_wait(session, &got) == WEBNN_OK && got == WEBNN_THREAD_WAIT_DEFAULT);
    webnn_session_free(session);
  }
  webnn_model_free(model);
}

/* The limits: _init fills the documented defaults; a lowered one is refused
 * with WEBNN_LIMIT_EXCEEDED naming its field, at create (node count) or at
 * run (loop iterations); raised again it is accepted. A struct from before
 * the limits existed keeps the defaults. */
static void test_limits(const char *dir) {
  webnn_model *model = load_test_model(dir, "add_relu.wnn", NULL);
  webnn_model *loop = load_test_model(dir, "loop.wnn", NULL);
  webnn_session *session = NULL;
  webnn_session_options options;
  const int64_t trips = 5;
  const float ab[2] = {10, 20};
  if (!model || !loop) goto done;
  webnn_session_options_init(&options);
  CHECK(options.max_loop_iterations == (uint64_t)1 << 24);
  CHECK(options.max_tensor_elements == (uint64_t)1 << 32);
  CHECK(options.max_arena_bytes == (uint64_t)16 << 30);
  CHECK(options.max_constant_bytes == (uint64_t)64 << 30);
  CHECK(options.max_nodes == 1000000 && options.max_nesting_depth == 64);
  options.max_nodes = 1; /* add_relu has 2 */
  CHECK(webnn_session_create_with_options(model, &options, &session) == WEBNN_LIMIT_EXCEEDED);
  CHECK(session == NULL && strstr(webnn_last_error(), "max_nodes") != NULL);
  options.struct_size = offsetof(webnn_session_options, max_loop_iterations);
  CHECK(webnn_session_create_with_options(model, &options, &session) == WEBNN_OK);
  webnn_session_free(session);
  session = NULL;

  webnn_session_options_init(&options);
  options.max_loop_iterations = 4;
  CHECK(webnn_session_create_with_options(loop, &options, &session) == WEBNN_OK);
  if (!session) goto done;
  CHECK(webnn_session_set_input(session, "m", &trips, sizeof trips) == WEBNN_OK);
  CHECK(webnn_session_set_input(session, "a", ab, sizeof ab) == WEBNN_OK);
  CHECK(webnn_session_set_input(session, "b", ab, sizeof ab) == WEBNN_OK);
  CHECK(webnn_session_run(session) == WEBNN_LIMIT_EXCEEDED);
  CHECK(strstr(webnn_last_error(), "loop iterations in this run is 5, above the limit of 4") != NULL);
  CHECK(strstr(webnn_last_error(), "max_loop_iterations") != NULL);
  webnn_session_free(session);
  session = NULL;
  options.max_loop_iterations = 5;
  CHECK(webnn_session_create_with_options(loop, &options, &session) == WEBNN_OK);
  if (!session) goto done;
  CHECK(webnn_session_set_input(session, "m", &trips, sizeof trips) == WEBNN_OK);
  CHECK(webnn_session_set_input(session, "a", ab, sizeof ab) == WEBNN_OK);
  CHECK(webnn_session_set_input(session, "b", ab, sizeof ab) == WEBNN_OK);
  CHECK(webnn_session_run(session) == WEBNN_OK);
done:
  webnn_session_free(session);
  webnn_model_free(model);
  webnn_model_free(loop);
}

/* ---- threads ---- */

enum { kThreads = 4, kRunsPerThread = 40 };

typedef struct worker {
  const webnn_model *model;
  int index;
  int failures;
} worker;

/* Own session, shared model: y = relu(x + c) for inputs only this thread uses. */
static void *run_own_session(void *arg) {
  worker *w = (worker *)arg;
  webnn_session *session = NULL;
  const float c[6] = {-3, -2, -1, 1, 2, 3}; /* add_relu's constant */
  int run, i;
  if (webnn_session_create(w->model, 1, &session) != WEBNN_OK) {
    ++w->failures;
    return NULL;
  }
  for (run = 0; run < kRunsPerThread; ++run) {
    float x[6], want[6];
    const void *data = NULL;
    size_t bytes = 0;
    for (i = 0; i < 6; ++i) {
      x[i] = (float)(w->index * 100 + run) * (i % 2 ? 1.f : -1.f) * 0.01f;
      want[i] = x[i] + c[i] > 0 ? x[i] + c[i] : 0;
    }
    if (webnn_session_set_input(session, "x", x, sizeof x) != WEBNN_OK || webnn_session_run(session) != WEBNN_OK ||
        webnn_session_get_output(session, "y", &data, &bytes) != WEBNN_OK || bytes != sizeof want ||
        memcmp(data, want, sizeof want) != 0)
      ++w->failures;
  }
  webnn_session_free(session);
  return NULL;
}

/* One session, two threads. The log callback runs inside thread A's
 * binding call (an unaligned input is reported there), and there it waits
 * for thread B to call the same session: B must get WEBNN_SESSION_BUSY with
 * its own message, while A's call then completes normally. */
typedef struct overlap {
  webnn_session *session;
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  int a_inside, b_done;
  webnn_status b_status;
  char b_error[512];
} overlap;

static void block_inside_call(webnn_log_level level, const char *message, void *user) {
  overlap *o = (overlap *)user;
  (void)message;
  if (level != WEBNN_LOG_DEBUG) return;
  pthread_mutex_lock(&o->mutex);
  o->a_inside = 1;
  pthread_cond_broadcast(&o->cond);
  while (!o->b_done) pthread_cond_wait(&o->cond, &o->mutex);
  pthread_mutex_unlock(&o->mutex);
}

static void *call_while_busy(void *arg) {
  overlap *o = (overlap *)arg;
  const float x[6] = {1, 1, 1, 1, 1, 1};
  webnn_status s;
  pthread_mutex_lock(&o->mutex);
  while (!o->a_inside) pthread_cond_wait(&o->cond, &o->mutex);
  pthread_mutex_unlock(&o->mutex);
  s = webnn_session_set_input(o->session, "x", x, sizeof x);
  pthread_mutex_lock(&o->mutex);
  o->b_status = s;
  snprintf(o->b_error, sizeof o->b_error, "%s", webnn_last_error());
  o->b_done = 1;
  pthread_cond_broadcast(&o->cond);
  pthread_mutex_unlock(&o->mutex);
  return NULL;
}

static void test_threads(const char *dir) {
  webnn_model *model = NULL;
  pthread_t threads[kThreads], b;
  worker workers[kThreads];
  overlap o;
  _Alignas(64) float x[8] = {1, 1, 1, 1, 1, 1, 1};
  const float want[6] = {0, 0, 0, 2, 3, 4};
  const void *data = NULL;
  size_t bytes = 0;
  int i, started = 0;

  model = load_test_model(dir, "add_relu.wnn", NULL);
  if (!model) return;
  for (i = 0; i < kThreads; ++i) {
    workers[i].model = model;
    workers[i].index = i;
    workers[i].failures = 0;
    if (pthread_create(&threads[i], NULL, run_own_session, &workers[i]) == 0) ++started;
  }
  CHECK(started == kThreads);
  for (i = 0; i < started; ++i) {
    pthread_join(threads[i], NULL);
    CHECK(workers[i].failures == 0);
  }

  memset(&o, 0, sizeof o);
  pthread_mutex_init(&o.mutex, NULL);
  pthread_cond_init(&o.cond, NULL);
  CHECK(webnn_session_create(model, 1, &o.session) == WEBNN_OK);
  if (o.session && pthread_create(&b, NULL, call_while_busy, &o) == 0) {
    /* This thread's error message stays its own while B fails. */
    CHECK(webnn_session_get_output(o.session, "nope", &data, &bytes) == WEBNN_INVALID_ARGUMENT);
    webnn_set_log_callback(block_inside_call, WEBNN_LOG_DEBUG, &o);
    CHECK(webnn_session_bind_input(o.session, "x", x + 1, 24, NULL, 0) == WEBNN_OK);
    webnn_set_log_callback(NULL, WEBNN_LOG_ERROR, NULL);
    pthread_join(b, NULL);
    CHECK(o.b_status == WEBNN_SESSION_BUSY);
    CHECK(strstr(o.b_error, "in use by another thread") != NULL);
    CHECK(strstr(webnn_last_error(), "no output named 'nope'") != NULL);
    /* Between calls the session may move to another thread: A's binding holds. */
    CHECK(webnn_session_run(o.session) == WEBNN_OK);
    CHECK(webnn_session_get_output(o.session, "y", &data, &bytes) == WEBNN_OK);
    CHECK(bytes == sizeof want && data && memcmp(data, want, sizeof want) == 0);
  }
  webnn_session_free(o.session);
  pthread_mutex_destroy(&o.mutex);
  pthread_cond_destroy(&o.cond);
  webnn_model_free(model);
}

/* webnn_session_cancel from another thread: a loop of 2^62 iterations
 * (loop.wnn) returns WEBNN_CANCELLED naming where it stopped, and the next
 * run of the session completes. The canceller repeats its request until the
 * run returns: one that lands before the run starts is forgotten. */
typedef struct canceller {
  webnn_session *session;
  int done; /* under mutex */
  pthread_mutex_t mutex;
} canceller;

static int cancel_done(canceller *c) {
  int d;
  pthread_mutex_lock(&c->mutex);
  d = c->done;
  pthread_mutex_unlock(&c->mutex);
  return d;
}

static void *cancel_until_done(void *arg) {
  canceller *c = (canceller *)arg;
  struct timespec pause = {0, 2000000};
  nanosleep(&pause, NULL);
  while (!cancel_done(c)) {
    webnn_session_cancel(c->session);
    nanosleep(&pause, NULL);
  }
  return NULL;
}

static void test_cancel(const char *dir) {
  webnn_model *model = load_test_model(dir, "loop.wnn", NULL);
  webnn_session *session = NULL;
  canceller c;
  pthread_t t;
  const float a[2] = {10, 20}, b[2] = {1, 2};
  int64_t m = (int64_t)1 << 62;
  const void *data = NULL;
  size_t bytes = 0;
  webnn_status s;
  if (!model) return;
  CHECK(webnn_session_create(model, 1, &session) == WEBNN_OK);
  if (!session) {
    webnn_model_free(model);
    return;
  }
  webnn_session_cancel(NULL); /* ignored */
  webnn_session_cancel(session); /* no run in progress: forgotten */
  CHECK(webnn_session_set_input(session, "a", a, sizeof a) == WEBNN_OK);
  CHECK(webnn_session_set_input(session, "b", b, sizeof b) == WEBNN_OK);
  CHECK(webnn_session_set_input(session, "m", &m, sizeof m) == WEBNN_OK);
  memset(&c, 0, sizeof c);
  c.session = session;
  pthread_mutex_init(&c.mutex, NULL);
  if (pthread_create(&t, NULL, cancel_until_done, &c) == 0) {
    s = webnn_session_run(session);
    pthread_mutex_lock(&c.mutex);
    c.done = 1;
    pthread_mutex_unlock(&c.mutex);
    pthread_join(t, NULL);
    CHECK(s == WEBNN_CANCELLED);
    CHECK(strstr(webnn_last_error(), "run cancelled at node 0 'body_add' (add) of subgraph 0") != NULL);
  } else {
    CHECK(!"pthread_create");
  }
  pthread_mutex_destroy(&c.mutex);
  /* The next run starts clean: 3 iterations map (10, 20) to 13. */
  m = 3;
  CHECK(webnn_session_set_input(session, "m", &m, sizeof m) == WEBNN_OK);
  CHECK(webnn_session_run(session) == WEBNN_OK);
  CHECK(webnn_session_get_output(session, "x", &data, &bytes) == WEBNN_OK);
  CHECK(bytes == sizeof a && data && ((const float *)data)[0] == 13 && ((const float *)data)[1] == 23);
  webnn_session_free(session);
  webnn_model_free(model);
}

/* webnn_op_support_limits: the GPU's table as JSON (when the Vulkan backend is
 * linked; no device is opened), the CPU's, unknown names and nulls. */
static void test_op_support_limits(void) {
  const char *json = "unset";
  const char *again = NULL;
  CHECK(webnn_op_support_limits(NULL, &json) == WEBNN_INVALID_ARGUMENT);
  CHECK(webnn_op_support_limits("cpu", NULL) == WEBNN_INVALID_ARGUMENT);
  CHECK(webnn_op_support_limits("tpu", &json) == WEBNN_UNSUPPORTED);
  CHECK(json == NULL);
  CHECK(strstr(webnn_last_error(), "no backend or device 'tpu'") != NULL);
  CHECK(webnn_op_support_limits("cpu", &json) == WEBNN_OK);
  CHECK(json && strstr(json, "{\"backend\": \"cpu\", \"preferredInputLayout\": \"nchw\"") == json);
  CHECK(json && strstr(json, "\"lstm\": {\"input\": {\"dataTypes\": [\"float32\", \"float16\"], "
                             "\"rankRange\": {\"min\": 3, \"max\": 3}}") != NULL);
  CHECK(webnn_op_support_limits("cpu", &again) == WEBNN_OK);
  CHECK(again == json);
#if WEBNN_HAVE_VULKAN_BACKEND
  CHECK(webnn_op_support_limits("gpu", &json) == WEBNN_OK);
  CHECK(json && strstr(json, "\"backend\": \"vulkan\"") != NULL);
  CHECK(json && strstr(json, "\"conv2d\": {\"input\": {\"dataTypes\": [\"float32\", \"float16\"], "
                             "\"rankRange\": {\"min\": 4, \"max\": 4}}") != NULL);
  CHECK(webnn_op_support_limits("vulkan", &again) == WEBNN_OK);
  CHECK(again == json); /* one string per backend, kept for the process */
#endif
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  test_passthrough(argv[1]);
  test_add_relu(argv[1]);
  test_dynamic(argv[1]);
  test_bindings(argv[1]);
  test_kv_cache_in_place(argv[1]);
  test_errors(argv[1]);
  test_version(argv[1]);
  test_op_support_limits();
  test_load_memory(argv[1]);
  test_memory_errors(argv[1]);
  test_log_callback(argv[1]);
  test_session_options(argv[1]);
  test_thread_wait(argv[1]);
  test_limits(argv[1]);
  test_threads(argv[1]);
  test_cancel(argv[1]);
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  else printf("c api test passed\n");
  return failures ? 1 : 0;
}
