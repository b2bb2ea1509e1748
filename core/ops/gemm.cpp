#include "core/ops/gemm.hpp"

#include <algorithm>
#include <array>
#include <atomic>

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
  g.mb = (m + row_tiles - 1) / row_tiles;  // rows need no rounding: a [784, 128] gradient is 8 x 98
  g.nb = size_of(n, col_tiles);
  // Small-m products (a batch of 32 against wide weights): split the columns finer instead.
  if (m <= 64 && n >= 128) {
    g.nb = 64;
  }
  g.mt = (m + g.mb - 1) / g.mb;
  g.nt = (n + g.nb - 1) / g.nb;
  return g;
}

// A product with few output tiles and several k blocks (a batch of 32 against a [784, 128]
// weight) is also split by k blocks into partial sums of its own, added in block order into c
// afterwards: the bits of the unsplit product (gemm_tile.hpp), and the work is shared by rows of
// the weight, so each core reads, and then updates, the same half of it every step. Partials up
// to this many floats (on the stack).
constexpr int64_t kSplitFloats = 64 * 1024;

bool split_by_k(int64_t batch, const Grid& g, int64_t m, int64_t n, int64_t k) {
  return batch == 1 && m * n * k >= par::kSerialWork * 4 && g.mt * g.nt < 4 && k_blocks(k) >= 2 &&
         m * n * k_blocks(k) <= kSplitFloats;
}

TileRange tile_of(const Grid& g, int64_t m, int64_t n, int64_t r, int64_t kb0, int64_t kb1) {
  const int64_t i0 = (r / g.nt) * g.mb;
  const int64_t j0 = (r % g.nt) * g.nb;
  return TileRange{i0, std::min(m, i0 + g.mb), j0, std::min(n, j0 + g.nb), kb0, kb1};
}

// c[tile] (+)= the k blocks' partials ([blocks, m, n]) in block order, row by row.
void add_partials(const float* partial, int64_t blocks, const TileRange& r, float* c, int64_t m, int64_t n,
                  bool accumulate) {
  for (int64_t i = r.i0; i < r.i1; ++i) {
    float* out = c + i * n;  // split products are dense (batch 1)
    const float* first = partial + i * n;
    for (int64_t j = r.j0; j < r.j1; ++j) {
      out[j] = accumulate ? out[j] + first[j] : first[j];
    }
    for (int64_t q = 1; q < blocks; ++q) {
      const float* part = partial + q * m * n + i * n;
      for (int64_t j = r.j0; j < r.j1; ++j) {
        out[j] += part[j];
      }
    }
  }
}

// A product split by k blocks (split_by_k). Block-major work items: the first half of them is the
// first half of k (rows of op(b)). The item that completes a tile adds its partials into c.
void run_split(const Grid& g, const AOperand& a, const float* b, bool tb, float* c, int64_t m, int64_t n, int64_t k,
               bool accumulate) {
  const int64_t ldb = tb ? k : n;
  const int64_t blocks = k_blocks(k);
  const int64_t per = g.mt * g.nt;
  alignas(64) float partial[kSplitFloats];
  std::array<std::atomic<int64_t>, 4> done{};  // k blocks summed per tile (fewer than 4 tiles)
  par::for_blocks(blocks * per, 1, m * n * k, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t kb = t / per;
      const TileRange r = tile_of(g, m, n, t % per, kb, kb + 1);
      gemm_tile(a, b, tb, ldb, partial + kb * m * n, n, m, n, k, r, false);
      if (done[static_cast<size_t>(t % per)].fetch_add(1, std::memory_order_acq_rel) + 1 == blocks) {
        add_partials(partial, blocks, r, c, m, n, accumulate);
      }
    }
  });
}

// Leading dimensions of b and c (0 = dense).
struct Leads {
  int64_t b = 0, c = 0;
};

// Every tile of the `batch` products c = op(a) @ op(b) on the arena, the entries' tiles spread
// together; a (its x when a patch matrix), b and c advance by their strides from one entry to the
// next (a b_stride of 0 shares b). k = 0 writes zeros (or leaves c when accumulating).
void run_tiles(int64_t batch, const AOperand& a, int64_t a_stride, const float* b, int64_t b_stride, bool tb, float* c,
               int64_t c_stride, int64_t m, int64_t n, int64_t k, bool accumulate, Leads lead = {}) {
  if (m == 0 || n == 0 || batch == 0) {
    return;
  }
  const int64_t ldb = lead.b != 0 ? lead.b : (tb ? k : n);
  const int64_t ldc = lead.c != 0 ? lead.c : n;
  if (k == 0) {
    if (!accumulate) {
      for (int64_t e = 0; e < batch; ++e) {
        for (int64_t i = 0; i < m; ++i) {
          std::fill(c + e * c_stride + i * ldc, c + e * c_stride + i * ldc + n, 0.0f);
        }
      }
    }
    return;
  }
  const Grid g = grid_of(batch, m, n, k);
  const int64_t per = g.mt * g.nt;
  if (lead.c == 0 && split_by_k(batch, g, m, n, k)) {
    run_split(g, a, b, tb, c, m, n, k, accumulate);
    return;
  }
  par::for_blocks(batch * per, 1, batch * m * n * k, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t e = t / per;
      AOperand entry = a;
      Patches shifted;
      if (entry.a != nullptr) {
        entry.a += e * a_stride;
      } else if (a_stride != 0) {
        shifted = *a.patches;
        shifted.x += e * a_stride;
        entry.patches = &shifted;
      }
      gemm_tile(entry, b + e * b_stride, tb, ldb, c + e * c_stride, ldc, m, n, k,
                tile_of(g, m, n, t % per, 0, k_blocks(k)), accumulate);
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

void gemm_grouped(int64_t batch, int64_t m, int64_t n, int64_t k, const GroupedOperand& a, const GroupedOperand& b,
                  float* c, int64_t ldc, int64_t c_stride) {
  const AOperand op{.a = a.data, .patches = a.patches, .transposed = a.transposed, .ld = a.ld};
  run_tiles(batch, op, a.stride, b.data, b.stride, b.transposed, c, c_stride, m, n, k, false,
            Leads{.b = b.ld, .c = ldc});
}

}  // namespace iputrain::ir
