// gemm_tile() on targets without AVX-512: one Eigen product of the tile's shape over the whole k.
#if !defined(__AVX512F__)
// GCC 12 reports a false -Wmaybe-uninitialized inside Eigen's vector kernels (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// Eigen never starts threads of its own (it would with OpenMP): tiles are split on the shared
// TBB arena instead.
#define EIGEN_DONT_PARALLELIZE
#include <Eigen/Core>

#include "core/ops/gemm_tile.hpp"

namespace iputrain::ir {

namespace {
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Stride = Eigen::OuterStride<>;
using ConstMap = Eigen::Map<const RowMajor, Eigen::Unaligned, Stride>;
using Map = Eigen::Map<RowMajor, Eigen::Unaligned, Stride>;
}  // namespace

void gemm_tile(const float* a, bool ta, const float* b, bool tb, float* c, int64_t m, int64_t n, int64_t k, int64_t i0,
               int64_t i1, int64_t j0, int64_t j1, bool accumulate) {
  const int64_t rows = i1 - i0;
  const int64_t cols = j1 - j0;
  Map mc(c + i0 * n + j0, rows, cols, Stride(n));
  auto run = [&](const auto& ma, const auto& mb) {
    if (accumulate) {
      mc.noalias() += ma * mb;
    } else {
      mc.noalias() = ma * mb;
    }
  };
  // op(a) rows [i0, i1): rows of a, or columns of a [k, m]; likewise op(b)'s columns.
  const ConstMap a_rows(a + i0 * k, rows, k, Stride(k));
  const ConstMap a_cols(a + i0, k, rows, Stride(m));
  const ConstMap b_cols(b + j0, k, cols, Stride(n));
  const ConstMap b_rows(b + j0 * k, cols, k, Stride(k));
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
#endif
