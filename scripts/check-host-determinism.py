#!/usr/bin/env python3
"""Checks that ejk's output does not depend on the C++ compiler that built it.

Runs the ejk-opt command of every lit RUN line (test/**/*.mlir: the first
segment of the pipe, when it is an ejk-opt call without -verify-diagnostics)
with two ejk-opt binaries, typically the GCC build and the clang-22 sanitizer
build, and compares their standard output byte for byte. C++ leaves the order
in which a call's arguments are evaluated unspecified, so a pass that builds
two ops as arguments of one call emits them in a different order under GCC
and Clang; this check finds any such difference (docs/determinism.md).

RUN lines known to differ still are listed in the allow-list
(scripts/host-determinism-allow.txt: `<path under test/> <RUN index>` a line,
the index counting the file's RUN commands from 0). A difference on any other
line fails the check; an allowed line that no longer differs is reported so
that it can be removed from the list.

  check-host-determinism.py build/bin/ejk-opt build-asan/bin/ejk-opt
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN_PATTERN = re.compile(r"^//\s*RUN:\s?(.*)$", re.M)

# Options the sanitizer build needs to run at all (scripts/reliability.sh says
# why); appended to the caller's, which they override. Leak checking is off:
# these are one-shot tool processes, and a leak is not a difference.
ASAN_OPTIONS = "detect_leaks=0:allow_user_poisoning=0:allocator_may_return_null=1"


def run_commands(path):
    """(line number, command) of the file's RUN commands, continuation lines
    joined."""
    text = path.read_text()
    commands, current, first = [], "", None
    for match in RUN_PATTERN.finditer(text):
        if first is None:
            first = text.count("\n", 0, match.start()) + 1
        line = match.group(1).rstrip()
        if line.endswith("\\"):
            current += line[:-1] + " "
        else:
            commands.append((first, current + line))
            current, first = "", None
    return commands


def ejk_opt_arguments(command, path):
    """The arguments of the command's ejk-opt call, or None if it has none to
    compare (another tool first, diagnostics checked, other substitutions)."""
    first = command.split("|")[0].strip()
    if not first.startswith("ejk-opt ") or "-verify-diagnostics" in first:
        return None
    arguments = first[len("ejk-opt"):].replace("%s", str(path))
    if "%" in arguments:
        return None
    return arguments


def collect(test_root):
    """(relative path, RUN index, line number, arguments) of every ejk-opt
    RUN line."""
    lines = []
    for path in sorted(test_root.rglob("*.mlir")):
        relative = path.relative_to(test_root)
        if relative.parts[0] in ("Fuzz", "unit"):
            continue
        for index, (number, command) in enumerate(run_commands(path)):
            arguments = ejk_opt_arguments(command, path)
            if arguments is not None:
                lines.append((relative.as_posix(), index, number, arguments))
    return lines


def read_allow_list(path):
    allowed = set()
    if path is None or not path.exists():
        return allowed
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split("#")[0].strip()
        if not line:
            continue
        fields = line.split()
        if len(fields) != 2 or not fields[1].isdigit():
            sys.exit(f"{path}:{number}: expected '<test path> <RUN index>', "
                     f"got '{line}'")
        allowed.add((fields[0], int(fields[1])))
    return allowed


def run(binary, arguments, env, timeout):
    """(exit status, stdout, stderr tail) of one ejk-opt call."""
    try:
        result = subprocess.run(f"{binary} {arguments}", shell=True,
                                capture_output=True, env=env, timeout=timeout,
                                cwd=ROOT)
    except subprocess.TimeoutExpired:
        return ("timeout", b"", f"no answer in {timeout} s")
    tail = result.stderr.decode(errors="replace").strip().splitlines()[-5:]
    return (result.returncode, result.stdout, "\n".join(tail))


def first_difference(a, b):
    """The 1-based number of the first output line where a and b differ."""
    for number, (line_a, line_b) in enumerate(
            zip(a.splitlines(), b.splitlines()), 1):
        if line_a != line_b:
            return number, line_a.decode(errors="replace"), \
                line_b.decode(errors="replace")
    number = min(len(a.splitlines()), len(b.splitlines())) + 1
    return number, "(end of output)", "(end of output)"


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reference", help="ejk-opt of one build (e.g. GCC)")
    parser.add_argument("other", help="ejk-opt of another (e.g. clang-22)")
    parser.add_argument("--tests", default=str(ROOT / "test"),
                        help="the lit test directory (default: %(default)s)")
    parser.add_argument("--allow-list",
                        default=str(ROOT / "scripts/host-determinism-allow.txt"),
                        help="RUN lines known to differ (default: %(default)s)")
    parser.add_argument("--filter", default="",
                        help="only test paths containing this string")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=int, default=900,
                        help="seconds one ejk-opt call may take")
    parser.add_argument("--list-differences", action="store_true",
                        help="print every differing line in allow-list form")
    options = parser.parse_args()

    for binary in (options.reference, options.other):
        if not os.access(binary, os.X_OK):
            sys.exit(f"check-host-determinism: no executable {binary}")
    test_root = Path(options.tests).resolve()
    allowed = read_allow_list(Path(options.allow_list)
                              if options.allow_list else None)
    lines = [line for line in collect(test_root) if options.filter in line[0]]
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ":".join(
        part for part in (env.get("ASAN_OPTIONS", ""), ASAN_OPTIONS) if part)

    def compare(line):
        arguments = line[3]
        return [run(binary, arguments, env, options.timeout)
                for binary in (options.reference, options.other)]

    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        results = list(pool.map(compare, lines))

    failures, differing, now_equal = [], [], []
    allowed_differing = 0
    for (path, index, number, arguments), (reference, other) in zip(
            lines, results):
        where = f"test/{path}:{number} (RUN {index})"
        if reference[0] != 0 or other[0] != 0:
            failures.append(
                f"{where}: ejk-opt failed (status {reference[0]} and "
                f"{other[0]}): ejk-opt{arguments}\n  {reference[2]}\n  "
                f"{other[2]}")
            continue
        if reference[1] == other[1]:
            if (path, index) in allowed:
                now_equal.append(f"{path} {index}")
            continue
        differing.append(f"{path} {index}")
        if (path, index) in allowed:
            allowed_differing += 1
            continue
        number, line_a, line_b = first_difference(reference[1], other[1])
        failures.append(
            f"{where}: the two builds' outputs differ from output line "
            f"{number} on:\n  {options.reference}: {line_a.strip()}\n  "
            f"{options.other}: {line_b.strip()}\n  command: ejk-opt{arguments}")

    elapsed = time.monotonic() - start
    if options.list_differences:
        print("\n".join(differing))
    for entry in now_equal:
        print(f"check-host-determinism: {entry} is on the allow-list but no "
              "longer differs: remove it from the list")
    for failure in failures:
        print(f"check-host-determinism: {failure}", file=sys.stderr)
    print(f"check-host-determinism: {len(lines)} ejk-opt RUN lines, "
          f"{len(differing)} differ ({allowed_differing} of them allowed), {len(failures)} failures, {elapsed:.0f} s")
    if failures:
        print("check-host-determinism: ejk's output depends on the host "
              "compiler; build each op in its own statement "
              "(docs/determinism.md)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
