#!/usr/bin/env bash
# Compiler launcher for bench/build_time.py: runs the compile command it is given and appends
# "<milliseconds> <object file>" to $IPUTRAIN_TU_LOG.
start=$(date +%s%N)
"$@"
rc=$?
end=$(date +%s%N)
out="" prev=""
for arg in "$@"; do
  [[ $prev == -o ]] && out=$arg
  prev=$arg
done
echo "$(((end - start) / 1000000)) $out" >>"${IPUTRAIN_TU_LOG:-/dev/null}"
exit $rc
