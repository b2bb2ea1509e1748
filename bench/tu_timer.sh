#!/usr/bin/env bash
# Compiler launcher for bench/build_time.py: runs the compile command it is given and appends
# "<wall ms> <CPU ms> <object file>" to $IPUTRAIN_TU_LOG. The CPU time (user + system of the
# compiler) does not grow when other work shares the cores, as the wall time does.
start=$(date +%s%N)
"$@"
rc=$?
end=$(date +%s%N)
# `times` (run in this shell, not a subshell): the shell's own times, then its children's (the
# compiler and what it waited for).
tmp=$(mktemp)
times >"$tmp"
cpu_ms=$(awk 'NR == 2 { ms = 0
  for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); ms += (p[1] * 60 + p[2]) * 1000 }
  printf "%d", ms }' "$tmp")
rm -f "$tmp"
out="" prev=""
for arg in "$@"; do
  [[ $prev == -o ]] && out=$arg
  prev=$arg
done
echo "$(((end - start) / 1000000)) $cpu_ms $out" >>"${IPUTRAIN_TU_LOG:-/dev/null}"
exit $rc
