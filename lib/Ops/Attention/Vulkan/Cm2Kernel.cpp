//===- Cm2Kernel.cpp - flash attention on VK_NV_cooperative_matrix2 -------===//
//
// Writes the kernel's SPIR-V word by word, instruction for instruction as
// bench/vulkan/cm2_fa.py writes its assembly (with --qscale --rowsum mma;
// its --stats, --loads, --vload and --causal are the parameters here), so
// that the two stay comparable word for word (test/Vulkan/cm2-emit.test).
// One workgroup owns `blockQ` query rows of one (batch, head) and walks the
// keys `blockK` at a time; every matrix is workgroup-scope:
//
//   Q      = convert(load(Q) * scale * log2 e)      (once, in f16)
//   S      = Q K^T                                   (f16 x f16 + f32)
//   M'     = max(M, rowmax(S))                       (Reduce Row, max)
//   alpha  = exp2(M - M'),  P = exp2(S - M')         (per-element ops)
//   L      = alpha L + P x ones                      (the row sum as an MMA)
//   O      = alpha O + P V
//   out    = O / L
//
// The row statistics M, L and alpha are `statsColumns` wide (each column
// the row's value), widened to the key block's or the output's columns by
// a Row reduce that keeps one element. Causal: the key blocks crossing the
// diagonal get a per-element mask from the element's row and column, the
// loop stops at the diagonal, and the longest query blocks run first.
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/Cm2Kernel.h"

#include "ejk/Support/SpirvWriter.h"

#include <cassert>
#include <cmath>

using namespace mlir;
using namespace mlir::ejk;
using ::ejk::SpirvWriter;

namespace {

/// Opcodes (SPIR-V 1.6 with SPV_KHR_cooperative_matrix,
/// SPV_NV_cooperative_matrix2 and SPV_NV_tensor_addressing; the numbers of
/// the unified grammar, spirv.core.grammar.json).
enum Opcode : uint32_t {
  OpExtension = 10,
  OpExtInstImport = 11,
  OpExtInst = 12,
  OpMemoryModel = 14,
  OpEntryPoint = 15,
  OpExecutionMode = 16,
  OpCapability = 17,
  OpTypeVoid = 19,
  OpTypeBool = 20,
  OpTypeInt = 21,
  OpTypeFloat = 22,
  OpTypeVector = 23,
  OpTypeRuntimeArray = 29,
  OpTypeStruct = 30,
  OpTypePointer = 32,
  OpTypeFunction = 33,
  OpConstantFalse = 42,
  OpConstant = 43,
  OpConstantComposite = 44,
  OpFunction = 54,
  OpFunctionParameter = 55,
  OpFunctionEnd = 56,
  OpVariable = 59,
  OpLoad = 61,
  OpAccessChain = 65,
  OpDecorate = 71,
  OpMemberDecorate = 72,
  OpCompositeExtract = 81,
  OpCopyObject = 83,
  OpFConvert = 115,
  OpIAdd = 128,
  OpFAdd = 129,
  OpISub = 130,
  OpFSub = 131,
  OpIMul = 132,
  OpFMul = 133,
  OpUDiv = 134,
  OpFDiv = 136,
  OpMatrixTimesScalar = 143,
  OpSelect = 169,
  OpUGreaterThan = 172,
  OpULessThan = 176,
  OpPhi = 245,
  OpLoopMerge = 246,
  OpSelectionMerge = 247,
  OpLabel = 248,
  OpBranch = 249,
  OpBranchConditional = 250,
  OpReturn = 253,
  OpReturnValue = 254,
  OpTypeCooperativeMatrixKHR = 4456,
  OpCooperativeMatrixLoadKHR = 4457,
  OpCooperativeMatrixStoreKHR = 4458,
  OpCooperativeMatrixMulAddKHR = 4459,
  OpCooperativeMatrixConvertNV = 5293,
  OpCooperativeMatrixReduceNV = 5366,
  OpCooperativeMatrixLoadTensorNV = 5367,
  OpCooperativeMatrixPerElementOpNV = 5369,
  OpTypeTensorLayoutNV = 5370,
  OpTypeTensorViewNV = 5371,
  OpCreateTensorLayoutNV = 5372,
  OpTensorLayoutSetDimensionNV = 5373,
  OpTensorLayoutSetStrideNV = 5374,
  OpTensorLayoutSliceNV = 5375,
  OpCreateTensorViewNV = 5377,
};

/// Operand enumerants.
enum : int {
  CapShader = 1,
  CapFloat16 = 9,
  CapStorageBuffer16BitAccess = 4433,
  CapVulkanMemoryModel = 5345,
  CapCooperativeMatrixReductionsNV = 5430,
  CapCooperativeMatrixConversionsNV = 5431,
  CapCooperativeMatrixPerElementOperationsNV = 5432,
  CapCooperativeMatrixTensorAddressingNV = 5433,
  CapTensorAddressingNV = 5439,
  CapCooperativeMatrixKHR = 6022,
  AddressingLogical = 0,
  MemoryModelVulkan = 3,
  ExecutionModelGLCompute = 5,
  ExecutionModeLocalSize = 17,
  StorageInput = 1,
  StorageBuffer = 12,
  DecorationBlock = 2,
  DecorationArrayStride = 6,
  DecorationBuiltIn = 11,
  DecorationRestrict = 19,
  DecorationNonWritable = 24,
  DecorationNonReadable = 25,
  DecorationBinding = 33,
  DecorationDescriptorSet = 34,
  DecorationOffset = 35,
  BuiltInWorkgroupId = 26,
  ControlNone = 0,
  MemoryAccessAligned = 2,
  TensorAddressingNone = 0,
  TensorAddressingTensorView = 1,
  ReduceRow = 1,
  GlslExp2 = 29,
  GlslUMin = 38,
  GlslFMax = 40,
};

/// SPIR-V 1.6 (Vulkan 1.3).
constexpr uint32_t kVersion = 0x00010600;
/// No registered generator id.
constexpr uint32_t kGenerator = 0;

class Cm2Emitter {
public:
  explicit Cm2Emitter(const Cm2AttentionParams &p) : p(p) {}
  std::vector<uint32_t> emit();

private:
  using O = SpirvWriter::Operand;

