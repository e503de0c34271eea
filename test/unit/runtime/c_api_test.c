/* The C API from C: load, describe, run, read outputs, and report errors
 * without crashing. Usage: webnn-c-api-test DIR (from make_test_artifacts). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

static void test_add_relu(const char *dir) {
  webnn_model *model = NULL;
  webnn_session *session = NULL;
  const float x[6] = {1, 1, 1, 1, 1, 1};
  const float want[6] = {0, 0, 0, 2, 3, 4};
  const void *data = NULL;
  size_t bytes = 0;

  model = load_test_model(dir, "add_relu_wl.wnn", "add_relu_wl.weights");
  if (!model) return;
  CHECK(webnn_session_create(model, 1, &session) == WEBNN_OK);
  if (session) {
    CHECK(webnn_session_set_input(session, "x", x, sizeof x) == WEBNN_OK);
    CHECK(webnn_session_run(session) == WEBNN_OK);
    CHECK(webnn_session_get_output(session, "y", &data, &bytes) == WEBNN_OK);
    CHECK(bytes == sizeof want && data && memcmp(data, want, sizeof want) == 0);
    webnn_session_free(session);
  }
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
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  else printf("c api test passed\n");
  return failures ? 1 : 0;
}
