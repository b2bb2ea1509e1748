#!/usr/bin/env python3
"""The stages hold at link time: no stage library needs a symbol that only a later stage defines.

Each stage folder builds one library (CMake target) or a few; the stages are ordered as
docs/architecture.md draws them: core, frontend (grammar, the config, the model language),
planner, engine, api. For every library the script lists the symbols it leaves undefined (nm -u)
and the stages that define them (nm --defined-only); a symbol that only a later stage defines is an
arrow running back up, and the script fails naming the library, the stage and the symbols.

Usage: layer_links.py BUILD_DIR            check the build tree's libraries
       layer_links.py BUILD_DIR --probe    the same libraries with the engine placed first: must fail
"""
import collections
import pathlib
import subprocess
import sys

STAGES = [
    ("core", ["core/libiputrain_core.a", "core/data/libiputrain_data.a"]),
    ("frontend", ["grammar/libiputrain_grammar.a", "frontend/config/libiputrain_config.a",
                  "frontend/libiputrain_frontend.a"]),
    ("planner", ["planner/libiputrain_planner.a", "planner/libiputrain_plan_report.a"]),
    ("engine", ["engine/libiputrain_engine.a"]),
    ("api", ["api/libiputrain_plan_api.a", "api/libiputrain_session_api.a"]),
]
# The probe: the same libraries with the engine's placed first. The engine's session needs the
# planner, so the check must name that arrow; a check that passed would prove nothing.
PROBE = [STAGES[3], STAGES[0], STAGES[1], STAGES[2], STAGES[4]]


def nm(path, *flags):
    out = subprocess.run(["nm", *flags, str(path)], capture_output=True, text=True, check=True).stdout
    return [line.split() for line in out.splitlines() if line.strip() and not line.endswith(":")]


def check(build, stages):
    defined = collections.defaultdict(set)  # symbol -> stage indices defining it
    needs = {}
    for index, (_, libs) in enumerate(stages):
        for lib in libs:
            path = build / lib
            if not path.exists():
                sys.exit(f"layer_links: {path} is missing: build the stage libraries first")
            for fields in nm(path, "--defined-only", "-g"):
                # Weak and vague-linkage symbols (inline functions, templates) may be defined anywhere.
                if len(fields) == 3 and fields[1] not in "VvWwu":
                    defined[fields[2]].add(index)
            needs[(index, lib)] = {fields[-1] for fields in nm(path, "-u")}
    arrows = collections.defaultdict(set)
    for (index, lib), symbols in needs.items():
        for symbol in symbols:
            where = defined.get(symbol)
            if where and min(where) > index:
                arrows[(lib, stages[min(where)][0])].add(symbol)
    return arrows


def main():
    build = pathlib.Path(sys.argv[1])
    probe = "--probe" in sys.argv[2:]
    stages = PROBE if probe else STAGES
    arrows = check(build, stages)
    for (lib, stage), symbols in sorted(arrows.items()):
        names = subprocess.run(["c++filt"], input="\n".join(sorted(symbols)), capture_output=True,
                               text=True).stdout.splitlines()
        print(f"{lib} needs {len(symbols)} symbols that only the later stage `{stage}` defines, e.g.:")
        for name in names[:8]:
            print("    " + name[:160])
    order = " < ".join(name for name, _ in stages)
    if arrows:
        print(f"layer_links: {len(arrows)} arrows run back up ({order}); move the definitions to the stage "
              "that owns them (docs/architecture.md)")
        return 1
    print(f"layer_links: {sum(len(libs) for _, libs in stages)} libraries, no arrow runs back up ({order})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
