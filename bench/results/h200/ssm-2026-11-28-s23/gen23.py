#!/usr/bin/env python3
"""Session 23 (H200): why the one-pass mamba1 skeleton takes ~50 us when a flat
stream of the same bytes takes 26 us (issue 21). Hand-written GLSL kernels of
mamba1's streams (B1 L2048 D2048 N16 f32, [B, L, D]) as ejk artifacts, built
on session 21's gen.py (its HDR, flat_src, artifact, pexp2).

Families (names):
  flat_g{G}_wg{WG}_u{U}   grid-stride vec4 y = delta + u (G workgroups).
  rows_g{G}_u{U}          each workgroup streams one contiguous 1/G of the
                          arrays (the same loads, no interleaving).
  walk_cw{CW}_wg{WG}_w{W}_u{U}_pf{PF}
                          a workgroup owns CW channels and walks time, loads
                          straight to registers (W = 4: 16-byte words of 4
                          channels; 1: scalars), U rows-groups a set, PF sets
                          (PF - 1 sets in flight while one is used), y =
                          softplus(delta) * u + D * u stored in place. No
                          shared memory, no barriers.
  skel_sl2_* / sl2_*      the one-pass form (session 21's `sl`: lane = channel
                          x SPL states, time sequential, tiles of TT steps of
                          CW channels staged in shared memory transposed, y
                          reduce-scattered over the channel's lanes),
                          generalised: PF register sets of staging loads (tile
                          k + PF issued before tile k's math), VL = 1 staging
                          loads as 16-byte words of 4 channels, NOBAR (no
                          barrier: timing only), NOY (y stored only if it is
                          -1234.5: reads only), PEJ steps of every batch of T
                          with exp2 as a polynomial on the FMA pipe. skel_ =
                          no state work (loads, softplus, staging, barrier,
                          y = sum of du + D u).
"""
import json, os, re
os.environ.setdefault("POUT", "art")
import gen
from gen import L, D, N

def softplus4():
    return ("vec4 sp4(vec4 x) { return mix(log(vec4(1.0) + exp(x)), x, "
            "greaterThan(x, vec4(20.0))); }")


