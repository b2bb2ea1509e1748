// One output tile of the GEMM (core/ops/gemm.cpp splits the output into tiles and runs them in
// parallel). Two implementations, chosen once per process (gemm_kernel() in gemm.hpp): a packed
// AVX-512 kernel (gemm_tile_avx512.cpp, compiled on every x86-64 build with the instruction set
// enabled for that file alone, run only where the CPU has it) and a portable one on Eigen's product
// (gemm_tile_eigen.cpp, any CPU, the instruction set the build targets).
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
  int64_t ld = 0;  //!< elements between rows of a dense a; 0 = dense (k, or m when transposed)
};

//! The most steps of k in one k block (the AVX-512 kernel's packed block holds this many).
inline constexpr int64_t kMaxKBlock = 256;

//! The k blocks of a product: k split into ceil(k / kMaxKBlock) blocks as equal as they can be (a
//! function of k alone). Block i is steps [k_block_start(i, k), k_block_start(i + 1, k)).
inline int64_t k_blocks(int64_t k) { return k > kMaxKBlock ? (k + kMaxKBlock - 1) / kMaxKBlock : 1; }
inline int64_t k_block_start(int64_t i, int64_t k) { return i * k / k_blocks(k); }

//! The tile's rows and columns, and the k blocks [kb0, kb1) it sums.
struct TileRange {
  int64_t i0, i1, j0, j1, kb0, kb1;
};

//! c[i0:i1, j0:j1] = op(a) @ op(b) over the tile's k blocks (+= when `accumulate`); b as in gemm()
//! but with ldb elements between its rows, c with ldc.
//! Each element is c (when accumulating) plus the blocks' sums in order, each block's sum a chain
//! of its own (the AVX-512 kernel), so summing blocks [0, 2) into c and then [2, 4) gives the bits
//! of summing [0, 4) at once. Never allocates (its working memory is on the stack).
void gemm_tile(const AOperand& a, const float* b, bool tb, int64_t ldb, float* c, int64_t ldc, int64_t m, int64_t n,
               int64_t k, const TileRange& t, bool accumulate);

//! The two implementations behind gemm_tile(), same contract (the AVX-512 one exists on x86-64
//! builds only, and must run only where gemm_avx512_usable() says so).
void gemm_tile_avx512(const AOperand& a, const float* b, bool tb, int64_t ldb, float* c, int64_t ldc, int64_t m,
                      int64_t n, int64_t k, const TileRange& t, bool accumulate);
void gemm_tile_portable(const AOperand& a, const float* b, bool tb, int64_t ldb, float* c, int64_t ldc, int64_t m,
                        int64_t n, int64_t k, const TileRange& t, bool accumulate);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define IPUTRAIN_GEMM_AVX512 1
#endif

}  // namespace iputrain::ir
