#!/usr/bin/env python3
"""Lists calls that build MLIR ops in two or more of their arguments.

C++ leaves the order of a call's arguments unspecified (GCC evaluates them
last to first, Clang first to last), so such a call makes ejk's IR depend on
the host compiler (docs/determinism.md). This walks the clang AST of the
given sources (libclang) and prints each call with two or more arguments
that contain a call which builds ops: `X::create`, methods of an Emitter or
builder, functions taking a builder or an Emitter, and calls returning a
Value or an op, except accessors (get*, is*, has*). Braced lists are left
out (their elements are evaluated in order). It is a heuristic: it may list
a helper that builds nothing (check it), and what it lists is to be split
into statements in the order GCC evaluates the arguments (last first).

Needs the libclang Python bindings (`pip install clang==21.1.7`; they load
/usr/lib/llvm-22/lib/libclang-22.so.1) and a compilation database
(`ninja -C build-asan -t compdb > compile_commands.json`):

  find-unordered-op-calls.py compile_commands.json lib/Ops/Moe/Cpu/*.cpp
"""

import argparse
import json
import os
import re
import shlex
import sys
from pathlib import Path

import clang.cindex as cindex

ROOT = Path(__file__).resolve().parent.parent
LIBCLANG = "/usr/lib/llvm-22/lib/libclang-22.so.1"
RESOURCE_DIR = "/usr/lib/llvm-22/lib/clang/22"
Kind = cindex.CursorKind

ACCESSOR = ("get", "is", "has")
# Callees that never build an op whatever their types say.
PURE = {"operator[]", "operator=", "operator<<", "operator>>", "operator->",
        "operator*", "operator+", "ArrayRef", "ValueRange", "TypeRange",
        "SmallVector", "Value", "Type", "StringRef", "Twine", "cast",
        "dyn_cast", "isa", "min", "max", "divideCeil", "alignTo", "concat",
        "to_vector", "Location", "emitOpError", "emitError", "Attribute",
        "slice", "drop_front", "take_front", "tie"}
BUILDER_TYPE = re.compile(r"OpBuilder|RewriterBase|PatternRewriter|Emitter")
BUILDER_CLASS = re.compile(r"Emitter|Builder|Rewriter")
OP_RESULT = re.compile(r"\bValue\b|Operation|Op\b|OpFoldResult")


def builds_op(call):
    """Whether this call (not its arguments) may build an op."""
    callee = call.referenced
    name = call.spelling or (callee.spelling if callee else "")
    if name.startswith("create"):
        return True
    if callee is None or callee.kind == Kind.CONSTRUCTOR:
        return False
    owner = callee.semantic_parent.spelling if callee.semantic_parent else ""
    if BUILDER_CLASS.search(owner) and not name.startswith(ACCESSOR):
        return True
    if name in PURE or name.startswith(ACCESSOR):
        return False
    if callee.kind in (Kind.FUNCTION_DECL, Kind.CXX_METHOD,
                       Kind.FUNCTION_TEMPLATE):
        if any(BUILDER_TYPE.search(argument.type.spelling)
               for argument in callee.get_arguments()):
            return True
    return bool(OP_RESULT.search(call.type.spelling))


def contains_op(node):
    """Whether evaluating `node` may build an op (lambda bodies excluded:
    they run when called)."""
    if node.kind == Kind.LAMBDA_EXPR:
        return False
    if node.kind == Kind.CALL_EXPR and builds_op(node):
        return True
    return any(contains_op(child) for child in node.get_children())


def is_braced(call):
    """`T{...}`: list-initialization, evaluated in order."""
    for token in call.get_tokens():
        if token.spelling in ("(", "{"):
            return token.spelling == "{"
    return False


def unordered_calls(node, source_root, found):
    for child in node.get_children():
        location = child.location
        if location.file and not location.file.name.startswith(source_root):
            continue
        if child.kind == Kind.CALL_EXPR:
            callee = child.referenced
            braced = (callee is not None and callee.kind == Kind.CONSTRUCTOR
                      and is_braced(child))
            if not braced:
                count = sum(contains_op(a) for a in child.get_arguments())
                if count >= 2:
                    found.add((location.file.name, location.line,
                               location.column, child.spelling, count))
        unordered_calls(child, source_root, found)


def compile_arguments(entry, source):
    """The entry's compiler arguments, without the compiler, outputs and
    sanitizers (libclang only parses)."""
    words = shlex.split(entry["command"])
    while words and not words[0].startswith("-"):
        words = words[1:]
    arguments, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word in ("-o", "-MT", "-MF"):
            skip = True
        elif word in ("-c", "-MD", source) or word.startswith("-fsanitize"):
            continue
        else:
            arguments.append(word)
    return arguments + ["-resource-dir", RESOURCE_DIR]


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("database", help="compile_commands.json")
    parser.add_argument("sources", nargs="+", help=".cpp files to parse")
    options = parser.parse_args()
    cindex.Config.set_library_file(LIBCLANG)
    entries = {entry["file"]: entry
               for entry in json.load(open(options.database))}
    index = cindex.Index.create()
    found = set()
    for source in options.sources:
        source = str(Path(source).resolve())
        if source not in entries:
            sys.exit(f"find-unordered-op-calls: {source} is not in "
                     f"{options.database}")
        unit = index.parse(source, args=compile_arguments(entries[source],
                                                          source))
        errors = [d for d in unit.diagnostics if d.severity >= 3]
        if errors:
            print(f"find-unordered-op-calls: {source}: {errors[0]}",
                  file=sys.stderr)
        unordered_calls(unit.cursor, str(ROOT / "lib"), found)
    for path, line, column, name, count in sorted(found):
        print(f"{os.path.relpath(path, ROOT)}:{line}:{column}: {name}: "
              f"{count} arguments build ops")
    return 0


if __name__ == "__main__":
    sys.exit(main())