  static O str(const std::string &s) { return O::string(s); }
  static O lit(int64_t v) {
    assert(v >= 0 && v <= int64_t(UINT32_MAX) && "a 32-bit literal");
    return O(unsigned(v));
  }
  /// The u32 constant `v` (declared at its first use).
  std::string u(int64_t v);
  /// The workgroup-scope matrix type (declared at its first use).
  std::string mat(const char *comp, int64_t rows, int64_t cols, int use);
  void header();
  void helperFunctions();
  /// K^T and/or V of the key block starting at row `row`.
  void loadKV(const std::string &row, const std::string &suffix, bool k,
              bool v);
  void mainFunction();

  const Cm2AttentionParams &p;
  SpirvWriter w;
  std::map<int64_t, std::string> consts;
  std::map<std::string, bool> mats;
  std::string mQa, mKt, mS, mPa, mV, mO, mOh, mW, mQc, mOnes;
  std::string zW, zO, zK, zV, stride;
};

} // namespace

std::string Cm2Emitter::u(int64_t v) {
  std::string name = "%c" + std::to_string(v);
  if (consts.emplace(v, name).second)
    w.op(OpConstant, {"%u32", name, lit(v)});
  return name;
}

std::string Cm2Emitter::mat(const char *comp, int64_t rows, int64_t cols,
                            int use) {
  std::string name = std::string("%m_") + comp + "_" + std::to_string(rows) +
                     "x" + std::to_string(cols) + "_" + "ABC"[use];
  if (mats.emplace(name, true).second) {
    std::string r = u(rows);
    std::string c = u(cols);
    std::string k = u(use);
    w.op(OpTypeCooperativeMatrixKHR,
         {name, std::string("%") + comp, "%c2", r, c, k});
  }
  return name;
}

