#!/usr/bin/env python3
"""Guard rails on what changed since the base commit in tests/style_check.txt:
- clang-format: every C++ line changed since the base is formatted by the root .clang-format;
- clang-tidy (readability-function-size, limits in the root .clang-tidy): no function of a changed
  source file is longer or nests deeper than the limits, except the functions listed as held;
- temporary names, in every test source (not only the changed ones): no fixed name joined to
  temp_directory_path(). CTest runs each case of a program as its own process, two at a time, so
  such a folder is shared by two processes, and it outlives the run; iputrain_tests::scratch_dir
  (tests/scratch_dir.hpp) gives each process its own, removed at exit.
Usage: style_check.py SOURCE_DIR BUILD_DIR (BUILD_DIR holds compile_commands.json), or
       style_check.py SOURCE_DIR --temp-names [FILE...] (that check alone, on the FILEs if given,
       relative to SOURCE_DIR: lint.temp_names_probe)."""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys

STAGES = ("core", "frontend", "planner", "engine", "api", "cli", "include", "bench", "tests")
TIDY = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):\d+: (?:warning|error): function '(?P<name>[^']+)' exceeds")
NOTE = re.compile(r"^[^:]+:\d+:\d+: note: (?P<text>.*\(threshold \d+\))")
# A string literal joined to the temporary folder, by `/` or by `+` to its string, across lines too.
TEMP_JOIN = re.compile(r'temp_directory_path\(\)(?:\.string\(\)|\.native\(\))?\s*[/+]\s*(?:u8)?"(?P<name>[^"]*)"')
# scratch_dir's own root (its name carries the process id).
TEMP_ROOT = "tests/scratch_dir.hpp"
C_SOURCES = (".cpp", ".hpp", ".h", ".cc", ".cpp.probe")


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


def test_sources(src):
    """The C++ sources under tests/, the probes left out (each is checked when named)."""
    for root, dirs, names in os.walk(os.path.join(src, "tests")):
        dirs[:] = sorted(d for d in dirs if d != "lint_probes")
        for name in sorted(names):
            rel = os.path.relpath(os.path.join(root, name), src)
            if name.endswith(C_SOURCES) and rel != TEMP_ROOT:
                yield rel


def check_temp_names(src, files):
    failures = []
    for rel in files:
        with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        # Comments blanked, line breaks kept: a comment may name such a join.
        text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
        text = "\n".join(re.sub(r"(^|\s)//.*", "", line) for line in text.split("\n"))
        for m in TEMP_JOIN.finditer(text):
            if m.group("name").endswith("XXXXXX"):
                continue  # a mkdtemp template: the folder made from it is unique
            line = text.count("\n", 0, m.start()) + 1
            failures.append(f"{rel}:{line}: a fixed name under the temporary folder (`{m.group('name')}`) is shared "
                            "by two processes of the test program and left behind")
    for failure in failures:
        print(failure)
    print(f"style_check: {len(files)} test sources, {len(failures)} fixed names under the temporary folder")
    if failures:
        print("hint: use iputrain_tests::scratch_dir(\"area\") (tests/scratch_dir.hpp): a folder of the process's "
              "own, removed when it exits")
    return not failures


def main():
    if len(sys.argv) >= 3 and sys.argv[2] == "--temp-names":
        src = sys.argv[1]
        if not check_temp_names(src, sys.argv[3:] or list(test_sources(src))):
            sys.exit(1)
        return
    if len(sys.argv) != 3:
        sys.exit("usage: style_check.py SOURCE_DIR BUILD_DIR | style_check.py SOURCE_DIR --temp-names [FILE...]")
    src, build = sys.argv[1], sys.argv[2]
    temp_ok = check_temp_names(src, list(test_sources(src)))
    base, held = read_rules(os.path.join(src, "tests", "style_check.txt"))
    files = changed_files(src, base)
    print(f"style_check: {len(files)} C++ files changed since {base[:12]}")
    if not files:
        if not temp_ok:
            sys.exit(1)
        return
    ok = check_format(src, base, files) and temp_ok
    ok = check_size(src, build, held, files) and ok
    if not ok:
        sys.exit(1)
    print("style_check: formatting, function sizes and temporary names hold")


main()
