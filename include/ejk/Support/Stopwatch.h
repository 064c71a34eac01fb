//===- Stopwatch.h - elapsed seconds ----------------------------*- C++ -*-===//
//
// MLIR-free; the driver, the autotuner and the candidate runner time their
// steps with it.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_SUPPORT_STOPWATCH_H
#define EJK_SUPPORT_STOPWATCH_H

#include <chrono>

namespace ejk {

/// Seconds since construction.
class Stopwatch {
public:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }

private:
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
};

} // namespace ejk

#endif // EJK_SUPPORT_STOPWATCH_H