void Cm2Emitter::header() {
  int capabilities[] = {CapShader,
                        CapFloat16,
                        CapStorageBuffer16BitAccess,
                        CapVulkanMemoryModel,
                        CapCooperativeMatrixKHR,
                        CapCooperativeMatrixReductionsNV,
                        CapCooperativeMatrixConversionsNV,
                        CapCooperativeMatrixPerElementOperationsNV};
  for (int cap : capabilities)
    w.op(OpCapability, {cap});
  if (p.tensorLoads) {
    w.op(OpCapability, {CapCooperativeMatrixTensorAddressingNV});
    w.op(OpCapability, {CapTensorAddressingNV});
  }
  w.op(OpExtension, {str("SPV_KHR_cooperative_matrix")});
  w.op(OpExtension, {str("SPV_NV_cooperative_matrix2")});
  if (p.tensorLoads)
    w.op(OpExtension, {str("SPV_NV_tensor_addressing")});
  w.op(OpExtInstImport, {"%glsl", str("GLSL.std.450")});
  w.op(OpMemoryModel, {AddressingLogical, MemoryModelVulkan});
  w.op(OpEntryPoint, {ExecutionModelGLCompute, "%main", str(p.entryPoint),
                      "%wgid", "%qbuf", "%kbuf", "%vbuf", "%obuf"});
  w.op(OpExecutionMode,
       {"%main", ExecutionModeLocalSize, lit(p.threads), 1, 1});
  w.op(OpDecorate, {"%wgid", DecorationBuiltIn, BuiltInWorkgroupId});
  w.op(OpDecorate, {"%rt", DecorationArrayStride, 2});
  w.op(OpMemberDecorate, {"%buf", 0, DecorationOffset, 0});
  w.op(OpDecorate, {"%buf", DecorationBlock});
  const char *buffers[] = {"%qbuf", "%kbuf", "%vbuf", "%obuf"};
  for (int i = 0; i < 4; ++i) {
    w.op(OpDecorate, {buffers[i], DecorationDescriptorSet, 0});
    w.op(OpDecorate, {buffers[i], DecorationBinding, i});
    w.op(OpDecorate,
         {buffers[i], i == 3 ? DecorationNonReadable : DecorationNonWritable});
    w.op(OpDecorate, {buffers[i], DecorationRestrict});
  }

  // Scalar types and constants.
  w.op(OpTypeVoid, {"%void"});
  w.op(OpTypeFunction, {"%fnv", "%void"});
  w.op(OpTypeBool, {"%bool"});
  w.op(OpTypeInt, {"%u32", 32, 0});
  w.op(OpTypeFloat, {"%f32", 32});
  w.op(OpTypeFloat, {"%f16", 16});
  w.op(OpTypeVector, {"%v3u", "%u32", 3});
  w.op(OpTypePointer, {"%pv3u", StorageInput, "%v3u"});
  w.op(OpTypeRuntimeArray, {"%rt", "%f16"});
  w.op(OpTypeStruct, {"%buf", "%rt"});
  w.op(OpTypePointer, {"%pbuf", StorageBuffer, "%buf"});
  w.op(OpTypePointer, {"%pf16", StorageBuffer, "%f16"});

  int64_t S = p.seq, H = p.heads, D = p.headDim, br = p.blockQ, bc = p.blockK;
  int64_t W = p.statsColumns ? p.statsColumns : bc;
  for (int64_t v :
       {int64_t(0), int64_t(1), int64_t(2), int64_t(3), br, bc, D, H, S, H * D,
        S / bc, S / bc - 1, W, S / br - 1, br + bc - 1, bc - 1})
    u(v);
  // exp(x * scale) = exp2(x * c).
  double c = p.scale * 1.4426950408889634;
  w.op(OpConstant, {"%f32", "%f0", O(SpirvWriter::f32Bits(0.0f))});
  w.op(OpConstant, {"%f32", "%f1", O(SpirvWriter::f32Bits(1.0f))});
  w.op(OpConstant, {"%f32", "%fneg", O(SpirvWriter::f32Bits(-1e30f))});
  w.op(OpConstant, {"%f32", "%fc", O(SpirvWriter::f32Bits(float(c)))});
  w.op(OpConstant, {"%f16", "%h1", O(SpirvWriter::f16Bits(1.0))});
  w.op(OpConstant, {"%f16", "%h0", O(SpirvWriter::f16Bits(0.0))});

  mQa = mat("f16", br, D, 0);  // Q (A)
  mKt = mat("f16", D, bc, 1);  // K^T (B)
  mS = mat("f32", br, bc, 2);  // S, P
  mPa = mat("f16", br, bc, 0); // P (A)
  mV = mat("f16", bc, D, 1);   // V (B)
  mO = mat("f32", br, D, 2);   // O
  mOh = mat("f16", br, D, 2);  // O in f16, stored
  mW = mat("f32", br, W, 2);   // M, L, alpha
  w.op(OpConstant, {"%f16", "%hc", O(SpirvWriter::f16Bits(c))});
  mQc = mat("f16", br, D, 2); // Q loaded as an accumulator, scaled
  mOnes = mat("f16", bc, W, 1);
  w.op(OpConstantComposite, {mOnes, "%ones", "%h1"});
  w.op(OpConstantComposite, {mS, "%zS", "%f0"});
  w.op(OpConstantComposite, {mW, "%negW", "%fneg"});
  if (mW != mS)
    w.op(OpConstantComposite, {mS, "%negS", "%fneg"});
  w.op(OpConstant, {"%f32", "%f8", O(SpirvWriter::f32Bits(8.0f))});
  if (mW != mS)
    w.op(OpConstantComposite, {mW, "%zW", "%f0"});
  zW = mW != mS ? "%zW" : "%zS";
  if (mO != mS && mO != mW)
    w.op(OpConstantComposite, {mO, "%zO", "%f0"});
  zO = mO == mW ? zW : mO == mS ? "%zS" : "%zO";
  if (p.tensorLoads) {
    w.op(OpConstantComposite, {mQa, "%zQ", "%h0"});
    w.op(OpConstantComposite, {mQc, "%zQc", "%h0"});
    w.op(OpConstantComposite, {mKt, "%zK", "%h0"});
    if (mV != mKt)
      w.op(OpConstantComposite, {mV, "%zV", "%h0"});
    zK = "%zK";
    zV = mV != mKt ? "%zV" : "%zK";
    // 2-D, clamp mode Undefined; K^T through a transposing view.
    w.op(OpTypeTensorLayoutNV, {"%tl", "%c2", "%c0"});
    w.op(OpConstantFalse, {"%bool", "%false"});
    w.op(OpTypeTensorViewNV, {"%tvT", "%c2", "%false", "%c1", "%c0"});
  }

  w.op(OpVariable, {"%pv3u", "%wgid", StorageInput});
  for (const char *buffer : {"%qbuf", "%kbuf", "%vbuf", "%obuf"})
    w.op(OpVariable, {"%pbuf", buffer, StorageBuffer});
}

