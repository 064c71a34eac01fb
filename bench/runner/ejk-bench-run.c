/* ejk-bench-run.c - time a precompiled ejk artifact without MLIR.
 *
 *   ejk-bench-run MANIFEST.json [--device SPEC] [--entry NAME]
 *                 [--input IN.npy]... [--output OUT.npy]...
 *                 [--runs N] [--warmup W] [--warmup-ms T] [--seed S]
 *                 [--load-only] [--dispatch-times]
 *
 * The benchmark's runner for machines without MLIR (the H100 machine): it
 * links only libejk_runtime (include/ejk/Runtime/ejk_runtime.h). It loads the
 * artifact that `ejkc [--target vulkan]` wrote, creates the device SPEC
 * ("cpu", "vulkan", "vulkan:N"; default: the manifest's target), fills the
 * inputs of entry NAME (default: the only entry) from .npy files, one per
 * input in manifest order, or, without --input, with uniform values in
 * [-1, 1) from a seeded generator (timing only), runs the entry W + N times
 * (default 2 + 10) and prints
 *
 *   bench: N runs, median X ms, min Y ms; wall median Z ms, min V ms
 *   timed: unix A to B
 *
 * X and Y are the runtime's time of the dispatches of each run
 * (ejk_last_invoke_time_ns: GPU timestamps on Vulkan, wall time on the CPU),
 * Z and V the host's wall time around each ejk_invoke. The first line has
 * the same form as `ejk-run --bench`; A and B (seconds since the epoch,
 * CLOCK_REALTIME) bracket the N timed runs, so a harness can match them with
 * GPU clock samples. --warmup-ms T keeps invoking after the W warm-up runs
 * until T ms have passed since the first (default 1000 on a Vulkan device, 0
 * on the CPU): NVIDIA's driver holds the SM clock up for about 4 s after the
 * device is created, then drops it to idle (345 MHz on the H100), and a few
 * runs of a short kernel do not bring it back, so a run whose inputs took
 * longer than that to read or generate read 4x slow without it (issue 21's
 * decode anomaly: docs/performance-vulkan.md, "The GPU harness"). --output
 * writes the outputs (from the first run) as .npy files. --load-only stops once
 * the device exists and the module is loaded and prints "loaded" (process start
 * to a ready kernel for a program that links only the runtime).
 * --dispatch-times adds a line with each dispatch's median time over the N
 * runs (ejk_last_invoke_dispatch_times_ns: a GPU timestamp after each
 * dispatch on Vulkan), a profile of the entry's phases:
 *
 *   dispatches: 3, median ms: 0.012 0.201 0.480 Exit status: 0
 * on success, 1 when a runtime call fails, 2 on bad arguments or inputs that do
 * not match the manifest.
 */
#define _POSIX_C_SOURCE 200809L
#include "ejk/Runtime/ejk_runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ARGS 32

typedef struct {
  const char *manifest, *device, *entry;
  const char *inputs[MAX_ARGS], *outputs[MAX_ARGS];
  size_t num_inputs, num_outputs;
  long runs, warmup, warmup_ms;
  uint64_t seed;
  int load_only, dispatch_times;
} options;

/* Dispatches whose times --dispatch-times keeps (the runtime times <= 62). */
#define MAX_DISPATCHES 64

/* Prints the failure of a runtime call; nonzero when it failed. */
static int failed(ejk_status status, const char *what) {
  if (status == EJK_OK)
    return 0;
  fprintf(stderr, "ejk-bench-run: %s: %s: %s\n", what, ejk_status_name(status),
          ejk_last_error());
  return 1;
}

static size_t elements(const ejk_tensor_desc *desc) {
  size_t n = 1;
  for (int32_t i = 0; i < desc->rank; ++i)
    n *= (size_t)desc->shape[i];
  return n;
}

