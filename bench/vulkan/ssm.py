#!/usr/bin/env python3
"""ejk's Vulkan state-space scans (ejk.selective_scan, ejk.ssd) on the GPU
machine against the device copy rate measured in the same process (issue
21; docs/ops/state-space-vulkan.md, docs/performance-vulkan-ssm.md).

  here:   python3 bench/vulkan/ssm.py prepare DIR [FINGERPRINT]
          compiles the variants with ejkc for FINGERPRINT (default
          bench/vulkan/h100.fingerprint) into DIR/art/<name>/, copies the
          runtime to DIR/lib/ and this script and ejk_runtime.py to DIR/.
  there:  python3 DIR/ssm.py run DIR
          fills the inputs with PyTorch, checks every variant's outputs
          against a step-by-step f32 recurrence in PyTorch on the GPU, times
          each bench variant with the runtime's GPU timestamps (a second of
          warm-up, median of 20; per dispatch too, `dispatch_us`) and a
          256 MiB `copy_` with CUDA events, and
          writes DIR/ssm.json (and $OUT/ssm.json); SSM_ONLY=REGEX runs
          only the cases whose names match.

The rate of a scan is the bytes of its operands and results (each read or
written once: what a perfect kernel moves) over its time, so variants with
more dispatches are measured against the same traffic.
"""
import json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ejk_runtime  # noqa: E402

M1 = dict(b=1, l=2048, d=2048, n=16, g=1)
M2 = dict(b=1, l=2048, h=32, p=64, n=128, g=1)


