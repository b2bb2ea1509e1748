#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer, in a clang-16 tree of its own
# (BIN, the tree run_fuzz.sh fuzzes in: the same instrumented libraries), as CTest tests the outer
# suite can schedule (tests/fuzz/CMakeLists.txt):
#   run_sanitized.sh build SRC BIN          configures and builds the tree (sanitize.build, a fixture)
#   run_sanitized.sh configure SRC BIN      configures it only (run_fuzz.sh)
#   run_sanitized.sh part SRC BIN LABEL     runs the tree's tests of one label (sanitize.LABEL), or with
#                                           LABEL "rest" those of no label the other parts run
# Compiled at -O1 with line tables only: what ASan's reports need, at a fraction of -O2 -g's build.
# Left out of the parts: the benchmarks and agreement scripts (timing and PyTorch, not memory safety),
# the package tests (they install), ThreadSanitizer (engine.tsan_stress), the runs under mpirun
# (Open MPI is left out of this tree), the lints, the fuzz corpora (fuzz.run executes every corpus
# input and crash reproducer under the same sanitizers before it mutates them), LeNet's one-epoch
# accuracy run (3750 steps: over ten minutes here, through the code examples.lenet_loss_falls runs
# in seconds), the MNIST MLP's (1,875 steps, 13 s here, through the code of
# examples.mnist_mlp_loss_falls's 200) and tiny_lm's loss run (about 4 minutes here; its attention, embedding and layer-norm
# code trains under the sanitizers in the engine ipu_scale tests, its ops in core_test).
set -euo pipefail
MODE=$1
SRC=$2
BIN=$3
CLANG=${CLANG:-clang++-16}
export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-16/bin/llvm-symbolizer}
# The labels that have a part of their own, in order; "rest" runs every other test not left out.
PARTS=(engine cli planner core data config frontend)
LEFT_OUT="bench|package|tsan|mpi|lint|fuzz|sanitize"
SLOW_RUNS="examples.lenet_one_epoch_accuracy|examples.tiny_lm_loss_falls|examples.mnist_mlp_one_epoch_accuracy"
# Checks the plain tree makes already, which under the sanitizers would check the same property
# again, slower: the comparison script, the shipped data, the written configs' round trips (`config
# show`, the REPL's save-config and `tune -o` over every shipped config: about 200 plans of the
# shipped models; what writes each config runs under the sanitizers in test_cli's, test_cli_repl's
# and test_tune's cases; and training resumed and exported for each config that trains, whose
# checkpoint and export code runs under the sanitizers in test_cli_checkpoint's cases), and agreement with PyTorch: the zoo (each model trained in both) and the
# differential suite (every op through `iputrain predict` and the op harness, a process per op
# group; 380 s of the last CI's sanitizer parts against 62 s plain). Memory safety of every op's
# forward and gradient is core_test's (op reference and finite-difference tests, in the core part).
# The browser check renders the HTML report in a headless browser (22 s, the browser's time): the
# report's writer runs under the sanitizers in test_cli (--html), the page's rendering is the plain
# tree's check.
# docs/cli.md against every command's --help (9 s here: a process per command; the help's code runs
# under the sanitizers in test_cli's --help cases) is a check of the page, not of memory.
SAME_PROPERTY="zoo\.|diff\.ops|test_cli_configs\.(config show|save-config after set|tune -o|train then resume and export)|browser\.|test_cli\.docs/cli\.md names every option"
# Runs whose code the sanitizers see through cheaper tests, each of which repeats one path many
# times (issue 43: together 360 s of the last CI's 1,400 s of parts): the key walk (a CLI run per
# schema key, 261 s; fuzz.run's config_values draws keys of the schema and their edge values, then
# plans and trains, under the same sanitizers: test_cli_keys is not even built in this tree), the
# usage check of every key's leaf tried as an option (a parse per key; the usage tests' other cases
# run that code) and LeNet on the portable GEMM (core_test runs every op case through the portable
# GEMM).
# Also the published layouts' planning (test_engine_ipu_scale's fit cases and test_cli's GPT-3
# refusal: the planner's passes on models of hundreds of layers, 75 s and 13 s here, the paths the
# scaled-down BERT case runs with BERT-Large's plan structure, and trains) and tune against brute force (hundreds of plans of one small model,
# 90 s here, the paths test_tune's other cases run: the knobs [tune] lists, the budget, a tuned
# config trained).
SAME_PATHS="test_cli\.every config key whose last part|examples\.lenet_loss_falls_portable_gemm"
SAME_PATHS+="|test_engine_ipu_scale\.(GPT-2|BERT-Large|ViT|ResNet-50 fits)|test_cli\.plan: a GPT-3-sized stack"
SAME_PATHS+="|test_tune\.tune('s memory bound| finds the brute-force| tries every recomputation| gives the same plans)"
# tune on models written elsewhere (three searches to their end, twice each: 210 s of the sanitizer
# part against 30 s plain): the stage-size probes and tied stages are in every search test_tune's
# other cases make (their models' layouts are free), and the comparisons are of figures, not memory.
SAME_PATHS+="|test_tune_model\."
# verify over every shipped config (each trained twice, 24 s here: the configs' training paths are
# test_cli_configs' "every config in configs/ trains a few steps", verify's own code its other
# cases) and the op harness again through the portable GEMM (13 s here: the ops' code is the op
# harness's, the portable kernel's every edge and layout is gemm_test's, which runs every kernel).
SAME_PATHS+="|test_cli_verify\.verify: every config in configs/|core_test\.op harness: every case through the portable GEMM"

