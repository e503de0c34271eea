/* The C API from C: load, describe, run, read outputs, and report errors
 * without crashing. Usage: webnn-c-api-test DIR (from make_test_artifacts). */
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
  char path[4096], weights[4096];
  webnn_model *model = NULL;
  webnn_session *session = NULL;
  const float x[6] = {1, 1, 1, 1, 1, 1};
  const float want[6] = {0, 0, 0, 2, 3, 4};
  const void *data = NULL;
  size_t bytes = 0;
  webnn_status s;

  path_in(path, sizeof path, dir, "add_relu_wl.wnn");
  path_in(weights, sizeof weights, dir, "add_relu_wl.weights");
  s = webnn_model_load(path, weights, &model);
  if (s == WEBNN_UNSUPPORTED) { /* no add/relu kernels in this build */
    printf("skipping add_relu: %s\n", webnn_last_error());
    return;
  }
  CHECK(s == WEBNN_OK);
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
  char path[4096];
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
  path_in(path, sizeof path, dir, "dynamic_relu.wnn");
  webnn_status s = webnn_model_load(path, NULL, &model);
  if (s == WEBNN_UNSUPPORTED) { /* no relu kernel in this build */
    printf("skipping dynamic_relu: %s\n", webnn_last_error());
    return;
  }
  CHECK(s == WEBNN_OK);
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
  test_errors(argv[1]);
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  else printf("c api test passed\n");
  return failures ? 1 : 0;
}
