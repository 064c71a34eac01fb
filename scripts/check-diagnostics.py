#!/usr/bin/env python3
"""Checks that every ejk dialect diagnostic has a -verify-diagnostics test.

Usage: check-diagnostics.py [-v] [SOURCE_ROOT]

Scans dialects/ejk/lib/*.cpp for messages built with `emitOpError(...)` or
`emitError(...)` followed by a `<< ...` chain, and turns each into a pattern:
the literal string pieces in order, with the streamed values between them as
wildcards. A message is covered when some `expected-error {{...}}` in
test/**/*.mlir matches its pattern. Prints the uncovered messages (file:line
and the message with `...` for streamed values) and exits 1 if there are
any, 0 otherwise. With -v, also prints the first test of each covered
message.

Messages that textual IR cannot reach are listed in ALLOWED below, each with
the unit test that covers it instead.
"""

import pathlib
import re
import sys

# Messages that only C++ callers can produce, keyed by their literal pieces
# joined with "...", each with the GoogleTest that covers it.
ALLOWED = {
    # The #ejk.config parser only ever builds i64 entries; a C++ caller can
    # pass any dictionary. Covered by ConfigAttrTest.GetCheckedRejectsNonI64
    # (test/unit/Dialect/ConfigAttrTest.cpp).
    "#ejk.config entry '...' must be a 64-bit integer",
    # getModuleTarget has no caller that textual IR reaches yet. Covered by
    # TargetInfoTest.ModuleTargetMissing and
    # TargetInfoTest.ModuleTargetMalformed
    # (test/unit/Dialect/TargetInfoTest.cpp).
    "no '...' attribute on the module; run ejk-select-configs first",
    "malformed '...' attribute ...",
}

# How streamed values print, for values whose text is known. Anything else
# matches any text. Typing them keeps one message's test from counting for
# a different message of the same shape (e.g. "to be N (why)" versus
# "to be N to match ...").
DIM_PATTERN = r"'[^']*' dim \d+ \([^)]*\)"
INT_CALL = re.compile(r"((\.|->)(dim\(\w*\)|getInt\(\)|size\(\)|getRank\(\))|"
                      r"\)\[\d+\])$")
TYPE_CALL = re.compile(r"(\.|->)(elementType|getElementType|getType)\(\)$")
# MLIR quotes types in diagnostics: 'tensor<2x4xf32>'.
TYPE_PATTERN = r"'[^']*'"
TYPE_TYPES = {"Type", "RankedTensorType", "ShapedType", "TensorType"}
INT_TYPES = {"int", "unsigned", "int32_t", "int64_t", "uint32_t", "uint64_t",
             "size_t"}

EMIT_CALL = re.compile(r"\b(emitOpError|emitError)\s*\(")
EXPECTED = re.compile(
    r"expected-error(-re)?\s*(?:@[^\s{]+)?\s*\{\{(.*)\}\}\s*$")


def strip_comments(text):
    """Blanks // and /* */ comments, keeping string literals and offsets."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def scan_expression(text, start, stops):
    """Returns the end of the expression at `start`: the first character of
    `stops` at bracket depth 0, outside string literals."""
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c == '"' or c == "'":
            i += 1
            while text[i] != c:
                i += 2 if text[i] == "\\" else 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0 and c in stops:
                return i
            depth -= 1
        elif depth == 0 and c in stops:
            return i
        i += 1
    return i


def split_top_level(text, separator):
    """Splits `text` at `separator` where it is outside brackets and
    strings."""
    parts, depth, i, last = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c == '"' or c == "'":
            i += 1
            while text[i] != c:
                i += 2 if text[i] == "\\" else 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and text.startswith(separator, i):
            parts.append(text[last:i])
            i += len(separator)
            last = i
            continue
        i += 1
    parts.append(text[last:])
    return [p.strip() for p in parts]


STRING_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')


def literal_value(operand):
    """The value of an operand made only of string literals, else None."""
    if not operand or STRING_LITERAL.sub("", operand).strip():
        return None
    pieces = STRING_LITERAL.findall(operand)
    if not pieces:
        return None
    text = "".join(pieces)
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(
        m.group(1), m.group(1)), text)


def declared_type(text, end, name):
    """The type in the last declaration of variable `name` before `end`
    (a parameter or a local), or None."""
    declarations = re.findall(
        r"\b([A-Za-z_][\w:]*)\s*[&*]?\s+" + re.escape(name) + r"\s*[,)=;]",
        text[:end])
    return declarations[-1] if declarations else None


def operand_pattern(operand, text, end):
    """The regex a streamed operand's text matches."""
    if operand.startswith("describeDim("):
        return DIM_PATTERN
    if INT_CALL.search(operand):
        return r"-?\d+"
    if TYPE_CALL.search(operand):
        return TYPE_PATTERN
    name = re.fullmatch(r"\*?(\w+)", operand)
    declared = declared_type(text, end, name.group(1)) if name else None
    if declared in INT_TYPES:
        return r"-?\d+"
    if declared in TYPE_TYPES:
        return TYPE_PATTERN
    return r".*?"


