#!/usr/bin/env python3
"""Where a fresh build's time goes (issue 43): a clean build of the demo target (the `iputrain`
command) and then of everything the test suite builds, each timed as a whole; the slowest
translation units (every compile's CPU time, taken by bench/tu_timer.sh); the headers that cost most across
all units (each header's parse time alone, times the number of units that include it); and the
apt time of this machine's first `.ci/setup` (from /var/tmp/iputrain-setup-times.log).

  python3 bench/build_time.py                       # build/time in a scratch tree, print the tables
  python3 bench/build_time.py --dir /tmp/bt --jobs 2 --top 20 --markdown build_time.md
  python3 bench/build_time.py --cmake-arg=-DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON   # without the PCH

It configures as .ci/setup does (Release, Ninja). Other work on the machine slows the wall times
(run it on an idle machine); the compiler's CPU seconds hardly change. The sanitizer trees (tests/fuzz/run_sanitized.sh, tests/engine/run_tsan.cmake)
are built by their tests, not here.
"""
import argparse
import json
import multiprocessing
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
APT_LOG = "/var/tmp/iputrain-setup-times.log"


def run_timed(cmd, env=None, log=None):
    start = time.monotonic()
    with open(log, "a") if log else open(os.devnull, "w") as out:
        rc = subprocess.run(cmd, env=env, stdout=out, stderr=subprocess.STDOUT).returncode
    if rc != 0:
        sys.exit(f"build_time: `{' '.join(cmd)}` failed (exit {rc}){'; see ' + log if log else ''}")
    return time.monotonic() - start


def read_units(log_path):
    """(CPU s, wall s, object) per compiled unit, in the order they finished."""
    units = []
    if os.path.exists(log_path):
        with open(log_path) as f:
            for line in f:
                words = line.split()
                if len(words) == 3:
                    units.append((int(words[1]) / 1000.0, int(words[0]) / 1000.0, words[2]))
    return units


def unit_name(obj):
    """CMakeFiles/iputrain_core.dir/ops/abs.cpp.o -> iputrain_core: ops/abs.cpp"""
    m = re.search(r"CMakeFiles/([^/]+)\.dir/(.+)\.o$", obj)
    return f"{m.group(1)}: {m.group(2)}" if m else obj


def plain_command(entry):
    """The unit's compile command without the precompiled header, output or -c: to see its includes."""
    args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    out, skip = [], False
    for i, a in enumerate(args):
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a == "-include" and i + 1 < len(args) and "cmake_pch" in args[i + 1]:
            skip = True
            continue
        if a in ("-c", "-MD", "-MMD", "-Winvalid-pch") or a.startswith("-Xclang") or a == entry["file"]:
            continue
        if a.endswith(("tu_timer.sh",)):
            continue
        out.append(a)
    return out


def includes_of(entry):
    """(header, depth) pairs of one unit, from the compiler's -H tree."""
    cmd = plain_command(entry) + ["-E", "-H", "-o", os.devnull, entry["file"]]
    proc = subprocess.run(cmd, cwd=entry.get("directory"), capture_output=True, text=True)
    pairs = []
    for line in proc.stderr.splitlines():
        m = re.match(r"^(\.+) (\S+)$", line)
        if m:
            pairs.append((os.path.normpath(m.group(2)), len(m.group(1))))
    return entry, pairs


def parse_seconds(args):
    entry, header = args
    cmd = [a for a in plain_command(entry)] + ["-fsyntax-only", "-x", "c++", header]
    start = time.monotonic()
    subprocess.run(cmd, cwd=entry.get("directory"), capture_output=True)
    return header, time.monotonic() - start


