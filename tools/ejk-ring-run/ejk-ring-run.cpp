//===- ejk-ring-run.cpp - run a ring attention artifact under MPI ---------===//
//
//   mpirun -np N ejk-ring-run MANIFEST --entry NAME --q Q.npy --k K.npy
//          --v V.npy [--out O.npy] [--lse L.npy] [--layout contiguous|zigzag]
//          [--repeat R] [--warmup-ms MS] [--stats] [--exit-early-rank R]
//          [--random SEED] [--q-segments QS.npy --kv-segments KS.npy]
//          [--device cpu|vulkan|vulkan:N|vulkan:local]
//          [--backward --do DO.npy [--dq DQ.npy] [--dk DK.npy] [--dv DV.npy]]
//
// Every rank reads the full-sequence q/k/v (.npy, [B, N*S, ...], natural
// order), takes its shard in the chosen layout, runs ejk_ring_run, and rank
// 0 gathers the shards and writes the full output and lse in natural order:
// what single-process flash attention on the whole sequence gives. Used by
// the lit tests (test/Integration/CPU/ring) and the benchmark
// (bench/cpu/ring.sh). --exit-early-rank makes that rank exit without
// MPI_Finalize before the ring starts, to test that the others end.
// --random SEED makes the inputs from a counter hash (shapes from the
// entry), for benchmarks on machines without the .npy files. Arrays are
// f32, f16 or bf16 as the entry is (lse is f32; bf16 .npy files hold the
// uint16 bit patterns, as ejk-run's). --device vulkan:local
// gives each rank the Vulkan device whose index is its rank among the
// ranks of its node: one GPU per rank on a multi-GPU machine.
// --warmup-ms runs the ring untimed for that long first (a GPU idles at a
// low clock and takes time to come back; the host buffers get touched).
// --backward runs the forward once and then ejk_ring_run_backward with the
// gradient d_output (--do, or from the hash with --random), writing the
// gathered d_query, d_key, d_value (natural order); --repeat, --warmup-ms
// and --stats then time the backward.
// --q-segments/--kv-segments give a ring compiled with segment ids its
// q_segment_ids/kv_segment_ids (i32 [B, N*S], the whole sequence, sharded
// like q/k; ejk_ring_run_segments); with --random and no files, a ring
// with segment ids gets packed segments from the hash (both the same).
//
//===----------------------------------------------------------------------===//

#include "ejk/Runtime/ejk_ring.h"
#include "ejk/Runtime/ejk_zigzag.h"
#include "ejk/Support/Float16.h"
#include "ejk/Support/Npy.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {
struct Options {
  std::string manifest, entry, q, k, v, out, lse, layout = "contiguous";
  /// --backward: d_output in, the gradients out.
  std::string dOut, dq, dk, dv;
  bool backward = false;
  /// Segment ids of the whole sequence (i32 [B, N*S]).
  std::string qSegments, kvSegments;
  /// ejk_device_create's spec: "cpu", "vulkan", "vulkan:N"..., or
  /// "vulkan:local" (N = the rank's index on its node).
  std::string device = "cpu";
  int repeat = 1, exitEarlyRank = -1, warmupMs = 0;
  /// --random SEED: inputs from a counter hash instead of files.
  long random = -1;
  bool stats = false;
};

int usage(const char *message) {
  std::fprintf(
      stderr,
      "ejk-ring-run: %s\nusage: mpirun -np N ejk-ring-run MANIFEST "
      "--entry NAME --q Q.npy --k K.npy --v V.npy [--out O.npy] "
      "[--lse L.npy] [--layout contiguous|zigzag] [--repeat R] "
      "[--warmup-ms MS] "
      "[--stats] [--exit-early-rank R] [--random SEED] [--device SPEC] "
      "[--backward --do DO.npy [--dq DQ.npy] [--dk DK.npy] [--dv DV.npy]] "
      "[--q-segments QS.npy --kv-segments KS.npy]\n",
      message);
  return 2;
}