void Cm2Emitter::helperFunctions() {
  w.op(OpTypeFunction, {"%fn2", "%f32", "%f32", "%f32"});
  w.op(OpTypeFunction, {"%fn4", "%f32", "%u32", "%u32", "%f32", "%f32"});
  w.op(OpTypeFunction,
       {"%fn5", "%f32", "%u32", "%u32", "%f32", "%u32", "%u32"});
  w.op(OpTypeFunction, {"%fnh", "%f16", "%u32", "%u32", "%f16"});
  // Reduce combiners.
  w.op(OpFunction, {"%f32", "%fmax", ControlNone, "%fn2"});
  w.op(OpFunctionParameter, {"%f32", "%fmax_a"});
  w.op(OpFunctionParameter, {"%f32", "%fmax_b"});
  w.op(OpLabel, {"%fmax_l"});
  w.op(OpExtInst, {"%f32", "%fmax_r", "%glsl", GlslFMax, "%fmax_a", "%fmax_b"});
  w.op(OpReturnValue, {"%fmax_r"});
  w.op(OpFunctionEnd, {});
  w.op(OpFunction, {"%f32", "%fadd", ControlNone, "%fn2"});
  w.op(OpFunctionParameter, {"%f32", "%fadd_a"});
  w.op(OpFunctionParameter, {"%f32", "%fadd_b"});
  w.op(OpLabel, {"%fadd_l"});
  w.op(OpFAdd, {"%f32", "%fadd_r", "%fadd_a", "%fadd_b"});
  w.op(OpReturnValue, {"%fadd_r"});
  w.op(OpFunctionEnd, {});
  w.op(OpFunction, {"%f32", "%fkeep", ControlNone, "%fn2"});
  w.op(OpFunctionParameter, {"%f32", "%fkeep_a"});
  w.op(OpFunctionParameter, {"%f32", "%fkeep_b"});
  w.op(OpLabel, {"%fkeep_l"});
  w.op(OpReturnValue, {"%fkeep_a"});
  w.op(OpFunctionEnd, {});
  // Per-element ops: (row, column, element, operands...).
  w.op(OpFunction, {"%f32", "%pmask", ControlNone, "%fn5"});
  w.op(OpFunctionParameter, {"%u32", "%pmask_r"});
  w.op(OpFunctionParameter, {"%u32", "%pmask_c"});
  w.op(OpFunctionParameter, {"%f32", "%pmask_s"});
  w.op(OpFunctionParameter, {"%u32", "%pmask_qr"});
  w.op(OpFunctionParameter, {"%u32", "%pmask_kr"});
  w.op(OpLabel, {"%pmask_l"});
  w.op(OpIAdd, {"%u32", "%pmask_q", "%pmask_qr", "%pmask_r"});
  w.op(OpIAdd, {"%u32", "%pmask_k", "%pmask_kr", "%pmask_c"});
  w.op(OpUGreaterThan, {"%bool", "%pmask_f", "%pmask_k", "%pmask_q"});
  w.op(OpSelect, {"%f32", "%pmask_v", "%pmask_f", "%fneg", "%pmask_s"});
  w.op(OpReturnValue, {"%pmask_v"});
  w.op(OpFunctionEnd, {});
  w.op(OpFunction, {"%f16", "%hexp", ControlNone, "%fnh"});
  w.op(OpFunctionParameter, {"%u32", "%hexp_r"});
  w.op(OpFunctionParameter, {"%u32", "%hexp_c"});
  w.op(OpFunctionParameter, {"%f16", "%hexp_a"});
  w.op(OpLabel, {"%hexp_l"});
  w.op(OpExtInst, {"%f16", "%hexp_v", "%glsl", GlslExp2, "%hexp_a"});
  w.op(OpReturnValue, {"%hexp_v"});
  w.op(OpFunctionEnd, {});
  w.op(OpFunction, {"%f32", "%pmax", ControlNone, "%fn4"});
  w.op(OpFunctionParameter, {"%u32", "%pmax_r"});
  w.op(OpFunctionParameter, {"%u32", "%pmax_c"});
  w.op(OpFunctionParameter, {"%f32", "%pmax_a"});
  w.op(OpFunctionParameter, {"%f32", "%pmax_b"});
  w.op(OpLabel, {"%pmax_l"});
  w.op(OpExtInst, {"%f32", "%pmax_v", "%glsl", GlslFMax, "%pmax_a", "%pmax_b"});
  w.op(OpReturnValue, {"%pmax_v"});
  w.op(OpFunctionEnd, {});
  w.op(OpFunction, {"%f32", "%pexp", ControlNone, "%fn4"});
  w.op(OpFunctionParameter, {"%u32", "%pexp_r"});
  w.op(OpFunctionParameter, {"%u32", "%pexp_c"});
  w.op(OpFunctionParameter, {"%f32", "%pexp_a"});
  w.op(OpFunctionParameter, {"%f32", "%pexp_m"});
  w.op(OpLabel, {"%pexp_l"});
  w.op(OpFSub, {"%f32", "%pexp_d", "%pexp_a", "%pexp_m"});
  w.op(OpExtInst, {"%f32", "%pexp_v", "%glsl", GlslExp2, "%pexp_d"});
  w.op(OpReturnValue, {"%pexp_v"});
  w.op(OpFunctionEnd, {});
}

