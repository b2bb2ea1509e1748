#!/usr/bin/env python3
"""No function over 100 lines (issue 34): every function body in the C++ sources, tests and benches
included, is at most LIMIT lines between its braces. Declarative tables are the exception: they are
held in tests/style_check.txt (`hold PATH:FUNCTION`, with the reason). clang-tidy checks the same limit
(.clang-tidy) on the files a change touches, with nesting; this scan covers every file in a second.
Usage: function_length.py SOURCE_DIR"""
import os
import re
import sys

import lint_common

LIMIT = 100
FOLDERS = ("core", "frontend", "planner", "engine", "api", "cli", "include", "bench", "tests", "examples")
CONTROL = re.compile(r"^(if|for|while|switch|catch|do|else|try|return|namespace|struct|class|enum|union)\b")
STRIP = re.compile(r'//.*|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')


def holds(src):
    held = set()
    with open(os.path.join(src, "tests", "style_check.txt"), encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2 and parts[0] == "hold":
                held.add(parts[1])
    return held


def code_lines(text):
    text = lint_common.blank_comments(text)
    return [STRIP.sub('""', line) for line in text.split("\n")]


def function_name(head):
    """The name in a function head ('int f(int a) const', 'A::A(int x) : x_(x)'), or None."""
    head = re.sub(r"\s+", " ", head).strip()
    if not head.endswith((")", "const", "override", "noexcept", "final", "mutable")) and "->" not in head \
            and not re.search(r"\)\s*:\s*.*\)$", head):
        return None
    if CONTROL.match(head) or head.startswith(("[", "=")) or "=" in head.split("(")[0]:
        return None
    depth = 0
    for i, ch in enumerate(head):
        if ch == "(" and depth == 0:
            m = re.search(r"([A-Za-z_~][A-Za-z0-9_:<>~]*|operator\S*)\s*$", head[:i])
            return m.group(1) if m else None
        depth += ch == "<"
        depth -= ch == ">" and depth > 0
    return None


def scan(src, rel, held):
    with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
        lines = code_lines(f.read())
    failures = []
    head = ""         # code since the last ; { or } outside function bodies
    depth = 0         # braces open
    body_at = None    # (depth, line, name) of the function body being read
    for number, line in enumerate(lines, 1):
        for ch in line:
            if body_at is None and ch not in "{};":
                head += ch
                continue
            if ch == "{":
                depth += 1
                if body_at is None:
                    name = function_name(head)
                    if name:
                        body_at = (depth, number, name)
                head = ""
            elif ch == "}":
                if body_at is not None and depth == body_at[0]:
                    length = number - body_at[1] - 1
                    short = body_at[2].split("::")[-1]
                    if length > LIMIT and f"{rel}:{short}" not in held:
                        failures.append(f"{rel}:{body_at[1]}: function '{body_at[2]}' has {length} lines")
                    body_at = None
                depth -= 1
                head = ""
            elif ch == ";" and body_at is None:
                head = ""
        if body_at is None:
            head += " "
    return failures


def main():
    held = {}
    return lint_common.run(
        "function_length.py", FOLDERS,
        lambda src, rel: scan(src, rel, held.setdefault("set", holds(src))),
        lambda files, failures: f"function_length: {files} files, {failures} functions over {LIMIT} lines",
        "split them along their steps (a helper per step); hold a declarative table in "
        "tests/style_check.txt, saying why")


if __name__ == "__main__":
    sys.exit(main())