def variants():
    """name: (op, sizes, dtype, options, config or None, bench?)"""
    v = {
        # The single-pass kernel as the heuristic chose it before the split.
        "mamba1_single": ("scan", M1, "f32", "DS", "block_d = 8, chunk_l = 64", True),
        "mamba1": ("scan", M1, "f32", "DS", None, True),
        # The split scan, the heuristic before the time-lanes scan.
        "mamba1_split": ("scan", M1, "f32", "DS",
                         "block_d = 32, chunk_l = 16, split_l = 128, state_lanes = 4", True),
        "mamba2": ("ssd", M2, "f32", "DS", None, True),
    }
    # The split scan around the heuristic's config (block_d 32, chunk_l
    # 16, split_l 128, state_lanes 4: B and C as vectors of 4).
    for name, cfg in (("c32", "block_d = 32, chunk_l = 32, split_l = 128, state_lanes = 4"),
                      ("s64", "block_d = 32, chunk_l = 16, split_l = 64, state_lanes = 4"),
                      ("s256", "block_d = 32, chunk_l = 16, split_l = 256, state_lanes = 4"),
                      ("bd64", "block_d = 64, chunk_l = 16, split_l = 128, state_lanes = 4"),
                      ("lanes8", "block_d = 16, chunk_l = 16, split_l = 128, state_lanes = 8")):
        v["mamba1_" + name] = ("scan", M1, "f32", "DS", cfg, True)
    # The time-lanes scan (one pass, each exp once; issue 21): 32 (or 16)
    # lanes per channel along time, chunk_l / lanes steps per thread.
    # The heuristic (since 2026-11-27) is tl16_c128_bd16: 16 lanes of 8 steps.
    for name, cfg in (("tl_c256_bd4", "block_d = 4, chunk_l = 256, time_lanes = 32"),
                      ("tl_c128_bd8", "block_d = 8, chunk_l = 128, time_lanes = 32"),
                      ("tl_c128_bd24", "block_d = 24, chunk_l = 128, time_lanes = 32"),
                      ("tl_c64_bd16", "block_d = 16, chunk_l = 64, time_lanes = 32"),
                      ("tl_c64_bd32", "block_d = 32, chunk_l = 64, time_lanes = 32"),
                      ("tl16_c128_bd16", "block_d = 16, chunk_l = 128, time_lanes = 16"),
                      ("tl16_c64_bd32", "block_d = 32, chunk_l = 64, time_lanes = 16"),
                      ("tl8_c128_bd16", "block_d = 16, chunk_l = 128, time_lanes = 8"),
                      ("tl8_c64_bd32", "block_d = 32, chunk_l = 64, time_lanes = 8")):
        v["mamba1_" + name] = ("scan", M1, "f32", "DS", cfg, True)
    # Time lanes with state groups (`state_lanes` beside `time_lanes`): SL
    # groups of TL lanes per channel, each owning d_state / SL states, so
    # SL times the threads (issue 21: the heuristic was latency-bound at 8
    # warps an SM). Named tl<TL>s<SL>_c<chunk_l>_bd<block_d>.
    for tl, sl, c, bd in ((16, 2, 128, 16), (16, 2, 128, 8), (16, 2, 64, 32),
                          (8, 4, 128, 16), (8, 4, 128, 8), (8, 4, 64, 16),
                          (8, 2, 128, 16), (4, 8, 128, 16), (4, 4, 64, 16),
                          (16, 2, 64, 16)):
        v[f"mamba1_tl{tl}s{sl}_c{c}_bd{bd}"] = (
            "scan", M1, "f32", "DS",
            f"block_d = {bd}, chunk_l = {c}, state_lanes = {sl}, time_lanes = {tl}", True)
    # `lane_batch` (the lane scans of a batch of states emitted together,
    # each lane's end state shuffled once: 10 shuffles a state and chunk
    # instead of 11) and `double_buffer` (two u / y stages, two barriers a
    # chunk instead of three) on the heuristic's shape and on 16 lanes
    # without groups (two channels a subgroup: B and C loads shared);
    # written 2026-11-27, untimed (ops/state-space-vulkan.md, "Batched lane
    # scans"). Named tl16s<SL>_lb<batch>[_db].
    for sl, bd in ((2, 16), (1, 16)):
        for lb in (1, 2, 4, 8):
            for db in (False, True):
                extra = f", lane_batch = {lb}" + (", double_buffer = 1" if db else "")
                s_part = f", state_lanes = {sl}" if sl > 1 else ""
                v[f"mamba1_tl16s{sl}_lb{lb}" + ("_db" if db else "")] = (
                    "scan", M1, "f32", "DS",
                    f"block_d = {bd}, chunk_l = 128{s_part}, time_lanes = 16{extra}", True)
    v["mamba1_tl16s2_db"] = ("scan", M1, "f32", "DS", "block_d = 16, chunk_l = 128, "
                             "double_buffer = 1, state_lanes = 2, time_lanes = 16", True)
    # The time-segments scan (`time_segments` = W; 2026-11-28): the
    # channels along a subgroup's lanes (block_d x SL state groups), each
    # chunk's steps split into W segments across subgroups, one barrier a
    # chunk, no transposed stages. Named ts<W>s<SL>_c<chunk_l>_bd<block_d>.
    for w, sl, c, bd in ((8, 2, 64, 16), (8, 2, 32, 16), (8, 2, 128, 16), (4, 2, 64, 16),
                         (8, 4, 64, 8), (8, 4, 128, 8), (16, 4, 64, 8), (16, 4, 128, 8),
                         (8, 8, 64, 4), (8, 8, 128, 4), (8, 4, 32, 8), (4, 4, 32, 8),
                         (8, 8, 32, 4)):
        v[f"mamba1_ts{w}s{sl}_c{c}_bd{bd}"] = (
            "scan", M1, "f32", "DS",
            f"block_d = {bd}, chunk_l = {c}, state_lanes = {sl}, time_segments = {w}", True)
    # The channel-lanes scan (`channel_lanes = 1`; 2026-11-28): a lane = a
    # channel with all 16 states in registers, B and C the same words for
    # every lane, no shared memory, split_l splits in two dispatches (end
    # states, then the scan from the carried states), chunk_l steps' loads
    # a group ahead, `poly_exp` states' exp2 by a polynomial on the FP32
    # pipe. Named cl_s<split_l>_bd<block_d>_c<chunk_l>_p<poly_exp>.
    cls = [(sp, 32, c, pe) for sp in (64, 128, 256) for c in (1, 2) for pe in (0, 4)]
    cls += [(128, 64, 2, 0), (128, 128, 2, 0), (128, 32, 4, 0), (128, 32, 2, 2),
            (128, 32, 2, 6), (128, 32, 2, 8), (128, 64, 1, 4), (64, 64, 1, 4)]
    for sp, bd, c, pe in cls:
        v[f"mamba1_cl_s{sp}_bd{bd}_c{c}_p{pe}"] = (
            "scan", M1, "f32", "DS", f"block_d = {bd}, channel_lanes = 1, chunk_l = {c}, "
            + (f"poly_exp = {pe}, " if pe else "") + f"split_l = {sp}", True)
    # `fetch_ahead` (2026-11-28, after the call above; untimed when
    # written): delta and u fa groups ahead, B and C one, since the
    # channel-lanes dispatches spent ~44 us each on their loads alone with
    # one group in flight. Named cl_s<split_l>_bd32_c<chunk_l>_a<fa>[_p<P>].
    for sp, c, fa, pe in ((128, 2, 4, 0), (128, 2, 8, 0), (128, 2, 16, 0), (128, 4, 2, 0),
                          (128, 4, 4, 0), (128, 4, 8, 0), (128, 1, 8, 0), (128, 1, 16, 0),
                          (128, 1, 32, 0), (64, 2, 8, 0), (64, 4, 4, 0), (256, 2, 16, 0),
                          (128, 2, 8, 4), (128, 4, 4, 4), (128, 2, 16, 4)):
        v[f"mamba1_cl_s{sp}_bd32_c{c}_a{fa}" + (f"_p{pe}" if pe else "")] = (
            "scan", M1, "f32", "DS", f"block_d = 32, channel_lanes = 1, chunk_l = {c}, "
            f"fetch_ahead = {fa}, " + (f"poly_exp = {pe}, " if pe else "") + f"split_l = {sp}", True)
    # `carry_pass` (a dispatch joins the splits: no O(splits^2) fold in the
    # scan), so more splits (warps) can be tried; with fetch_ahead. Untimed
    # when written. Named cl_s<split_l>_bd32_c<chunk_l>_a<fa>_cp.
    for sp, c, fa in ((128, 2, 8), (64, 2, 8), (64, 4, 4), (32, 2, 8), (32, 4, 4), (64, 2, 16)):
        v[f"mamba1_cl_s{sp}_bd32_c{c}_a{fa}_cp"] = (
            "scan", M1, "f32", "DS", f"block_d = 32, carry_pass = 1, channel_lanes = 1, "
            f"chunk_l = {c}, fetch_ahead = {fa}, split_l = {sp}", True)
    v["mamba1_cl_one_bd32_c2"] = ("scan", M1, "f32", "DS",
                                  "block_d = 32, channel_lanes = 1, chunk_l = 2", True)
    v["mamba1_f16_cl_s128_bd32_c2_p4"] = ("scan", M1, "f16", "DS", "block_d = 32, "
                                          "channel_lanes = 1, chunk_l = 2, poly_exp = 4, "
                                          "split_l = 128", True)
    # f16 inputs: the heuristic and the state groups.
    v["mamba1_f16"] = ("scan", M1, "f16", "DS", None, True)
    v["mamba1_f16_tl16s2"] = ("scan", M1, "f16", "DS",
                              "block_d = 16, chunk_l = 128, state_lanes = 2, time_lanes = 16", True)
    v["mamba1_f16_ts8s2"] = ("scan", M1, "f16", "DS", "block_d = 16, chunk_l = 64, "
                             "state_lanes = 2, time_segments = 8", True)
    v["mamba1_f16_ts16s4"] = ("scan", M1, "f16", "DS", "block_d = 8, chunk_l = 64, "
                              "state_lanes = 4, time_segments = 16", True)
    v["mamba1_f16_tl8s4"] = ("scan", M1, "f16", "DS",
                             "block_d = 16, chunk_l = 128, state_lanes = 4, time_lanes = 8", True)
    # The SSD: the one-pass scan (the heuristic before chunk_parallel), the
    # split scan the tuner tries, and the chunk-parallel path (the
    # heuristic: chunks of 64, block_p 64, block_n 16, 16 subgroups since
    # run 2 of 2026-11-27) with configs around it; f16 and bf16 inputs;
    # batch 4.
    ssd = "block_n = 32, block_p = 16, chunk_size = 64, num_subgroups = 8"
    v["mamba2_single"] = ("ssd", M2, "f32", "DS", ssd, True)
    v["mamba2_s1024"] = ("ssd", M2, "f32", "DS", f"{ssd}, split_l = 1024", True)
    for name, cfg in (("c64_p32_n32", "block_n = 32, block_p = 32, chunk_size = 64, num_subgroups = 8"),
                      ("c32_p64_n32", "block_n = 32, block_p = 64, chunk_size = 32, num_subgroups = 8"),
                      ("c32_p64_n16_w4", "block_n = 16, block_p = 64, chunk_size = 32, num_subgroups = 4"),
                      ("c64_p64_n16_w4", "block_n = 16, block_p = 64, chunk_size = 64, num_subgroups = 4"),
                      ("c64_p64_n16_w16", "block_n = 16, block_p = 64, chunk_size = 64, num_subgroups = 16"),
                      ("c64_p64_n16_w32", "block_n = 16, block_p = 64, chunk_size = 64, num_subgroups = 32"),
                      ("c64_p64_n8", "block_n = 8, block_p = 64, chunk_size = 64, num_subgroups = 8")):
        v["mamba2_cp_" + name] = ("ssd", M2, "f32", "DS", cfg + ", chunk_parallel = 1", True)
    # f16: the heuristic runs the cooperative-matrix chunk kernels; the
    # SIMT chunk kernels and coop variants beside it. bf16 stays SIMT.
    for dt in ("f16", "bf16"):
        v["mamba2_" + dt] = ("ssd", M2, dt, "DS", None, True)
    v["mamba2_f16_simt"] = ("ssd", M2, "f16", "DS", "block_n = 16, block_p = 64, "
                            "chunk_size = 64, num_subgroups = 8, chunk_parallel = 1", True)
    for name, cfg in (("w4", "block_n = 32, block_p = 64, chunk_size = 64, num_subgroups = 4"),
                      ("w16", "block_n = 32, block_p = 64, chunk_size = 64, num_subgroups = 16"),
                      ("w16_n16", "block_n = 16, block_p = 64, chunk_size = 64, num_subgroups = 16"),
                      ("c32", "block_n = 32, block_p = 64, chunk_size = 32, num_subgroups = 8"),
                      ("p32", "block_n = 32, block_p = 32, chunk_size = 64, num_subgroups = 8")):
        v["mamba2_f16_coop_" + name] = ("ssd", M2, "f16", "DS",
                                        cfg + ", chunk_parallel = 1, cooperative = 1", True)
    # cooperative = 2: the coop kernels with the f16 matrix stages' rows
    # padded by 8 halves (untimed when written: the phase-drop profile of
    # 2026-11-27 put ~96 us of the f16 SSD in the matrix sections), against
    # the heuristic's unpadded stages (coop1, the same config).
    v["mamba2_f16_coop1"] = ("ssd", M2, "f16", "DS", "block_n = 32, block_p = 64, chunk_size = 64, "
                             "num_subgroups = 16, chunk_parallel = 1, cooperative = 1", True)
    for bn in (16, 32):
        v[f"mamba2_f16_coop2_n{bn}"] = ("ssd", M2, "f16", "DS", f"block_n = {bn}, block_p = 64, "
                                        "chunk_size = 64, num_subgroups = 16, chunk_parallel = 1, "
                                        "cooperative = 2", True)
    v["mamba2_f16_single"] = ("ssd", M2, "f16", "DS", ssd, True)
    m2b4 = dict(M2, b=4)
    v["mamba2_b4"] = ("ssd", m2b4, "f32", "DS", None, True)
    v["mamba2_b4_single"] = ("ssd", m2b4, "f32", "DS", ssd, True)
    # Correctness only: every option, tails, dtypes, the split path forced.
    small = dict(b=2, l=300, d=96, n=16, g=2)
    v["chk_scan_all_f32"] = ("scan", small, "f32", "DZBSIF", None, False)
    v["chk_scan_all_f16"] = ("scan", small, "f16", "DZBSIF", None, False)
    v["chk_scan_all_bf16"] = ("scan", small, "bf16", "DZBSIF", None, False)
    v["chk_scan_tail"] = ("scan", dict(b=1, l=1000, d=64, n=5, g=1), "f32",
                          "DZSIF", "block_d = 32, chunk_l = 48, split_l = 112, "
                          "state_lanes = 4", False)
    v["chk_scan_lanes16"] = ("scan", dict(b=1, l=777, d=40, n=16, g=1), "f32",
                             "DSIF", "block_d = 8, chunk_l = 32, split_l = 100",
                             False)
    # B and C as vectors of 2 (8 lanes x 2 states), a tail chunk and split,
    # groups, every option, f16.
    v["chk_scan_vec2"] = ("scan", dict(b=2, l=333, d=48, n=16, g=2), "f16",
                          "DZBSIF", "block_d = 16, chunk_l = 16, split_l = 80, "
                          "state_lanes = 8", False)
    # The time-lanes scan: tails, groups spanned by a block, every option,
    # f16/bf16, 16 lanes (two channels per subgroup).
    for dt in ("f32", "f16", "bf16"):
        v["chk_scan_tl_" + dt] = ("scan", dict(b=2, l=1000, d=96, n=16, g=2), dt,
                                  "DZBSIF", "block_d = 4, chunk_l = 256, time_lanes = 32", False)
    v["chk_scan_tl16_odd"] = ("scan", dict(b=1, l=333, d=44, n=7, g=4), "f32",
                              "DZBSIF", "block_d = 6, chunk_l = 48, time_lanes = 16", False)
    # Time lanes with state groups: tails, blocks spanning groups, every
    # option, f16/bf16; 16 lanes x 2 groups (one channel a subgroup), 8 x 4,
    # 4 x 2 (four channels a subgroup), 2 states a thread.
    for dt in ("f32", "f16", "bf16"):
        v["chk_scan_tls_" + dt] = ("scan", dict(b=2, l=1000, d=96, n=16, g=2), dt,
                                   "DZBSIF", "block_d = 10, chunk_l = 128, state_lanes = 2, "
                                   "time_lanes = 16", False)
    v["chk_scan_tls_8x4"] = ("scan", dict(b=1, l=333, d=44, n=8, g=4), "f32",
                             "DZBSIF", "block_d = 6, chunk_l = 48, state_lanes = 4, time_lanes = 8", False)
    v["chk_scan_tls_4x2"] = ("scan", dict(b=2, l=77, d=20, n=6, g=1), "f16",
                             "DZBSIF", "block_d = 8, chunk_l = 12, state_lanes = 2, time_lanes = 4", False)
    # lane_batch / double_buffer: batches that do not divide the states a
    # thread keeps, tails, blocks spanning groups, every option, f16/bf16.
    for dt in ("f32", "f16", "bf16"):
        v["chk_scan_lb_" + dt] = ("scan", dict(b=2, l=1000, d=96, n=16, g=2), dt, "DZBSIF",
                                  "block_d = 6, chunk_l = 128, double_buffer = 1, lane_batch = 3, "
                                  "state_lanes = 2, time_lanes = 16", False)
    v["chk_scan_lb_odd"] = ("scan", dict(b=1, l=333, d=44, n=7, g=4), "f32", "DZBSIF",
                            "block_d = 6, chunk_l = 48, lane_batch = 4, time_lanes = 16", False)
    v["chk_scan_lb_8x4"] = ("scan", dict(b=1, l=333, d=44, n=8, g=4), "f32", "DZBSIF",
                            "block_d = 6, chunk_l = 48, double_buffer = 1, lane_batch = 2, "
                            "state_lanes = 4, time_lanes = 8", False)
    # time_segments: tails, a partial block spanning the groups of B/C,
    # every option, f16/bf16 (scalar B and C), 4 state groups, one group
    # with an odd block and d_state (a workgroup of 60 threads).
    for dt in ("f32", "f16", "bf16"):
        v["chk_scan_ts_" + dt] = ("scan", dict(b=2, l=1000, d=88, n=16, g=2), dt, "DZBSIF",
                                  "block_d = 16, chunk_l = 64, state_lanes = 2, time_segments = 8",
                                  False)
    v["chk_scan_ts_4x8"] = ("scan", dict(b=1, l=333, d=44, n=16, g=4), "f32", "DZBSIF",
                            "block_d = 8, chunk_l = 64, state_lanes = 4, time_segments = 16", False)
    v["chk_scan_ts_odd"] = ("scan", dict(b=1, l=333, d=44, n=7, g=4), "f32", "DZBSIF",
                            "block_d = 20, chunk_l = 15, time_segments = 3", False)
    # channel_lanes: a partial last split and step group (neither L nor
    # split_l a multiple of chunk_l), a partial block spanning the groups
    # of B/C, every option, f16/bf16 (scalar B and C), poly_exp for some
    # and all states, 7 states (scalar f32 B and C), one pass.
    for dt in ("f32", "f16", "bf16"):
        v["chk_scan_cl_" + dt] = ("scan", dict(b=2, l=1000, d=88, n=16, g=2), dt, "DZBSIF",
                                  "block_d = 32, channel_lanes = 1, chunk_l = 3, poly_exp = 4, "
                                  "split_l = 128", False)
    v["chk_scan_cl_odd"] = ("scan", dict(b=1, l=333, d=44, n=7, g=4), "f32", "DZBSIF",
                            "block_d = 16, channel_lanes = 1, chunk_l = 2, poly_exp = 7, "
                            "split_l = 50", False)
    for dt in ("f32", "f16"):
        v["chk_scan_cl_ahead_" + dt] = ("scan", dict(b=2, l=1000, d=88, n=16, g=2), dt, "DZBSIF",
                                        "block_d = 32, channel_lanes = 1, chunk_l = 3, "
                                        "fetch_ahead = 5, poly_exp = 4, split_l = 128", False)
    v["chk_scan_cl_carry_f32"] = ("scan", dict(b=2, l=1000, d=88, n=16, g=2), "f32", "DZBSIF",
                                  "block_d = 32, carry_pass = 1, channel_lanes = 1, chunk_l = 3, "
                                  "fetch_ahead = 5, poly_exp = 4, split_l = 64", False)
    v["chk_scan_cl_carry_bf16"] = ("scan", dict(b=1, l=333, d=44, n=8, g=4), "bf16", "DZBSIF",
                                   "block_d = 16, carry_pass = 1, channel_lanes = 1, chunk_l = 2, "
                                   "split_l = 37", False)
    v["chk_scan_cl_one"] = ("scan", dict(b=1, l=333, d=44, n=16, g=4), "f32", "DZBSIF",
                            "block_d = 32, channel_lanes = 1, chunk_l = 2, poly_exp = 16", False)
    v["chk_ssd_all_f32"] = ("ssd", dict(b=2, l=300, h=4, p=32, n=32, g=2),
                            "f32", "DZBSIF", None, False)
    v["chk_ssd_split_f16"] = ("ssd", dict(b=1, l=1000, h=8, p=24, n=64, g=2),
                              "f16", "DZBSIF", "block_n = 32, block_p = 16, "
                              "chunk_size = 64, num_subgroups = 4, split_l = 192", False)
    # The chunk-parallel path (the heuristic for chk_ssd_all_f32 too): a
    # tail chunk, groups, every option, f16/bf16, head_dim blocks that do
    # not divide head_dim, an odd d_state, one chunk.
    for dt in ("f32", "f16", "bf16"):
        v["chk_ssd_cp_" + dt] = ("ssd", dict(b=2, l=1000, h=8, p=24, n=64, g=2),
                                 dt, "DZBSIF", "block_n = 16, block_p = 16, "
                                 "chunk_size = 64, num_subgroups = 4, chunk_parallel = 1", False)
    v["chk_ssd_cp_odd"] = ("ssd", dict(b=1, l=333, h=6, p=40, n=24, g=3), "f32",
                           "DZSIF", "block_n = 8, block_p = 32, chunk_size = 32, "
                           "num_subgroups = 8, chunk_parallel = 1", False)
    v["chk_ssd_cp_one_chunk"] = ("ssd", dict(b=1, l=50, h=4, p=64, n=128, g=1), "f16",
                                 "DZBSIF", "block_n = 16, block_p = 64, chunk_size = 64, "
                                 "num_subgroups = 8, chunk_parallel = 1", False)
    v["chk_ssd_mamba2_f16"] = ("ssd", dict(M2, l=512), "f16", "DZBSIF", None, False)
    # The cooperative-matrix chunk kernels (f16), as `cooperative = 1` (the
    # heuristic's stages) and 2 (rows padded by 8 halves): head_dim 48 in
    # blocks of 32 (the second half outside: the staged state store),
    # groups, a tail, every option; mamba2's blocks on a tail of its shape
    # (for 1: the heuristic); one subgroup with chunks of 16. For 2 also
    # head_dim 64 in blocks of 32.
    coop = "chunk_size = 64, chunk_parallel = 1, cooperative = {}"
    for c, name in ((1, "chk_ssd_coop"), (2, "chk_ssd_coop2")):
        v[name + ("_f16" if c == 1 else "_partial")] = (
            "ssd", dict(b=2, l=1000, h=8, p=48, n=64, g=2), "f16", "DZBSIF",
            "block_n = 32, block_p = 32, num_subgroups = 4, " + coop.format(c), False)
        v[name + "_tail"] = (
            "ssd", dict(b=1, l=333, h=4, p=64, n=128, g=1), "f16", "DZBSIF",
            None if c == 1 else "block_n = 32, block_p = 64, num_subgroups = 16, " + coop.format(c),
            False)
        v[name + "_c16"] = ("ssd", dict(b=1, l=100, h=2, p=16, n=16, g=1), "f16", "DSIF",
                            "block_n = 16, block_p = 16, chunk_size = 16, num_subgroups = 1, "
                            f"chunk_parallel = 1, cooperative = {c}", False)
    v["chk_ssd_coop2_f16"] = ("ssd", dict(b=2, l=1000, h=8, p=64, n=64, g=2), "f16", "DZBSIF",
                              "block_n = 32, block_p = 32, num_subgroups = 4, " + coop.format(2),
                              False)
    return v


