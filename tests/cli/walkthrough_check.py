#!/usr/bin/env python3
"""docs/walkthrough.md runs as written (issue 33): every line of its ```sh blocks, in order, with
`bash -e`, in a fresh folder where `build` and `examples` are the build's and the source tree's (so
the files the walk-through writes land there, not in the source tree). Then what it promises holds:
a test accuracy of at least 0.9, and a prediction row for every new sample.

Usage: walkthrough_check.py SOURCE_DIR BUILD_DIR WORK_DIR
"""
import os
import re
import shutil
import subprocess
import sys


def main():
    source, build, work = (os.path.abspath(p) for p in sys.argv[1:4])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.symlink(build, os.path.join(work, "build"))
    os.symlink(os.path.join(source, "examples"), os.path.join(work, "examples"))
    doc = open(os.path.join(source, "docs", "walkthrough.md"), encoding="utf-8").read()
    blocks = re.findall(r"```sh\n(.*?)```", doc, flags=re.S)
    if len(blocks) < 5:
        sys.exit(f"FAIL: docs/walkthrough.md has {len(blocks)} sh blocks; expected the five steps")
    outputs = []
    for block in blocks:
        r = subprocess.run(["bash", "-e", "-c", block], cwd=work, capture_output=True, text=True, timeout=600)
        print(f"$ {block.strip()}\n{r.stdout}{r.stderr}")
        if r.returncode != 0:
            sys.exit(f"FAIL: exit {r.returncode} from:\n{block}")
        outputs.append(r.stdout + r.stderr)
    log = "\n".join(outputs)
    m = re.search(r"test:.*?accuracy (\d\.\d+)", log)
    if not m or float(m.group(1)) < 0.9:
        sys.exit(f"FAIL: no test accuracy of at least 0.9 in the log ({m.group(0) if m else 'none'})")
    rows = open(os.path.join(work, "predictions.csv")).read().splitlines()
    if rows[0] != "sample,probs[0],probs[1],probs[2],class_id" or len(rows) != 10:
        sys.exit(f"FAIL: predictions.csv is not a header and 9 rows: {rows[:3]} ... ({len(rows)} lines)")
    if not os.path.exists(os.path.join(work, "plan.html")):
        sys.exit("FAIL: no plan.html")
    print(f"ok: {len(blocks)} blocks ran; test accuracy {m.group(1)}; {len(rows) - 1} predictions")


if __name__ == "__main__":
    main()