static size_t tensor_bytes(const ejk_tensor_desc *desc) {
  return elements(desc) * ejk_dtype_size(desc->dtype);
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double unix_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- .npy files -------------------------------------------------------- */

/* The numpy descr of a dtype ("<f4", ...); NULL where numpy has none. */
static const char *npy_descr(ejk_dtype dtype) {
  switch (dtype) {
  case EJK_DTYPE_F32:
    return "<f4";
  case EJK_DTYPE_F16:
    return "<f2";
  case EJK_DTYPE_F64:
    return "<f8";
  case EJK_DTYPE_I1:
    return "|b1";
  case EJK_DTYPE_I8:
    return "|i1";
  case EJK_DTYPE_I32:
    return "<i4";
  case EJK_DTYPE_I64:
    return "<i8";
  default:
    return NULL;
  }
}

/* Writes "(d0, d1, ...)" (numpy's spelling, "(n,)" for rank 1). */
static void shape_text(const ejk_tensor_desc *desc, char *out, size_t cap) {
  size_t len = (size_t)snprintf(out, cap, "(");
  for (int32_t i = 0; i < desc->rank && len < cap; ++i)
    len += (size_t)snprintf(out + len, cap - len, "%s%lld", i ? ", " : "",
                            (long long)desc->shape[i]);
  if (len < cap)
    snprintf(out + len, cap - len, desc->rank == 1 ? ",)" : ")");
}

/* Parses the shape tuple after "'shape':" in a header; -1 if malformed. */
static int parse_shape(const char *header, int64_t *shape, int32_t *rank) {
  const char *p = strstr(header, "'shape'");
  if (!p || !(p = strchr(p, '(')))
    return -1;
  *rank = 0;
  for (++p;;) {
    while (*p == ' ' || *p == ',')
      ++p;
    if (*p == ')')
      return 0;
    char *end;
    long long v = strtoll(p, &end, 10);
    if (end == p || *rank == EJK_MAX_RANK)
      return -1;
    shape[(*rank)++] = v;
    p = end;
    if (*p == 'L') /* Python 2 longs */
      ++p;
  }
}

/* Reads path into data, which must have the dtype and shape of desc. */
static int read_npy(const char *path, const ejk_tensor_desc *desc, void *data) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "ejk-bench-run: cannot open %s\n", path);
    return -1;
  }
  unsigned char pre[12];
  int rc = -1;
  char *header = NULL;
  if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
    fprintf(stderr, "ejk-bench-run: %s is not a .npy file\n", path);
    goto done;
  }
  size_t header_len = (size_t)pre[8] | (size_t)pre[9] << 8;
  if (pre[6] >= 2) { /* versions 2 and 3: a 4-byte length */
    if (fread(pre + 10, 1, 2, f) != 2)
      goto done;
    header_len |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
  }
  header = calloc(1, header_len + 1);
  if (!header || fread(header, 1, header_len, f) != header_len) {
    fprintf(stderr, "ejk-bench-run: %s: truncated header\n", path);
    goto done;
  }
  const char *want = npy_descr(desc->dtype);
  int64_t shape[EJK_MAX_RANK];
  int32_t rank = 0;
  char expected[128], got[128];
  if (!want || !strstr(header, want)) {
    fprintf(stderr,
            "ejk-bench-run: %s: dtype is not %s (%s) as the manifest "
            "says: %s\n",
            path, ejk_dtype_name(desc->dtype), want ? want : "no numpy dtype",
            header);
    goto done;
  }
  if (strstr(header, "'fortran_order': True")) {
    fprintf(stderr, "ejk-bench-run: %s: Fortran order is not supported\n",
            path);
    goto done;
  }
  ejk_tensor_desc file = *desc;
  if (parse_shape(header, shape, &rank) != 0) {
    fprintf(stderr, "ejk-bench-run: %s: cannot read the shape: %s\n", path,
            header);
    goto done;
  }
  file.rank = rank;
  memcpy(file.shape, shape, sizeof(int64_t) * (size_t)rank);
  shape_text(desc, expected, sizeof expected);
  shape_text(&file, got, sizeof got);
  if (strcmp(expected, got) != 0) {
    fprintf(stderr, "ejk-bench-run: %s: shape %s, the manifest says %s\n", path,
            got, expected);
    goto done;
  }
  size_t bytes = tensor_bytes(desc);
  if (fread(data, 1, bytes, f) != bytes) {
    fprintf(stderr, "ejk-bench-run: %s: fewer than %zu bytes of data\n", path,
            bytes);
    goto done;
  }
  rc = 0;
done:
  free(header);
  fclose(f);
  return rc;
}

