#!/bin/bash
# A build without MPI started as an instance (Open MPI's variables, as mpirun sets them) stops at
# once with a usage error that says how to build with MPI.
# Usage: without_mpi.sh IPUTRAIN MODEL CONFIG
set -u
out=$(OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1 "$1" check "$2" "$3" 2>&1)
status=$?
echo "$out"
[[ $status == 2 ]] || { echo "exit status $status, not 2" >&2; exit 1; }
[[ $out == *"was started by mpirun, but iputrain was built without MPI"* ]] || exit 1
[[ $out == *"-DIPUTRAIN_WITH_MPI=ON"* ]] || exit 1
