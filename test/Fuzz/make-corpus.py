#!/usr/bin/env python3
"""Builds the MLIR fuzz target's seed corpus from the lit tests.

Each input .mlir is split at the `// -----` markers of -split-input-file and
stripped of whole-line `//` comments (RUN, CHECK and expected-* lines carry
nothing the parser reads, and shorter seeds mutate faster). Each distinct
case becomes one file named by its SHA-1, so the corpus is stable across
runs and free of duplicates.
"""

import argparse
import hashlib
import os
import re
import shutil

SPLIT = re.compile(r"^// -----\s*$", re.MULTILINE)


def cases(text):
    for chunk in SPLIT.split(text):
        lines = [line for line in chunk.splitlines()
                 if not line.lstrip().startswith("//")]
        case = "\n".join(lines).strip()
        if case:
            yield case + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", required=True, help="corpus directory")
    parser.add_argument("--stamp", required=True, help="file to touch")
    parser.add_argument("inputs", nargs="+", help=".mlir files")
    args = parser.parse_args()

    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)
    count = 0
    for path in sorted(args.inputs):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for case in cases(text):
            data = case.encode("utf-8")
            name = hashlib.sha1(data).hexdigest()
            target = os.path.join(args.out, name)
            if not os.path.exists(target):
                with open(target, "wb") as f:
                    f.write(data)
                count += 1
    if count == 0:
        raise SystemExit("make-corpus: no cases found in the inputs")
    with open(args.stamp, "w", encoding="utf-8") as f:
        f.write(f"{count}\n")


if __name__ == "__main__":
    main()
