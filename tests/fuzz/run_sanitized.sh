#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer: builds every target
# with clang-16 in BIN (the tree run_fuzz.sh fuzzes in: the same instrumented libraries) and runs
# its CTest suite, where the fuzz corpora replay through the libFuzzer binaries. Left out: the
# benchmarks and agreement scripts (timing and PyTorch, not memory safety), the package tests
# (they install), ThreadSanitizer (engine.tsan_stress runs in the ordinary tree), the runs under
# mpirun (label mpi: Open MPI is left out of this tree), LeNet's
# one-epoch accuracy run (3750 steps: over ten minutes here, through the code that
# examples.lenet_loss_falls runs in seconds) and tiny_lm's loss run (about 4 minutes here; its
# attention, embedding and layer-norm code trains under the sanitizers in the zoo.vit, zoo.llama
# and engine ipu_scale tests).
# Usage: run_sanitized.sh SOURCE_DIR BIN_DIR
set -euo pipefail
SRC=$1
BIN=$2
CLANG=${CLANG:-clang++-16}
export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-16/bin/llvm-symbolizer}
command -v "$CLANG" >/dev/null || { echo "run_sanitized: $CLANG is missing (Debian: clang-16 libclang-rt-16-dev)" >&2; exit 1; }
cmake -S "$SRC" -B "$BIN" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$CLANG" -DIPUTRAIN_FUZZ=ON \
      -DIPUTRAIN_BUILD_BENCH=OFF -DIPUTRAIN_WITH_MPI=OFF >/dev/null
cmake --build "$BIN" -j2
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$BIN" -j2 --output-on-failure -LE "bench|package|tsan|mpi|lint" -E "examples.lenet_one_epoch_accuracy|examples.tiny_lm_loss_falls"
