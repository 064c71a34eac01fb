//===- RandomInputs.cpp - seeded random inputs for an entry ---------------===//
//
// An argument's range comes from the op families: the first op using it
// whose OpModel asks for a special range decides it; otherwise N(0, 1).
//
//===----------------------------------------------------------------------===//

#include "ejk/Driver/RandomInputs.h"

#include "ejk/Ops/OpModel.h"

using namespace mlir;
using namespace mlir::ejk;

InputDistribution mlir::ejk::inputDistributionFor(BlockArgument arg) {
  for (Operation *user : arg.getUsers())
    if (const OpModel *model = lookupOpModel(user))
      if (std::optional<InputDistribution> range =
              model->inputDistribution(user, arg))
        return *range;
  return InputDistribution();
}

HostTensor mlir::ejk::randomTensor(ShapedType type,
                                   const InputDistribution &floats,
                                   std::mt19937_64 &rng) {
  return ::ejk::randomTensor(dtypeOf(type.getElementType()),
                             type.getShape().vec(), floats, rng);
}
