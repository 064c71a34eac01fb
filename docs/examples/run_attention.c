/* run_attention.c - run a kernel compiled by ejkc with the installed runtime.
 *
 *   ejkc docs/examples/run_attention.mlir -o out
 *   cc run_attention.c $(pkg-config --cflags --libs ejk-runtime) -lm
 *   ./a.out out/run_attention.json
 *
 * Loads the artifact, reads the shapes of entry point "attention" from its
 * manifest (q [B, Sq, Hq, D], k [B, Sk, Hkv, D], v [B, Sk, Hkv, Dv] ->
 * out [B, Sq, Hq, Dv], lse [B, Hq, Sq]), runs it asynchronously on random
 * inputs and compares with causal attention computed here in double
 * precision. Exit status 0 when every element is within tolerance.
 */
#include <ejk/runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Prints the failure of a runtime call; nonzero when it failed. */
static int failed(ejk_status status, const char *what) {
  if (status == EJK_OK)
    return 0;
  fprintf(stderr, "run_attention: %s: %s: %s\n", what, ejk_status_name(status),
          ejk_last_error());
  return 1;
}

static size_t elements(const ejk_tensor_desc *desc) {
  size_t n = 1;
  for (int32_t i = 0; i < desc->rank; ++i)
    n *= (size_t)desc->shape[i];
  return n;
}

