// The one GEMM every product of the op table runs (matmul and its transposed backward products,
// the convolutions and their gradients): row-major operands read transposed in place (never
// materialised), the output split into tiles computed in parallel on the shared arena.
//
// The tile grid is a function of (m, n, k) only, and each tile is computed over the whole k by
// gemm_tile() (core/ops/gemm_tile.hpp), so every output element gets the same bits for any
// thread count.
#pragma once

#include <cstdint>

namespace iputrain::ir {

//! c[m, n] = op(a) @ op(b) (or += when `accumulate`), all row-major and dense: a is [m, k]
//! ([k, m] when `ta`), b is [k, n] ([n, k] when `tb`). Never allocates.
void gemm(const float* a, bool ta, const float* b, bool tb, float* c, int64_t m, int64_t n, int64_t k,
          bool accumulate = false);

//! `batch` independent products of the same shape: a, b and c advance by the given element strides
//! (a b_stride of 0 shares b). Tiles of all entries are spread over the arena together.
void gemm_batched(int64_t batch, const float* a, int64_t a_stride, bool ta, const float* b, int64_t b_stride,
                  bool tb, float* c, int64_t c_stride, int64_t m, int64_t n, int64_t k);

}  // namespace iputrain::ir