# Stack-use-after-return is checked on a fake stack of 2^18 bytes per frame size class and thread
# (ASan's own size for a thread of 256 KB of stack) instead of its default 2^20. A thread walks its
# fake stack round-robin, so it touches most of its 11 MB at the default, and the engine
# tests make hundreds of threads (a virtual IPU is a thread): 930,000 page faults and 44 s of CPU in
# test_engine_equivalence, 444,000 and 29 s at 2^18. A returned frame is still caught until its slot
# comes round again, after 4 to 4,096 other frames of its size (64 KB to 64 B frames).
FAKE_STACK=max_uar_stack_size_log=18

# The tree's one configuration (run_fuzz.sh configures through it too, so the two never differ and
# fuzz.run builds nothing again).
configure() {
  command -v "$CLANG" >/dev/null || { echo "run_sanitized: $CLANG is missing (Debian: clang-16 libclang-rt-16-dev)" >&2; exit 1; }
  local generator=()
  [[ -f "$BIN/CMakeCache.txt" ]] || ! command -v ninja >/dev/null || generator=(-G Ninja)
  cmake -S "$SRC" -B "$BIN" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$CLANG" \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" -DIPUTRAIN_FUZZ=ON \
        -DIPUTRAIN_BUILD_BENCH=OFF -DIPUTRAIN_WITH_MPI=OFF -DIPUTRAIN_COLD_O0=ON -DIPUTRAIN_UNITY_BATCH=48 >/dev/null
}

case $MODE in
  configure) configure ;;
  build)
    configure
    mkdir -p "$BIN/logs"
    cmake --build "$BIN" -j"$(nproc)" >"$BIN/logs/build.log" 2>&1 || { tail -40 "$BIN/logs/build.log"; exit 1; }
    echo "sanitizer tree built in $BIN" ;;
  part)
    LABEL=$4
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:$FAKE_STACK}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
    if [[ $LABEL == rest ]]; then
      exclude="^($LEFT_OUT|$(IFS='|'; echo "${PARTS[*]}"))$"
      select=()
    else
      # A test of several labels runs in the first part that has one of them.
      before=()
      for p in "${PARTS[@]}"; do
        [[ $p == "$LABEL" ]] && break
        before+=("$p")
      done
      exclude="^($LEFT_OUT"
      for p in "${before[@]}"; do exclude+="|$p"; done
      exclude+=")$"
      select=(-L "^$LABEL$")
    fi
    # One process per test program (run_grouped.py says why), the cases CTest selects.
    ctest --test-dir "$BIN" --show-only=json-v1 "${select[@]}" -LE "$exclude" -E "$SLOW_RUNS|$SAME_PROPERTY|$SAME_PATHS" |
      python3 "$SRC/tests/fuzz/run_grouped.py" ;;
  *) echo "usage: run_sanitized.sh configure|build|part SRC BIN [LABEL]" >&2; exit 2 ;;
esac
