#!/usr/bin/env python3
"""Runs the tests CTest selected (its `--show-only=json-v1` listing, on stdin) with one process per
test program rather than one per test case: a sanitized process costs 0.2-0.3 s of CPU to start and
to check for leaks at its exit, over 500 times in the sanitizer parts (the planner part: 62 s as
CTest runs it, 33 s grouped). Each program runs the cases CTest would have run, in CTest's order,
in the working directory CTest would have given it; a test that is not one doctest case (a script,
a program with arguments of its own) runs as CTest would run it. The tests still run one case per
process in the plain tree, which is where isolation between cases is checked.

Usage: ctest --test-dir BIN --show-only=json-v1 [selection...] | run_grouped.py
"""
import json
import os
import subprocess
import sys
import time

CASE = "--test-case="
# The properties this runner honours (COST only orders CTest's own runs; ENVIRONMENT is set for the
# program, e.g. the tree's TMPDIR, tests/CMakeLists.txt); any other (an expected failure, a fixture)
# would change how CTest runs the test, so a test that has one is refused rather than run wrongly.
KNOWN = {"LABELS", "WORKING_DIRECTORY", "TIMEOUT", "COST", "ENVIRONMENT"}


def groups_of(tests):
    groups = {}  # (program, directory, environment) -> doctest filters, or a whole command run alone
    for test in tests:
        props = {p["name"]: p["value"] for p in test.get("properties", [])}
        unknown = set(props) - KNOWN
        if unknown:
            sys.exit(f"run_grouped: test {test['name']} has {', '.join(sorted(unknown))}, "
                     "which this runner does not apply: run it through ctest")
        command, cwd = test["command"], props.get("WORKING_DIRECTORY")
        env = props.get("ENVIRONMENT", [])
        env = tuple([env] if isinstance(env, str) else env)  # "NAME=value" entries
        if len(command) == 2 and command[1].startswith(CASE):
            # The name arrives escaped for doctest's filter (',' as '\,'), so the filters join on ','.
            groups.setdefault((command[0], cwd, env), []).append(command[1][len(CASE):])
        else:
            groups[(tuple(command), cwd, env)] = None
    return groups


def main():
    tests = json.load(sys.stdin)["tests"]
    if not tests:
        sys.exit("run_grouped: CTest selected no test")
    failed = []
    for (program, cwd, env), cases in groups_of(tests).items():
        if cases is None:
            command, what = list(program), " ".join(program)
        else:
            command = [program, CASE + ",".join(cases), "--no-version"]
            what = f"{os.path.basename(program)} ({len(cases)} cases)"
        start = time.monotonic()
        environment = dict(os.environ, **dict(entry.split("=", 1) for entry in env))
        code = subprocess.run(command, cwd=cwd, env=environment).returncode
        print(f"run_grouped: {what}: {'passed' if code == 0 else f'FAILED (exit {code})'} "
              f"in {time.monotonic() - start:.1f} s", flush=True)
        if code != 0:
            failed.append(what)
    print(f"run_grouped: {len(tests)} tests, {len(failed)} programs failed" +
          "".join(f"\n  {f}" for f in failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
