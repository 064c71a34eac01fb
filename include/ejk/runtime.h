/*===- runtime.h - The ejk runtime C API ---------------------------*- C
-*-===*\
|*                                                                            *|
|* The installed entry point of the runtime: #include <ejk/runtime.h>. The    *|
|* API itself is in ejk/Runtime/ejk_runtime.h (and a C++ wrapper in           *|
|* ejk/Runtime/Runtime.hpp).                                                  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef EJK_RUNTIME_H
#define EJK_RUNTIME_H

#include "ejk/Runtime/ejk_runtime.h"

#endif /* EJK_RUNTIME_H */