def rows_src(v):
    """Workgroup w streams vec4s [w * span, (w + 1) * span) of y = delta + u."""
    WG, G, U = v["WG"], v["G"], v["U"]
    n = L * D // 4
    assert n % G == 0 and (n // G) % (WG * U) == 0
    span = n // G
    return f"""#version 450
layout(local_size_x = {WG}) in;
layout(std430, set = 0, binding = 0) readonly buffer Ub {{ vec4 u[]; }};
layout(std430, set = 0, binding = 1) readonly buffer DL {{ vec4 delta[]; }};
layout(std430, set = 0, binding = 6) writeonly buffer YY {{ vec4 y[]; }};
void main() {{
  int base = int(gl_WorkGroupID.x) * {span} + int(gl_LocalInvocationID.x);
  for (int i = base; i < base + {span}; i += {WG * U}) {{
{chr(10).join(f"    vec4 a{j} = delta[i + {j * WG}]; vec4 b{j} = u[i + {j * WG}];" for j in range(U))}
{chr(10).join(f"    y[i + {j * WG}] = a{j} + b{j};" for j in range(U))}
  }}
}}
"""


def flat_noy_src(v):
    """gen.flat_src with y stored only if it is -1234.5 (reads only)."""
    src = gen.flat_src(v)
    for j in range(v["U"]):
        src = src.replace(f"if (i + {j} * stride < n) y[", f"if (i + {j} * stride < n && a{j}.x + b{j}.x == -1234.5) y[")
    return src


def walk_src(v):
    CW, WG, W, U, PF = v["CW"], v["WG"], v["W"], v["U"], v["PF"]
    Q = CW // W               # words a row
    assert WG % Q == 0
    RP = WG // Q              # rows a load instruction
    G = RP * U                # steps a set
    NG = L // G
    assert L % G == 0 and NG % PF == 0
    ty = "vec4" if W == 4 else "float"
    sp = "sp4" if W == 4 else "softplus"
    c = [gen.HDR.format(wg=WG, L=L, D=D, N=N).replace("float u[]", f"{ty} u[]")
         .replace("float delta[]", f"{ty} delta[]").replace("float y[]", f"{ty} y[]"),
         softplus4() if W == 4 else "", "void main() {",
         "  int lid = int(gl_LocalInvocationID.x);",
         f"  int q = lid % {Q}, r0 = lid / {Q};",
         f"  int col = int(gl_WorkGroupID.x) * {Q} + q;"]
    if W == 4:
        c.append("  vec4 Dc = vec4(Dv[col * 4], Dv[col * 4 + 1], Dv[col * 4 + 2], Dv[col * 4 + 3]);")
    else:
        c.append("  float Dc = Dv[col];")
    DW = D // W

    def loads(r, grp, decl):
        o = []
        for j in range(U):
            idx = f"(({grp}) * {G} + {j * RP} + r0) * {DW} + col"
            o.append(f"  {decl}a{r}_{j} = delta[{idx}]; {decl}b{r}_{j} = u[{idx}];")
        return "\n".join(o)

    EBW = G * 4 // WG if v.get("BC") else 0
    assert not EBW or G * 4 % WG == 0
    base_loads = loads

    def loads(r, grp, decl):
        o = base_loads(r, grp, decl)
        for i in range(EBW):
            o += f"\n  {'vec4 ' if decl else ''}bb{r}_{i} = B4[({grp}) * {G * 4} + {i * WG} + lid];"
            o += f" {'vec4 ' if decl else ''}cc{r}_{i} = C4[({grp}) * {G * 4} + {i * WG} + lid];"
        return o

    for r in range(PF):
        c.append(loads(r, str(r), ty + " "))
    c.append(f"  for (int g = 0; g < {NG}; g += {PF}) {{")
    for r in range(PF):
        for j in range(U):
            idx = f"((g + {r}) * {G} + {j * RP} + r0) * {DW} + col"
            val = f"{sp}(a{r}_{j}) * b{r}_{j} + Dc * b{r}_{j}"
            if v.get("NOY"):
                c.append(f"    {{ {ty} yv = {val}; if (yv == {ty}(-1234.5)) y[{idx}] = yv; }}")
            else:
                c.append(f"    y[{idx}] = {val};")
        if EBW:
            c.append("    { vec4 bs = " + " + ".join(f"bb{r}_{i} * cc{r}_{i}" for i in range(EBW)) +
                     f"; if (bs.x + bs.y + bs.z + bs.w == -1234.5) y[(g + {r}) * {G} * {DW}] = {ty}(bs.x); }}")
        c.append(loads(r, f"min(g + {r + PF}, {NG - 1})", ""))
    c += ["  }", "}"]
    return "\n".join(c)


def sl2_src(v):
    SPL, TT, CW = v["SPL"], v["TT"], v["CW"]
    PF, VL, drop, PEJ = v.get("PF", 1), v.get("VL", 0), v.get("DROP", ""), v.get("PEJ", 0)
    LPC = N // SPL
    T = LPC
    WG = CW * LPC
    LW = v.get("WS", 0)        # loader threads (warp specialised), 0: none
    SW = LW or WG
    NCMP = WG if LW else 0
    NT = L // TT
    assert NT % PF == 0 and TT % T == 0 and T % 4 == 0 and (not PEJ or T % PEJ == 0)
    P = TT + 4
    Wd = 4 if VL else 1
    Q = CW // Wd                       # staging words a row
    words = TT * Q
    E = max(1, words // SW)
    EG = words < SW
    assert EG or words % SW == 0
    EB = max(1, TT * 4 // SW)
    BCG = TT * 4 < SW
    assert BCG or TT * 4 % SW == 0
    ty = "vec4" if VL else "float"
    hdr = gen.HDR.format(wg=WG + LW, L=L, D=D, N=N)
    if VL:
        hdr = hdr.replace("float u[]", "vec4 u[]").replace("float delta[]", "vec4 delta[]")
    hdr = hdr.replace("#version 450", "#version 450\n#extension GL_KHR_shader_subgroup_shuffle : enable")
    c = [hdr,
         f"shared vec4 sDT[2 * {CW * P // 4}];", f"shared vec4 sDU[2 * {CW * P // 4}];",
         f"shared float sU[2 * {CW * P}];",
         f"shared vec4 sB[2 * {N * P // 4}];", f"shared vec4 sC[2 * {N * P // 4}];",
         "void main() {", "  int lid = int(gl_LocalInvocationID.x);",
         f"  int c0 = int(gl_WorkGroupID.x) * {CW};",
         f"  int cl = min(lid / {LPC}, {CW - 1}), g = lid % {LPC};", f"  int si = lid - {NCMP};", "  int ch = c0 + cl;", "  float Dc = Dv[ch];",
         f"  int wl = {f'min(si, {words - 1})' if EG else 'si'};",
         f"  int bl = {f'min(si, {TT * 4 - 1})' if BCG else 'si'};"]
    for s in range(SPL):
        c.append(f"  float A2_{s} = A[ch * N + g * {SPL} + {s}] * 1.4426950408889634; float h{s} = 0.0;")
    for r in range(PF):
        for i in range(E):
            c.append(f"  {ty} ld{r}_{i}; {ty} lu{r}_{i};")
        for i in range(EB):
            c.append(f"  vec4 lb{r}_{i}; vec4 lc{r}_{i};")

    def loads(r, tile):
        o = []
        for i in range(E):
            # word e = i * WG + wl: step e / Q, word e % Q of the row.
            st = f"({(i * SW) // Q} + wl / {Q})"
            if VL:
                idx = f"({tile} * {TT} + {st}) * {D // 4} + {CW // 4} * int(gl_WorkGroupID.x) + wl % {Q}"
            else:
                idx = f"({tile} * {TT} + {st}) * D + c0 + wl % {Q}"
            o.append(f"ld{r}_{i} = delta[{idx}]; lu{r}_{i} = u[{idx}];")
        if v.get("FIXT"):
            o = [x.replace(f"{tile} * {TT}", "0").replace(f"{tile} * {TT * 4}", "0") for x in o]
        for i in range(0 if v.get("NOBC") else EB):
            w = "bl" if BCG else f"{i * SW} + si"
            if v.get("FIXT"):
                o.append(f"lb{r}_{i} = B4[{w}]; lc{r}_{i} = C4[{w}];")
                continue
            o.append(f"lb{r}_{i} = B4[{tile} * {TT * 4} + {w}]; lc{r}_{i} = C4[{tile} * {TT * 4} + {w}];")
        return "    " + "\n    ".join(o)

    def stores(r, buf):
        o = []
        for i in range(E):
            st = f"({(i * SW) // Q} + wl / {Q})"
            o.append(("if (si < %d) " % words if EG else "") + "{")
            for j in range(Wd):
                x = f"ld{r}_{i}[{j}]" if VL else f"ld{r}_{i}"
                uu = f"lu{r}_{i}[{j}]" if VL else f"lu{r}_{i}"
                chl = f"((wl % {Q}) * {Wd} + {j})" if VL else f"(wl % {Q})"
                o.append(f"  {{ float dt = softplus({x}); int a = {buf} * {CW * P} + {chl} * {P} + {st};"
                         f" sDT[a >> 2][a & 3] = dt; sDU[a >> 2][a & 3] = dt * {uu}; sU[a] = {uu}; }}")
            o.append("}")
        for i in range(0 if v.get("NOBC") else EB):
            o.append(("if (si < %d) " % (TT * 4) if BCG else "") +
                     f"{{ int e = {i * SW} + si; int t = e >> 2; int n0 = (e & 3) * 4;")
            for q in range(4):
                o.append(f"  {{ int a = {buf} * {N * P} + (n0 + {q}) * {P} + t; sB[a >> 2][a & 3] = lb{r}_{i}[{q}]; sC[a >> 2][a & 3] = lc{r}_{i}[{q}]; }}")
            o.append("}")
        return "    " + "\n    ".join(o)

    def tile_body(kx):
        c.append(f"    {{ int bo = ({kx}) & 1;")
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
                poly = PEJ and j % (T // PEJ) == 0
                a_ = f"pexp2(dt * A2_{s_})" if poly else f"exp2(dt * A2_{s_})"
                a_ = f"(dt * A2_{s_})" if drop == "exp" else a_
                c.append(f"        h{s_} = {a_} * h{s_} + du * B4_{j4}_{s_}[{jj}];")
                c.append(f"        p{j} = " + (f"p{j} + " if s_ else "") + f"C4_{j4}_{s_}[{jj}] * h{s_};")
            c.append("      }")
        vals = [f"p{j}" for j in range(T)]
        if drop in ("state", "red"):
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
        c.append(f"      float yv = {expr} + Dc * sU[bo * {CW * P} + cl * {P} + tl];")
        idx = f"(({kx}) * {TT} + tl) * D + ch"
        c.append(f"      if (yv == -1234.5) y[{idx}] = yv;" if v.get("NOY") else f"      y[{idx}] = yv;")
        c.append("    }}")

    def tile_body_unb(kx):
        """UNB: the tile's batches unrolled here, each batch's reduce-scatter
        and y store emitted after the next batch's state steps (two
        independent streams for the scheduler)."""
        nb = TT // T
        c.append(f"    {{ int bo = ({kx}) & 1;")

        def states(b):
            c.append("      " + " ".join(f"float p{b}_{j};" for j in range(T)))
            c.append("      {")
            for j4 in range(T // 4):
                c.append(f"      int a{j4} = bo * {CW * P} + cl * {P} + {b * T + j4 * 4};"
                         f" vec4 dt4_{j4} = sDT[a{j4} >> 2]; vec4 du4_{j4} = sDU[a{j4} >> 2];")
                for s_ in range(SPL):
                    c.append(f"      int q{j4}_{s_} = bo * {N * P} + (g * {SPL} + {s_}) * {P} + {b * T + j4 * 4};"
                             f" vec4 B4_{j4}_{s_} = sB[q{j4}_{s_} >> 2]; vec4 C4_{j4}_{s_} = sC[q{j4}_{s_} >> 2];")
            for j in range(T):
                j4, jj = j // 4, j % 4
                c.append(f"      {{ float dt = dt4_{j4}[{jj}]; float du = du4_{j4}[{jj}];")
                for s_ in range(SPL):
                    poly = PEJ and j % (T // PEJ) == 0
                    a_ = f"pexp2(dt * A2_{s_})" if poly else f"exp2(dt * A2_{s_})"
                    a_ = f"(dt * A2_{s_})" if drop == "exp" else a_
                    c.append(f"        h{s_} = {a_} * h{s_} + du * B4_{j4}_{s_}[{jj}];")
                    c.append(f"        p{b}_{j} = " + (f"p{b}_{j} + " if s_ else "") + f"C4_{j4}_{s_}[{jj}] * h{s_};")
                c.append("      }")
            c.append("      }")

        def red(b):
            c.append("      {")
            vals = [f"p{b}_{j}" for j in range(T)]
            if drop == "red":
                expr = "(" + " + ".join(vals) + ")"
            else:
                m, lvl = T // 2, 0
                while m >= 1:
                    c.append(f"      bool bit{lvl} = (g & {m}) != 0;")
                    nv = []
                    for i in range(m):
                        lo_, hi_ = vals[i], vals[i + m]
                        c.append(f"      float r{lvl}_{i} = (bit{lvl} ? {hi_} : {lo_}) + "
                                 f"subgroupShuffleXor(bit{lvl} ? {lo_} : {hi_}, {m});")
                        nv.append(f"r{lvl}_{i}")
                    vals, m, lvl = nv, m // 2, lvl + 1
                expr = vals[0]
            c.append(f"      int tl = {b * T} + g;")
            c.append(f"      float yv = {expr} + Dc * sU[bo * {CW * P} + cl * {P} + tl];")
            idx = f"(({kx}) * {TT} + tl) * D + ch"
            c.append(f"      if (yv == -1234.5) y[{idx}] = yv;" if v.get("NOY") else f"      y[{idx}] = yv;")
            c.append("      }")

        states(0)
        for b in range(1, nb):
            states(b)
            red(b - 1)
        red(nb - 1)
        c.append("    }")

    if v.get("UNB"):
        assert drop != "state"
        tile_body = tile_body_unb
    bar = "" if v.get("NOBAR") else "    barrier();"
    lo, lc_, co, cc_ = ("  if (si >= 0) {", "  }", "  if (si < 0) {", "  }") if LW else ("", "", "", "")
    c.append(lo)
    c.append(loads(0, "0"))
    c.append(stores(0, "0"))
    for r in range(1, PF):
        c.append(loads(r, str(r)))
    c.append(lc_)
    c.append(bar)
    c.append(f"  for (int k = 0; k < {NT}; k += {PF}) {{")
    for r in range(PF):
        kx = f"(k + {r})"
        c.append(lo)
        c.append(loads(r, f"min(k + {r + PF}, {NT - 1})"))
        c.append(lc_)
        c.append(co)
        tile_body(kx)
        c.append(cc_)
        c.append(f"    if ({'si >= 0 && ' if LW else ''}k + {r + 1} < {NT}) {{")
        c.append(stores((r + 1) % PF, f"(({kx} + 1) & 1)"))
        c.append("    }")
        c.append(bar)
    c += ["  }", "}"]
    src = "\n".join(c)
    if not LW:
        # Without loaders: session 23 call 1's text exactly.
        src = re.sub(r"\bsi\b", "lid", src.replace("  int si = lid - 0;\n", "")
                     .replace(f"min(lid / {LPC}, {CW - 1})", f"lid / {LPC}"))
    return src


def sl2_artifact(name, v):
    WG = v["CW"] * (N // v["SPL"]) + v.get("WS", 0)
    gen.artifact(name, [(sl2_src(v), [D // v["CW"], 1, 1], WG)])


def sl_name(p, skel):
    s = ("skel_" if skel else "") + f"sl2_spl{p['SPL']}_tt{p['TT']}_cw{p['CW']}_pf{p.get('PF', 1)}"
    s += "_vl" if p.get("VL") else ""
    s += "_nobar" if p.get("NOBAR") else ""
    s += "_noy" if p.get("NOY") else ""
    s += f"_pej{p['PEJ']}" if p.get("PEJ") else ""
    s += "_nobc" if p.get("NOBC") else ""
    s += "_fixt" if p.get("FIXT") else ""
    s += f"_ws{p['WS']}" if p.get("WS") else ""
    s += "_unb" if p.get("UNB") else ""
    s = (p["DROP"] + "_" + s) if p.get("DROP") not in (None, "state") else s
    return s


def variants():
    v = {}
    # Streams: the flat anchor, and the flat stream with the one-pass form's
    # threads (128 x 256: ~8 warps an SM) at 1-8 words in flight a lane.
    v["flat_g1056_wg256_u1"] = ("flat", dict(WG=256, G=1056, U=1))
    for u in (1, 2, 4, 8):
        v[f"flat_g128_wg256_u{u}"] = ("flat", dict(WG=256, G=128, U=u))
    v["flat_g128_wg512_u4"] = ("flat", dict(WG=512, G=128, U=4))
    for g, u in ((128, 4), (128, 8), (1024, 1)):
        v[f"rows_g{g}_u{u}"] = ("rows", dict(WG=256, G=g, U=u))
    # Walks: the one-pass form's column strips (CW channels a workgroup,
    # time sequential), loads to registers.
    for cw, wg, w, u, pf in ((16, 256, 4, 1, 2), (16, 256, 4, 2, 2), (16, 256, 4, 4, 2),
                             (16, 256, 4, 2, 4), (16, 256, 4, 4, 4), (16, 256, 1, 2, 2),
                             (16, 256, 1, 4, 2), (16, 256, 1, 8, 2), (8, 128, 4, 4, 2),
                             (32, 512, 4, 4, 2), (64, 1024, 4, 2, 2), (32, 256, 4, 4, 2),
                             (64, 256, 4, 4, 2), (128, 256, 4, 2, 2), (16, 512, 4, 2, 2)):
        v[f"walk_cw{cw}_wg{wg}_w{w}_u{u}_pf{pf}"] = ("walk", dict(CW=cw, WG=wg, W=w, U=u, PF=pf))
    v["walk_cw16_wg256_w4_u4_pf2_noy"] = ("walk", dict(CW=16, WG=256, W=4, U=4, PF=2, NOY=1))
    # The one-pass skeletons and full kernels.
    sk = [dict(TT=64, CW=16, PF=2), dict(TT=64, CW=16, PF=2, VL=1), dict(TT=64, CW=16, PF=4, VL=1),
          dict(TT=32, CW=16, PF=4, VL=1), dict(TT=32, CW=16, PF=8, VL=1), dict(TT=64, CW=16, PF=4),
          dict(TT=64, CW=8, PF=4, VL=1), dict(TT=32, CW=8, PF=4, VL=1),
          dict(TT=64, CW=16, PF=2, NOBAR=1), dict(TT=64, CW=16, PF=4, VL=1, NOBAR=1),
          dict(TT=64, CW=16, PF=2, NOY=1), dict(TT=64, CW=16, PF=4, VL=1, NOY=1)]
    for p in sk:
        p = dict(SPL=1, DROP="state", **p)
        v[sl_name(p, True)] = ("sl2", p)
    full = [dict(TT=64, CW=16, PF=2), dict(TT=64, CW=16, PF=2, VL=1), dict(TT=64, CW=16, PF=4, VL=1),
            dict(TT=32, CW=16, PF=4, VL=1), dict(TT=32, CW=16, PF=8, VL=1), dict(TT=64, CW=16, PF=4),
            dict(TT=64, CW=8, PF=4, VL=1), dict(TT=64, CW=16, PF=4, VL=1, PEJ=4),
            dict(TT=64, CW=16, PF=4, VL=1, PEJ=8), dict(TT=32, CW=16, PF=4, VL=1, PEJ=4),
            dict(TT=64, CW=16, PF=1), dict(TT=64, CW=16, PF=2, VL=1, PEJ=4)]
    for p in full:
        p = dict(SPL=1, **p)
        v[sl_name(p, False)] = ("sl2", p)
    for p in (dict(TT=64, CW=16, PF=4, VL=1), dict(TT=32, CW=16, PF=4, VL=1, PEJ=4)):
        p = dict(SPL=2, **p)
        v[sl_name(p, False)] = ("sl2", p)
    # session 21's references: its best one-pass kernel and skeleton.
    v["sl_spl1_tt64_cw16"] = ("sl", dict(SPL=1, TT=64, CW=16))
    v["dropstate_sl_spl1_tt64_cw16_pf2"] = ("sl", dict(SPL=1, TT=64, CW=16, PF=2, DROP="state"))
    return v


def build(name, kind, p):
    if kind == "flat":
        gen.artifact(name, [((flat_noy_src if p.get("NOY") else gen.flat_src)(p), [p["G"], 1, 1], p["WG"])])
    elif kind == "rows":
        gen.artifact(name, [(rows_src(p), [p["G"], 1, 1], p["WG"])])
    elif kind == "walk":
        gen.artifact(name, [(walk_src(p), [D // p["CW"], 1, 1], p["WG"])])
    elif kind == "sl2":
        sl2_artifact(name, p)
    elif kind == "sl":
        gen.sl_artifact(name, p)


def variants2():
    """Call 2: what the staging costs (B and C, cached loads), reads only."""
    v = {}
    v["flat_g1056_wg256_u1"] = ("flat", dict(WG=256, G=1056, U=1))
    v["flat_g1056_wg256_u1_noy"] = ("flat", dict(WG=256, G=1056, U=1, NOY=1))
    v["flat_g128_wg256_u8"] = ("flat", dict(WG=256, G=128, U=8))
    v["flat_g128_wg256_u8_noy"] = ("flat", dict(WG=256, G=128, U=8, NOY=1))
    v["walk_cw16_wg256_w4_u2_pf2"] = ("walk", dict(CW=16, WG=256, W=4, U=2, PF=2))
    v["walk_cw16_wg256_w4_u2_pf2_bc"] = ("walk", dict(CW=16, WG=256, W=4, U=2, PF=2, BC=1))
    v["walk_cw16_wg256_w4_u2_pf2_noy"] = ("walk", dict(CW=16, WG=256, W=4, U=2, PF=2, NOY=1))
    v["walk_cw16_wg256_w4_u2_pf2_bc_noy"] = ("walk", dict(CW=16, WG=256, W=4, U=2, PF=2, BC=1, NOY=1))
    for extra in ({}, dict(NOBC=1), dict(NOY=1), dict(NOBC=1, NOY=1), dict(FIXT=1),
                  dict(FIXT=1, NOY=1), dict(NOBC=1, NOBAR=1)):
        p = dict(SPL=1, TT=64, CW=16, PF=2, VL=1, DROP="state", **extra)
        v[sl_name(p, True)] = ("sl2", p)
    for extra in ({}, dict(NOBC=1), dict(FIXT=1), dict(NOY=1), dict(FIXT=1, NOY=1)):
        p = dict(SPL=1, TT=64, CW=16, PF=2, VL=1, **extra)
        v[sl_name(p, False)] = ("sl2", p)
    p = dict(SPL=1, TT=64, CW=16, PF=1)
    v[sl_name(p, False)] = ("sl2", p)
    p = dict(SPL=1, TT=64, CW=16, PF=1, FIXT=1)
    v[sl_name(p, False)] = ("sl2", p)
    # Warp specialised: WS loader threads stage the tiles, the 256 state
    # lanes only compute (one barrier a tile for all).
    for ws in (128, 256):
        p = dict(SPL=1, TT=64, CW=16, PF=2, VL=1, DROP="state", WS=ws)
        v[sl_name(p, True)] = ("sl2", p)
    for p in (dict(TT=64, PF=2, VL=1, WS=128), dict(TT=64, PF=2, VL=1, WS=256),
              dict(TT=64, PF=4, VL=1, WS=256), dict(TT=32, PF=4, VL=1, WS=128),
              dict(TT=64, PF=1, WS=256), dict(TT=64, PF=2, VL=1, WS=64)):
        p = dict(SPL=1, CW=16, **p)
        v[sl_name(p, False)] = ("sl2", p)
    return v


def variants3():
    """Call 3 (prepared for the lead, not made by the ssm helper): the
    full kernel's compute path without DRAM reads (fixt), its reduce-scatter
    and exp dropped, and the batches unrolled with each reduce-scatter after
    the next batch's state steps (unb)."""
    v = {}
    v["flat_g1056_wg256_u1"] = ("flat", dict(WG=256, G=1056, U=1))
    v["walk_cw16_wg256_w4_u2_pf2"] = ("walk", dict(CW=16, WG=256, W=4, U=2, PF=2))
    base = dict(SPL=1, TT=64, CW=16, PF=2, VL=1)
    p = dict(base, DROP="state")
    v[sl_name(p, True)] = ("sl2", p)
    for extra in ({}, dict(UNB=1), dict(FIXT=1), dict(FIXT=1, UNB=1), dict(FIXT=1, DROP="red"),
                  dict(FIXT=1, DROP="exp"), dict(DROP="red"), dict(FIXT=1, NOY=1),
                  dict(FIXT=1, NOY=1, UNB=1), dict(UNB=1, PEJ=4), dict(TT=32, PF=4, UNB=1)):
        p = dict(base, **extra)
        v[sl_name(p, False)] = ("sl2", p)
    return v


def main():
    os.makedirs(gen.OUT, exist_ok=True)
    cases = {}
    only = os.environ.get("ONLY", "")
    vs = variants2() if os.environ.get("CALL2") else variants3() if os.environ.get("CALL3") else variants()
    for name, (kind, p) in vs.items():
        if only and only not in name:
            continue
        build(name, kind, p)
        cases[name] = [kind, p]
        print(name, "ok", flush=True)
    json.dump(cases, open(os.path.join(gen.OUT, "..", "probes23.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
