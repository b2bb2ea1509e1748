#include "core/ops/gemm.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <unistd.h>

#include "core/ops/gemm_tile.hpp"
#include "core/parallel.hpp"

namespace iputrain::ir {

namespace {

// The most rows of a tile, from the CPU's L2 cache at start-up: a tile reads op(a)'s rows for one
// k block (rows x 256 floats) beside its packed block of op(b) (256 KiB), and both should stay in
// L2, so rows x 1 KiB <= L2 / 2, between 128 and 512 rows: 512 on Intel Xeons (2 MiB of L2 a core)
// and AMD Zen 4 (1 MiB), 128 where L2 is 256 KiB. This changes no bit of the AVX-512 kernel's
// results (they depend on k alone); the portable kernel's depend on the tile's shape, so on the
// CPU too, never on the thread count.
int64_t tile_rows() {
  static const int64_t rows = [] {
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    const int64_t fit = l2 > 0 ? l2 / 2 / (kMaxKBlock * 4) : 128;
    return std::clamp<int64_t>(fit / 16 * 16, 128, 512);
  }();
  return rows;
}

// Tile sizes. A tile packs its [k, nb] block of op(b) once per row block and reads op(a) in place,
// so packing costs about 1/mb of the tile's multiply-adds: tiles are up to tile_rows() tall (on a
// Xeon, 128-row tiles spent 12% of a wide MLP's time packing; 512-row tiles made its products 8-10%
// faster), and a product (with its batch) splits into at least 4 tiles when it can, so
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
  const int64_t most_rows = tile_rows();
  int64_t row_tiles = m > most_rows * 3 / 2 ? (m + most_rows - 1) / most_rows : 1;
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
  g.mb = (m + row_tiles - 1) / row_tiles;  // rows need no rounding: a [784, 128] gradient is 2 x 392
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

GemmKernel initial_kernel() {
  const char* env = std::getenv("IPUTRAIN_GEMM");
  const std::string_view choice = env != nullptr ? env : "";
  if (choice == "portable") {
    return GemmKernel::Portable;
  }
  if (!choice.empty() && choice != "auto" && choice != "avx512") {
    std::fprintf(stderr, "iputrain: IPUTRAIN_GEMM=%s is not a GEMM kernel (portable, avx512 or auto); using auto\n",
                 env);
  }
  return gemm_avx512_usable() ? GemmKernel::Avx512 : GemmKernel::Portable;
}

std::atomic<GemmKernel>& kernel_choice() {
  static std::atomic<GemmKernel> choice{initial_kernel()};
  return choice;
}

}  // namespace

bool gemm_avx512_usable() {
#if defined(IPUTRAIN_GEMM_AVX512)
  // libgcc's CPU model also checks that the OS saves the AVX-512 registers (XCR0).
  static const bool usable = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  return usable;
#else
  return false;
#endif
}

GemmKernel gemm_kernel() { return kernel_choice().load(std::memory_order_relaxed); }

bool set_gemm_kernel(GemmKernel kernel) {
  if (kernel == GemmKernel::Avx512 && !gemm_avx512_usable()) {
    return false;
  }
  kernel_choice().store(kernel, std::memory_order_relaxed);
  return true;
}

void gemm_tile(const AOperand& a, const float* b, bool tb, int64_t ldb, float* c, int64_t ldc, int64_t m, int64_t n,
               int64_t k, const TileRange& t, bool accumulate) {
#if defined(IPUTRAIN_GEMM_AVX512)
  if (gemm_kernel() == GemmKernel::Avx512) {
    gemm_tile_avx512(a, b, tb, ldb, c, ldc, m, n, k, t, accumulate);
    return;
  }
#endif
  gemm_tile_portable(a, b, tb, ldb, c, ldc, m, n, k, t, accumulate);
}

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
