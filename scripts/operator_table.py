#!/usr/bin/env python3
"""Splices the operator table printed by `autodist-translate
--print-onnx-operators` into docs/operators.md, between its BEGIN/END
operator table markers (--write), or checks that the doc holds exactly that
table (--check: exit 1 with a diff otherwise)."""
import argparse
import difflib
import sys

BEGIN = "<!-- BEGIN operator table"
END = "<!-- END operator table -->"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    ap.add_argument("doc")
    ap.add_argument("table")
    args = ap.parse_args()
    lines = open(args.doc).read().split("\n")
    try:
        first = next(i for i, l in enumerate(lines) if l.startswith(BEGIN))
        last = next(i for i, l in enumerate(lines) if l == END)
    except StopIteration:
        sys.exit(f"{args.doc}: no '{BEGIN} ...' / '{END}' markers")
    table = open(args.table).read().rstrip("\n").split("\n")
    current = lines[first + 1:last]
    if args.check:
        if current == table:
            return
        sys.stdout.writelines(difflib.unified_diff(
            [l + "\n" for l in current], [l + "\n" for l in table],
            args.doc, "autodist-translate --print-onnx-operators"))
        sys.exit(f"{args.doc}: the operator table is out of date; run "
                 "scripts/gen-docs.sh")
    lines[first + 1:last] = table
    with open(args.doc, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
