#!/usr/bin/env python3
"""Probe and prototype kernels for mamba1 (B1 L2048 D2048 N16 f32, [B, L, D])
on the H100 (issue 21, session 21). GLSL generated here, compiled with
glslangValidator, wrapped in ejk artifacts (kernel.json) with the buffer list
of the ejkc channel-lanes artifact: u, delta, A, B, C, D | y | hend, dtsum.

Kernels (each a lane = one channel, a workgroup = WG channels of one split):
  full  : the two-pass channel-lanes scan (end states from zero per split,
          then the scan from the folded carry); delta/u P groups of K steps
          ahead with the loop unrolled P times (no queue rotation) or, ROT,
          the queue rotated every group (the committed form's structure).
  skel  : the same loop without per-state work (loads, softplus, stores).
  flat  : grid-stride vec4 stream y = delta + u (the Vulkan streaming bound).
"""
import json, os, subprocess, sys

L, D, N = int(os.environ.get("PL", 2048)), int(os.environ.get("PD", 2048)), 16
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.environ.get("POUT", "art"))

HDR = """#version 450
layout(local_size_x = {wg}) in;
layout(std430, set = 0, binding = 0) readonly buffer U {{ float u[]; }};
layout(std430, set = 0, binding = 1) readonly buffer DL {{ float delta[]; }};
layout(std430, set = 0, binding = 2) readonly buffer AA {{ float A[]; }};
layout(std430, set = 0, binding = 3) readonly buffer BB {{ vec4 B4[]; }};
layout(std430, set = 0, binding = 4) readonly buffer CC {{ vec4 C4[]; }};
layout(std430, set = 0, binding = 5) readonly buffer DD {{ float Dv[]; }};
layout(std430, set = 0, binding = 6) writeonly buffer YY {{ float y[]; }};
layout(std430, set = 0, binding = 7) buffer HE {{ float hend[]; }};
layout(std430, set = 0, binding = 8) buffer DS {{ float dtsum[]; }};
const int L = {L}, D = {D}, N = {N};
float softplus(float x) {{ return x > 20.0 ? x : log(1.0 + exp(x)); }}
// 2^x for x <= 0 on the FP32 pipe (magic-number rounding, Cephes' degree-6
// fit of 2^f - 1 on [-0.5, 0.5]).
float pexp2(float x) {{
  x = max(x, -125.0);
  float t = x + 12582912.0;
  int tb = floatBitsToInt(t);
  float j = intBitsToFloat(tb - 0x200000) - 10485760.0;
  float f = x - j;
  float p = 1.535336188319500e-4;
  p = p * f + 1.339887440266574e-3;
  p = p * f + 9.618437357674640e-3;
  p = p * f + 5.550332471162809e-2;
  p = p * f + 2.402264791363012e-1;
  p = p * f + 6.931472028550421e-1;
  p = p * f + 1.0;
  return intBitsToFloat(floatBitsToInt(p) + (tb << 23));
}}
"""


def ex(pe, n, arg):
    return f"pexp2({arg})" if n < pe else f"exp2({arg})"


def loop(v, body_step, t0, load_names, group_pre="", rot=False):
    """The walk over S steps in NG = S/K groups, delta/u P groups ahead.
    body_step(p, k, t) -> code using dl{p}_{k}, uu{p}_{k}."""
    S, K, P = v["S"], v["K"], v["P"]
    NG = S // K
    assert S % K == 0 and NG % P == 0, v
    c = []
    for p in range(P):
        for k in range(K):
            t = f"({t0} + {p * K + k})"
            for nm, buf in load_names:
                c.append(f"float {nm}{p}_{k} = {buf}[{t} * D + ch];")
    if not rot:
        c.append(f"for (int g = 0; g < {NG}; g += {P}) {{")
        for p in range(P):
            c.append(group_pre.format(t=f"({t0} + (g + {p}) * {K})"))
            for k in range(K):
                c.append(body_step(p, k, f"({t0} + (g + {p}) * {K} + {k})"))
            c.append(f"if (g + {p + P} < {NG}) {{")
            for k in range(K):
                t = f"({t0} + (g + {p + P}) * {K} + {k})"
                for nm, buf in load_names:
                    c.append(f"  {nm}{p}_{k} = {buf}[{t} * D + ch];")
            c.append("}")
        c.append("}")
    else:
        # The queue rotated every group: slot 0 in use, the new group
        # loaded into a temporary that becomes slot P-1.
        c.append(f"for (int g = 0; g < {NG}; g++) {{")
        c.append(group_pre.format(t=f"({t0} + g * {K})"))
        for k in range(K):
            for nm, buf in load_names:
                c.append(f"float {nm}n_{k} = {buf}[min({t0} + (g + {P}) * {K} + {k}, L - 1) * D + ch];")
        for k in range(K):
            c.append(body_step(0, k, f"({t0} + g * {K} + {k})"))
        for p in range(P - 1):
            for k in range(K):
                for nm, _ in load_names:
                    c.append(f"{nm}{p}_{k} = {nm}{p + 1}_{k};")
        for k in range(K):
            for nm, _ in load_names:
                c.append(f"{nm}{P - 1}_{k} = {nm}n_{k};")
        c.append("}")
    return "\n".join(c)



