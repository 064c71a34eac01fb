//===- NpyBridge.h - .npy files as host tensors -----------------*- C++ -*-===//
//
// numpy has no bfloat16: bf16 tensors are stored as uint16 arrays holding
// the bit patterns (as ml_dtypes' `.view(np.uint16)` gives), i1 as bool.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_TOOLS_RUNSTEPS_NPYBRIDGE_H
#define EJK_TOOLS_RUNSTEPS_NPYBRIDGE_H

#include "ejk/Support/HostTensor.h"

#include <string>

namespace ejk {

bool readNpyTensor(const std::string &path, HostTensor &tensor,
                   std::string &error);
bool writeNpyTensor(const std::string &path, const HostTensor &tensor,
                    std::string &error);

} // namespace ejk

#endif // EJK_TOOLS_RUNSTEPS_NPYBRIDGE_H
