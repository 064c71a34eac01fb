//===- DriverSupport.cpp - small helpers of the compiler driver -----------===//

#include "DriverSupport.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::ejk;

LogicalResult mlir::ejk::writeAtomically(Location loc, StringRef path,
                                         StringRef contents) {
  SmallString<256> temp;
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%", fd, temp))
    return emitError(loc, "cannot create a file next to '")
           << path << "': " << ec.message();
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << contents;
    os.close();
    if (os.has_error()) {
      llvm::sys::fs::remove(temp);
      return emitError(loc, "cannot write '") << temp << "'";
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    return emitError(loc, "cannot rename to '")
           << path << "': " << ec.message();
  }
  return success();
}