/* Uniform in [-1, 1) from a 64-bit LCG: the same inputs on every machine. */
static float next_random(uint64_t *state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((*state >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f;
}

/* Causal (bottom-right aligned) grouped-query attention, in double. */
static void reference(const float *q, const float *k, const float *v, int64_t B,
                      int64_t Sq, int64_t Sk, int64_t Hq, int64_t Hkv,
                      int64_t D, int64_t Dv, double *out, double *lse) {
  double scale = 1.0 / sqrt((double)D);
  double *scores = malloc(sizeof(double) * (size_t)Sk);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h)
      for (int64_t i = 0; i < Sq; ++i) {
        int64_t kvh = h / (Hq / Hkv), last = i + (Sk - Sq);
        const float *qi = q + ((b * Sq + i) * Hq + h) * D;
        double max = -INFINITY, sum = 0.0;
        for (int64_t j = 0; j <= last && j < Sk; ++j) {
          const float *kj = k + ((b * Sk + j) * Hkv + kvh) * D;
          double s = 0.0;
          for (int64_t d = 0; d < D; ++d)
            s += (double)qi[d] * kj[d];
          scores[j] = s * scale;
          max = scores[j] > max ? scores[j] : max;
        }
        for (int64_t j = 0; j <= last && j < Sk; ++j)
          sum += exp(scores[j] - max);
        double *o = out + ((b * Sq + i) * Hq + h) * Dv;
        for (int64_t d = 0; d < Dv; ++d)
          o[d] = 0.0;
        for (int64_t j = 0; j <= last && j < Sk; ++j) {
          double p = exp(scores[j] - max) / sum;
          const float *vj = v + ((b * Sk + j) * Hkv + kvh) * Dv;
          for (int64_t d = 0; d < Dv; ++d)
            o[d] += p * vj[d];
        }
        lse[(b * Hq + h) * Sq + i] = max + log(sum);
      }
  free(scores);
}

/* Largest |actual - expected| / (1e-4 + 1e-4 |expected|); <= 1 passes. */
static double worst(const float *actual, const double *expected, size_t n) {
  double worst = 0.0;
  for (size_t i = 0; i < n; ++i) {
    double err =
        fabs(actual[i] - expected[i]) / (1e-4 + 1e-4 * fabs(expected[i]));
    if (!(err <= worst))
      worst = err; /* NaN makes worst NaN, which fails below */
  }
  return worst;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: run_attention MANIFEST.json\n");
    return 2;
  }
  if (ejk_runtime_abi_version() != EJK_RUNTIME_ABI_VERSION) {
    fprintf(stderr, "run_attention: runtime ABI %d, header ABI %d\n",
            ejk_runtime_abi_version(), EJK_RUNTIME_ABI_VERSION);
    return 1;
  }
  /* Arguments 0..2 are the inputs q, k, v; 3 and 4 the outputs out, lse. */
  ejk_device *device = NULL;
  ejk_module *module = NULL;
  ejk_invocation *invocation = NULL;
  ejk_buffer *buffers[5] = {NULL, NULL, NULL, NULL, NULL};
  float *host[5] = {NULL, NULL, NULL, NULL, NULL};
  ejk_tensor_desc desc[5];
  size_t count[5];
  double *expected_out = NULL, *expected_lse = NULL;
  size_t num_inputs = 0, num_outputs = 0;
  uint64_t ns = 0, seed = 42;
  int result = 1;

  if (failed(ejk_device_create("cpu", &device), "device") ||
      failed(ejk_module_load(device, argv[1], &module), "load") ||
      failed(ejk_module_entry_signature(module, "attention", &num_inputs,
                                        &num_outputs),
             "signature"))
    goto done;
  if (num_inputs != 3 || num_outputs != 2) {
    fprintf(stderr, "run_attention: expected 3 inputs and 2 outputs\n");
    goto done;
  }
  for (int i = 0; i < 5; ++i) {
    int is_output = i >= 3;
    if (failed(ejk_module_entry_arg(module, "attention", is_output,
                                    (size_t)(is_output ? i - 3 : i), &desc[i]),
               "arg"))
      goto done;
    if (desc[i].dtype != EJK_DTYPE_F32) {
      fprintf(stderr, "run_attention: argument %d is not f32\n", i);
      goto done;
    }
    count[i] = elements(&desc[i]);
    host[i] = malloc(sizeof(float) * count[i]);
    if (!host[i] ||
        failed(ejk_buffer_create(device, sizeof(float) * count[i], &buffers[i]),
               "buffer"))
      goto done;
  }
  for (int i = 0; i < 3; ++i) {
    for (size_t e = 0; e < count[i]; ++e)
      host[i][e] = next_random(&seed);
    if (failed(
            ejk_buffer_upload(buffers[i], host[i], sizeof(float) * count[i], 0),
            "upload"))
      goto done;
  }

  /* Start the kernel, compute the reference meanwhile, then wait. */
  if (failed(ejk_invoke_async(module, "attention", buffers, 3, buffers + 3, 2,
                              &invocation),
             "invoke"))
    goto done;
  int64_t B = desc[0].shape[0], Sq = desc[0].shape[1], Hq = desc[0].shape[2],
          D = desc[0].shape[3], Sk = desc[1].shape[1], Hkv = desc[1].shape[2],
          Dv = desc[2].shape[3];
  expected_out = malloc(sizeof(double) * count[3]);
  expected_lse = malloc(sizeof(double) * count[4]);
  if (!expected_out || !expected_lse)
    goto done;
  reference(host[0], host[1], host[2], B, Sq, Sk, Hq, Hkv, D, Dv, expected_out,
            expected_lse);
  if (failed(ejk_invocation_wait(invocation), "wait") ||
      failed(ejk_invocation_time_ns(invocation, &ns), "time") ||
      failed(
          ejk_buffer_download(buffers[3], host[3], sizeof(float) * count[3], 0),
          "download") ||
      failed(
          ejk_buffer_download(buffers[4], host[4], sizeof(float) * count[4], 0),
          "download"))
    goto done;

  double out_error = worst(host[3], expected_out, count[3]);
  double lse_error = worst(host[4], expected_lse, count[4]);
  int ok = out_error <= 1.0 && lse_error <= 1.0;
  printf("attention [%lld, %lld, %lld, %lld] causal: kernel %.3f ms, "
         "error/tolerance out %.3f lse %.3f: %s\n",
         (long long)B, (long long)Sq, (long long)Hq, (long long)D, ns / 1e6,
         out_error, lse_error, ok ? "ok" : "FAILED");
  result = ok ? 0 : 1;

done: /* every destroy function accepts NULL */
  ejk_invocation_destroy(invocation);
  for (int i = 0; i < 5; ++i) {
    ejk_buffer_destroy(buffers[i]);
    free(host[i]);
  }
  free(expected_out);
  free(expected_lse);
  ejk_module_destroy(module);
  ejk_device_destroy(device);
  return result;
}