def t(*s, e):
    return "tensor<" + "x".join(map(str, s)) + "x" + e + ">"


def ir(op, s, dt, opts, config=None, bench=False):
    attrs = []
    if "S" in opts:
        attrs.append("delta_softplus" if op == "scan" else "dt_softplus")
    if config:
        attrs.append(f"config = #ejk.config<{config}>")
    a = " {" + ", ".join(attrs) + "}" if attrs else ""
    if op == "scan":
        x = t(s["b"], s["l"], s["d"], e=dt)
        A, bc = t(s["d"], s["n"], e="f32"), t(s["b"], s["l"], s["g"], s["n"], e=dt)
        vec, st = t(s["d"], e="f32"), t(s["b"], s["d"], s["n"], e="f32")
        names = ["u", "delta", "A", "B", "C"]
        types = [x, x, A, bc, bc]
        kw = {"D": ("D", vec), "Z": ("z", x), "B": ("delta_bias", vec),
              "I": ("initial_state", st)}
        opname = "ejk.selective_scan"
    else:
        x = t(s["b"], s["l"], s["h"], s["p"], e=dt)
        dtt, A = t(s["b"], s["l"], s["h"], e=dt), t(s["h"], e="f32")
        bc = t(s["b"], s["l"], s["g"], s["n"], e=dt)
        st = t(s["b"], s["h"], s["p"], s["n"], e="f32")
        names = ["x", "dt", "A", "B", "C"]
        types = [x, dtt, A, bc, bc]
        kw = {"D": ("D", A), "Z": ("z", x), "B": ("dt_bias", A),
              "I": ("initial_state", st)}
        opname = "ejk.ssd"
    args = [f"%{n}: {ty}" for n, ty in zip(names, types)]
    clauses = ""
    for k in "DZBI":
        if k in opts:
            word, ty = kw[k]
            args.append(f"%{word}: {ty}")
            clauses += f" {word}(%{word} : {ty})"
    results = [x] + ([st] if "F" in opts else [])
    res = "%y, %h" if "F" in opts else "%y"
    return (f"func.func @main({', '.join(args)}) -> ({', '.join(results)}) {{\n"
            f"  {res} = {opname} {', '.join('%' + n for n in names)}{clauses}{a}\n"
            f"      : {', '.join(types)} -> {', '.join(results)}\n"
            f"  return {res} : {', '.join(results)}\n}}\n")


