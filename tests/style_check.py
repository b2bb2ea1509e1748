#!/usr/bin/env python3
"""Guard rails on what changed since the base commit in tests/style_check.txt:
- clang-format: every C++ line changed since the base is formatted by the root .clang-format;
- clang-tidy (readability-function-size, limits in the root .clang-tidy): no function of a changed
  source file is longer or nests deeper than the limits, except the functions listed as held.
Usage: style_check.py SOURCE_DIR BUILD_DIR (BUILD_DIR holds compile_commands.json)."""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys

STAGES = ("core", "frontend", "planner", "engine", "api", "cli", "include", "bench", "tests")
TIDY = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):\d+: (?:warning|error): function '(?P<name>[^']+)' exceeds")
NOTE = re.compile(r"^[^:]+:\d+:\d+: note: (?P<text>.*\(threshold \d+\))")


def tool(*names):
    for name in names:
        if shutil.which(name):
            return name
    sys.exit(f"style_check: none of {', '.join(names)} is installed\nhint: .ci/setup installs clang-format and clang-tidy")


def read_rules(path):
    base, held = None, set()
    with open(path) as f:
        for number, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if words[0] == "base" and len(words) == 2:
                base = words[1]
            elif words[0] == "hold" and len(words) == 2:
                held.add(words[1])
            else:
                sys.exit(f"{path}:{number}: cannot read `{line.strip()}` (base COMMIT or hold PATH:FUNCTION)")
    if base is None:
        sys.exit(f"{path}: no base line")
    return base, held


def git(src, *args):
    return subprocess.run(["git", "-C", src, *args], capture_output=True, text=True)


def changed_files(src, base):
    out = git(src, "diff", "--name-only", base, "--", "*.cpp", "*.hpp")
    if out.returncode != 0:
        sys.exit(f"style_check: cannot diff against {base}: {out.stderr.strip()}\n"
                 "hint: the check needs the history back to the base commit (a full clone, not a shallow one)")
    return [f for f in out.stdout.split() if f.split("/", 1)[0] in STAGES and os.path.exists(os.path.join(src, f))]


def check_format(src, base, files):
    clang_format = tool("clang-format-14", "clang-format")
    out = git(src, "clang-format", "--binary", clang_format, "--diff", base, "--", *files)
    text = out.stdout.strip()
    if out.returncode != 0 and not text:
        sys.exit(f"style_check: git clang-format failed: {out.stderr.strip()}")
    if text and "did not modify any files" not in text and "no modified files to format" not in text:
        print(text)
        print(f"style_check: lines changed since {base[:12]} are not formatted as .clang-format says")
        print(f"hint: run `git clang-format {base[:12]}` and commit the result")
        return False
    return True


def tidy_one(args):
    clang_tidy, build, path = args
    out = subprocess.run([clang_tidy, "-p", build, "--quiet", path], capture_output=True, text=True)
    return out.stdout


def check_size(src, build, held, files):
    clang_tidy = tool("clang-tidy-14", "clang-tidy")
    sources = [os.path.join(src, f) for f in files if f.endswith(".cpp") and not f.startswith("tests/")]
    jobs = [(clang_tidy, build, path) for path in sources]
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for text in pool.map(tidy_one, jobs):
            current = None
            for line in text.splitlines():
                m = TIDY.match(line)
                if m:
                    rel = os.path.relpath(m.group("file"), src)
                    key = f"{rel}:{m.group('name')}"
                    current = None if key in held else [f"{rel}:{m.group('line')}: function '{m.group('name')}'"]
                    if current is not None:
                        failures.append(current)
                    continue
                n = NOTE.match(line)
                if n and current is not None:
                    current.append("  " + n.group("text"))
    for failure in failures:
        print("\n".join(failure))
    if failures:
        print("style_check: functions past the size or nesting limits of .clang-tidy")
        print("hint: split them (a helper per step, early returns); hold one in tests/style_check.txt only "
              "if it was already past the limits, saying why")
    print(f"style_check: {len(sources)} changed source files checked for function size and nesting")
    return not failures


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: style_check.py SOURCE_DIR BUILD_DIR")
    src, build = sys.argv[1], sys.argv[2]
    base, held = read_rules(os.path.join(src, "tests", "style_check.txt"))
    files = changed_files(src, base)
    print(f"style_check: {len(files)} C++ files changed since {base[:12]}")
    if not files:
        return
    ok = check_format(src, base, files)
    ok = check_size(src, build, held, files) and ok
    if not ok:
        sys.exit(1)
    print("style_check: formatting and function sizes hold")


main()
