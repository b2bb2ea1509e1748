// GCC 12 reports a false -Wmaybe-uninitialized inside Eigen's AVX-512 kernels (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "core/ops/gemm.hpp"

// Eigen never starts threads of its own (it would with OpenMP): tiles are split on the shared
// TBB arena instead.
#define EIGEN_DONT_PARALLELIZE
#include <Eigen/Core>
#include <algorithm>

#include "core/parallel.hpp"

namespace iputrain::ir {

namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Stride = Eigen::OuterStride<>;
using ConstMap = Eigen::Map<const RowMajor, Eigen::Unaligned, Stride>;
using Map = Eigen::Map<RowMajor, Eigen::Unaligned, Stride>;

// Tile sizes. Eigen's kernel works on 48-row panels (3 AVX-512 registers) and packs a [k, nb]
// block of b per tile, so tiles are kept tall and wide enough that packing stays a small share:
// a transformer's [512, 128] x [128, 128] is two tiles of 256 rows (b packed twice, not six
// times as with 96-row tiles), a weight gradient of 784 rows four of 208. With a batch of 32 the
// columns split by 64 so that both cores share even a [32, 784] x [784, 128] product.
// Functions of the shape only: see the header.
struct Grid {
  int64_t mb, nb, mt, nt;
};

Grid grid_of(int64_t m, int64_t n, int64_t k) {
  Grid g{m, n, 1, 1};
  if (m * n * k < par::kSerialWork * 4) {
    return g;  // one tile: too small to share
  }
  // Balanced tiles of about 256 (a multiple of 16), so no thin remainder tile is left over.
  auto balanced = [](int64_t extent, int64_t target) {
    const int64_t tiles = (extent + target - 1) / target;
    const int64_t size = (extent + tiles - 1) / tiles;
    return (size + 15) / 16 * 16;
  };
  g.mb = m > 384 ? balanced(m, 256) : m;
  g.nb = n > 512 ? balanced(n, 256) : n;
  // Small-m products (a batch of 32 against wide weights): split the columns finer instead.
  if (m <= 64 && n >= 128) {
    g.nb = 64;
  }
  g.mt = (m + g.mb - 1) / g.mb;
  g.nt = (n + g.nb - 1) / g.nb;
  return g;
}

void tile(const float* a, bool ta, const float* b, bool tb, float* c, int64_t m, int64_t n, int64_t k,
          int64_t i0, int64_t i1, int64_t j0, int64_t j1, bool accumulate) {
  const int64_t rows = i1 - i0;
  const int64_t cols = j1 - j0;
  Map mc(c + i0 * n + j0, rows, cols, Stride(n));
  // op(a) rows [i0, i1): rows of a, or columns of a [k, m].
  auto run = [&](const auto& ma, const auto& mb) {
    if (accumulate) {
      mc.noalias() += ma * mb;
    } else {
      mc.noalias() = ma * mb;
    }
  };
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

}  // namespace

void gemm(const float* a, bool ta, const float* b, bool tb, float* c, int64_t m, int64_t n, int64_t k,
          bool accumulate) {
  if (m == 0 || n == 0) {
    return;
  }
  if (k == 0) {
    if (!accumulate) {
      std::fill(c, c + m * n, 0.0f);
    }
    return;
  }
  const Grid g = grid_of(m, n, k);
  par::for_blocks(g.mt * g.nt, 1, m * n * k, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t i0 = (t / g.nt) * g.mb;
      const int64_t j0 = (t % g.nt) * g.nb;
      tile(a, ta, b, tb, c, m, n, k, i0, std::min(m, i0 + g.mb), j0, std::min(n, j0 + g.nb), accumulate);
    }
  });
}

void gemm_batched(int64_t batch, const float* a, int64_t a_stride, bool ta, const float* b, int64_t b_stride,
                  bool tb, float* c, int64_t c_stride, int64_t m, int64_t n, int64_t k) {
  if (batch == 1) {
    gemm(a, ta, b, tb, c, m, n, k);
    return;
  }
  if (m == 0 || n == 0 || batch == 0) {
    return;
  }
  if (k == 0) {
    for (int64_t i = 0; i < batch; ++i) {
      std::fill(c + i * c_stride, c + i * c_stride + m * n, 0.0f);
    }
    return;
  }
  const Grid g = grid_of(m, n, k);
  const int64_t per = g.mt * g.nt;
  par::for_blocks(batch * per, 1, batch * m * n * k, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t e = t / per;
      const int64_t r = t % per;
      const int64_t i0 = (r / g.nt) * g.mb;
      const int64_t j0 = (r % g.nt) * g.nb;
      tile(a + e * a_stride, ta, b + e * b_stride, tb, c + e * c_stride, m, n, k, i0, std::min(m, i0 + g.mb), j0,
           std::min(n, j0 + g.nb), false);
    }
  });
}

}  // namespace iputrain::ir