bool parse(int argc, char **argv, Options &o, std::string &error) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string &into) {
      if (i + 1 >= argc) {
        error = a + " needs a value";
        return false;
      }
      into = argv[++i];
      return true;
    };
    std::string number;
    if (a == "--entry") {
      if (!value(o.entry))
        return false;
    } else if (a == "--q") {
      if (!value(o.q))
        return false;
    } else if (a == "--k") {
      if (!value(o.k))
        return false;
    } else if (a == "--v") {
      if (!value(o.v))
        return false;
    } else if (a == "--out") {
      if (!value(o.out))
        return false;
    } else if (a == "--lse") {
      if (!value(o.lse))
        return false;
    } else if (a == "--do") {
      if (!value(o.dOut))
        return false;
    } else if (a == "--dq") {
      if (!value(o.dq))
        return false;
    } else if (a == "--dk") {
      if (!value(o.dk))
        return false;
    } else if (a == "--dv") {
      if (!value(o.dv))
        return false;
    } else if (a == "--q-segments") {
      if (!value(o.qSegments))
        return false;
    } else if (a == "--kv-segments") {
      if (!value(o.kvSegments))
        return false;
    } else if (a == "--backward") {
      o.backward = true;
    } else if (a == "--device") {
      if (!value(o.device))
        return false;
    } else if (a == "--layout") {
      if (!value(o.layout))
        return false;
      if (o.layout != "contiguous" && o.layout != "zigzag") {
        error = "--layout must be contiguous or zigzag, got '" + o.layout + "'";
        return false;
      }
    } else if (a == "--repeat" || a == "--exit-early-rank" || a == "--random" ||
               a == "--warmup-ms") {
      if (!value(number))
        return false;
      char *end = nullptr;
      long n = std::strtol(number.c_str(), &end, 10);
      if (*end || number.empty() || n < 0 || n > 1000000) {
        error = a + " needs a non-negative integer, got '" + number + "'";
        return false;
      }
      if (a == "--random")
        o.random = n;
      else if (a == "--warmup-ms")
        o.warmupMs = int(n);
      else
        (a == "--repeat" ? o.repeat : o.exitEarlyRank) = int(n);
    } else if (a == "--stats") {
      o.stats = true;
    } else if (!a.empty() && a[0] != '-' && o.manifest.empty()) {
      o.manifest = a;
    } else {
      error = "unknown argument '" + a + "'";
      return false;
    }
  }
  if (o.manifest.empty() || o.entry.empty() ||
      (o.random < 0 && (o.q.empty() || o.k.empty() || o.v.empty()))) {
    error = "MANIFEST, --entry, and --q, --k, --v or --random are required";
    return false;
  }
  if (o.qSegments.empty() != o.kvSegments.empty()) {
    error = "--q-segments and --kv-segments go together";
    return false;
  }
  if (o.backward && o.random < 0 && o.dOut.empty()) {
    error = "--backward needs --do (or --random)";
    return false;
  }
  if (!o.backward &&
      !(o.dOut.empty() && o.dq.empty() && o.dk.empty() && o.dv.empty())) {
    error = "--do, --dq, --dk and --dv go with --backward";
    return false;
  }
  if (o.repeat < 1)
    o.repeat = 1;
  return true;
}

using Bytes = std::vector<unsigned char>;

/// Bytes per element of the float dtypes the ring takes; 0 for others.
size_t floatBytes(const std::string &dtype) {
  return dtype == "f32" ? 4 : dtype == "f16" || dtype == "bf16" ? 2 : 0;
}

/// Rank `rank`'s shard ([B, S, row]) of a full-sequence array ([B, n*S, row]):
/// q, k, v, d_output or segment ids (i32).
Bytes shardOf(const ejk::NpyArray &full, int rank, int ranks, bool zigzag) {
  int64_t batch = full.shape[0], seq = full.shape[1];
  int64_t row = full.dtype == "i32" ? 4 : int64_t(floatBytes(full.dtype));
  for (size_t d = 2; d < full.shape.size(); ++d)
    row *= full.shape[d];
  const unsigned char *src =
      reinterpret_cast<const unsigned char *>(full.data.data());
  Bytes ordered;
  if (zigzag) {
    ordered.resize(size_t(batch * seq * row));
    ejk_zigzag_permute(ordered.data(), src, size_t(batch), size_t(seq),
                       size_t(row), ranks, 0);
    src = ordered.data();
  }
  int64_t local = seq / ranks;
  Bytes shard(size_t(batch * local * row));
  for (int64_t b = 0; b < batch; ++b)
    std::memcpy(shard.data() + b * local * row,
                src + (b * seq + rank * local) * row, size_t(local * row));
  return shard;
}