def prepare(out, fingerprint):
    ejk_runtime.prepare(out, fingerprint, variants(), ir, __file__)


def inputs(op, s, dt, opts, gpu):
    """The op's inputs in argument order (f32 masters and device-typed)."""
    import torch
    g = torch.Generator(device=gpu).manual_seed(0)
    r = lambda *shape: torch.randn(*shape, device=gpu, generator=g)
    if op == "scan":
        b, l, d, n, gr = s["b"], s["l"], s["d"], s["n"], s["g"]
        ins = {"u": r(b, l, d), "delta": r(b, l, d) * 0.5 - 2.0,
               "A": -torch.exp(r(d, n) * 0.5), "B": r(b, l, gr, n), "C": r(b, l, gr, n)}
        opt = {"D": r(d), "Z": r(b, l, d), "B": r(d) * 0.1, "I": r(b, d, n)}
    else:
        b, l, h, p, n, gr = s["b"], s["l"], s["h"], s["p"], s["n"], s["g"]
        ins = {"x": r(b, l, h, p), "dt": r(b, l, h) * 0.5 - 2.0,
               "A": -torch.exp(r(h) * 0.5), "B": r(b, l, gr, n), "C": r(b, l, gr, n)}
        opt = {"D": r(h), "Z": r(b, l, h, p), "B": r(h) * 0.1, "I": r(b, h, p, n)}
    for k in "DZBI":
        if k in opts:
            ins["opt_" + k] = opt[k]
    tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[dt]
    # Activations take the element type; A, D, biases and states stay f32.
    typed = {k: (v.to(tdt) if k in ("u", "delta", "x", "dt", "B", "C", "opt_Z") else v)
             for k, v in ins.items()}
    # The reference sees the rounded values the kernel sees.
    return {k: v.float() for k, v in typed.items()}, typed