def bcs(v, src_lines, pre, with_c):
    """B (and C) of the split staged in shared memory once (one barrier,
    after the prologue's loads), read as broadcast vec4 words."""
    if not v.get("BCS"):
        return pre
    S = v["S"]
    decl = f"shared vec4 sB[{S * 4}];" + (f" shared vec4 sC[{S * 4}];" if with_c else "")
    src_lines.insert(src_lines.index("void main() {"), decl)
    return pre.replace("B4[(tb + ", "sB[(tb - t0 + ").replace("C4[(tb + ", "sC[(tb - t0 + ")


def states_src(v):
    """Split s < nsplit-1: end state from zero and the split's dt sum."""
    S, pe, full = v["S"], v.get("PE", 0), v["mode"] == "full"
    c = [HDR.format(wg=v["WG"], L=L, D=D, N=N), "void main() {",
         "int ch = int(gl_WorkGroupID.x) * %d + int(gl_LocalInvocationID.x);" % v["WG"],
         "int s = int(gl_WorkGroupID.z);", f"int t0 = s * {S};",
         "float dts = 0.0;"]
    if full:
        c += [f"float A2_{n} = A[ch * N + {n}] * 1.4426950408889634;" for n in range(N)]
        c += [f"float h{n} = 0.0;" for n in range(N)]
        pre = "{{ int tb = {t}; " + " ".join(
            f"vec4 Bw{k}_{j} = B4[(tb + {k}) * 4 + {j}];" for k in range(v["K"]) for j in range(4))
        post = "}"
    else:
        c.append("float acc = 0.0;")
        pre, post = "{{", "}"
        if v.get("BC"):
            pre = "{{ int tb = {t}; " + " ".join(
                f"vec4 Bw{k}_0 = B4[(tb + {k}) * 4];" for k in range(v["K"]))

    def step(p, k, t):
        s_ = [f"{{ float dt = softplus(dl{p}_{k}); dts += dt; float dtu = dt * uu{p}_{k};"]
        if full:
            for n in range(N):
                s_.append(f"h{n} = {ex(pe, n, f'dt * A2_{n}')} * h{n} + dtu * Bw{k}_{n // 4}[{n % 4}];")
        else:
            s_.append("acc += dtu;" + (f" acc += Bw{k}_0.x;" if v.get("BC") else ""))
        s_.append("}")
        return " ".join(s_)

    pre = bcs(v, c, pre, False) if full else pre
    body = loop(v, step, "t0", [("dl", "delta"), ("uu", "u")], group_pre=pre, rot=v.get("ROT"))
    if full and v.get("BCS"):
        k = body.index("for (int g")
        body = body[:k] + (f"for (int i = int(gl_LocalInvocationID.x); i < {S * 4}; i += {v['WG']}) sB[i] = B4[t0 * 4 + i];\nbarrier();\n") + body[k:]
    # close the group's brace: insert post after each group's steps
    if not v.get("ROT"):
        body = body.replace("\nif (g +", "\n" + post + "\nif (g +")
    else:
        # the rotated loop: close the pre-brace right before the loop's end
        idx = body.rfind("}")
        body = body[:idx] + post + "\n" + body[idx:]
    c.append(body)
    if full:
        c += [f"hend[(s * N + {n}) * D + ch] = h{n};" for n in range(N)]
    else:
        c.append("hend[s * N * D + ch] = acc;")
    c += ["dtsum[s * D + ch] = dts;", "}"]
    return "\n".join(c)