/* Writes a version 1.0 .npy file (header padded to 64 bytes). */
static int write_npy(const char *path, const ejk_tensor_desc *desc,
                     const void *data) {
  const char *descr = npy_descr(desc->dtype);
  if (!descr) {
    fprintf(stderr, "ejk-bench-run: %s: numpy has no %s dtype\n", path,
            ejk_dtype_name(desc->dtype));
    return -1;
  }
  char shape[128], header[256];
  shape_text(desc, shape, sizeof shape);
  int len = snprintf(header, sizeof header,
                     "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     descr, shape);
  while ((10 + len + 1) % 64 != 0)
    header[len++] = ' ';
  header[len++] = '\n';
  unsigned char pre[10] = {0x93,
                           'N',
                           'U',
                           'M',
                           'P',
                           'Y',
                           1,
                           0,
                           (unsigned char)(len & 0xff),
                           (unsigned char)(len >> 8)};
  FILE *f = fopen(path, "wb");
  size_t bytes = tensor_bytes(desc);
  int ok = f && fwrite(pre, 1, 10, f) == 10 &&
           fwrite(header, 1, (size_t)len, f) == (size_t)len &&
           fwrite(data, 1, bytes, f) == bytes;
  if (f && fclose(f) != 0)
    ok = 0;
  if (!ok)
    fprintf(stderr, "ejk-bench-run: cannot write %s\n", path);
  return ok ? 0 : -1;
}

/* ---- Generated inputs -------------------------------------------------- */

/* Uniform in [-1, 1) from a 64-bit LCG: the same inputs on every machine. */
static float next_random(uint64_t *state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((*state >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f;
}

/* IEEE half (round to nearest even) of a float in the normal half range or
 * below; values here are in [-1, 1). */
static uint16_t to_half(float value) {
  uint32_t x;
  memcpy(&x, &value, 4);
  uint32_t sign = (x >> 16) & 0x8000u, exp = (x >> 23) & 0xffu,
           mant = x & 0x7fffffu;
  if (exp < 102) /* below half of the smallest half subnormal */
    return (uint16_t)sign;
  if (exp < 113) { /* a half subnormal */
    mant |= 0x800000u;
    uint32_t shift = 126 - exp, half = mant >> shift;
    uint32_t rest = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1)))
      ++half;
    return (uint16_t)(sign | half);
  }
  uint32_t half = ((exp - 112) << 10) | (mant >> 13), rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1)))
    ++half; /* may carry into the exponent, which is right */
  return (uint16_t)(sign | half);
}

static void fill_random(const ejk_tensor_desc *desc, void *data,
                        uint64_t *state) {
  size_t n = elements(desc);
  for (size_t i = 0; i < n; ++i) {
    float v = next_random(state);
    switch (desc->dtype) {
    case EJK_DTYPE_F32:
      ((float *)data)[i] = v;
      break;
    case EJK_DTYPE_F16:
      ((uint16_t *)data)[i] = to_half(v);
      break;
    case EJK_DTYPE_BF16: {
      uint32_t x;
      memcpy(&x, &v, 4);
      ((uint16_t *)data)[i] = (uint16_t)(x >> 16);
      break;
    }
    case EJK_DTYPE_F64:
      ((double *)data)[i] = v;
      break;
    default: /* integers and booleans stay zero */
      return;
    }
  }
}

/* ---- Arguments --------------------------------------------------------- */

static int usage(const char *msg) {
  if (msg)
    fprintf(stderr, "ejk-bench-run: %s\n", msg);
  fprintf(stderr,
          "usage: ejk-bench-run MANIFEST.json [--device SPEC] [--entry NAME]\n"
          "                     [--input IN.npy]... [--output OUT.npy]...\n"
          "                     [--runs N] [--warmup W] [--warmup-ms T] "
          "[--seed S] [--load-only]\n"
          "                     [--dispatch-times]\n");
  return 2;
}

static int parse_count(const char *text, long min, long *out) {
  char *end;
  long v = strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || v < min)
    return -1;
  *out = v;
  return 0;
}

static int parse_args(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  o->runs = 10;
  o->warmup = 2;
  o->warmup_ms = -1; /* by device, once it is known */
  o->seed = 42;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (a[0] != '-') {
      if (o->manifest)
        return usage("more than one manifest");
      o->manifest = a;
      continue;
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
      return usage(NULL);
    if (strcmp(a, "--load-only") == 0) {
      o->load_only = 1;
      continue;
    }
    if (strcmp(a, "--dispatch-times") == 0) {
      o->dispatch_times = 1;
      continue;
    }
    if (i + 1 >= argc)
      return usage("an option is missing its value");
    const char *v = argv[++i];
    long n = 0;
    if (strcmp(a, "--device") == 0)
      o->device = v;
    else if (strcmp(a, "--entry") == 0)
      o->entry = v;
    else if (strcmp(a, "--input") == 0 && o->num_inputs < MAX_ARGS)
      o->inputs[o->num_inputs++] = v;
    else if (strcmp(a, "--output") == 0 && o->num_outputs < MAX_ARGS)
      o->outputs[o->num_outputs++] = v;
    else if (strcmp(a, "--runs") == 0) {
      if (parse_count(v, 1, &o->runs))
        return usage("--runs needs a count of at least 1");
    } else if (strcmp(a, "--warmup") == 0) {
      if (parse_count(v, 0, &o->warmup))
        return usage("--warmup needs a count of at least 0");
    } else if (strcmp(a, "--warmup-ms") == 0) {
      if (parse_count(v, 0, &o->warmup_ms))
        return usage("--warmup-ms needs a duration of at least 0");
    } else if (strcmp(a, "--seed") == 0) {
      if (parse_count(v, 0, &n))
        return usage("--seed needs a non-negative number");
      o->seed = (uint64_t)n;
    } else {
      fprintf(stderr, "ejk-bench-run: unknown option %s\n", a);
      return usage(NULL);
    }
  }
  return o->manifest ? 0 : usage("no manifest given");
}