def reference(op, s, opts, x):
    """The step-by-step recurrence in f32 (PyTorch, on the GPU)."""
    import torch
    import torch.nn.functional as F
    if op == "scan":
        b, l, d, n, gr = s["b"], s["l"], s["d"], s["n"], s["g"]
        dt = x["delta"] + (x["opt_B"] if "B" in opts else 0)
        if "S" in opts:
            dt = torch.where(dt > 20, dt, F.softplus(dt, threshold=1e9))
        grp = torch.arange(d, device=dt.device) // (d // gr)
        Bg, Cg = x["B"][:, :, grp], x["C"][:, :, grp]          # [b, l, d, n]
        h = x["opt_I"].clone() if "I" in opts else torch.zeros(b, d, n, device=dt.device)
        ys = []
        for i in range(l):
            h = torch.exp(dt[:, i, :, None] * x["A"]) * h + (dt[:, i] * x["u"][:, i])[..., None] * Bg[:, i]
            ys.append((h * Cg[:, i]).sum(-1))
        y = torch.stack(ys, 1)
        if "D" in opts:
            y = y + x["opt_D"] * x["u"]
        if "Z" in opts:
            y = y * F.silu(x["opt_Z"])
        return y, h
    b, l, hh, p, n, gr = s["b"], s["l"], s["h"], s["p"], s["n"], s["g"]
    dt = x["dt"] + (x["opt_B"] if "B" in opts else 0)
    if "S" in opts:
        dt = torch.where(dt > 20, dt, F.softplus(dt, threshold=1e9))
    grp = torch.arange(hh, device=dt.device) // (hh // gr)
    Bg, Cg = x["B"][:, :, grp], x["C"][:, :, grp]              # [b, l, h, n]
    st = x["opt_I"].clone() if "I" in opts else torch.zeros(b, hh, p, n, device=dt.device)
    ys = []
    for i in range(l):
        st = torch.exp(dt[:, i] * x["A"])[..., None, None] * st + \
            (dt[:, i, :, None] * x["x"][:, i])[..., None] * Bg[:, i, :, None, :]
        ys.append((st * Cg[:, i, :, None, :]).sum(-1))
    y = torch.stack(ys, 1)
    if "D" in opts:
        y = y + x["opt_D"][:, None] * x["x"]
    if "Z" in opts:
        y = y * F.silu(x["opt_Z"])
    return y, st