def scan_src(v):
    """Split s: fold the earlier splits' end states (FB at a time), walk."""
    S, pe, full, FB = v["S"], v.get("PE", 0), v["mode"] == "full", v.get("FB", 4)
    c = [HDR.format(wg=v["WG"], L=L, D=D, N=N), "void main() {",
         "int ch = int(gl_WorkGroupID.x) * %d + int(gl_LocalInvocationID.x);" % v["WG"],
         "int s = int(gl_WorkGroupID.z);", f"int t0 = s * {S};", "float Dc = Dv[ch];"]
    if full:
        c += [f"float A2_{n} = A[ch * N + {n}] * 1.4426950408889634;" for n in range(N)]
        c += [f"float h{n} = 0.0;" for n in range(N)]
        # The fold, FB splits' 17 values loaded before their math.
        c.append(f"for (int kb = 0; kb < s; kb += {FB}) {{")
        for f in range(FB):
            c.append(f"int k{f} = min(kb + {f}, s - 1); float ds{f} = dtsum[k{f} * D + ch];")
            c += [f"float he{f}_{n} = hend[(k{f} * N + {n}) * D + ch];" for n in range(N)]
        for f in range(FB):
            c.append(f"if (kb + {f} < s) {{")
            c += [f"  h{n} = exp2(A2_{n} * ds{f}) * h{n} + he{f}_{n};" for n in range(N)]
            c.append("}")
        c.append("}")
        pre = "{{ int tb = {t}; " + " ".join(
            f"vec4 Bw{k}_{j} = B4[(tb + {k}) * 4 + {j}]; vec4 Cw{k}_{j} = C4[(tb + {k}) * 4 + {j}];"
            for k in range(v["K"]) for j in range(4))
        post = "}"
    else:
        c.append("float carry = s > 0 ? hend[(s - 1) * N * D + ch] + dtsum[(s - 1) * D + ch] : 0.0;")
        pre, post = "{{", "}"
        if v.get("BC"):
            pre = "{{ int tb = {t}; " + " ".join(
                f"vec4 Bw{k}_0 = B4[(tb + {k}) * 4]; vec4 Cw{k}_0 = C4[(tb + {k}) * 4];"
                for k in range(v["K"]))

    def step(p, k, t):
        s_ = [f"{{ float uv = uu{p}_{k}; float dt = softplus(dl{p}_{k}); float dtu = dt * uv; float yv = 0.0; float yw = 0.0;"]
        if full:
            for n in range(N):
                acc = "yv" if n % 2 == 0 else "yw"
                s_.append(f"h{n} = {ex(pe, n, f'dt * A2_{n}')} * h{n} + dtu * Bw{k}_{n // 4}[{n % 4}];"
                          f" {acc} += Cw{k}_{n // 4}[{n % 4}] * h{n};")
        else:
            s_.append("yv = dtu + carry;" + (f" yv += Bw{k}_0.x * Cw{k}_0.y;" if v.get("BC") else ""))
        s_.append(f"y[{t} * D + ch] = yv + yw + Dc * uv; }}")
        return " ".join(s_)

    pre = bcs(v, c, pre, True) if full else pre
    body = loop(v, step, "t0", [("dl", "delta"), ("uu", "u")], group_pre=pre, rot=v.get("ROT"))
    if full and v.get("BCS"):
        k = body.index("for (int g")
        body = body[:k] + (f"for (int i = int(gl_LocalInvocationID.x); i < {S * 4}; i += {v['WG']}) {{ sB[i] = B4[t0 * 4 + i]; sC[i] = C4[t0 * 4 + i]; }}\nbarrier();\n") + body[k:]
    if not v.get("ROT"):
        body = body.replace("\nif (g +", "\n" + post + "\nif (g +")
    else:
        idx = body.rfind("}")
        body = body[:idx] + post + "\n" + body[idx:]
    c += [body, "}"]
    return "\n".join(c)


