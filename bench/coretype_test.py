#!/usr/bin/env python3
"""bench/speed_suite.py forces OpenBLAS's widest kernels when its own choice is narrower than the
CPU's vectors, on any vendor (issue 49): the cases of the CPUs met so far, and the machine's own."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
spec = importlib.util.spec_from_file_location("speed_suite", os.path.join(HERE, "speed_suite.py"))
suite = importlib.util.module_from_spec(spec)
spec.loader.exec_module(suite)

AVX512 = ["sse3", "avx", "avx2", "fma", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"]
AVX2 = ["sse3", "avx", "avx2", "fma"]
CASES = [
    ("Haswell", AVX512, "SkylakeX"),    # Debian's 0.3.21 on AMD Zen 5 (family 26)
    ("Prescott", AVX512, "SkylakeX"),   # on Intel Emerald Rapids (family 6 model 207)
    ("Zen", AVX512, "SkylakeX"),
    ("Cooperlake", AVX512, None),       # on AMD Zen 4: its own AVX-512 choice is kept
    ("SkylakeX", AVX512, None),
    ("Prescott", AVX2, "Haswell"),      # an AVX2 CPU the library does not know
    ("Haswell", AVX2, None),
    ("Prescott", ["sse3"], None),       # nothing wider to force
    (None, AVX512, None),               # OpenBLAS not loaded
]
failures = 0
for core, flags, want in CASES:
    got = suite.core_to_force(core, flags)
    if got != want:
        print(f"coretype_test: {core} on {flags[-1]}: forced {got}, expected {want}")
        failures += 1
# An OPENBLAS_CORETYPE the suite did not set (this workplace's machines set Haswell in the
# environment, on an AVX-512 Zen 5): dropped when narrower, unless --keep-coretype.
ACTIONS = [
    (("Haswell", AVX512, "Haswell", False), ("unset", None)),
    (("Haswell", AVX512, "Haswell", True), ("keep", None)),
    (("Cooperlake", AVX512, "Cooperlake", False), ("keep", None)),
    (("Haswell", AVX512, None, False), ("force", "SkylakeX")),
    (("Cooperlake", AVX512, None, False), ("keep", None)),
    (("Prescott", AVX2, "Prescott", False), ("unset", None)),
]
for args, want in ACTIONS:
    got = suite.coretype_action(*args)
    if got != want:
        print(f"coretype_test: action for {args[0]} (environment {args[2]}, keep {args[3]}): {got}, expected {want}")
        failures += 1
width = suite.machine()["vector_width"]
print(f"coretype_test: {len(CASES) + len(ACTIONS) - failures} of {len(CASES) + len(ACTIONS)} cases; this machine has {width}-bit vectors")
sys.exit(1 if failures else 0)
