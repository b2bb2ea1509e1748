#!/usr/bin/env python3
"""Namespaces match folders: every named namespace a source file opens is its folder's, or nested in it.

A file under TOP/.../INNER/ may open iputrain::TOP or iputrain::INNER and namespaces nested in
them, or plain `iputrain` where it implements the public API of include/iputrain/; `detail` may
nest anywhere, and a block that only forward-declares another folder's types is allowed. Two folders have namespaces of other names, listed in ALIASES. Fails naming
the file, the line and the namespace. Usage: namespace_lint.py SOURCE_DIR"""
import os
import re
import sys

import lint_common

FOLDERS = ("core", "frontend", "planner", "engine", "api", "cli", "include")
# core is the base library (namespace iputrain, its thread helpers iputrain::par); its ops extend
# the IR (iputrain::ir).
ALIASES = {"core": ("iputrain::par",), "core/ops": ("iputrain::ir",), "include/iputrain": ("iputrain::config",)}
OPEN = re.compile(r"^namespace\s+([A-Za-z_][A-Za-z0-9_:]*)?\s*\{")
CLOSE = re.compile(r"^\}\s*//\s*namespace")


def allowed(rel_dir):
    parts = rel_dir.split("/")
    names = {"iputrain::" + parts[0], "iputrain::" + parts[-1]}
    names.update(ALIASES.get(rel_dir, ()))
    return names


STRIP = re.compile(r'//.*|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')


# A forward declaration: a class, or an enum with its underlying type (an opaque enum declaration).
FORWARD = re.compile(r"^\s*((class|struct)\s+\w+\s*;|enum\s+(class|struct)\s+\w+\s*:\s*[\w:]+\s*;|"
                     r"namespace\s+[\w:]+\s*\{|\}.*)?\s*$")


def forward_only(lines, opened):
    """Whether the namespace opened on line `opened` (1-based) only declares another folder's types."""
    depth = 1
    for raw in lines[opened:]:
        line = STRIP.sub("", raw)
        if not FORWARD.match(line):
            return False
        depth += line.count("{") - line.count("}")
        if depth <= 0:
            return True
    return False


def check(src, rel):
    names = allowed(os.path.dirname(rel))
    stack = []  # (name, brace depth inside it)
    depth = 0
    failures = []
    with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
        text = f.read()
    text = lint_common.blank_comments(text)
    lines = text.split("\n")
    for number, raw in enumerate(lines, 1):
        line = STRIP.sub("", raw)
        m = OPEN.match(line)
        if m:
            name = m.group(1) or ""
            depth += 1
            stack.append((name, depth))
            # `detail` (implementation details) may nest anywhere; plain iputrain is the public API's.
            full = "::".join(n for n, _ in stack if n and n != "detail") if name else ""
            if full not in ("", "iputrain") and not any(full == n or full.startswith(n + "::") for n in names) \
                    and not forward_only(lines, number):
                failures.append(f"{rel}:{number}: namespace {full} is not its folder's "
                                f"(allowed here: {', '.join(sorted(names))})")
            line = line[m.end():]
        for ch in line:
            if ch == "{":
                depth += 1
            elif ch == "}":
                while stack and stack[-1][1] == depth:
                    stack.pop()
                depth -= 1
    return failures


def main():
    return lint_common.run(
        "namespace_lint.py", FOLDERS, check,
        lambda files, failures: f"namespace_lint: {files} files, {failures} outside their folder's namespace",
        "open the folder's namespace (iputrain::<folder>), or move the file to the folder whose "
        "namespace it uses")


if __name__ == "__main__":
    sys.exit(main())
