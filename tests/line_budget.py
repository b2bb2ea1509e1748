#!/usr/bin/env python3
"""Prints the source lines of each stage against its budget (tests/line_budget.txt) and fails
when a stage, or a file, has grown past its budget: growth is seen in every CI run."""
import os
import sys

EXTENSIONS = (".cpp", ".hpp", ".ipu", ".g4")


def read_budgets(path):
    stages, files, file_max = {}, {}, None
    with open(path) as f:
        for number, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if words[0] == "stage" and len(words) == 3:
                stages[words[1]] = int(words[2])
            elif words[0] == "file" and len(words) == 3:
                files[words[1]] = int(words[2])
            elif words[0] == "file-max" and len(words) == 2:
                file_max = int(words[1])
            else:
                sys.exit(f"{path}:{number}: cannot read `{line.strip()}` "
                         "(stage NAME LINES, file PATH LINES or file-max LINES)")
    if file_max is None:
        sys.exit(f"{path}: no file-max line")
    return stages, files, file_max


def sources(root, stage):
    for folder, dirs, names in os.walk(os.path.join(root, stage)):
        dirs[:] = sorted(d for d in dirs if d != "generated")
        for name in sorted(names):
            if name.endswith(EXTENSIONS):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    yield os.path.relpath(path, root), sum(1 for _ in f)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    stages, files, file_max = read_budgets(os.path.join(root, "tests", "line_budget.txt"))
    failures = []
    print(f"{'stage':<10} {'files':>6} {'lines':>7} {'budget':>7} {'left':>6}  largest file")
    for stage, budget in stages.items():
        counted = list(sources(root, stage))
        if not counted:
            failures.append(f"stage {stage}: no source files (a renamed folder? update tests/line_budget.txt)")
            continue
        lines = sum(n for _, n in counted)
        largest = max(counted, key=lambda c: c[1])
        print(f"{stage:<10} {len(counted):>6} {lines:>7} {budget:>7} {budget - lines:>6}  {largest[0]} ({largest[1]})")
        if lines > budget:
            failures.append(f"stage {stage}: {lines} lines, over its budget of {budget}")
        for path, n in counted:
            limit = files.get(path, file_max)
            if n > limit:
                failures.append(f"{path}: {n} lines, over its budget of {limit}")
    for path in files:
        if not os.path.exists(os.path.join(root, path)):
            failures.append(f"{path}: listed in tests/line_budget.txt but gone (drop its line)")
    for f in failures:
        print(f"line_budget: {f}", file=sys.stderr)
    if failures:
        print("hint: split the file, or raise the budget in tests/line_budget.txt in the same commit, saying why",
              file=sys.stderr)
        return 1
    print("line_budget: every stage and file within its budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
