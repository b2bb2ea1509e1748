#!/usr/bin/env python3
"""No test decided by the clock (issue 43): a file under tests/ that reads a wall clock
(steady_clock, system_clock, clock_gettime, Clock::now(), time.time(), time.perf_counter(),
`date +%s`, ...) fails, unless ALLOWED lists it with the reason and the number of lines that read
one: a hang guard (a generous wait, >= 60 s, that only a hung child fails) or a figure printed and
never compared. A deadline is tested on an injected clock (planner::TickClock, planner/deadline.hpp)
or by counting, and wall-clock figures belong to bench/. Second, each benchmark of bench/ with a
time goal (its source takes --no-time-goal) is registered with CTest with --no-time-goal: its
figures are printed, its time not checked. Comments are not read.
Usage: clock_lint.py SOURCE_DIR [FILE...] (FILEs relative to SOURCE_DIR: only those)"""
import os
import re
import sys

# One line reading a clock, in C++, Python, shell or CMake (a C++ test may hold a shell script).
CLOCK = re.compile(
    r"\b(steady_clock|system_clock|high_resolution_clock|utc_clock|clock_gettime|gettimeofday|sleep_until)\b"
    r"|::now\s*\(|\bstd::(time|clock)\s*\(|\btime\s*\(\s*(nullptr|NULL|0)\s*\)"
    r"|\btime\.(time|perf_counter|monotonic|process_time)(_ns)?\b|\bdatetime\.(datetime\.)?(now|utcnow)\b"
    r"|\bdate\s+\+%[sN]|\$\{?(SECONDS|EPOCHSECONDS|EPOCHREALTIME)\b|\bstring\s*\(\s*TIMESTAMP\b")
# PATH: (lines that read a clock, why that is no verdict by the clock).
ALLOWED = {
    "tests/cli/faults_test.cpp": (5, "hang guards: a child's output awaited 60 s, its end 120 s, then a failure"),
    "tests/cli/repl_test.cpp": (4, "hang guards: the REPL's screen and its end awaited 60 s, then a failure"),
    "tests/data/idx_test.cpp": (2, "a printed figure only: the seconds to open Fashion-MNIST"),
    "tests/engine/cluster_test.cpp": (2, "a printed figure only: the seconds of 16 virtual IPUs' run"),
    "tests/diff/diff_suite.py": (2, "a printed figure only: the suite's seconds"),
    "tests/doc_commands.py": (2, "a printed figure only: each command's seconds"),
    "tests/fuzz/run_grouped.py": (2, "a printed figure only: each test program's seconds"),
}
C_LIKE = (".cpp", ".hpp", ".h", ".cpp.probe")
HASH_COMMENTS = (".py", ".sh", ".cmake", "CMakeLists.txt")
SELF = "tests/clock_lint.py"


def code(rel, text):
    """The lines of TEXT with comments blanked (line numbers kept)."""
    if rel.endswith(C_LIKE):
        text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
        return [re.sub(r"(^|\s)//.*", "", line) for line in text.split("\n")]
    if rel.endswith(HASH_COMMENTS):
        return [re.sub(r"(^|\s)#.*", "", line) for line in text.split("\n")]
    return text.split("\n")


def files(src):
    """The test sources under tests/, the probes left out (each is checked when named)."""
    for root, dirs, names in os.walk(os.path.join(src, "tests")):
        dirs[:] = sorted(d for d in dirs if d not in ("lint_probes", "__pycache__"))
        for name in sorted(names):
            rel = os.path.relpath(os.path.join(root, name), src)
            if rel != SELF and (name.endswith(C_LIKE + HASH_COMMENTS) or name.endswith(".txt")):
                yield rel


def scan(src, rel):
    with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
        lines = code(rel, f.read())
    hits = [(n, m.group(0)) for n, line in enumerate(lines, 1) for m in [CLOCK.search(line)] if m]
    if rel in ALLOWED:
        count, reason = ALLOWED[rel]
        if len(hits) == count:
            return []
        return [f"{rel}: {len(hits)} lines read a clock, the allow-list holds {count} ({reason}): "
                f"lines {', '.join(str(n) for n, _ in hits)}"]
    return [f"{rel}:{n}: reads a wall clock (`{what}`)" for n, what in hits]


def bench_registrations(src):
    """Failures: benchmarks with a time goal registered with CTest without --no-time-goal."""
    path = os.path.join(src, "bench", "CMakeLists.txt")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        text = "\n".join(code("bench/CMakeLists.txt", f.read()))
    failures = []
    for m in re.finditer(r"add_test\(\s*NAME\s+(\S+)\s+COMMAND\s+([^\s)]+)([^)]*)\)", text):
        source = os.path.join(src, "bench", m.group(2) + ".cpp")
        if os.path.exists(source) and "--no-time-goal" in open(source, encoding="utf-8").read() \
                and "--no-time-goal" not in m.group(3):
            failures.append(f"bench/CMakeLists.txt: {m.group(1)} runs {m.group(2)} with its time goal "
                            "(add --no-time-goal)")
    return failures


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: clock_lint.py SOURCE_DIR [FILE...] (FILEs relative to SOURCE_DIR: only those)")
    src = sys.argv[1]
    named = sys.argv[2:]
    checked = list(named or files(src))
    failures = [failure for rel in checked for failure in scan(src, rel)]
    if not named:
        failures += bench_registrations(src)
    for failure in failures:
        print(failure)
    print(f"clock_lint: {len(checked)} files, {len(failures)} failures")
    if failures:
        print("hint: test a deadline on an injected clock (planner::TickClock) or by counting; move a timing to "
              "bench/; a hang guard (>= 60 s) or a printed figure goes in ALLOWED of tests/clock_lint.py, saying why")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
