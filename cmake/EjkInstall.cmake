# `cmake --install build [--prefix P]` installs:
#   lib/libejk_runtime.so*            the runtime (MLIR-free)
#   include/ejk/runtime.h, include/ejk/Runtime/{ejk_runtime.h,Runtime.hpp}
#   lib/cmake/ejk/                    find_package(ejk) -> ejk::runtime
#   lib/pkgconfig/ejk-runtime.pc      pkg-config --cflags --libs ejk-runtime
#   bin/ejkc, bin/ejk-run-compile, bin/ejk-opt  the compiler tools (they
#                                     need the system's libMLIR/libLLVM 22
#                                     and `cc`)
#   bin/ejk-run                       ejk-run's MLIR-free front (runs cached
#                                     artifacts, execs ejk-run-compile)
# The package and the .pc file are relocatable: they find the prefix from
# their own location, so the tree can be moved or installed with --prefix.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

file(STRINGS ${PROJECT_SOURCE_DIR}/include/ejk/Runtime/ejk_runtime.h
  EJK_ABI_LINE REGEX "^#define EJK_RUNTIME_ABI_VERSION [0-9]+")
string(REGEX REPLACE ".* ([0-9]+)$" "\\1" EJK_RUNTIME_ABI_VERSION
  "${EJK_ABI_LINE}")

install(TARGETS EJKRuntime
  EXPORT ejkTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES
  ${PROJECT_SOURCE_DIR}/include/ejk/Runtime/ejk_runtime.h
  ${PROJECT_SOURCE_DIR}/include/ejk/Runtime/Runtime.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ejk/Runtime)
install(FILES ${PROJECT_SOURCE_DIR}/include/ejk/runtime.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ejk)

set(EJK_CMAKE_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ejk)
install(EXPORT ejkTargets
  NAMESPACE ejk::
  FILE ejkTargets.cmake
  DESTINATION ${EJK_CMAKE_PACKAGE_DIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/ejkConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/ejkConfig.cmake
  INSTALL_DESTINATION ${EJK_CMAKE_PACKAGE_DIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/ejkConfigVersion.cmake
  VERSION ${EJK_VERSION}
  COMPATIBILITY SameMajorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/ejkConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/ejkConfigVersion.cmake
  DESTINATION ${EJK_CMAKE_PACKAGE_DIR})

configure_file(${PROJECT_SOURCE_DIR}/cmake/ejk-runtime.pc.in
  ${PROJECT_BINARY_DIR}/cmake/ejk-runtime.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/ejk-runtime.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The tools find the runtime next to them and MLIR/LLVM where they were
# built against.
set_target_properties(ejkc ejk-run ejk-run-compile ejk-opt PROPERTIES
  INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR};${LLVM_LIBRARY_DIR}")
install(TARGETS ejkc ejk-run ejk-run-compile ejk-opt
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The install tree works for a user: builds docs/examples/run_attention.c
# against it with find_package and with pkg-config, and runs it.
add_test(NAME install-example
  COMMAND bash ${PROJECT_SOURCE_DIR}/test/Install/install-example.sh
          ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
