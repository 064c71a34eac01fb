#!/usr/bin/env python3
"""Prototype flash-attention forward on VK_NV_cooperative_matrix2 (issue 21).

Writes the SPIR-V assembly of one kernel: non-causal, f16 in and out, f32
scores and accumulator, [B, S, H, D] tensors (ejk's layout), sizes baked in
as constants (S a multiple of the blocks). One workgroup owns a block of
`br` query rows of one (batch, head); it walks the keys `bc` at a time.
Every matrix is workgroup-scope, so the driver chooses how the workgroup's
subgroups split each product and where the fragments live:

  S      = Q K^T                      (f16 x f16 + f32, Br x Bc)
  rowmax = OpCooperativeMatrixReduceNV(S, Row, max)      (smeared over Bc)
  M'     = per-element max(M, rowmax)
  P      = per-element exp2((S - M') * scale * log2 e)
  alpha  = per-element exp2((M - M') * scale * log2 e)
  L      = alpha L + rowsum(P)       (Reduce Row, add; or P x ones)
  O      = alpha O + P V              (alpha widened Br x Bc -> Br x D by a
                                       Row reduce that keeps one element)
  out    = O / L

`--loads tensor` reads Q, K and V with OpCooperativeMatrixLoadTensorNV
(SPV_NV_tensor_addressing: a 2-D layout [S, D] of row stride H*D, sliced per
block; K^T through a transposing tensor view); `--loads khr` with
OpCooperativeMatrixLoadKHR (strided, K^T as a column-major load).

Assemble and validate with SPIRV-Tools 2024.4 or newer (the cm2 opcodes):
  python3 cm2_fa.py --br 64 --bc 64 --threads 128 > k.spvasm
  spirv-as --target-env vulkan1.3 k.spvasm -o k.spv && spirv-val --target-env vulkan1.3 k.spv
"""
import argparse
import math


