//===- ChildProcess.h - run a test body where it cannot hurt ----*- C++ -*-===//
//
// Tests of bad input must fail, not stall or kill the suite, when the code
// under test hangs or aborts: the body runs in a child process with an
// alarm.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_TEST_UNIT_TESTSUPPORT_CHILDPROCESS_H
#define EJK_TEST_UNIT_TESTSUPPORT_CHILDPROCESS_H

#include <sys/wait.h>
#include <unistd.h>

namespace ejk::test {

/// Runs \p body in a child process killed after 10 s; true when it
/// returned true. A crash (an abort on std::bad_alloc, say) or a hang is
/// false.
template <typename Body> bool finishesInChild(Body body) {
  pid_t child = fork();
  if (child == 0) {
    alarm(10);
    _exit(body() ? 0 : 1);
  }
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child)
    return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

} // namespace ejk::test

#endif // EJK_TEST_UNIT_TESTSUPPORT_CHILDPROCESS_H