/// "vulkan:local" -> "vulkan:<this rank's index on its node>".
std::string deviceSpec(const std::string &spec) {
  if (spec != "vulkan:local")
    return spec;
  MPI_Comm node;
  int local = 0;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                      &node);
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  return "vulkan:" + std::to_string(local);
}

/// The name of the first entry `<entry>__ring__...<tail>` of the module (a
/// block of the ring), or null.
const char *ringBlockName(ejk_module *module, const std::string &entry,
                          const std::string &tail) {
  size_t count = 0;
  ejk_module_entry_count(module, &count);
  std::string head = entry + "__ring__";
  for (size_t i = 0; i < count; ++i) {
    const char *name = nullptr;
    ejk_module_entry_name(module, i, &name);
    std::string text(name ? name : "");
    if (text.rfind(head, 0) == 0 && text.size() >= tail.size() &&
        text.compare(text.size() - tail.size(), tail.size(), tail) == 0)
      return name;
  }
  return nullptr;
}

/// A full-sequence input of the ring entry's block `tail` argument `index`
/// (its shard shape with n times the rows), uniform in [-1, 1) from a
/// counter hash of (seed, index, element), so every rank makes the same.
bool randomInput(ejk_module *module, const std::string &entry, int ranks,
                 long seed, size_t index, ejk::NpyArray &out,
                 const std::string &tail = "__full") {
  if (const char *name = ringBlockName(module, entry, tail)) {
    ejk_tensor_desc desc;
    if (ejk_module_entry_arg(module, name, 0, index, &desc) != EJK_OK)
      return false;
    out.dtype = ejk_dtype_name(desc.dtype);
    size_t bytes = floatBytes(out.dtype);
    if (bytes == 0)
      return false;
    out.shape.assign(desc.shape, desc.shape + desc.rank);
    out.shape[1] *= ranks;
    size_t n = 1;
    for (int64_t e : out.shape)
      n *= size_t(e);
    out.data.resize(n * bytes);
    auto *data = reinterpret_cast<unsigned char *>(out.data.data());
    for (size_t e = 0; e < n; ++e) {
      uint64_t x = (uint64_t(seed) << 40) ^ (uint64_t(index) << 36) ^ e;
      x ^= x >> 33;
      x *= 0xff51afd7ed558ccdULL;
      x ^= x >> 33;
      x *= 0xc4ceb9fe1a85ec53ULL;
      x ^= x >> 33;
      float value = float(x >> 40) / float(1 << 23) - 1.0f;
      if (bytes == 4) {
        std::memcpy(data + e * 4, &value, 4);
        continue;
      }
      uint16_t bits = out.dtype == "f16" ? ejk::floatToHalf(value)
                                         : ejk::floatToBFloat16(value);
      std::memcpy(data + e * 2, &bits, 2);
    }
    return true;
  }
  return false;
}

/// Whether the ring entry's blocks take segment ids (the `full` block has
/// five inputs).
bool ringHasSegments(ejk_module *module, const std::string &entry) {
  size_t inputs = 0, outputs = 0;
  const char *name = ringBlockName(module, entry, "__full");
  return name &&
         ejk_module_entry_signature(module, name, &inputs, &outputs) ==
             EJK_OK &&
         inputs == 5;
}

