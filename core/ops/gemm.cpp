#include "core/ops/gemm.hpp"

#include <algorithm>

#include "core/ops/gemm_tile.hpp"
#include "core/parallel.hpp"

namespace iputrain::ir {

namespace {

// Tile sizes. A tile packs its [k, nb] block of op(b) once per row block and reads op(a) in place,
// so packing costs about 1/mb of the tile's multiply-adds: tiles stay 100+ rows tall when the
// product is tall, and a product (with its batch) splits into at least 4 tiles when it can, so
// that every core has work: a [128, 128] weight gradient is 2 x 2 tiles, not one tile on one
// core. A few tiles, odd in number, leave a core idle at the end, so a tall product gets one more
// row tile. With a batch of 32 the columns split by 64 so that both cores share even a
// [32, 784] x [784, 128] product. Functions of the shape only: see the header.
struct Grid {
  int64_t mb, nb, mt, nt;
};

Grid grid_of(int64_t batch, int64_t m, int64_t n, int64_t k) {
  Grid g{m, n, 1, 1};
  if (m * n * k < par::kSerialWork * 4) {
    return g;  // one tile: too small to share
  }
  // `tiles` balanced tiles over `extent` (a multiple of 16 each), so no thin remainder is left.
  auto size_of = [](int64_t extent, int64_t tiles) { return ((extent + tiles - 1) / tiles + 15) / 16 * 16; };
  int64_t row_tiles = m > 192 ? (m + 127) / 128 : 1;
  int64_t col_tiles = n > 512 ? (n + 255) / 256 : 1;
  constexpr int64_t kFewest = 4;
  while (batch * row_tiles * col_tiles < kFewest && n / (2 * col_tiles) >= 64) {
    col_tiles *= 2;
  }
  while (batch * row_tiles * col_tiles < kFewest && m / (2 * row_tiles) >= 32) {
    row_tiles *= 2;
  }
  if (m > 192 && row_tiles * col_tiles < 8 && row_tiles * col_tiles % 2 == 1) {
    ++row_tiles;
  }
  g.mb = size_of(m, row_tiles);
  g.nb = size_of(n, col_tiles);
  // Small-m products (a batch of 32 against wide weights): split the columns finer instead.
  if (m <= 64 && n >= 128) {
    g.nb = 64;
  }
  g.mt = (m + g.mb - 1) / g.mb;
  g.nt = (n + g.nb - 1) / g.nb;
  return g;
}

// Every tile of the `batch` products c = op(a) @ op(b) on the arena, the entries' tiles spread
// together; a dense a, b and c advance by their strides from one entry to the next (a b_stride of 0
// shares b). k = 0 writes zeros (or leaves c when accumulating).
void run_tiles(int64_t batch, const AOperand& a, int64_t a_stride, const float* b, int64_t b_stride, bool tb, float* c,
               int64_t c_stride, int64_t m, int64_t n, int64_t k, bool accumulate) {
  if (m == 0 || n == 0 || batch == 0) {
    return;
  }
  if (k == 0) {
    if (!accumulate) {
      for (int64_t e = 0; e < batch; ++e) {
        std::fill(c + e * c_stride, c + e * c_stride + m * n, 0.0f);
      }
    }
    return;
  }
  const Grid g = grid_of(batch, m, n, k);
  const int64_t per = g.mt * g.nt;
  par::for_blocks(batch * per, 1, batch * m * n * k, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t e = t / per;
      const int64_t r = t % per;
      const int64_t i0 = (r / g.nt) * g.mb;
      const int64_t j0 = (r % g.nt) * g.nb;
      AOperand entry = a;
      if (entry.a != nullptr) {
        entry.a += e * a_stride;
      }
      gemm_tile(entry, b + e * b_stride, tb, c + e * c_stride, m, n, k, i0, std::min(m, i0 + g.mb), j0,
                std::min(n, j0 + g.nb), accumulate);
    }
  });
}

}  // namespace

void gemm(const float* a, bool ta, const float* b, bool tb, float* c, int64_t m, int64_t n, int64_t k,
          bool accumulate) {
  run_tiles(1, AOperand{.a = a, .transposed = ta}, 0, b, 0, tb, c, 0, m, n, k, accumulate);
}

void gemm_patches(const Patches& a, bool transposed, const float* b, float* c, int64_t m, int64_t n, int64_t k,
                  bool accumulate) {
  run_tiles(1, AOperand{.patches = &a, .transposed = transposed}, 0, b, 0, false, c, 0, m, n, k, accumulate);
}

void gemm_batched(int64_t batch, const float* a, int64_t a_stride, bool ta, const float* b, int64_t b_stride, bool tb,
                  float* c, int64_t c_stride, int64_t m, int64_t n, int64_t k) {
  run_tiles(batch, AOperand{.a = a, .transposed = ta}, a_stride, b, b_stride, tb, c, c_stride, m, n, k, false);
}

}  // namespace iputrain::ir
