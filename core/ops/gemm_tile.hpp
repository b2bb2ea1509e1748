// One output tile of the GEMM (core/ops/gemm.cpp splits the output into tiles and runs them in
// parallel). Two implementations, chosen when the core is compiled: a packed AVX-512 kernel
// (gemm_tile_avx512.cpp) and Eigen's product for other targets (gemm_tile_eigen.cpp).
//
// Both sum every output element over k in an order fixed by the problem's shape (the AVX-512 kernel:
// by k alone; Eigen: by the tile's shape, which the grid derives from m, n and k), never by the
// thread that runs the tile, so the thread count cannot change a bit of the result.
#pragma once

#include <cstdint>

#include "core/ops/gemm.hpp"

namespace iputrain::ir {

//! The left operand op(a) [m, k]: a dense row-major a ([k, m] when `transposed`), or a patch
//! matrix read in place (its transpose when `transposed`).
struct AOperand {
  const float* a = nullptr;
  const Patches* patches = nullptr;
  bool transposed = false;
};

//! c[i0:i1, j0:j1] = op(a) @ op(b) over the whole k (+= when `accumulate`); b as in gemm().
//! Never allocates (its working memory is on the stack).
void gemm_tile(const AOperand& a, const float* b, bool tb, float* c, int64_t m, int64_t n, int64_t k, int64_t i0,
               int64_t i1, int64_t j0, int64_t j1, bool accumulate);

}  // namespace iputrain::ir
