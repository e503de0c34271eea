/* An app embedding the webnn runtime through its C API: load a compiled
 * artifact, bind its first input to the app's own 64-byte aligned memory (the
 * runtime then reads it in place: no copy), run, write the first output.
 * Every failing call is reported with webnn_last_error().
 *
 *   embed-c MODEL.wnn INPUT.bin OUTPUT.bin    (raw little-endian tensor bytes)
 *
 * Build: CMakeLists.txt here (find_package(webnn)), or
 *   cc main.c $(pkg-config --cflags --libs webnn) -o embed-c */
#include <stdio.h>
#include <stdlib.h>

#include <webnn/webnn_c.h>

static int fail(const char *what) {
  fprintf(stderr, "embed-c: %s: %s\n", what, webnn_last_error());
  return 1;
}

int main(int argc, char **argv) {
  webnn_model *model = NULL;
  webnn_session *session = NULL;
  webnn_tensor_info in, out;
  const void *y = NULL;
  size_t y_bytes = 0, got = 0;
  void *x = NULL;
  FILE *f = NULL;
  int rc = 1;
  if (argc != 4) {
    fprintf(stderr, "usage: embed-c MODEL.wnn INPUT.bin OUTPUT.bin\n");
    return 2;
  }
  if (webnn_model_load(argv[1], NULL, &model) != WEBNN_OK) { rc = fail("load"); goto done; }
  if (webnn_model_input_info(model, 0, &in) != WEBNN_OK) { rc = fail("input 0"); goto done; }
  if (webnn_model_output_info(model, 0, &out) != WEBNN_OK) { rc = fail("output 0"); goto done; }
  /* Room for one byte more than the input, to tell a too-long file. */
  x = aligned_alloc(64, (in.byte_size / 64 + 1) * 64);
  if (!x || !(f = fopen(argv[2], "rb"))) { fprintf(stderr, "embed-c: cannot read %s\n", argv[2]); goto done; }
  got = fread(x, 1, in.byte_size + 1, f);
  fclose(f);
  if (got != in.byte_size) {
    fprintf(stderr, "embed-c: %s: %zu bytes, input '%s' takes %zu\n", argv[2], got, in.name, in.byte_size);
    goto done;
  }
  if (webnn_session_create(model, 1, &session) != WEBNN_OK) { rc = fail("session"); goto done; }
  if (webnn_session_bind_input(session, in.name, x, in.byte_size, in.dims, in.rank) != WEBNN_OK ||
      webnn_session_run(session) != WEBNN_OK ||
      webnn_session_get_output(session, out.name, &y, &y_bytes) != WEBNN_OK) {
    rc = fail("run");
    goto done;
  }
  f = fopen(argv[3], "wb");
  got = f ? fwrite(y, 1, y_bytes, f) : 0;
  if (!f || fclose(f) != 0 || got != y_bytes) {
    fprintf(stderr, "embed-c: cannot write %s\n", argv[3]);
    goto done;
  }
  printf("%s: %s, %zu bytes -> %s\n", out.name, webnn_data_type_name(out.data_type), y_bytes, argv[3]);
  rc = 0;
done:
  webnn_session_free(session); /* before x: the session reads it in place while bound */
  webnn_model_free(model);
  free(x);
  return rc;
}
