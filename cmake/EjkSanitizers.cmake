# Sanitizer and fuzzing builds (docs/reliability.md).
#
#   EJK_SANITIZE=address,undefined  instruments every target (libraries,
#                                   tools, unit tests) with those sanitizers;
#                                   any finding aborts the process.
#   EJK_FUZZ=ON                     also builds test/Fuzz as libFuzzer
#                                   targets and adds coverage instrumentation
#                                   to every target; needs clang and
#                                   EJK_SANITIZE with address.
#
# Both belong in a build directory of their own (scripts/reliability.sh uses
# build-asan with clang++-22); the default build has neither.

set(EJK_SANITIZE "" CACHE STRING
    "Comma-separated sanitizers for every target, e.g. address,undefined")
option(EJK_FUZZ "Build the libFuzzer targets (clang, with EJK_SANITIZE)" OFF)

if(EJK_SANITIZE)
  set(EJK_SANITIZER_FLAGS
    -fsanitize=${EJK_SANITIZE}
    # A finding is a failure, never a line in a log that a test passes over.
    -fno-sanitize-recover=all
    -fno-omit-frame-pointer)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    # Stack traces with file:line at little compile-time cost.
    list(APPEND EJK_SANITIZER_FLAGS -gline-tables-only)
  endif()
  add_compile_options(${EJK_SANITIZER_FLAGS})
  add_link_options(${EJK_SANITIZER_FLAGS})
  # Shared libraries (libejk_runtime.so) leave the sanitizer runtime's symbols
  # to the executable that loads them, so LLVM's -z,defs cannot hold.
  string(REPLACE "-Wl,-z,defs" "" CMAKE_SHARED_LINKER_FLAGS
         "${CMAKE_SHARED_LINKER_FLAGS}")
  message(STATUS "ejk: sanitizers ${EJK_SANITIZE}")
endif()

if(EJK_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "EJK_FUZZ needs clang (libFuzzer), e.g. "
                        "-DCMAKE_CXX_COMPILER=clang++-22")
  endif()
  if(NOT EJK_SANITIZE MATCHES "address")
    message(FATAL_ERROR "EJK_FUZZ needs EJK_SANITIZE with address: its "
                        "runtime also serves the coverage hooks of the "
                        "non-fuzzer executables")
  endif()
  # Coverage for libFuzzer in every object the fuzz targets link; only the
  # fuzz targets themselves link libFuzzer (-fsanitize=fuzzer).
  add_compile_options(-fsanitize=fuzzer-no-link)
  message(STATUS "ejk: libFuzzer targets on")
endif()