void Cm2Emitter::loadKV(const std::string &row, const std::string &suffix,
                        bool k, bool v) {
  if (p.tensorLoads) {
    std::string bc = u(p.blockK);
    std::string d = u(p.headDim);
    w.op(OpTensorLayoutSliceNV,
         {"%tl", "%tlk" + suffix, "%tl2", row, bc, "%c0", d});
    if (k)
      w.op(OpCooperativeMatrixLoadTensorNV,
           {mKt, "%Kt" + suffix, "%kbase", zK, "%tlk" + suffix,
            MemoryAccessAligned, 16, TensorAddressingTensorView, "%vT"});
    if (v)
      w.op(OpCooperativeMatrixLoadTensorNV,
           {mV, "%V" + suffix, "%vbase", zV, "%tlk" + suffix,
            MemoryAccessAligned, 16, TensorAddressingNone});
    return;
  }
  w.op(OpIMul, {"%u32", "%krowoff" + suffix, row, stride});
  w.op(OpIAdd, {"%u32", "%koff" + suffix, "%base", "%krowoff" + suffix});
  if (k)
    w.op(OpAccessChain,
         {"%pf16", "%kptr" + suffix, "%kbuf", "%c0", "%koff" + suffix});
  if (v)
    w.op(OpAccessChain,
         {"%pf16", "%vptr" + suffix, "%vbuf", "%c0", "%koff" + suffix});
  // K^T as a column-major load of K's rows.
  if (k)
    w.op(OpCooperativeMatrixLoadKHR, {mKt, "%Kt" + suffix, "%kptr" + suffix,
                                      "%c1", stride, MemoryAccessAligned, 16});
  if (v)
    w.op(OpCooperativeMatrixLoadKHR, {mV, "%V" + suffix, "%vptr" + suffix,
                                      "%c0", stride, MemoryAccessAligned, 16});
}