/* The device a manifest is for: "vulkan" when its "target" field says so,
 * else "cpu" (the runtime checks the manifest again when it loads it). */
static const char *manifest_device(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return "cpu";
  char *text = NULL;
  size_t size = 0, cap = 0, n = 0;
  char chunk[4096];
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    if (size + n + 1 > cap) {
      cap = 2 * (size + n + 1);
      char *grown = realloc(text, cap);
      if (!grown)
        break;
      text = grown;
    }
    memcpy(text + size, chunk, n);
    size += n;
  }
  fclose(f);
  const char *kind = "cpu";
  if (!text)
    return kind;
  text[size] = '\0';
  for (const char *p = text; (p = strstr(p, "\"target\"")) != NULL;) {
    p += 8;
    p += strspn(p, " \t\r\n");
    if (*p != ':')
      continue;
    ++p;
    p += strspn(p, " \t\r\n");
    if (strncmp(p, "\"vulkan\"", 8) == 0)
      kind = "vulkan";
  }
  free(text);
  return kind;
}

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  options o;
  int rc = parse_args(argc, argv, &o);
  if (rc != 0)
    return rc;
  if (ejk_runtime_abi_version() != EJK_RUNTIME_ABI_VERSION) {
    fprintf(stderr, "ejk-bench-run: runtime ABI %d, header ABI %d\n",
            ejk_runtime_abi_version(), EJK_RUNTIME_ABI_VERSION);
    return 1;
  }
  if (!o.device)
    o.device = manifest_device(o.manifest);
  if (o.warmup_ms < 0)
    o.warmup_ms = strncmp(o.device, "vulkan", 6) == 0 ? 1000 : 0;
  ejk_device *device = NULL;
  ejk_module *module = NULL;
  ejk_buffer *buffers[2 * MAX_ARGS] = {NULL};
  void *host[2 * MAX_ARGS] = {NULL};
  ejk_tensor_desc desc[2 * MAX_ARGS];
  uint64_t *kernel_ns = NULL, *wall_ns = NULL, *dispatch_ns = NULL;
  size_t num_dispatches = 0;
  size_t num_in = 0, num_out = 0, count = 0;
  rc = 1;
  if (failed(ejk_device_create(o.device, &device), "device") ||
      failed(ejk_module_load(device, o.manifest, &module), "load") ||
      failed(ejk_module_entry_count(module, &count), "entries"))
    goto done;
  if (o.load_only) {
    printf("loaded\n");
    rc = 0;
    goto done;
  }
  if (!o.entry) {
    if (count != 1) {
      fprintf(stderr,
              "ejk-bench-run: the artifact has %zu entries: name one "
              "with --entry\n",
              count);
      rc = 2;
      goto done;
    }
    if (failed(ejk_module_entry_name(module, 0, &o.entry), "entry"))
      goto done;
  }
  if (failed(ejk_module_entry_signature(module, o.entry, &num_in, &num_out),
             "signature"))
    goto done;
  if (num_in + num_out > 2 * MAX_ARGS ||
      (o.num_inputs && o.num_inputs != num_in) || o.num_outputs > num_out) {
    fprintf(stderr,
            "ejk-bench-run: entry %s takes %zu inputs and %zu outputs; "
            "given %zu --input and %zu --output\n",
            o.entry, num_in, num_out, o.num_inputs, o.num_outputs);
    rc = 2;
    goto done;
  }
  uint64_t state = o.seed;
  for (size_t i = 0; i < num_in + num_out; ++i) {
    int is_output = i >= num_in;
    size_t index = is_output ? i - num_in : i;
    if (failed(
            ejk_module_entry_arg(module, o.entry, is_output, index, &desc[i]),
            "argument"))
      goto done;
    size_t bytes = tensor_bytes(&desc[i]);
    host[i] = calloc(1, bytes ? bytes : 1);
    if (!host[i] ||
        failed(ejk_buffer_create(device, bytes, &buffers[i]), "buffer"))
      goto done;
    if (is_output)
      continue;
    if (o.num_inputs) {
      if (read_npy(o.inputs[i], &desc[i], host[i]) != 0) {
        rc = 2;
        goto done;
      }
    } else {
      fill_random(&desc[i], host[i], &state);
    }
    if (failed(ejk_buffer_upload(buffers[i], host[i], bytes, 0), "upload"))
      goto done;
  }

  kernel_ns = calloc((size_t)o.runs, sizeof *kernel_ns);
  wall_ns = calloc((size_t)o.runs, sizeof *wall_ns);
  /* [dispatch][run], so each dispatch's runs sort together. */
  dispatch_ns = calloc((size_t)o.runs * MAX_DISPATCHES, sizeof *dispatch_ns);
  if (!kernel_ns || !wall_ns || !dispatch_ns)
    goto done;
  double warm_start = now_ns(), timed_from = 0;
  for (long r = -1 - o.warmup; r < o.runs; ++r) {
    if (r == 0) {
      while (now_ns() - warm_start < (double)o.warmup_ms * 1e6)
        if (failed(ejk_invoke(module, o.entry, buffers, num_in,
                              buffers + num_in, num_out),
                   "invoke"))
          goto done;
      timed_from = unix_seconds();
    }
    double start = now_ns();
    if (failed(ejk_invoke(module, o.entry, buffers, num_in, buffers + num_in,
                          num_out),
               "invoke"))
      goto done;
    double wall = now_ns() - start;
    if (r == -1 - o.warmup) { /* the first run's outputs */
      for (size_t i = 0; i < o.num_outputs; ++i)
        if (failed(ejk_buffer_download(buffers[num_in + i], host[num_in + i],
                                       tensor_bytes(&desc[num_in + i]), 0),
                   "download") ||
            write_npy(o.outputs[i], &desc[num_in + i], host[num_in + i]) != 0)
          goto done;
    }
    if (r < 0)
      continue;
    if (failed(ejk_last_invoke_time_ns(module, &kernel_ns[r]), "time"))
      goto done;
    uint64_t times[MAX_DISPATCHES];
    if (failed(ejk_last_invoke_dispatch_times_ns(module, times, MAX_DISPATCHES,
                                                 &num_dispatches),
               "dispatch times"))
      goto done;
    if (num_dispatches > MAX_DISPATCHES)
      num_dispatches = MAX_DISPATCHES;
    for (size_t d = 0; d < num_dispatches; ++d)
      dispatch_ns[d * (size_t)o.runs + (size_t)r] = times[d];
    wall_ns[r] = (uint64_t)wall;
  }
  double timed_to = unix_seconds();
  qsort(kernel_ns, (size_t)o.runs, sizeof *kernel_ns, compare_u64);
  qsort(wall_ns, (size_t)o.runs, sizeof *wall_ns, compare_u64);
  /* The median as ejk-run --bench takes it: element n/2 of the sorted runs. */
  printf("ejk-bench-run: device %s, entry %s, %zu inputs (%s), %zu outputs\n",
         o.device, o.entry, num_in, o.num_inputs ? "from .npy" : "random",
         num_out);
  printf("bench: %ld runs, median %.3f ms, min %.3f ms; wall median %.3f ms, "
         "min %.3f ms\n",
         o.runs, kernel_ns[o.runs / 2] * 1e-6, kernel_ns[0] * 1e-6,
         wall_ns[o.runs / 2] * 1e-6, wall_ns[0] * 1e-6);
  printf("timed: unix %.3f to %.3f\n", timed_from, timed_to);
  if (o.dispatch_times) {
    printf("dispatches: %zu, median ms:", num_dispatches);
    for (size_t d = 0; d < num_dispatches; ++d) {
      uint64_t *runs = dispatch_ns + d * (size_t)o.runs;
      qsort(runs, (size_t)o.runs, sizeof *runs, compare_u64);
      printf(" %.3f", runs[o.runs / 2] * 1e-6);
    }
    printf("\n");
  }
  rc = 0;

done: /* every destroy function accepts NULL */
  for (size_t i = 0; i < 2 * MAX_ARGS; ++i) {
    ejk_buffer_destroy(buffers[i]);
    free(host[i]);
  }
  free(kernel_ns);
  free(wall_ns);
  free(dispatch_ns);
  ejk_module_destroy(module);
  ejk_device_destroy(device);
  return rc;
}
