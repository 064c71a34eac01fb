//===- EjkAttrs.td - ejk attributes ------------------------*- tablegen -*-===//

#ifndef EJK_DIALECT_EJK_EJKATTRS_TD
#define EJK_DIALECT_EJK_EJKATTRS_TD

include "ejk/Dialect/Ejk/EjkBase.td"

def Ejk_ConfigAttr : Ejk_Attr<"Config", "config"> {
  let summary = "Named integer tile parameters chosen for one op";
  let description = [{
    A config is a small set of named, strictly positive integers that
    parameterize how an op is tiled and lowered: block sizes, subgroups per
    workgroup, chunk sizes. Which names an op accepts is part of the op's
    definition (its `TunableOpInterface`); the tiling passes read them.

    ```mlir
    #ejk.config<block_q = 64, block_k = 128>
    ```

    Entries are kept sorted by name, so two configs with the same entries
    are the same attribute.
  }];
  let parameters = (ins "::mlir::DictionaryAttr":$entries);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "::llvm::ArrayRef<std::pair<::llvm::StringRef, int64_t>>":$values)>
  ];
  let extraClassDeclaration = [{
    /// Returns the value named `name`, or nullopt when it is absent.
    std::optional<int64_t> lookup(::llvm::StringRef name) const;
    /// Returns the value named `name`, or `defaultValue` when it is absent.
    int64_t lookupOr(::llvm::StringRef name, int64_t defaultValue) const;
    /// Returns a copy with `name` set to `value`.
    ConfigAttr with(::llvm::StringRef name, int64_t value) const;
  }];
}

#endif // EJK_DIALECT_EJK_EJKATTRS_TD
