#!/bin/sh
# The benchmark peer of bench/speed_suite.py: Debian's PyTorch on OpenBLAS (pthreads), and numpy.
set -e
apt-get install -y --no-install-recommends python3-torch python3-numpy libopenblas0-pthread
