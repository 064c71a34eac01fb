//===- DriverSupport.cpp - small helpers of the compiler driver -----------===//

#include "DriverSupport.h"

#include "ejk/Runtime/ejk_runtime.h"
#include "ejk/Support/FileIO.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::ejk;

LogicalResult mlir::ejk::writeAtomically(Location loc, StringRef path,
                                         StringRef contents) {
  // A regular file is replaced through a temporary and a rename; a FIFO or
  // device in its place is written through, never replaced.
  std::string error;
  if (!::ejk::writeFileReplacing(path.str(), contents.str(), error))
    return emitError(loc, "cannot write ") << error;
  return success();
}

LogicalResult mlir::ejk::checkManifestLoads(Location loc, StringRef manifest) {
  if (ejk_manifest_validate(manifest.data(), manifest.size(),
                            "the artifact's manifest") == EJK_OK)
    return success();
  return emitError(loc, "the runtime would refuse this artifact: ")
         << ejk_last_error();
}