def flat_src(v):
    """A grid-stride vec4 stream: y = delta + u (read 2, write 1)."""
    return f"""#version 450
layout(local_size_x = {v['WG']}) in;
layout(std430, set = 0, binding = 0) readonly buffer U {{ vec4 u[]; }};
layout(std430, set = 0, binding = 1) readonly buffer DL {{ vec4 delta[]; }};
layout(std430, set = 0, binding = 6) writeonly buffer YY {{ vec4 y[]; }};
void main() {{
  int n = {L * D // 4};
  int stride = int(gl_NumWorkGroups.x) * {v['WG']};
  for (int i = int(gl_GlobalInvocationID.x); i < n; i += {v['U']} * stride) {{
{chr(10).join(f"    vec4 a{j} = delta[min(i + {j} * stride, n - 1)]; vec4 b{j} = u[min(i + {j} * stride, n - 1)];" for j in range(v['U']))}
{chr(10).join(f"    if (i + {j} * stride < n) y[i + {j} * stride] = a{j} + b{j};" for j in range(v['U']))}
  }}
}}
"""


BUFS = [([1, L, D], "input"), ([1, L, D], "input"), ([D, N], "input"), ([1, L, 1, N], "input"),
        ([1, L, 1, N], "input"), ([D], "input"), ([1, L, D], "output"),
        ([1, L // 64 + 31, D, N], "temporary"), ([1, L // 64 + 31, D], "temporary")]


def compile_glsl(src, path):
    open(path + ".comp", "w").write(src)
    r = subprocess.run(["glslangValidator", "-V", "--target-env", "vulkan1.2", "-S", "comp",
                        "-o", path + ".spv", path + ".comp"], capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(path + ": " + r.stdout[-2000:] + r.stderr[-2000:])
    subprocess.run(["spirv-val", "--target-env", "vulkan1.2", path + ".spv"], check=True)


def artifact(name, dispatches):
    """dispatches: [(src, grid, wg)]"""
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    ds = []
    for i, (src, grid, wg) in enumerate(dispatches):
        compile_glsl(src, os.path.join(d, f"d{i}"))
        ds.append({"bindings": list(range(9)), "bytes": 0, "entry_point": "main", "flops": 0,
                   "grid": grid, "push_constants": [], "requires": [], "shared_memory_bytes": 0,
                   "spirv": f"d{i}.spv", **({} if os.environ.get("PL") else {"subgroup_size": 32}), "symbol": f"main_{i}",
                   "workgroup_size": [wg, 1, 1]})
    m = {"compiler_version": "0.1.0", "format": "ejk-artifact", "target": "vulkan", "version": 1,
         "entries": [{"buffers": [{"dtype": "f32", "role": r, "shape": s} for s, r in BUFS],
                      "dispatches": ds, "name": "main"}]}
    json.dump(m, open(os.path.join(d, "kernel.json"), "w"), indent=1)


def scan_artifact(name, v, passes="both"):
    nsplit = L // v["S"]
    gx = D // v["WG"]
    ds = []
    if passes in ("both", "states") and nsplit > 1:
        ds.append((states_src(v), [gx, 1, nsplit - 1], v["WG"]))
    if passes in ("both", "scan"):
        ds.append((scan_src(v), [gx, 1, nsplit], v["WG"]))
    artifact(name, ds)


def variants():
    v = {}
    # The Vulkan streaming bound: flat vec4 y = delta + u.
    for wg, grid, u in ((256, 132 * 8, 4), (256, 132 * 8, 1), (256, 8192, 1), (512, 132 * 4, 8)):
        v[f"flat_wg{wg}_g{grid}_u{u}"] = ("flat", dict(WG=wg, G=grid, U=u))
    # The skeleton: warps (split S, WG) x steps in flight (P groups of K).
    for S, WG, K, P, rot, bc in ((128, 32, 4, 1, 0, 0), (128, 32, 4, 1, 1, 0), (128, 32, 4, 2, 1, 0),
                                 (128, 32, 4, 4, 1, 0),
                                 (128, 32, 4, 2, 0, 0), (128, 32, 4, 4, 0, 0), (128, 32, 8, 2, 0, 0),
                                 (128, 32, 8, 4, 0, 0), (128, 32, 2, 8, 0, 0), (128, 32, 16, 2, 0, 0),
                                 (128, 64, 4, 4, 0, 0), (128, 128, 4, 4, 0, 0), (128, 256, 4, 4, 0, 0),
                                 (64, 32, 4, 4, 0, 0), (256, 32, 4, 4, 0, 0), (64, 64, 8, 2, 0, 0),
                                 (256, 64, 4, 4, 0, 0), (512, 32, 8, 4, 0, 0),
                                 (128, 32, 4, 4, 0, 1), (128, 64, 4, 4, 0, 1)):
        v[f"skel_s{S}_wg{WG}_k{K}_p{P}" + ("_rot" if rot else "") + ("_bc" if bc else "")] = (
            "scan", dict(mode="skel", S=S, WG=WG, K=K, P=P, ROT=rot, BC=bc))
    # The full scan, unrolled prefetch.
    for S, WG, K, P, pe in ((128, 32, 4, 4, 0), (128, 32, 2, 8, 0), (128, 32, 4, 2, 0),
                            (128, 64, 4, 4, 0), (128, 128, 4, 4, 0), (64, 32, 4, 4, 0),
                            (64, 64, 4, 4, 0), (256, 32, 4, 4, 0), (128, 32, 4, 4, 2),
                            (128, 32, 4, 4, 4), (64, 32, 4, 4, 2), (128, 32, 2, 4, 0),
                            (128, 32, 1, 8, 0), (128, 32, 4, 1, 0), (128, 32, 2, 8, 2),
                            (64, 32, 2, 8, 0), (128, 64, 2, 8, 0), (128, 32, 1, 16, 0),
                            (64, 32, 2, 4, 0), (256, 32, 2, 8, 0)):
        v[f"full_s{S}_wg{WG}_k{K}_p{P}_pe{pe}"] = (
            "scan", dict(mode="full", S=S, WG=WG, K=K, P=P, PE=pe, FB=4))
    for S, WG, K, P in ((128, 32, 4, 4), (128, 64, 4, 4), (128, 128, 4, 4), (128, 32, 2, 8),
                        (128, 64, 2, 8), (64, 64, 4, 4)):
        v[f"full_s{S}_wg{WG}_k{K}_p{P}_pe0_bcs"] = (
            "scan", dict(mode="full", S=S, WG=WG, K=K, P=P, PE=0, FB=4, BCS=1))
    # One pass, time sequential in a lane, states across lanes.
    for spl, tt, cw in ((1, 64, 16), (2, 64, 16), (1, 64, 8), (2, 64, 8), (2, 32, 16),
                        (2, 32, 8), (4, 64, 16), (4, 64, 8)):
        v[f"sl_spl{spl}_tt{tt}_cw{cw}"] = ("sl", dict(SPL=spl, TT=tt, CW=cw))
    for spl, tt, cw in ((1, 64, 16), (2, 64, 16), (1, 64, 8), (2, 64, 8), (2, 32, 16), (4, 64, 16),
                        (1, 32, 8), (2, 32, 8)):
        v[f"sl_spl{spl}_tt{tt}_cw{cw}_pf2"] = ("sl", dict(SPL=spl, TT=tt, CW=cw, PF=2))
    for spl, pe in ((2, 1), (1, 1)):
        v[f"sl_spl{spl}_tt64_cw16_pf2_pe{pe}"] = ("sl", dict(SPL=spl, TT=64, CW=16, PF=2, PE=pe))
    # y staged in shared memory and stored in rows of CW channels (after
    # call 2: the skeleton's 50 us; prepared, not timed by this helper).
    for spl, tt, cw, pf in ((1, 32, 16, 2), (1, 32, 16, 1), (1, 32, 8, 2), (1, 64, 8, 2),
                            (2, 32, 16, 2), (2, 32, 8, 2), (2, 64, 8, 2)):
        v[f"sl_spl{spl}_tt{tt}_cw{cw}" + ("_pf2" if pf == 2 else "") + "_ys"] = (
            "sl", dict(SPL=spl, TT=tt, CW=cw, PF=pf, YS=1))
    for spl, cw in ((1, 16), (1, 8)):
        v[f"dropstate_sl_spl{spl}_tt32_cw{cw}_pf2_ys"] = ("sl", dict(SPL=spl, TT=32, CW=cw, PF=2,
                                                                     YS=1, DROP="state"))
    # Phase drops (outputs wrong by design): the exp an FMUL, the y
    # reduce-scatter a local sum, no per-state work (the skeleton).
    for spl, cw in ((1, 16), (2, 16)):
        for drop in ("exp", "red", "state"):
            v[f"drop{drop}_sl_spl{spl}_tt64_cw{cw}_pf2"] = ("sl", dict(SPL=spl, TT=64, CW=cw, PF=2,
                                                                       DROP=drop))
    v["full_s128_wg32_k4_p4_pe0_rot"] = ("scan", dict(mode="full", S=128, WG=32, K=4, P=4, ROT=1))
    return v


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = {}
    for name, (kind, p) in variants().items():
        if kind == "flat":
            artifact(name, [(flat_src(p), [p["G"], 1, 1], p["WG"])])
        elif kind == "sl":
            sl_artifact(name, p)
        else:
            scan_artifact(name, p)
        cases[name] = [kind, p]
        print(name, "ok", flush=True)
    json.dump(cases, open(os.path.join(OUT, "..", "probes.json"), "w"), indent=1)


if __name__ == "__main__":
    main()


def sl_src(v):
    """One pass, time sequential in a lane: lane (cl, g) owns channel c0 + cl
    and states g*SPL .. g*SPL + SPL - 1 (LPC = 16 / SPL lanes a channel),
    for the whole sequence. A tile of TT steps (dt, dt*u, u of CW channels;
    B and C) is staged in shared memory (transposed: a lane reads 4 steps
    as a vec4), double-buffered, one barrier a tile; its global loads are
    issued a tile ahead. A batch of T = LPC steps: y partials p[0..T-1] per
    lane, reduce-scattered over the LPC lanes (lane g gets step g)."""
    SPL, TT, CW = v["SPL"], v["TT"], v["CW"]
    LPC = N // SPL
    T = LPC
    WG = CW * LPC
    E = TT * CW // WG          # delta/u elements a thread stages
    EB = max(1, TT * 4 // WG)  # B (and C) vec4 words a thread stages
    BCG = TT * 4 < WG          # fewer words than threads: the first TT*4 stage them
    assert TT % T == 0 and T % 4 == 0 and TT * CW % WG == 0 and (BCG or TT * 4 % WG == 0) and L % TT == 0
    P = TT + 4                 # padded row (floats), 16-byte aligned
    NT = L // TT
    c = [f"""#version 450
#extension GL_KHR_shader_subgroup_shuffle : enable
layout(local_size_x = {WG}) in;
layout(std430, set = 0, binding = 0) readonly buffer U {{ float u[]; }};
layout(std430, set = 0, binding = 1) readonly buffer DL {{ float delta[]; }};
layout(std430, set = 0, binding = 2) readonly buffer AA {{ float A[]; }};
layout(std430, set = 0, binding = 3) readonly buffer BB {{ vec4 B4[]; }};
layout(std430, set = 0, binding = 4) readonly buffer CC {{ vec4 C4[]; }};
layout(std430, set = 0, binding = 5) readonly buffer DD {{ float Dv[]; }};
layout(std430, set = 0, binding = 6) writeonly buffer YY {{ float y[]; }};
const int L = {L}, D = {D}, N = {N};
float softplus(float x) {{ return x > 20.0 ? x : log(1.0 + exp(x)); }}
float pexp2(float x) {{
  x = max(x, -125.0);
  float t = x + 12582912.0;
  int tb = floatBitsToInt(t);
  float j = intBitsToFloat(tb - 0x200000) - 10485760.0;
  float f = x - j;
  float p = 1.535336188319500e-4;
  p = p * f + 1.339887440266574e-3;
  p = p * f + 9.618437357674640e-3;
  p = p * f + 5.550332471162809e-2;
  p = p * f + 2.402264791363012e-1;
  p = p * f + 6.931472028550421e-1;
  p = p * f + 1.0;
  return intBitsToFloat(floatBitsToInt(p) + (tb << 23));
}}
shared vec4 sDT[2 * {CW * P // 4}];
shared vec4 sDU[2 * {CW * P // 4}];
shared float sU[2 * {CW * P}];
{"shared float sY[2 * " + str(TT * (CW + 1)) + "];" if v.get("YS") else ""}
shared vec4 sB[2 * {N * P // 4}];
shared vec4 sC[2 * {N * P // 4}];
void main() {{
  int lid = int(gl_LocalInvocationID.x);
  int c0 = int(gl_WorkGroupID.x) * {CW};
  int cl = lid / {LPC}, g = lid % {LPC};
  int ch = c0 + cl;
  float Dc = Dv[ch];"""]
    for s in range(SPL):
        c.append(f"  float A2_{s} = A[ch * N + g * {SPL} + {s}] * 1.4426950408889634; float h{s} = 0.0;")
    # staging: element e = i*WG + lid -> step e / CW, channel e % CW.

    def loads(tile, r=""):
        o = []
        for i in range(E):
            o.append(f"float ld{r}{i} = delta[({tile} * {TT} + {(i * WG) // CW} + lid / {CW}) * D + c0 + lid % {CW}];"
                     f" float lu{r}{i} = u[({tile} * {TT} + {(i * WG) // CW} + lid / {CW}) * D + c0 + lid % {CW}];")
        for i in range(EB):
            w = f"min(lid, {TT * 4 - 1})" if BCG else f"{i * WG} + lid"
            o.append(f"vec4 lb{r}{i} = B4[{tile} * {TT * 4} + {w}]; vec4 lc{r}{i} = C4[{tile} * {TT * 4} + {w}];")
        return "\n  ".join(o)

    def stores(buf, r=""):
        o = [f"{{ int cc = lid % {CW}; float* dummy; }}"][:0]
        sDTf = "sDT"
        for i in range(E):
            t = f"({(i * WG) // CW} + lid / {CW})"
            o.append(f"{{ float dt = softplus(ld{r}{i}); int a = {buf} * {CW * P} + (lid % {CW}) * {P} + {t};"
                     f" sDT[a >> 2][a & 3] = dt; sDU[a >> 2][a & 3] = dt * lu{r}{i}; sU[a] = lu{r}{i}; }}")
        for i in range(EB):
            # word e = i*WG + lid: step e / 4, states 4 * (e % 4) ..
            o.append(("if (lid < %d) " % (TT * 4) if BCG else "") + f"{{ int e = {i * WG} + lid; int t = e >> 2; int n0 = (e & 3) * 4;")
            for q in range(4):
                o.append(f"  {{ int a = {buf} * {N * P} + (n0 + {q}) * {P} + t; sB[a >> 2][a & 3] = lb{r}{i}[{q}]; sC[a >> 2][a & 3] = lc{r}{i}[{q}]; }}")
            o.append("}")
        return "\n  ".join(o)

    drop = v.get("DROP", "")

    def tile_body(kx):
        """Tile kx (in shared buffer kx & 1): its TT / T batches; closes
        with the batch loop (the caller closes the bo scope)."""
        c.append(f"    {{ int bo = ({kx} & 1);")
        c.append(f"    for (int b = 0; b < {TT // T}; b++) {{")
        for j4 in range(T // 4):
            c.append(f"      int a{j4} = bo * {CW * P} + cl * {P} + b * {T} + {j4 * 4};"
                     f" vec4 dt4_{j4} = sDT[a{j4} >> 2]; vec4 du4_{j4} = sDU[a{j4} >> 2];")
            if drop == "state":
                continue
            for s_ in range(SPL):
                c.append(f"      int q{j4}_{s_} = bo * {N * P} + (g * {SPL} + {s_}) * {P} + b * {T} + {j4 * 4};"
                         f" vec4 B4_{j4}_{s_} = sB[q{j4}_{s_} >> 2]; vec4 C4_{j4}_{s_} = sC[q{j4}_{s_} >> 2];")
        for j in range(T):
            j4, jj = j // 4, j % 4
            c.append(f"      float p{j};")
            c.append(f"      {{ float dt = dt4_{j4}[{jj}]; float du = du4_{j4}[{jj}];")
            if drop == "state":
                c.append(f"        p{j} = du;")
            for s_ in range(SPL if drop != "state" else 0):
                a_ = f"dt * A2_{s_}" if drop == "exp" else (
                    f"pexp2(dt * A2_{s_})" if s_ < v.get("PE", 0) else f"exp2(dt * A2_{s_})")
                c.append(f"        h{s_} = {a_} * h{s_} + du * B4_{j4}_{s_}[{jj}];")
                c.append(f"        p{j} = " + (f"p{j} + " if s_ else "") + f"C4_{j4}_{s_}[{jj}] * h{s_};")
            c.append("      }")
        vals = [f"p{j}" for j in range(T)]
        if drop in ("red", "state"):
            expr = "(" + " + ".join(vals) + ")"
        else:
            m, lvl = T // 2, 0
            while m >= 1:
                c.append(f"      bool bit{lvl} = (g & {m}) != 0;")
                nv = []
                for i in range(m):
                    lo, hi = vals[i], vals[i + m]
                    c.append(f"      float r{lvl}_{i} = (bit{lvl} ? {hi} : {lo}) + "
                             f"subgroupShuffleXor(bit{lvl} ? {lo} : {hi}, {m});")
                    nv.append(f"r{lvl}_{i}")
                vals, m, lvl = nv, m // 2, lvl + 1
            expr = vals[0]
        c.append(f"      int tl = b * {T} + g;")
        if v.get("YS"):
            c.append(f"      sY[bo * {TT * (CW + 1)} + tl * {CW + 1} + cl] = {expr} + Dc * sU[bo * {CW * P} + cl * {P} + tl];")
        else:
            c.append(f"      y[({kx} * {TT} + tl) * D + ch] = {expr} + Dc * sU[bo * {CW * P} + cl * {P} + tl];")
        c.append("    }")

    def ystore(kx, guard):
        """Tile kx's y (complete in sY since the last barrier) stored in
        rows of CW channels."""
        if not v.get("YS"):
            return
        o = [f"    if ({guard}) {{ int bp = ({kx}) & 1;"]
        for i in range(E):
            t = f"({(i * WG) // CW} + lid / {CW})"
            o.append(f"      y[(({kx}) * {TT} + {t}) * D + c0 + lid % {CW}] = sY[bp * {TT * (CW + 1)} + {t} * {CW + 1} + lid % {CW}];")
        o.append("    }")
        c.extend(o)

    c.append("  " + loads("0"))
    c.append("  " + stores("0"))
    c.append("  barrier();")
    if v.get("PF", 1) == 1:
        c.append(f"  for (int k = 0; k < {NT}; k++) {{")
        ystore("k - 1", "k > 0")
        c.append(f"    int kn = min(k + 1, {NT - 1});")
        c.append("    " + loads("kn"))
        tile_body("k")
        c.append(f"    if (k + 1 < {NT}) {{")
        c.append("    " + stores("(bo ^ 1)"))
        c.append("    }}")
        c.append("    barrier();")
        c.append("  }")
    else:
        # Two register sets, the loop unrolled twice: tile k+2's loads are
        # issued before tile k's math, stored after tile k+1's.
        assert NT % 2 == 0
        c.append("  " + loads("1", "x"))
        c.append(f"  for (int k = 0; k < {NT}; k += 2) {{")
        ystore("k - 1", "k > 0")
        c.append(f"    int k2 = min(k + 2, {NT - 1});")
        c.append("    " + loads("k2", "y"))
        tile_body("k")
        c.append(f"    if (k + 1 < {NT}) {{")
        c.append("    " + stores("(bo ^ 1)", "x"))
        c.append("    }}")
        c.append("    barrier();")
        ystore("k", "true")
        c.append(f"    int k3 = min(k + 3, {NT - 1});")
        c.append("    " + loads("k3", "x").replace("float ld", "ld").replace("float lu", "lu")
                 .replace("vec4 lb", "lb").replace("vec4 lc", "lc"))
        tile_body("(k + 1)")
        c.append(f"    if (k + 2 < {NT}) {{")
        c.append("    " + stores("(bo ^ 1)", "y"))
        c.append("    }}")
        c.append("    barrier();")
        c.append("  }")
    ystore(str(NT - 1), "true")
    c.append("}")
    return "\n".join(c)


def sl_artifact(name, v):
    WG = v["CW"] * (N // v["SPL"])
    artifact(name, [(sl_src(v), [D // v["CW"], 1, 1], WG)])