void Cm2Emitter::mainFunction() {
  int64_t S = p.seq, br = p.blockQ, bc = p.blockK;
  stride = u(p.heads * p.headDim);
  int64_t blocks = S / bc;
  w.op(OpFunction, {"%void", "%main", ControlNone, "%fnv"});
  w.op(OpLabel, {"%entry"});
  w.op(OpLoad, {"%v3u", "%wg", "%wgid"});
  w.op(OpCompositeExtract, {"%u32", "%wgx", "%wg", 0});
  w.op(OpCompositeExtract, {"%u32", "%head", "%wg", 1});
  w.op(OpCompositeExtract, {"%u32", "%bat", "%wg", 2});
  // Causal: the longest rows first, so the last wave holds the short ones.
  if (p.causal) {
    std::string last = u(S / br - 1);
    w.op(OpISub, {"%u32", "%qblk", last, "%wgx"});
  } else {
    w.op(OpCopyObject, {"%u32", "%qblk", "%wgx"});
  }
  // The base of (b, h) is ((b S) H + h) D; the query block's rows start at
  // qblk * br.
  std::string cS = u(S), cH = u(p.heads), cD = u(p.headDim), cBr = u(br);
  w.op(OpIMul, {"%u32", "%bS", "%bat", cS});
  w.op(OpIMul, {"%u32", "%bSH", "%bS", cH});
  w.op(OpIAdd, {"%u32", "%bSHh", "%bSH", "%head"});
  w.op(OpIMul, {"%u32", "%base", "%bSHh", cD});
  w.op(OpIMul, {"%u32", "%qrow", "%qblk", cBr});
  w.op(OpIMul, {"%u32", "%qrowoff", "%qrow", stride});
  w.op(OpIAdd, {"%u32", "%qoff", "%base", "%qrowoff"});
  w.op(OpAccessChain, {"%pf16", "%qptr", "%qbuf", "%c0", "%qoff"});
  w.op(OpAccessChain, {"%pf16", "%optr", "%obuf", "%c0", "%qoff"});
  if (p.tensorLoads) {
    w.op(OpAccessChain, {"%pf16", "%qbase", "%qbuf", "%c0", "%base"});
    w.op(OpAccessChain, {"%pf16", "%kbase", "%kbuf", "%c0", "%base"});
    w.op(OpAccessChain, {"%pf16", "%vbase", "%vbuf", "%c0", "%base"});
    // A [S, D] layout of row stride H * D, sliced per block.
    w.op(OpCreateTensorLayoutNV, {"%tl", "%tl0"});
    w.op(OpTensorLayoutSetDimensionNV, {"%tl", "%tl1", "%tl0", cS, cD});
    w.op(OpTensorLayoutSetStrideNV, {"%tl", "%tl2", "%tl1", stride, "%c1"});
    w.op(OpTensorLayoutSliceNV,
         {"%tl", "%tlq", "%tl2", "%qrow", cBr, "%c0", cD});
    w.op(OpCreateTensorViewNV, {"%tvT", "%vT"});
    w.op(OpCooperativeMatrixLoadTensorNV,
         {mQc, "%Q0", "%qbase", "%zQc", "%tlq", MemoryAccessAligned, 16,
          TensorAddressingNone});
  } else {
    w.op(OpCooperativeMatrixLoadKHR,
         {mQc, "%Q0", "%qptr", "%c0", stride, MemoryAccessAligned, 16});
  }
  // Q scaled once by scale * log2(e): P = exp2(S - M) per element.
  w.op(OpMatrixTimesScalar, {mQc, "%Qs", "%Q0", "%hc"});
  w.op(OpCooperativeMatrixConvertNV, {mQa, "%Q", "%Qs"});

  if (p.causal) {
    std::string reach = u(br + bc - 1);
    w.op(OpIAdd, {"%u32", "%qend", "%qrow", reach});
    std::string cBc = u(bc);
    w.op(OpUDiv, {"%u32", "%nloop", "%qend", cBc});
    w.op(OpISub, {"%u32", "%nlast", "%nloop", "%c1"});
  } else {
    std::string n = u(blocks);
    w.op(OpCopyObject, {"%u32", "%nloop", n});
    std::string last = u(blocks - 1);
    w.op(OpCopyObject, {"%u32", "%nlast", last});
  }
  w.op(OpBranch, {"%hdr"});
  w.op(OpLabel, {"%hdr"});
  w.op(OpPhi, {"%u32", "%j", "%c0", "%entry", "%jn", "%cont"});
  w.op(OpPhi, {mO, "%O", zO, "%entry", "%On", "%cont"});
  w.op(OpPhi, {mW, "%M", "%negW", "%entry", "%Mn", "%cont"});
  w.op(OpPhi, {mW, "%L", zW, "%entry", "%Ln", "%cont"});
  w.op(OpULessThan, {"%bool", "%more", "%j", "%nloop"});
  w.op(OpLoopMerge, {"%done", "%cont", ControlNone});
  w.op(OpBranchConditional, {"%more", "%body", "%done"});
  w.op(OpLabel, {"%body"});
  std::string cBc = u(bc);
  w.op(OpIMul, {"%u32", "%krow", "%j", cBc});
  loadKV("%krow", "", /*k=*/true, /*v=*/!p.lateV);
  w.op(OpCooperativeMatrixMulAddKHR,
       {mS, p.causal ? "%S0" : "%S", "%Q", "%Kt", "%zS"});
  if (p.causal) {
    // Mask the blocks that cross the diagonal.
    std::string reach = u(bc - 1);
    w.op(OpIAdd, {"%u32", "%kend", "%krow", reach});
    w.op(OpUGreaterThan, {"%bool", "%diag", "%kend", "%qrow"});
    w.op(OpSelectionMerge, {"%masked", ControlNone});
    w.op(OpBranchConditional, {"%diag", "%mask", "%masked"});
    w.op(OpLabel, {"%mask"});
    w.op(OpCooperativeMatrixPerElementOpNV,
         {mS, "%Sm", "%S0", "%pmask", "%qrow", "%krow"});
    w.op(OpBranch, {"%masked"});
    w.op(OpLabel, {"%masked"});
    w.op(OpPhi, {mS, "%S", "%Sm", "%mask", "%S0", "%body"});
  }
  w.op(OpCooperativeMatrixReduceNV, {mW, "%rmax", "%S", ReduceRow, "%fmax"});
  w.op(OpCooperativeMatrixPerElementOpNV, {mW, "%Mn", "%M", "%pmax", "%rmax"});
  w.op(OpCooperativeMatrixPerElementOpNV, {mW, "%alpha", "%M", "%pexp", "%Mn"});
  std::string mnS = "%Mn";
  if (mW != mS) {
    w.op(OpCooperativeMatrixReduceNV, {mS, "%MnS", "%Mn", ReduceRow, "%fkeep"});
    mnS = "%MnS";
  }
  w.op(OpCooperativeMatrixPerElementOpNV, {mS, "%P", "%S", "%pexp", mnS});
  w.op(OpFConvert, {mPa, "%Ph", "%P"});
  w.op(OpCooperativeMatrixMulAddKHR, {mW, "%rsum", "%Ph", "%ones", zW});
  if (p.lateV) {
    // V only after the softmax: not live across it.
    loadKV("%krow", "v", /*k=*/false, /*v=*/true);
    w.op(OpCopyObject, {mV, "%V", "%Vv"});
  }
  w.op(OpFMul, {mW, "%La", "%L", "%alpha"});
  w.op(OpFAdd, {mW, "%Ln", "%La", "%rsum"});
  std::string alphaO = "%alpha";
  if (mO != mW) {
    w.op(OpCooperativeMatrixReduceNV,
         {mO, "%alphaO", "%alpha", ReduceRow, "%fkeep"});
    alphaO = "%alphaO";
  }
  w.op(OpFMul, {mO, "%Os", "%O", alphaO});
  w.op(OpCooperativeMatrixMulAddKHR, {mO, "%On", "%Ph", "%V", "%Os"});
  w.op(OpBranch, {"%cont"});
  w.op(OpLabel, {"%cont"});
  w.op(OpIAdd, {"%u32", "%jn", "%j", "%c1"});
  w.op(OpBranch, {"%hdr"});
  w.op(OpLabel, {"%done"});
  std::string ld = "%L";
  if (mO != mW) {
    w.op(OpCooperativeMatrixReduceNV, {mO, "%Ld", "%L", ReduceRow, "%fkeep"});
    ld = "%Ld";
  }
  w.op(OpFDiv, {mO, "%Of", "%O", ld});
  w.op(OpFConvert, {mOh, "%Oh", "%Of"});
  w.op(OpCooperativeMatrixStoreKHR,
       {"%optr", "%Oh", "%c0", stride, MemoryAccessAligned, 16});
  w.op(OpReturn, {});
  w.op(OpFunctionEnd, {});
}

std::vector<uint32_t> Cm2Emitter::emit() {
  header();
  helperFunctions();
  mainFunction();
  return w.module(kVersion, kGenerator);
}

std::vector<uint32_t>
mlir::ejk::emitCm2Attention(const Cm2AttentionParams &params) {
  assert(params.seq % params.blockQ == 0 && params.seq % params.blockK == 0 &&
         "whole blocks");
  return Cm2Emitter(params).emit();
}
