// gemm_tile_portable(): one Eigen product of the tile's shape over its k blocks. Runs on any CPU the
// build targets: CPUs without AVX-512, and wherever IPUTRAIN_GEMM=portable forces it.
// GCC 12 reports a false -Wmaybe-uninitialized inside Eigen's vector kernels (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// Eigen never starts threads of its own: core/CMakeLists.txt defines EIGEN_DONT_PARALLELIZE.
#include <Eigen/Core>

#include <algorithm>

#include "core/ops/gemm_tile.hpp"

namespace iputrain::ir {

namespace {
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Stride = Eigen::OuterStride<>;
using ConstMap = Eigen::Map<const RowMajor, Eigen::Unaligned, Stride>;
using Map = Eigen::Map<RowMajor, Eigen::Unaligned, Stride>;
// A patch matrix (or its transpose) is gathered block by block onto the stack and multiplied there.
void patches_tile(const AOperand& a, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t k_lo, int64_t k_hi,
                  int64_t i0, int64_t i1, int64_t j0, int64_t j1, bool accumulate) {
  constexpr int64_t kRows = 64, kSteps = 256;
  float block[kRows * kSteps];
  const Patches& pt = *a.patches;
  for (int64_t ir = i0; ir < i1; ir += kRows) {
    const int64_t rows = std::min(kRows, i1 - ir);
    Map mc(c + ir * ldc + j0, rows, j1 - j0, Stride(ldc));
    for (int64_t pc = k_lo; pc < k_hi; pc += kSteps) {
      const int64_t steps = std::min(kSteps, k_hi - pc);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t q = 0; q < steps; ++q) {
          const int64_t at =
              a.transposed ? pt.taps[ir + r] + pt.position(pc + q) : pt.position(ir + r) + pt.taps[pc + q];
          block[r * steps + q] = pt.x[at];
        }
      }
      const ConstMap ma(block, rows, steps, Stride(steps));
      const ConstMap mb(b + pc * ldb + j0, steps, j1 - j0, Stride(ldb));
      if (accumulate || pc > k_lo) {
        mc.noalias() += ma * mb;
      } else {
        mc.noalias() = ma * mb;
      }
    }
  }
}

}  // namespace

void gemm_tile_portable(const AOperand& op, const float* b, bool tb, int64_t ldb, float* c, int64_t ldc, int64_t m,
                        int64_t n, int64_t k, const TileRange& t, bool accumulate) {
  const int64_t i0 = t.i0;
  const int64_t i1 = t.i1;
  const int64_t j0 = t.j0;
  const int64_t j1 = t.j1;
  // The tile's k blocks: one product over all of them (a split product sums its parts in order).
  const int64_t lo = k_block_start(t.kb0, k);
  const int64_t steps = k_block_start(t.kb1, k) - lo;
  if (op.patches != nullptr) {
    patches_tile(op, b, ldb, c, ldc, lo, lo + steps, i0, i1, j0, j1, accumulate);
    return;
  }
  const float* a = op.a;
  const bool ta = op.transposed;
  const int64_t rows = i1 - i0;
  const int64_t cols = j1 - j0;
  Map mc(c + i0 * ldc + j0, rows, cols, Stride(ldc));
  auto run = [&](const auto& ma, const auto& mb) {
    if (accumulate) {
      mc.noalias() += ma * mb;
    } else {
      mc.noalias() = ma * mb;
    }
  };
  // op(a) rows [i0, i1): rows of a, or columns of a [k, m]; likewise op(b)'s columns.
  const int64_t lda = op.ld != 0 ? op.ld : (ta ? m : k);
  const ConstMap a_rows(a + i0 * lda + lo, rows, steps, Stride(lda));
  const ConstMap a_cols(a + lo * lda + i0, steps, rows, Stride(lda));
  const ConstMap b_cols(b + lo * ldb + j0, steps, cols, Stride(ldb));
  const ConstMap b_rows(b + j0 * ldb + lo, cols, steps, Stride(ldb));
  if (!ta && !tb) {
    run(a_rows, b_cols);
  } else if (!ta && tb) {
    run(a_rows, b_rows.transpose());
  } else if (ta && !tb) {
    run(a_cols.transpose(), b_cols);
  } else {
    run(a_cols.transpose(), b_rows.transpose());
  }
}

}  // namespace iputrain::ir
