#!/usr/bin/env python3
"""Says whether a fuzz finding is a known, pending crasher.

Usage: classify.py KNOWN TARGET REPORT

KNOWN lists one known crasher per line: `TARGET REGEX`, where REGEX (Python
syntax) must match the report that replaying the finding printed (sanitizer
summary, stack, message); lines starting with `#` are comments. Exit status 0 when some line
of TARGET matches REPORT, 1 otherwise, so a finding that no line describes
fails the run.
"""

import re
import sys


def main():
    known, target, report_path = sys.argv[1:4]
    with open(report_path, encoding="utf-8", errors="replace") as f:
        report = f.read()
    try:
        with open(known, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        lines = []
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, pattern = line.split(None, 1)
        if name == target and re.search(pattern, report, re.DOTALL):
            print(f"classify: matches known pending crasher: {pattern}")
            return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())
