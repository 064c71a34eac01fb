/*===- CExample.c - The C API used from C ---------------------------------===*\
|*                                                                            *|
|* Compiled as C so the header's C compatibility is tested; the same code is  *|
|* the example in docs/runtime.md.                                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "ejk/Runtime/ejk_runtime.h"

#include <stdio.h>
#include <stdlib.h>

/* Prints the failure and returns nonzero when status is not EJK_OK. */
static int failed(ejk_status status, const char *what) {
  if (status == EJK_OK)
    return 0;
  fprintf(stderr, "%s: %s: %s\n", what, ejk_status_name(status),
          ejk_last_error());
  return 1;
}

/* Runs entry "add" (out = a + b over n floats) of the artifact at manifest
 * and checks the result; returns 0 on success. */
int ejk_test_run_add_from_c(const char *manifest, size_t n) {
  ejk_device *device = NULL;
  ejk_module *module = NULL;
  ejk_buffer *a = NULL, *b = NULL, *out = NULL;
  float *host = malloc(3 * n * sizeof(float));
  int result = 1;
  size_t num_inputs = 0, num_outputs = 0, i;
  ejk_tensor_desc desc;
  uint64_t ns = 0;

  if (!host)
    return 1;
  for (i = 0; i < n; ++i) {
    host[i] = (float)i;
    host[n + i] = 0.5f;
  }
  if (failed(ejk_device_create("cpu", &device), "device") ||
      failed(ejk_module_load(device, manifest, &module), "load") ||
      failed(
          ejk_module_entry_signature(module, "add", &num_inputs, &num_outputs),
          "signature") ||
      failed(ejk_module_entry_arg(module, "add", 0, 0, &desc), "arg"))
    goto done;
  if (num_inputs != 2 || num_outputs != 1 || desc.dtype != EJK_DTYPE_F32 ||
      desc.rank != 1 || desc.shape[0] != (int64_t)n)
    goto done;
  if (failed(ejk_buffer_create(device, n * sizeof(float), &a), "a") ||
      failed(ejk_buffer_create(device, n * sizeof(float), &b), "b") ||
      failed(ejk_buffer_create(device, n * sizeof(float), &out), "out") ||
      failed(ejk_buffer_upload(a, host, n * sizeof(float), 0), "upload a") ||
      failed(ejk_buffer_upload(b, host + n, n * sizeof(float), 0), "upload b"))
    goto done;
  {
    ejk_buffer *inputs[2];
    inputs[0] = a;
    inputs[1] = b;
    if (failed(ejk_invoke(module, "add", inputs, 2, &out, 1), "invoke") ||
        failed(ejk_buffer_download(out, host + 2 * n, n * sizeof(float), 0),
               "download") ||
        failed(ejk_last_invoke_time_ns(module, &ns), "time"))
      goto done;
  }
  for (i = 0; i < n; ++i)
    if (host[2 * n + i] != (float)i + 0.5f)
      goto done;
  result = 0;

done:
  ejk_buffer_destroy(out);
  ejk_buffer_destroy(b);
  ejk_buffer_destroy(a);
  ejk_module_destroy(module);
  ejk_device_destroy(device);
  free(host);
  return result;
}