def header_costs(build_dir, jobs, top):
    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        entries = [e for e in json.load(f) if e["file"].endswith(".cpp")]
    units, depth, example = {}, {}, {}
    with multiprocessing.Pool(jobs) as pool:
        for entry, pairs in pool.imap_unordered(includes_of, entries):
            for header, d in set(pairs):
                units[header] = units.get(header, 0) + 1
                depth[header] = min(depth.get(header, d), d)
                example.setdefault(header, entry)
    # Headers a unit or its own headers include (depth <= 2), included by at least 3 units; the
    # most included 3 * top of them are each parsed alone, in a unit's flags that includes it.
    candidates = sorted((h for h in units if depth[h] <= 2 and units[h] >= 3), key=lambda h: -units[h])[: 3 * top]
    with multiprocessing.Pool(jobs) as pool:
        timed = dict(pool.map(parse_seconds, [(example[h], h) for h in candidates]))
    rows = sorted(((timed[h] * units[h], timed[h], units[h], h) for h in candidates), reverse=True)
    return rows[:top], len(entries)


def apt_line():
    if not os.path.exists(APT_LOG):
        return "no record (.ci/setup found every package installed on this machine)"
    with open(APT_LOG) as f:
        lines = [l.strip() for l in f if " apt " in l]
    return lines[0] if lines else "no record"


def short(path):
    for prefix in (SRC + "/", "/usr/include/c++/12/", "/usr/include/"):
        if path.startswith(prefix):
            return path[len(prefix):]
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default=os.path.join(SRC, "build-time"), help="scratch build tree (deleted first)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--demo-only", action="store_true", help="build only the demo target")
    ap.add_argument("--no-headers", action="store_true", help="skip the header table")
    ap.add_argument("--cmake-arg", action="append", default=[])
    ap.add_argument("--markdown", help="also write the tables to this file")
    a = ap.parse_args()

    shutil.rmtree(a.dir, ignore_errors=True)
    os.makedirs(a.dir)
    tu_log = os.path.join(a.dir, "tu_times.log")
    build_log = os.path.join(a.dir, "build.log")
    env = dict(os.environ, IPUTRAIN_TU_LOG=tu_log)
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    configure = run_timed(["cmake", "-S", SRC, "-B", a.dir, *generator, "-DCMAKE_BUILD_TYPE=Release",
                           f"-DCMAKE_CXX_COMPILER_LAUNCHER={SRC}/bench/tu_timer.sh", *a.cmake_arg], env, build_log)
    demo = run_timed(["cmake", "--build", a.dir, f"-j{a.jobs}", "--target", "iputrain_cli"], env, build_log)
    demo_units = len(read_units(tu_log))
    rest = None if a.demo_only else run_timed(["cmake", "--build", a.dir, f"-j{a.jobs}"], env, build_log)
    logged = read_units(tu_log)
    units = sorted(logged, reverse=True)
    cpu_of = lambda rows: sum(cpu for cpu, _, _ in rows)

    cpu = os.popen("grep -m1 'model name' /proc/cpuinfo").read().split(":")[-1].strip()
    lines = [f"CPU: {cpu}, {os.cpu_count()} cores, -j{a.jobs}; cmake args: {' '.join(a.cmake_arg) or '(none)'}",
             f"apt (this machine's first .ci/setup): {apt_line()}", "",
             "| build (clean tree) | wall s | units compiled | compiler CPU s |", "|---|---|---|---|",
             f"| configure | {configure:.0f} | | |",
             f"| demo target (iputrain) | {demo:.0f} | {demo_units} | {cpu_of(logged[:demo_units]):.0f} |"]
    if rest is not None:
        lines.append(f"| everything else the suite builds | {rest:.0f} | {len(logged) - demo_units} | "
                     f"{cpu_of(logged[demo_units:]):.0f} |")
        lines.append(f"| whole suite (configure + both) | {configure + demo + rest:.0f} | {len(logged)} | "
                     f"{cpu_of(logged):.0f} |")
    lines += ["", f"| slowest {a.top} units (compiler CPU) | CPU s | wall s |", "|---|---|---|"]
    lines += [f"| {unit_name(obj)} | {c:.1f} | {w:.1f} |" for c, w, obj in units[: a.top]]
    if not a.no_headers:
        rows, n = header_costs(a.dir, a.jobs, a.top)
        lines += ["", f"| header (parsed alone, in {n} units) | s alone | units | s across units |", "|---|---|---|---|"]
        lines += [f"| {short(h)} | {t:.2f} | {c} | {cost:.0f} |" for cost, t, c, h in rows]
    text = "\n".join(lines)
    print(text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