/// Packed segment ids of a whole sequence ([batch, total] i32) from a
/// counter hash: segments of 1 to 3 * total / 8 tokens, so that some end
/// inside a shard and some cross shards on small rings.
void randomSegments(long seed, int64_t batch, int64_t total,
                    ejk::NpyArray &out) {
  out.dtype = "i32";
  out.shape = {batch, total};
  out.data.resize(size_t(batch * total * 4));
  int64_t longest = std::max<int64_t>(1, 3 * total / 8);
  for (int64_t b = 0; b < batch; ++b) {
    int32_t id = 0;
    for (int64_t i = 0; i < total;) {
      uint64_t x = (uint64_t(seed) << 40) ^ (uint64_t(b) << 32) ^ uint64_t(id);
      x ^= x >> 33;
      x *= 0xff51afd7ed558ccdULL;
      x ^= x >> 33;
      int64_t length = 1 + int64_t(x % uint64_t(longest));
      for (int64_t j = i; j < std::min(total, i + length); ++j)
        std::memcpy(out.data.data() + (b * total + j) * 4, &id, 4);
      i += length;
      ++id;
    }
  }
}

/// Rank 0 gets the full array ([slices, n*S, row], natural order) from
/// every rank's shard ([slices, S, row], in the layout); other ranks get
/// nothing. Collective over MPI_COMM_WORLD.
Bytes gatherShards(const Bytes &local, int64_t slices, int64_t seq,
                   int64_t rowBytes, int rank, int ranks, bool zigzag) {
  Bytes all(rank == 0 ? local.size() * size_t(ranks) : 0);
  MPI_Gather(local.data(), int(local.size()), MPI_BYTE, all.data(),
             int(local.size()), MPI_BYTE, 0, MPI_COMM_WORLD);
  if (rank != 0)
    return {};
  int64_t total = seq * ranks;
  // all: [rank][slice][S][row] -> [slice][rank*S][row] (shard order).
  Bytes ordered(all.size());
  for (int r = 0; r < ranks; ++r)
    for (int64_t b = 0; b < slices; ++b)
      std::memcpy(&ordered[size_t((b * total + r * seq) * rowBytes)],
                  &all[size_t(((r * slices + b) * seq) * rowBytes)],
                  size_t(seq * rowBytes));
  if (!zigzag)
    return ordered;
  Bytes natural(ordered.size());
  ejk_zigzag_permute(natural.data(), ordered.data(), size_t(slices),
                     size_t(total), size_t(rowBytes), ranks, 1);
  return natural;
}