def extract_messages(path):
    """Yields (line, parts) for each emitted message in `path`; a part is
    ("lit", text) or ("dyn", regex)."""
    text = strip_comments(path.read_text())
    for match in EMIT_CALL.finditer(text):
        args_start = match.end()
        args_end = scan_expression(text, args_start, ")")
        parts = []
        args = split_top_level(text[args_start:args_end], ",")
        # The message is the last argument (parser.emitError takes a location
        # first); emitError() with no argument starts an empty message.
        operands = args[-1:] if args and args[-1] else []
        chain_end = scan_expression(text, args_end + 1, ";)")
        chain = text[args_end + 1:chain_end].strip()
        if chain.startswith("<<"):
            operands += split_top_level(chain[2:], "<<")
        for operand in operands:
            value = literal_value(operand)
            parts.append(("lit", value) if value is not None else
                         ("dyn", operand_pattern(operand, text, args_start)))
        merged = []
        for kind, value in parts:
            if merged and kind == "lit" and merged[-1][0] == "lit":
                merged[-1] = ("lit", merged[-1][1] + value)
            else:
                merged.append((kind, value))
        if any(kind == "lit" for kind, _ in merged):
            line = text.count("\n", 0, match.start()) + 1
            yield line, merged


def readable(parts):
    return "".join(v if k == "lit" else "..." for k, v in parts)


def to_regex(parts):
    return re.compile("".join(
        re.escape(v) if k == "lit" else v for k, v in parts))


def expected_errors(root):
    """(location, text) of every expected-error in test/**/*.mlir; a -re
    expectation's {{regex}} pieces read as "..."."""
    found = []
    for path in sorted((root / "test").rglob("*.mlir")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = EXPECTED.search(line)
            if not match:
                continue
            text = match.group(2)
            if match.group(1):
                text = re.sub(r"\{\{.*?\}\}", "...", text)
            found.append((f"{path.relative_to(root)}:{number}", text))
    return found


def main(argv):
    verbose = "-v" in argv[1:]
    args = [a for a in argv[1:] if a != "-v"]
    root = pathlib.Path(args[0] if args else
                        pathlib.Path(__file__).resolve().parent.parent)
    sources = sorted((root / "dialects" / "ejk" / "lib").glob("*.cpp"))
    if not sources:
        print(f"error: no sources under {root}/dialects/ejk/lib",
              file=sys.stderr)
        return 2
    expectations = expected_errors(root)
    missing, total = [], 0
    seen_allowed = set()
    for path in sources:
        for line, parts in extract_messages(path):
            total += 1
            message = readable(parts)
            if message in ALLOWED:
                seen_allowed.add(message)
                continue
            pattern = to_regex(parts)
            where = f"{path.relative_to(root)}:{line}"
            tests = [loc for loc, text in expectations if pattern.search(text)]
            if not tests:
                missing.append(f"{where}: {message}")
            elif verbose:
                print(f"{where}: {message}\n    tested by {tests[0]} "
                      f"(+{len(tests) - 1} more)")
    stale = sorted(ALLOWED - seen_allowed)
    for message in stale:
        print(f"allow-listed message no longer emitted: {message}")
    for entry in missing:
        print(f"no expected-error test: {entry}")
    if missing or stale:
        print(f"{len(missing)} of {total} diagnostics untested, "
              f"{len(stale)} stale allow-list entries")
        return 1
    print(f"all {total} diagnostics have a test "
          f"({len(ALLOWED)} allow-listed, covered by unit tests)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