def generate(B, S, H, D, br, bc, threads, loads, rowsum, stats=0, prefetch=False,
             qscale=False, causal=False, hexp=False, lazy=False, vload="early",
             scale=None, entry="main"):
    if scale is None:
        scale = 1.0 / math.sqrt(D)
    assert S % br == 0 and S % bc == 0
    c = scale * 1.4426950408889634  # log2(e): exp(x*scale) = exp2(x*c)
    lines = []
    emit = lines.append
    tensor = loads == "tensor"

    emit("; SPIR-V\n; Version: 1.6\n; ejk prototype: flash attention on VK_NV_cooperative_matrix2")
    for cap in ["Shader", "Float16", "StorageBuffer16BitAccess", "VulkanMemoryModel",
                "CooperativeMatrixKHR",
                "CooperativeMatrixReductionsNV", "CooperativeMatrixConversionsNV",
                "CooperativeMatrixPerElementOperationsNV"] + (
                    ["CooperativeMatrixTensorAddressingNV", "TensorAddressingNV"] if tensor else []):
        emit(f"OpCapability {cap}")
    emit('OpExtension "SPV_KHR_cooperative_matrix"')
    emit('OpExtension "SPV_NV_cooperative_matrix2"')
    if tensor:
        emit('OpExtension "SPV_NV_tensor_addressing"')
    emit('%glsl = OpExtInstImport "GLSL.std.450"')
    emit("OpMemoryModel Logical Vulkan")
    emit(f"OpEntryPoint GLCompute %main \"{entry}\" %wgid %qbuf %kbuf %vbuf %obuf")
    emit(f"OpExecutionMode %main LocalSize {threads} 1 1")
    emit("OpDecorate %wgid BuiltIn WorkgroupId")
    emit("OpDecorate %rt ArrayStride 2")
    emit("OpMemberDecorate %buf 0 Offset 0")
    emit("OpDecorate %buf Block")
    for i, n in enumerate("qkvo"):
        emit(f"OpDecorate %{n}buf DescriptorSet 0")
        emit(f"OpDecorate %{n}buf Binding {i}")
        emit(f"OpDecorate %{n}buf {'NonReadable' if n == 'o' else 'NonWritable'}")
        emit(f"OpDecorate %{n}buf Restrict")

    # Scalar types and constants.
    emit("%void = OpTypeVoid\n%fnv = OpTypeFunction %void\n%bool = OpTypeBool")
    emit("%u32 = OpTypeInt 32 0\n%f32 = OpTypeFloat 32\n%f16 = OpTypeFloat 16")
    emit("%v3u = OpTypeVector %u32 3\n%pv3u = OpTypePointer Input %v3u")
    emit("%rt = OpTypeRuntimeArray %f16\n%buf = OpTypeStruct %rt")
    emit("%pbuf = OpTypePointer StorageBuffer %buf\n%pf16 = OpTypePointer StorageBuffer %f16")
    consts = {}

    def u(v):
        if v not in consts:
            consts[v] = f"%c{v}"
            emit(f"%c{v} = OpConstant %u32 {v}")
        return consts[v]

    W = stats or bc  # columns of the row statistics M, L, alpha
    for v in (0, 1, 2, 3, br, bc, D, H, S, H * D, S // bc, S // bc - 1, W, S // br - 1,
              br + bc - 1, bc - 1):
        u(v)
    emit(f"%f0 = OpConstant %f32 0\n%f1 = OpConstant %f32 1\n%fneg = OpConstant %f32 -1e30")
    emit(f"%fc = OpConstant %f32 {c!r}")
    emit("%h1 = OpConstant %f16 1\n%h0 = OpConstant %f16 0")

    mats = {}

    def mat(comp, rows, cols, use):
        key = (comp, rows, cols, use)
        if key not in mats:
            name = f"%m_{comp}_{rows}x{cols}_{['A', 'B', 'C'][use]}"
            mats[key] = name
            emit(f"{name} = OpTypeCooperativeMatrixKHR %{comp} %c2 {u(rows)} {u(cols)} {u(use)}")
        return mats[key]

    mQa = mat("f16", br, D, 0)      # Q (A)
    mKt = mat("f16", D, bc, 1)      # K^T (B)
    mS = mat("f32", br, bc, 2)      # S, M, L, P, alpha
    mPa = mat("f16", br, bc, 0)     # P (A)
    mV = mat("f16", bc, D, 1)       # V (B)
    mO = mat("f32", br, D, 2)       # O
    mOh = mat("f16", br, D, 2)      # O in f16, stored
    mW = mat("f32", br, W, 2)       # M, L, alpha (W columns, each the row's)
    emit(f"%hc = OpConstant %f16 {c!r}")
    if qscale:
        mQc = mat("f16", br, D, 2)  # Q loaded as an accumulator, scaled
    if hexp:
        mSh = mat("f16", br, bc, 2)  # S - M in f16, P = exp2 of it in f16
    if rowsum == "mma":
        mOnes = mat("f16", bc, W, 1)
        emit(f"%ones = OpConstantComposite {mOnes} %h1")
    emit(f"%zS = OpConstantComposite {mS} %f0")
    emit(f"%negW = OpConstantComposite {mW} %fneg")
    if mW != mS:
        emit(f"%negS = OpConstantComposite {mS} %fneg")
    emit("%f8 = OpConstant %f32 8")
    assert not lazy or qscale, "--lazy needs --qscale (its threshold is in log2 units)"
    if mW != mS:
        emit(f"%zW = OpConstantComposite {mW} %f0")
    zW = "%zW" if mW != mS else "%zS"
    if mO not in (mS, mW):
        emit(f"%zO = OpConstantComposite {mO} %f0")
    zO = {mS: "%zS", mW: zW}.get(mO, "%zO")
    if tensor:
        emit(f"%zQ = OpConstantComposite {mQa} %h0")
        if qscale:
            emit(f"%zQc = OpConstantComposite {mQc} %h0")
        emit(f"%zK = OpConstantComposite {mKt} %h0")
        if mV != mKt:
            emit(f"%zV = OpConstantComposite {mV} %h0")
        zK = "%zK"
        zV = "%zV" if mV != mKt else "%zK"
        emit("%tl = OpTypeTensorLayoutNV %c2 %c0")   # 2-D, clamp mode Undefined
        emit("%false = OpConstantFalse %bool")
        emit("%tvT = OpTypeTensorViewNV %c2 %false %c1 %c0")  # transposed view

    emit("%wgid = OpVariable %pv3u Input")
    for n in "qkvo":
        emit(f"%{n}buf = OpVariable %pbuf StorageBuffer")

    # Helper functions: reduce combiners and per-element ops.
    emit("%fn2 = OpTypeFunction %f32 %f32 %f32")
    emit("%fn4 = OpTypeFunction %f32 %u32 %u32 %f32 %f32")
    emit("%fn5 = OpTypeFunction %f32 %u32 %u32 %f32 %u32 %u32")
    emit("%fnh = OpTypeFunction %f16 %u32 %u32 %f16")
    emit("""%fmax = OpFunction %f32 None %fn2
%fmax_a = OpFunctionParameter %f32
%fmax_b = OpFunctionParameter %f32
%fmax_l = OpLabel
%fmax_r = OpExtInst %f32 %glsl FMax %fmax_a %fmax_b
OpReturnValue %fmax_r
OpFunctionEnd
%fadd = OpFunction %f32 None %fn2
%fadd_a = OpFunctionParameter %f32
%fadd_b = OpFunctionParameter %f32
%fadd_l = OpLabel
%fadd_r = OpFAdd %f32 %fadd_a %fadd_b
OpReturnValue %fadd_r
OpFunctionEnd
%fkeep = OpFunction %f32 None %fn2
%fkeep_a = OpFunctionParameter %f32
%fkeep_b = OpFunctionParameter %f32
%fkeep_l = OpLabel
OpReturnValue %fkeep_a
OpFunctionEnd
%pmask = OpFunction %f32 None %fn5
%pmask_r = OpFunctionParameter %u32
%pmask_c = OpFunctionParameter %u32
%pmask_s = OpFunctionParameter %f32
%pmask_qr = OpFunctionParameter %u32
%pmask_kr = OpFunctionParameter %u32
%pmask_l = OpLabel
%pmask_q = OpIAdd %u32 %pmask_qr %pmask_r
%pmask_k = OpIAdd %u32 %pmask_kr %pmask_c
%pmask_f = OpUGreaterThan %bool %pmask_k %pmask_q
%pmask_v = OpSelect %f32 %pmask_f %fneg %pmask_s
OpReturnValue %pmask_v
OpFunctionEnd
%hexp = OpFunction %f16 None %fnh
%hexp_r = OpFunctionParameter %u32
%hexp_c = OpFunctionParameter %u32
%hexp_a = OpFunctionParameter %f16
%hexp_l = OpLabel
""" + ("%hexp_v = OpExtInst %f16 %glsl Exp2 %hexp_a" if qscale else
       "%hexp_s = OpFMul %f16 %hexp_a %hc\n%hexp_v = OpExtInst %f16 %glsl Exp2 %hexp_s") + """
OpReturnValue %hexp_v
OpFunctionEnd
%pmax = OpFunction %f32 None %fn4
%pmax_r = OpFunctionParameter %u32
%pmax_c = OpFunctionParameter %u32
%pmax_a = OpFunctionParameter %f32
%pmax_b = OpFunctionParameter %f32
%pmax_l = OpLabel
%pmax_v = OpExtInst %f32 %glsl FMax %pmax_a %pmax_b
OpReturnValue %pmax_v
OpFunctionEnd
%pexp = OpFunction %f32 None %fn4
%pexp_r = OpFunctionParameter %u32
%pexp_c = OpFunctionParameter %u32
%pexp_a = OpFunctionParameter %f32
%pexp_m = OpFunctionParameter %f32
%pexp_l = OpLabel
%pexp_d = OpFSub %f32 %pexp_a %pexp_m
""" + ("%pexp_v = OpExtInst %f32 %glsl Exp2 %pexp_d" if qscale else
       "%pexp_s = OpFMul %f32 %pexp_d %fc\n%pexp_v = OpExtInst %f32 %glsl Exp2 %pexp_s") + """
OpReturnValue %pexp_v
OpFunctionEnd""")

    stride = u(H * D)
    nblk = S // bc
    emit("%main = OpFunction %void None %fnv\n%entry = OpLabel")
    emit("%wg = OpLoad %v3u %wgid")
    emit("%wgx = OpCompositeExtract %u32 %wg 0\n%head = OpCompositeExtract %u32 %wg 1\n%bat = OpCompositeExtract %u32 %wg 2")
    if causal:  # longest rows first: the last wave holds the short ones
        emit(f"%qblk = OpISub %u32 {u(S // br - 1)} %wgx")
    else:
        emit("%qblk = OpCopyObject %u32 %wgx")
    # base of (b, h): ((b * S) * H + h) * D; query block row offset qblk*br.
    emit(f"%bS = OpIMul %u32 %bat {u(S)}\n%bSH = OpIMul %u32 %bS {u(H)}\n%bSHh = OpIAdd %u32 %bSH %head")
    emit(f"%base = OpIMul %u32 %bSHh {u(D)}")
    emit(f"%qrow = OpIMul %u32 %qblk {u(br)}")
    emit(f"%qrowoff = OpIMul %u32 %qrow {stride}\n%qoff = OpIAdd %u32 %base %qrowoff")
    emit("%qptr = OpAccessChain %pf16 %qbuf %c0 %qoff")
    emit("%optr = OpAccessChain %pf16 %obuf %c0 %qoff")
    qtype = mQc if qscale else mQa
    if tensor:
        emit("%qbase = OpAccessChain %pf16 %qbuf %c0 %base")
        emit("%kbase = OpAccessChain %pf16 %kbuf %c0 %base")
        emit("%vbase = OpAccessChain %pf16 %vbuf %c0 %base")
        emit("%tl0 = OpCreateTensorLayoutNV %tl")
        emit(f"%tl1 = OpTensorLayoutSetDimensionNV %tl %tl0 {u(S)} {u(D)}")
        emit(f"%tl2 = OpTensorLayoutSetStrideNV %tl %tl1 {stride} %c1")
        emit(f"%tlq = OpTensorLayoutSliceNV %tl %tl2 %qrow {u(br)} %c0 {u(D)}")
        emit("%vT = OpCreateTensorViewNV %tvT")
        emit(f"%Q0 = OpCooperativeMatrixLoadTensorNV {qtype} %qbase {'%zQc' if qscale else '%zQ'} %tlq Aligned 16 None")
    else:
        emit(f"%Q0 = OpCooperativeMatrixLoadKHR {qtype} %qptr %c0 {stride} Aligned 16")
    if qscale:
        emit(f"%Qs = OpMatrixTimesScalar {mQc} %Q0 %hc")
        emit(f"%Q = OpCooperativeMatrixConvertNV {mQa} %Qs")
    else:
        emit(f"%Q = OpCopyObject {mQa} %Q0")

    def load_kv(row, suffix, k=True, v=True):
        """K^T and/or V of the key block starting at row `row`."""
        if tensor:
            emit(f"%tlk{suffix} = OpTensorLayoutSliceNV %tl %tl2 {row} {u(bc)} %c0 {u(D)}")
            if k:
                emit(f"%Kt{suffix} = OpCooperativeMatrixLoadTensorNV {mKt} %kbase {zK} %tlk{suffix} Aligned 16 TensorView %vT")
            if v:
                emit(f"%V{suffix} = OpCooperativeMatrixLoadTensorNV {mV} %vbase {zV} %tlk{suffix} Aligned 16 None")
        else:
            emit(f"%krowoff{suffix} = OpIMul %u32 {row} {stride}\n%koff{suffix} = OpIAdd %u32 %base %krowoff{suffix}")
            if k:
                emit(f"%kptr{suffix} = OpAccessChain %pf16 %kbuf %c0 %koff{suffix}")
            if v:
                emit(f"%vptr{suffix} = OpAccessChain %pf16 %vbuf %c0 %koff{suffix}")
            if k:
                emit(f"%Kt{suffix} = OpCooperativeMatrixLoadKHR {mKt} %kptr{suffix} %c1 {stride} Aligned 16")
            if v:
                emit(f"%V{suffix} = OpCooperativeMatrixLoadKHR {mV} %vptr{suffix} %c0 {stride} Aligned 16")

    if causal:
        emit(f"%qend = OpIAdd %u32 %qrow {u(br + bc - 1)}\n%nloop = OpUDiv %u32 %qend {u(bc)}")
        emit(f"%nlast = OpISub %u32 %nloop %c1")
    else:
        emit(f"%nloop = OpCopyObject %u32 {u(nblk)}\n%nlast = OpCopyObject %u32 {u(nblk - 1)}")
    if prefetch:
        load_kv("%c0", "pre")
    emit("OpBranch %hdr\n%hdr = OpLabel")
    emit(f"%j = OpPhi %u32 %c0 %entry %jn %cont")
    emit(f"%O = OpPhi {mO} {zO} %entry %On %cont")
    emit(f"%M = OpPhi {mW} %negW %entry %Mn %cont")
    emit(f"%L = OpPhi {mW} {zW} %entry %Ln %cont")
    if lazy and mW != mS:
        emit(f"%MS = OpPhi {mS} %negS %entry %MnS %cont")
    if prefetch:
        emit(f"%Kt = OpPhi {mKt} %Ktpre %entry %Ktnx %cont")
        emit(f"%V = OpPhi {mV} %Vpre %entry %Vnx %cont")
    emit(f"%more = OpULessThan %bool %j %nloop")
    emit("OpLoopMerge %done %cont None\nOpBranchConditional %more %body %done\n%body = OpLabel")
    late_v = vload == "late" and not prefetch
    if not prefetch:
        emit(f"%krow = OpIMul %u32 %j {u(bc)}")
        load_kv("%krow", "", v=not late_v)
    emit(f"%S{'0' if causal else ''} = OpCooperativeMatrixMulAddKHR {mS} %Q %Kt %zS")
    if causal:  # mask the blocks that cross the diagonal
        if prefetch:
            emit(f"%krow = OpIMul %u32 %j {u(bc)}")
        emit(f"%kend = OpIAdd %u32 %krow {u(bc - 1)}\n%diag = OpUGreaterThan %bool %kend %qrow")
        emit("OpSelectionMerge %masked None\nOpBranchConditional %diag %mask %masked\n%mask = OpLabel")
        emit(f"%Sm = OpCooperativeMatrixPerElementOpNV {mS} %S0 %pmask %qrow %krow")
        emit("OpBranch %masked\n%masked = OpLabel")
        emit(f"%S = OpPhi {mS} %Sm %mask %S0 %body")
    if prefetch:
        # The next block's K and V (the last iteration reloads its own).
        emit(f"%jn1 = OpIAdd %u32 %j %c1\n%jlast = OpExtInst %u32 %glsl UMin %jn1 %nlast")
        emit(f"%krownx = OpIMul %u32 %jlast {u(bc)}")
    emit(f"%rmax = OpCooperativeMatrixReduceNV {mW} %S Row %fmax")
    if lazy:
        # FlashAttention-4's lazy rescale: keep the old row maxima (P up to
        # 2^8) unless some row's grew by more than 8 (log2 units); the test
        # is one workgroup-wide max, the branch uniform.
        cur = "%masked" if causal else "%body"
        emit(f"%dM = OpFSub {mW} %rmax %M")
        emit(f"%gM = OpCooperativeMatrixReduceNV {mW} %dM Row|Column %fmax")
        emit("%gs = OpCompositeExtract %f32 %gM 0\n%need = OpFOrdGreaterThan %bool %gs %f8")
        emit("OpSelectionMerge %rs None\nOpBranchConditional %need %rescale %rs\n%rescale = OpLabel")
        emit(f"%Mn1 = OpCooperativeMatrixPerElementOpNV {mW} %M %pmax %rmax")
        emit(f"%alpha = OpCooperativeMatrixPerElementOpNV {mW} %M %pexp %Mn1")
        if mW != mS:
            emit(f"%MnS1 = OpCooperativeMatrixReduceNV {mS} %Mn1 Row %fkeep")
        emit(f"%La1 = OpFMul {mW} %L %alpha")
        if mO == mW:
            alphaO = "%alpha"
        else:
            emit(f"%alphaO = OpCooperativeMatrixReduceNV {mO} %alpha Row %fkeep")
            alphaO = "%alphaO"
        emit(f"%Os1 = OpFMul {mO} %O {alphaO}")
        emit("OpBranch %rs\n%rs = OpLabel")
        emit(f"%Mn = OpPhi {mW} %Mn1 %rescale %M {cur}")
        if mW != mS:
            emit(f"%MnS = OpPhi {mS} %MnS1 %rescale %MS {cur}")
            MnS = "%MnS"
        else:
            MnS = "%Mn"
        emit(f"%La = OpPhi {mW} %La1 %rescale %L {cur}")
        emit(f"%Os = OpPhi {mO} %Os1 %rescale %O {cur}")
    else:
        emit(f"%Mn = OpCooperativeMatrixPerElementOpNV {mW} %M %pmax %rmax")
        emit(f"%alpha = OpCooperativeMatrixPerElementOpNV {mW} %M %pexp %Mn")
        if mW != mS:
            emit(f"%MnS = OpCooperativeMatrixReduceNV {mS} %Mn Row %fkeep")
            MnS = "%MnS"
        else:
            MnS = "%Mn"
    if hexp:  # exp2 in f16 (two per instruction), as P V reads P in f16
        emit(f"%Sd = OpFSub {mS} %S {MnS}\n%Sdh = OpFConvert {mSh} %Sd")
        emit(f"%Pc = OpCooperativeMatrixPerElementOpNV {mSh} %Sdh %hexp")
        emit(f"%Ph = OpCooperativeMatrixConvertNV {mPa} %Pc")
        if rowsum != "mma":
            emit(f"%P = OpFConvert {mS} %Pc")
    else:
        emit(f"%P = OpCooperativeMatrixPerElementOpNV {mS} %S %pexp {MnS}")
        emit(f"%Ph = OpFConvert {mPa} %P")
    if rowsum == "mma":
        emit(f"%rsum = OpCooperativeMatrixMulAddKHR {mW} %Ph %ones {zW}")
    else:
        emit(f"%rsum = OpCooperativeMatrixReduceNV {mW} %P Row %fadd")
    if late_v:  # V only after the softmax: not live across it
        load_kv("%krow", "v", k=False)
        emit(f"%V = OpCopyObject {mV} %Vv")
    if lazy:
        emit(f"%Ln = OpFAdd {mW} %La %rsum")
    else:
        emit(f"%La = OpFMul {mW} %L %alpha\n%Ln = OpFAdd {mW} %La %rsum")
        if mO == mW:
            alphaO = "%alpha"
        else:
            emit(f"%alphaO = OpCooperativeMatrixReduceNV {mO} %alpha Row %fkeep")
            alphaO = "%alphaO"
        emit(f"%Os = OpFMul {mO} %O {alphaO}")
    emit(f"%On = OpCooperativeMatrixMulAddKHR {mO} %Ph %V %Os")
    if prefetch:
        load_kv("%krownx", "nx")
    emit("OpBranch %cont\n%cont = OpLabel\n%jn = OpIAdd %u32 %j %c1\nOpBranch %hdr")
    emit("%done = OpLabel")
    if mO == mW:
        Ld = "%L"
    else:
        emit(f"%Ld = OpCooperativeMatrixReduceNV {mO} %L Row %fkeep")
        Ld = "%Ld"
    emit(f"%Of = OpFDiv {mO} %O {Ld}")
    emit(f"%Oh = OpFConvert {mOh} %Of")
    emit(f"OpCooperativeMatrixStoreKHR %optr %Oh %c0 {stride} Aligned 16")
    emit("OpReturn\nOpFunctionEnd")
    return "\n".join(l for l in lines if l) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--B", type=int, default=4)
    ap.add_argument("--S", type=int, default=2048)
    ap.add_argument("--H", type=int, default=16)
    ap.add_argument("--D", type=int, default=128)
    ap.add_argument("--br", type=int, default=64)
    ap.add_argument("--bc", type=int, default=64)
    ap.add_argument("--threads", type=int, default=128)
    ap.add_argument("--loads", choices=["khr", "tensor"], default="khr")
    ap.add_argument("--rowsum", choices=["reduce", "mma"], default="mma")
    ap.add_argument("--stats", type=int, default=0,
                    help="columns of the row statistics (0: the key block's)")
    ap.add_argument("--prefetch", action="store_true",
                    help="load the next key block's K and V before this block's P V")
    ap.add_argument("--qscale", action="store_true",
                    help="scale Q by softmax_scale * log2(e) once (exp2(s - m) per element)")
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--hexp", action="store_true",
                    help="P = exp2 in f16 (S - M converted first)")
    ap.add_argument("--vload", choices=["early", "late"], default="early",
                    help="V's load with K's at the block's start, or after the softmax")
    ap.add_argument("--lazy", action="store_true",
                    help="rescale O and L only when a row maximum grew by more than 2^8")
    ap.add_argument("--scale", type=float, default=None,
                    help="softmax scale (default 1/sqrt(D); ejkc's kernels take the op's f32)")
    ap.add_argument("--entry", default="main", help="the entry point's name")
    a = ap.parse_args()
    print(generate(a.B, a.S, a.H, a.D, a.br, a.bc, a.threads, a.loads, a.rowsum,
                   a.stats, a.prefetch, a.qscale, a.causal, a.hexp, a.lazy, a.vload,
                   a.scale, a.entry), end="")


if __name__ == "__main__":
    main()