int failed(int rank, const char *what, ejk_status status) {
  std::fprintf(stderr, "ejk-ring-run: rank %d: %s: %s: %s\n", rank, what,
               ejk_status_name(status), ejk_ring_last_error());
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  // --print-device-uuid SPEC: the device's UUID (ejk_device_uuid) in hex,
  // what CUDA names the same GPU by; the tests hand it to their stand-in
  // libcuda (fake-libcuda.c) so that lavapipe takes the device copies.
  if (argc == 3 && std::string(argv[1]) == "--print-device-uuid") {
    ejk_device *device = nullptr;
    uint8_t uuid[16] = {};
    ejk_status s = ejk_device_create(argv[2], &device);
    if (s == EJK_OK)
      s = ejk_device_uuid(device, uuid);
    if (s == EJK_OK)
      for (uint8_t byte : uuid)
        std::printf("%02x", byte);
    else
      std::fprintf(stderr, "ejk-ring-run: %s\n", ejk_last_error());
    std::printf("\n");
    ejk_device_destroy(device);
    MPI_Finalize();
    return s == EJK_OK ? 0 : 1;
  }
  Options o;
  std::string error;
  if (!parse(argc, argv, o, error)) {
    int rc = rank == 0 ? usage(error.c_str()) : 2;
    MPI_Finalize();
    return rc;
  }
  bool zigzag = o.layout == "zigzag";

  ejk_device *device = nullptr;
  ejk_module *module = nullptr;
  ejk_comm *comm = nullptr;
  ejk_ring *ring = nullptr;
  std::string spec = deviceSpec(o.device);
  ejk_status s = ejk_device_create(spec.c_str(), &device);
  if (s == EJK_OK)
    s = ejk_module_load(device, o.manifest.c_str(), &module);
  if (s != EJK_OK) {
    std::fprintf(stderr, "ejk-ring-run: rank %d: %s: %s\n", rank,
                 ejk_status_name(s), ejk_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  ejk::NpyArray q, k, v;
  size_t argIndex = 0;
  for (auto [path, array] : {std::pair{&o.q, &q}, {&o.k, &k}, {&o.v, &v}}) {
    bool read = o.random >= 0 ? randomInput(module, o.entry, ranks, o.random,
                                            argIndex++, *array)
                              : ejk::readNpy(*path, *array, error);
    if (o.random >= 0 && !read)
      error = "no ring entry '" + o.entry + "' to take shapes from";
    if (read && array->dtype == "u16")
      array->dtype = "bf16"; // numpy has no bf16: its bits travel as u16

    if (!read || floatBytes(array->dtype) == 0 || array->dtype != q.dtype ||
        array->shape.size() != 4 || array->shape[1] % ranks != 0 ||
        (zigzag && array->shape[1] % (2 * ranks) != 0)) {
      std::fprintf(
          stderr, "ejk-ring-run: rank %d: '%s': %s\n", rank, path->c_str(),
          error.empty() ? "needs f32, f16 or bf16 [B, S, H, D] (q, k and v of "
                          "one type) with S a multiple of the ranks (of 2 x "
                          "ranks for zigzag)"
                        : error.c_str());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  const size_t elem = floatBytes(q.dtype);
  int64_t batch = q.shape[0], seq = q.shape[1] / ranks, heads = q.shape[2],
          headDimV = v.shape[3];
  ejk::NpyArray dOut;
  if (o.backward) {
    bool read = o.random >= 0 ? randomInput(module, o.entry, ranks, o.random, 4,
                                            dOut, "__grad_full")
                              : ejk::readNpy(o.dOut, dOut, error);
    if (o.random >= 0 && !read)
      error = "no backward blocks of ring entry '" + o.entry +
              "' to take shapes from";
    if (read && dOut.dtype == "u16")
      dOut.dtype = "bf16";
    std::vector<int64_t> want = {batch, seq * ranks, heads, headDimV};
    if (!read || dOut.dtype != q.dtype || dOut.shape != want) {
      std::fprintf(stderr, "ejk-ring-run: rank %d: '%s': %s\n", rank,
                   o.dOut.c_str(),
                   error.empty() ? "d_output needs the output's type and shape "
                                   "[B, S, H, Dv] (q's B, S, H and v's Dv)"
                                 : error.c_str());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }

  // Segment ids: files, or packed ones from the hash for a ring compiled
  // with them under --random. Their absence (or presence) on a ring that
  // wants them (or not) is the runtime's error, on every rank.
  ejk::NpyArray qSeg, kvSeg;
  bool segments = !o.qSegments.empty();
  if (segments) {
    for (auto [path, array] :
         {std::pair{&o.qSegments, &qSeg}, {&o.kvSegments, &kvSeg}}) {
      bool read = ejk::readNpy(*path, *array, error);
      std::vector<int64_t> want = {batch, seq * ranks};
      if (!read || array->dtype != "i32" || array->shape != want) {
        std::string got;
        for (int64_t d : array->shape)
          got += (got.empty() ? "" : ", ") + std::to_string(d);
        std::fprintf(stderr, "ejk-ring-run: rank %d: '%s': %s\n", rank,
                     path->c_str(),
                     !read ? error.c_str()
                           : ("segment ids need i32 [" + std::to_string(batch) +
                              ", " + std::to_string(seq * ranks) +
                              "] (q's batch and sequence), got " +
                              array->dtype + " [" + got + "]")
                                 .c_str());
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    }
  } else if (o.random >= 0 && ringHasSegments(module, o.entry)) {
    randomSegments(o.random, batch, seq * ranks, qSeg);
    kvSeg = qSeg;
    segments = true;
  }

  MPI_Comm world = MPI_COMM_WORLD;
  if ((s = ejk_comm_create_mpi(&world, &comm)) != EJK_OK)
    return failed(rank, "communicator", s);
  if ((s = ejk_ring_create(device, module, o.entry.c_str(), comm,
                           zigzag ? EJK_RING_ZIGZAG : EJK_RING_CONTIGUOUS,
                           &ring)) != EJK_OK) {
    failed(rank, "ring", s);
    ejk_comm_destroy(comm);
    MPI_Finalize();
    return 1;
  }

  Bytes qs = shardOf(q, rank, ranks, zigzag),
        ks = shardOf(k, rank, ranks, zigzag),
        vs = shardOf(v, rank, ranks, zigzag);
  Bytes os(size_t(batch * seq * heads * headDimV) * elem);
  std::vector<float> ls(size_t(batch * heads * seq));
  ejk_buffer *qb = nullptr, *kb = nullptr, *vb = nullptr, *ob = nullptr,
             *lb = nullptr, *dob = nullptr, *dqb = nullptr, *dkb = nullptr,
             *dvb = nullptr, *qsb = nullptr, *kvsb = nullptr;
  if (segments) {
    Bytes qss = shardOf(qSeg, rank, ranks, zigzag),
          kvss = shardOf(kvSeg, rank, ranks, zigzag);
    ejk_buffer_create(device, qss.size(), &qsb);
    ejk_buffer_create(device, kvss.size(), &kvsb);
    ejk_buffer_upload(qsb, qss.data(), qss.size(), 0);
    ejk_buffer_upload(kvsb, kvss.data(), kvss.size(), 0);
  }
  ejk_buffer_create(device, qs.size(), &qb);
  ejk_buffer_create(device, ks.size(), &kb);
  ejk_buffer_create(device, vs.size(), &vb);
  ejk_buffer_create(device, os.size(), &ob);
  ejk_buffer_create(device, ls.size() * 4, &lb);
  ejk_buffer_upload(qb, qs.data(), qs.size(), 0);
  ejk_buffer_upload(kb, ks.data(), ks.size(), 0);
  ejk_buffer_upload(vb, vs.data(), vs.size(), 0);
  if (o.backward) {
    Bytes dos = shardOf(dOut, rank, ranks, zigzag);
    ejk_buffer_create(device, dos.size(), &dob);
    ejk_buffer_upload(dob, dos.data(), dos.size(), 0);
    ejk_buffer_create(device, qs.size(), &dqb);
    ejk_buffer_create(device, ks.size(), &dkb);
    ejk_buffer_create(device, vs.size(), &dvb);
  }

  if (rank == o.exitEarlyRank) {
    std::fprintf(stderr, "ejk-ring-run: rank %d exits early (as asked)\n",
                 rank);
    std::fflush(stderr);
    std::_Exit(3);
  }

  double best = 1e30;
  int rc = 0;
  // The timed call: the forward, or with --backward the backward (of the
  // forward run once before).
  auto runOnce = [&](const char *what) {
    ejk_status s =
        o.backward ? ejk_ring_run_backward_segments(ring, qb, kb, vb, qsb, kvsb,
                                                    ob, lb, dob, dqb, dkb, dvb)
                   : ejk_ring_run_segments(ring, qb, kb, vb, qsb, kvsb, ob, lb);
    if (s != EJK_OK)
      rc = failed(rank, what, s);
  };
  if (o.backward && (s = ejk_ring_run_segments(ring, qb, kb, vb, qsb, kvsb, ob,
                                               lb)) != EJK_OK)
    rc = failed(rank, "forward run", s);
  // Untimed runs until rank 0 has spent --warmup-ms (all ranks run as many).
  for (double t0 = MPI_Wtime(); o.warmupMs > 0 && rc == 0;) {
    runOnce("warm-up run");
    int more = rank == 0 && (MPI_Wtime() - t0) * 1e3 < o.warmupMs;
    MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!more)
      break;
  }
  for (int r = 0; r < o.repeat && rc == 0; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    runOnce(o.backward ? "backward run" : "run");
    double mine = MPI_Wtime() - t0, slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    best = slowest < best ? slowest : best;
  }
  if (rc == 0 && o.stats) {
    // One line per rank, in rank order, then the best wall time.
    for (int r = 0; r < ranks; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      if (r != rank)
        continue;
      ejk_ring_stats t{};
      ejk_ring_last_stats(ring, -1, &t);
      std::printf("rank %d (%s): %d steps computed, %d skipped, compute "
                  "%.3f ms, exposed comm %.3f ms, host %.3f ms (staging %.3f, "
                  "merge %.3f), total %.3f ms\n",
                  rank, spec.c_str(), t.steps_computed, t.steps_skipped,
                  t.compute_ns / 1e6, t.exposed_comm_ns / 1e6, t.host_ns / 1e6,
                  t.staging_ns / 1e6, t.merge_ns / 1e6, t.total_ns / 1e6);
      if (!o.backward)
        std::printf("rank %d transport: %s\n", rank, ejk_ring_transport(ring));
      // Every step of the last run (a gathered ring has its own count).
      ejk_ring_stats st{};
      for (int step = 0; ejk_ring_last_stats(ring, step, &st) == EJK_OK;
           ++step) {
        std::printf("  step %d: compute %.3f ms, exposed comm %.3f ms, host "
                    "%.3f ms (staging %.3f, merge %.3f), total %.3f ms\n",
                    step, st.compute_ns / 1e6, st.exposed_comm_ns / 1e6,
                    st.host_ns / 1e6, st.staging_ns / 1e6, st.merge_ns / 1e6,
                    st.total_ns / 1e6);
      }
      std::fflush(stdout);
    }
    if (rank == 0)
      std::printf("ring%s wall (slowest rank, best of %d): %.3f ms\n",
                  o.backward ? " backward" : "", o.repeat, best * 1e3);
  }

  if (rc == 0) {
    auto write = [&](const std::string &path, const Bytes &data,
                     const std::string &dtype, std::vector<int64_t> shape) {
      if (path.empty() || rank != 0)
        return;
      ejk::NpyArray array;
      array.dtype = dtype;
      array.shape = shape;
      array.data.resize(data.size());
      std::memcpy(array.data.data(), data.data(), data.size());
      if (!ejk::writeNpy(path, array, error)) {
        std::fprintf(stderr, "ejk-ring-run: %s\n", error.c_str());
        rc = 1;
      }
    };
    // Downloads a [slices, seq, row] shard and gathers the full array in
    // natural order on rank 0.
    auto gather = [&](ejk_buffer *buffer, int64_t slices, int64_t rowBytes) {
      Bytes local(size_t(slices * seq * rowBytes));
      ejk_buffer_download(buffer, local.data(), local.size(), 0);
      return gatherShards(local, slices, seq, rowBytes, rank, ranks, zigzag);
    };
    std::string type = q.dtype == "bf16" ? "u16" : q.dtype;
    int64_t total = seq * ranks;
    if (!o.out.empty())
      write(o.out, gather(ob, batch, heads * headDimV * int64_t(elem)), type,
            {batch, total, heads, headDimV});
    if (!o.lse.empty())
      write(o.lse, gather(lb, batch * heads, 4), "f32", {batch, heads, total});
    if (o.backward) {
      int64_t kvHeads = k.shape[2], headDim = q.shape[3];
      struct {
        const std::string &path;
        ejk_buffer *buffer;
        int64_t heads, dim;
      } grads[] = {{o.dq, dqb, heads, headDim},
                   {o.dk, dkb, kvHeads, headDim},
                   {o.dv, dvb, kvHeads, headDimV}};
      for (auto &g : grads)
        if (!g.path.empty())
          write(g.path,
                gather(g.buffer, batch, g.heads * g.dim * int64_t(elem)), type,
                {batch, total, g.heads, g.dim});
    }
  }
  for (ejk_buffer *b : {qb, kb, vb, ob, lb, dob, dqb, dkb, dvb, qsb, kvsb})
    ejk_buffer_destroy(b);
  ejk_ring_destroy(ring);
  ejk_comm_destroy(comm);
  ejk_module_destroy(module);
  ejk_device_destroy(device);
  MPI_Finalize();
  return rc;
}
