#!/usr/bin/env bash
# The model-language parser is generated from IpuLang.g4 by Debian's antlr4 tool (a Java program)
# and committed in grammar/generated/, so that building iputrain needs no Java. After editing the
# grammar, regenerate and commit both:
#   bash grammar/generate.sh           # writes grammar/generated/
#   bash grammar/generate.sh --check   # fails when grammar/generated/ is not what IpuLang.g4 gives
#                                      # (CTest: lint.grammar_generated)
#   bash grammar/generate.sh --probe   # the check run on a copy of the grammar with a rule added:
#                                      # passes only if the check then fails (lint.grammar_generated_probe)
set -euo pipefail
cd "$(dirname "$0")"
MODE=${1:-write}
FILES=(IpuLangLexer.cpp IpuLangLexer.h IpuLangParser.cpp IpuLangParser.h
       IpuLangVisitor.cpp IpuLangVisitor.h IpuLangBaseVisitor.cpp IpuLangBaseVisitor.h)
command -v antlr4 >/dev/null || { echo "generate.sh: antlr4 is missing (Debian: antlr4 default-jre-headless)" >&2; exit 1; }

# generate GRAMMAR_DIR OUT_DIR: antlr4 run in the grammar's folder, so the files name it relatively.
generate() {
  (cd "$1" && antlr4 -Dlanguage=Cpp -visitor -no-listener -package iputrain::grammar -o "$2" -Xexact-output-dir IpuLang.g4)
}

# compare GENERATED_DIR: 0 when grammar/generated/ holds the same files, 1 (with the differences) otherwise.
compare() {
  local stale=0
  for f in "${FILES[@]}"; do
    if ! cmp -s "$1/$f" "generated/$f"; then
      echo "grammar/generated/$f differs from what antlr4 makes of grammar/IpuLang.g4:"
      diff -u "generated/$f" "$1/$f" | head -12 || true
      stale=1
    fi
  done
  return $stale
}

SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
case $MODE in
  write | --write)
    generate . "$SCRATCH/out"
    mkdir -p generated
    for f in "${FILES[@]}"; do cp "$SCRATCH/out/$f" "generated/$f"; done
    echo "grammar/generated/: ${#FILES[@]} files written from IpuLang.g4" ;;
  --check)
    generate . "$SCRATCH/out"
    if ! compare "$SCRATCH/out"; then
      echo "grammar/generated/ is stale: run 'bash grammar/generate.sh' and commit it with the grammar" >&2
      exit 1
    fi
    echo "grammar/generated/ is what antlr4 makes of IpuLang.g4 (${#FILES[@]} files)" ;;
  --probe)
    mkdir -p "$SCRATCH/g"
    cp IpuLang.g4 "$SCRATCH/g/IpuLang.g4"
    printf '\nprobeOnlyRule : NAME ;\n' >>"$SCRATCH/g/IpuLang.g4"
    generate "$SCRATCH/g" "$SCRATCH/out"
    if compare "$SCRATCH/out" >/dev/null; then
      echo "probe: an edited grammar was not found out" >&2
      exit 1
    fi
    echo "probe: an edited grammar is found out" ;;
  *) echo "usage: generate.sh [--check|--probe]" >&2; exit 2 ;;
esac
