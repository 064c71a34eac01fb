//===- EjkBase.td - ejk dialect definition -----------------*- tablegen -*-===//
//
// The ejk dialect: value-semantic ops for the kernels sequence models spend
// their time in (attention and linear-recurrent / state-space scans).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DIALECT_EJK_EJKBASE_TD
#define EJK_DIALECT_EJK_EJKBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Ejk_Dialect : Dialect {
  let name = "ejk";
  let cppNamespace = "::mlir::ejk";
  let summary = "Attention and state-space kernels for sequence models";
  let description = [{
    The `ejk` dialect holds one op per kernel of the ejKernel op zoo:
    attention (flash, block-sparse, latent, ring, paged, ragged) and
    linear-recurrent / state-space scans (gated linear attention, lightning
    attention, the delta rule, a generic recurrence, Mamba-1 selective scan,
    Mamba-2 SSD), plus grouped matmul and variable-length mean pooling.

    Ops are value-semantic: statically shaped ranked tensors in, tensors out.
    Sequence tensors use the BSHD layout `[batch, seq, heads, head_dim]`.
    Grouped-query attention is expressed by head counts: the number of query
    heads must be a multiple of the number of key/value heads, and query head
    `h` reads key/value head `h / (num_heads / num_kv_heads)`.

    Tunable ops carry an optional `config` attribute (`#ejk.config<...>`)
    with the block sizes the tiling passes use; `ejk-select-configs` fills it
    in when it is absent.
  }];
  let useDefaultAttributePrinterParser = 1;
  let usePropertiesForAttributes = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

// Every ejk op rejects attributes it does not define (a misspelled option
// would otherwise be kept and ignored); dialect-prefixed ones ("x.y") pass.
def Ejk_KnownAttributesOnly : NativeOpTrait<"EjkKnownAttributesOnly">;

class Ejk_Op<string mnemonic, list<Trait> traits = []>
    : Op<Ejk_Dialect, mnemonic, !listconcat(traits, [Ejk_KnownAttributesOnly])>;

class Ejk_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Ejk_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// Element types accepted for floating-point activations.
def Ejk_FloatElement : AnyTypeOf<[F32, F16, BF16]>;
def Ejk_FloatTensor : RankedTensorOf<[F32, F16, BF16]>;
def Ejk_F32Tensor : RankedTensorOf<[F32]>;
def Ejk_BoolTensor : RankedTensorOf<[I1]>;
def Ejk_IndexTensor : RankedTensorOf<[I32]>;

#endif // EJK_DIALECT_EJK_EJKBASE_TD
