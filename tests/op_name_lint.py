#!/usr/bin/env python3
"""No pass tests an op's name (issue 48): code in planner/, engine/, api/ and cli/ asks an op's row
(op_has with an op_flags bit, its CostClass, its contraction, its attributes) what it needs to know,
and never compares a node's kind with one op (`n.op == ir::OpKind::Gather`, `case OpKind::MatMul:`),
so that an op added as its file and its list line is planned, costed, run and checked by the same
code as the others. Comments are not read. Fails naming the file, the line and the op.
Usage: op_name_lint.py SOURCE_DIR [FILE...] (FILEs relative to SOURCE_DIR: only those)"""
import os
import re
import sys

import lint_common

FOLDERS = ("planner", "engine", "api", "cli")
# A comparison with one op kind, or a case label of one (OpKind::Count, the end of the enum, is no op).
TEST = re.compile(r"(==|!=)\s*(ir::)?OpKind::(?!Count\b)(\w+)|\bOpKind::(?!Count\b)(\w+)\s*(==|!=)"
                  r"|\bcase\s+(ir::)?OpKind::(\w+)")


def check(src, rel):
    with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
        text = lint_common.blank_comments(f.read())
    failures = []
    for number, line in enumerate(text.split("\n"), 1):
        for m in TEST.finditer(line):
            op = m.group(3) or m.group(4) or m.group(7)
            failures.append(f"{rel}:{number}: tests the op {op} by its kind; give its row a flag "
                            "(core/ops/op.hpp op_flags) and ask op_has")
    return failures


def main():
    src = sys.argv[1]
    files = sys.argv[2:]
    if not files:
        for folder in FOLDERS:
            for root, _, names in os.walk(os.path.join(src, folder)):
                files += [os.path.relpath(os.path.join(root, n), src) for n in names if n.endswith((".cpp", ".hpp"))]
    failures = [f for rel in sorted(files) for f in check(src, rel)]
    for f in failures:
        print(f)
    print(f"op_name_lint: {len(files)} files, {len(failures)} op kinds tested by name")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