def dispatch_times_us(rt, mod):
    """The last invoke's GPU time per dispatch (timestamp queries)."""
    import ctypes
    ns, count = (ctypes.c_uint64 * 16)(), ctypes.c_size_t()
    rt.rt.ejk_last_invoke_dispatch_times_ns(mod.mod, ns, ctypes.c_size_t(16),
                                            ctypes.byref(count))
    return [ns[i] / 1e3 for i in range(min(count.value, 16))]


def run(d):
    import torch
    log = lambda *a: print(*a, flush=True)
    gpu = torch.device("cuda")
    rt = ejk_runtime.Runtime(d)
    results = {"torch": torch.__version__, "device": rt.device_lines(),
               "gpu": torch.cuda.get_device_name()}
    cases = json.load(open(os.path.join(d, "cases.json")))
    # SSM_ONLY: a regular expression of the cases to run (all by default).
    only = re.compile(os.environ.get("SSM_ONLY", ""))
    refs = {}
    for name, (op, s, dt, opts, config, bench) in cases.items():
        if not only.search(name):
            continue
        try:
            key = json.dumps([op, s, dt, opts])
            x, typed = inputs(op, s, dt, opts, gpu)
            if key not in refs:
                refs[key] = reference(op, s, opts, x)
            y_ref, h_ref = refs[key]
            mod = rt.load(os.path.join(d, "art", name))
            ins = [rt.upload(v) for v in typed.values()]
            outs = [rt.empty(y_ref.numel() * typed["B"].element_size())]
            if "F" in opts:
                outs.append(rt.empty(h_ref.numel() * 4))
            mod.bind(ins, outs)
            mod.invoke()
            tdt = typed["B"].dtype
            y = rt.download(outs[0], tuple(y_ref.shape), tdt).float().to(gpu)
            entry = {"config": config, "max_abs_err": float((y - y_ref).abs().max()),
                     "max_abs_ref": float(y_ref.abs().max()), "nan": bool(torch.isnan(y).any())}
            if "F" in opts:
                h = rt.download(outs[1], tuple(h_ref.shape), torch.float32).to(gpu)
                entry["final_state_max_abs_err"] = float((h - h_ref).abs().max())
            manifest = json.load(open(os.path.join(d, "art", name, "kernel.json")))
            disp = manifest["entries"][0]["dispatches"]
            entry["dispatches"] = [dict(grid=q["grid"], spirv=q["spirv"]) for q in disp]
            if bench:
                operand_bytes = sum(v.numel() * v.element_size() for v in typed.values()) + \
                    sum(o.numel() * typed["B"].element_size() for o in [y_ref])
                ejk_runtime.warm(mod.invoke)
                entry["clocks_before"] = ejk_runtime.clocks()
                ts, per = [], []
                for _ in range(20):
                    mod.invoke()
                    ts.append(mod.last_time_us() / 1e3)
                    per.append(dispatch_times_us(rt, mod))
                ts.sort()
                entry["clocks_after"] = ejk_runtime.clocks()
                # Median GPU time of each dispatch, in the entry's order.
                entry["dispatch_us"] = [sorted(col)[len(col) // 2] for col in zip(*per)]
                entry.update(median_ms=ts[10], min_ms=ts[0], operand_bytes=operand_bytes,
                             gbps=operand_bytes / ts[10] / 1e6,
                             flops=sum(q["flops"] for q in disp))
            ejk_runtime.record(results, name, entry, log, rt, mod)
        except Exception as ex:
            ejk_runtime.record_error(results, name, ex, log)
    xx = torch.empty(256 * 2**20 // 4, device=gpu)
    yy = torch.empty_like(xx)
    ms = ejk_runtime.cuda_median_ms(lambda: yy.copy_(xx))
    results["copy_gbps"] = 2 * xx.numel() * 4 / ms / 1e6
    results["copy_clocks"] = ejk_runtime.clocks()
    for name, e in results.items():
        if isinstance(e, dict) and "gbps" in e:
            e["of_copy_rate"] = e["gbps"] / results["copy_gbps"]
    log("copy GB/s (read+write):", results["copy_gbps"])
    for name in [n for n in results if n.startswith("mamba")]:
        if "median_ms" in results.get(name, {}):
            log(name, results[name]["median_ms"], "ms",
                f"{100 * results[name]['of_copy_rate']:.1f} % of copy",
                results[name].get("dispatch_us"))
    ejk_runtime.save_results(d, "ssm", results)


if __name__ == "__main__":
    ejk_runtime.main(sys.argv, __doc__, prepare, run)
