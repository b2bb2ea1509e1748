// gemm_tile() with AVX-512: a packed kernel in the manner of BLIS and OpenBLAS, written for the
// shapes training runs (tall activations against weight matrices, and their transposed backward
// products), 30% faster than Eigen's on one Zen 4 core.
//
// The tile is walked in the product's k blocks (at most kKc steps each) and blocks of kNc columns. Each block of op(b)
// is packed into panels of kNr columns, [k][kNr] contiguous (a transposed b goes through 16 x 16 register transposes);
// op(a) is read in place: a, its transpose, or a convolution's patch matrix (each row's window origin and each step's
// offset inside it looked up per block). The micro-kernel keeps a 6 x 64 block of c in 24 registers: per step of k it
// loads one row of the b panel (4 vectors) and broadcasts 6 values of op(a) into 24 fused multiply-adds. Blocks
// narrower than a panel use 12 x 16, 12 x 32 or 8 x 48 kernels.
//
// Order of the sums: each element is a sequential chain of multiply-adds over one k block, added to
// c block after block, so it depends on k alone (bitwise the same for any tile or thread count, and
// whether the blocks are summed in one call or in several added in order).
#include "core/ops/gemm_tile.hpp"
#if defined(IPUTRAIN_GEMM_AVX512)
// GCC 12 reports a false -Wmaybe-uninitialized inside its own AVX-512 intrinsics (GCC bug 105593).
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <algorithm>
#include <utility>

// Every function below is compiled for AVX-512 whatever the build targets (-march=native on a CPU
// without it, or a generic x86-64 build); gemm_tile() calls into it only where the CPU has it. The
// standard headers come first, so that what they define stays generic.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")
#endif

namespace iputrain::ir {

namespace {

constexpr int kVecs = 4;             // vectors of 16 floats in a panel row
constexpr int kNr = kVecs * 16;      // columns of a packed panel
constexpr int64_t kKc = kMaxKBlock;  // steps of k per packed block (k_blocks() keeps to it)
constexpr int64_t kNc = 256;         // columns per packed block: kKc x kNc floats = 256 KiB of stack

// Rows of c per micro-kernel call when it covers `v` vectors (1..4) of a panel: 24 accumulators
// for the wide kernels, 12 rows for the narrow ones (a convolution's 16 or 32 filters) so that
// each loaded panel row still feeds 12 or 24 multiply-adds.
constexpr int kRowsFor[5] = {0, 12, 12, 8, 6};
constexpr int kMaxRows = 12;

// The first `count` of 16 lanes (none for count <= 0).
__mmask16 first_lanes(int64_t count) {
  if (count <= 0) {
    return 0;
  }
  return count >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << count) - 1);
}

// How a micro-kernel reads op(a)(r, p) for its R rows and kc steps.
enum class ARead {
  Rows,     // a[r * lda + p]: a dense a
  Cols,     // a[p * lda + r]: a dense transposed a [k, m]
  Gathered  // rows[r][steps[p]]: a patch matrix or its transpose
};

struct ABlock {
  const float* a;
  int64_t lda;
  const float* const* rows;
  const int64_t* steps;
};

// The first `lanes` of q (+)= x: a row's last, partial vector, out of line. AddressSanitizer checks a
// masked access lane by lane; inline in each of the 153 kernels, for every row and vector, those
// checks were nine tenths of the file's code and of its compile time in the sanitizer tree.
[[gnu::noinline]] void store_lanes(float* q, __mmask16 lanes, __m512 x, bool add) {
  _mm512_mask_storeu_ps(q, lanes, add ? _mm512_add_ps(_mm512_maskz_loadu_ps(lanes, q), x) : x);
}

// c[R, nr] (+)= op(a)[R, kc] @ panel[kc, :nr], nr <= V * 16.
template <int R, int V, ARead read>
void micro_kernel(int64_t kc, const ABlock& ab, const float* __restrict panel, float* c, int64_t ldc, int nr,
                  bool add) {
  const float* __restrict a = ab.a;
  const int64_t lda = ab.lda;
  const float* row[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    row[r] = read == ARead::Gathered ? ab.rows[r] : nullptr;
  }
  __m512 acc[R][V];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      acc[r][v] = _mm512_setzero_ps();
    }
  }
  for (int64_t p = 0; p < kc; ++p) {
    __m512 b[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      b[v] = _mm512_load_ps(panel + p * kNr + v * 16);
    }
    const int64_t step = read == ARead::Gathered ? ab.steps[p] : 0;
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      float value;
      if constexpr (read == ARead::Rows) {
        value = a[r * lda + p];
      } else if constexpr (read == ARead::Cols) {
        value = a[p * lda + r];
      } else {
        value = row[r][step];
      }
      const __m512 x = _mm512_set1_ps(value);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) {
        acc[r][v] = _mm512_fmadd_ps(x, b[v], acc[r][v]);
      }
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      const int left = nr - v * 16;
      float* q = c + r * ldc + v * 16;
      if (left >= 16) {
        _mm512_storeu_ps(q, add ? _mm512_add_ps(_mm512_loadu_ps(q), acc[r][v]) : acc[r][v]);
      } else if (left > 0) {
        store_lanes(q, first_lanes(left), acc[r][v], add);
      }
    }
  }
}

using Kernel = void (*)(int64_t, const ABlock&, const float*, float*, int64_t, int, bool);

// The kernels of V vectors for 1..kRowsFor[V] rows, so a tile's last rows cost what they compute.
template <int V, int... Rs>
Kernel kernel_for(std::integer_sequence<int, Rs...>, int rows, ARead read) {
  static constexpr Kernel by_rows[] = {micro_kernel<Rs + 1, V, ARead::Rows>...};
  static constexpr Kernel by_cols[] = {micro_kernel<Rs + 1, V, ARead::Cols>...};
  static constexpr Kernel gathered[] = {micro_kernel<Rs + 1, V, ARead::Gathered>...};
  return (read == ARead::Rows ? by_rows : read == ARead::Cols ? by_cols : gathered)[rows - 1];
}

Kernel kernel_for(int vecs, int rows, ARead read) {
  switch (vecs) {
    case 1:
      return kernel_for<1>(std::make_integer_sequence<int, kRowsFor[1]>{}, rows, read);
    case 2:
      return kernel_for<2>(std::make_integer_sequence<int, kRowsFor[2]>{}, rows, read);
    case 3:
      return kernel_for<3>(std::make_integer_sequence<int, kRowsFor[3]>{}, rows, read);
    default:
      return kernel_for<4>(std::make_integer_sequence<int, kRowsFor[4]>{}, rows, read);
  }
}

// Pairs of floats interleaved: the low (high) 64-bit halves of each 128-bit lane of x and y.
// Functions, not lambdas: a lambda's static invoker would miss the file's AVX-512 target.
__m512 lo(__m512 x, __m512 y) { return _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(x), _mm512_castps_pd(y))); }
__m512 hi(__m512 x, __m512 y) { return _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(x), _mm512_castps_pd(y))); }

// r[i] (16 floats each) becomes column i of the 16 x 16 block they formed.
void transpose16(__m512* r) {
  __m512 t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    r[4 * i] = lo(t[4 * i], t[4 * i + 2]);
    r[4 * i + 1] = hi(t[4 * i], t[4 * i + 2]);
    r[4 * i + 2] = lo(t[4 * i + 1], t[4 * i + 3]);
    r[4 * i + 3] = hi(t[4 * i + 1], t[4 * i + 3]);
  }
  // Now r[4i + c], 128-bit lane l, holds column 4l + c of rows 4i..4i+3.
  for (int g = 0; g < 16; g += 8) {
    for (int c = 0; c < 4; ++c) {
      t[g + c] = _mm512_shuffle_f32x4(r[g + c], r[g + 4 + c], 0x88);
      t[g + 4 + c] = _mm512_shuffle_f32x4(r[g + c], r[g + 4 + c], 0xdd);
    }
  }
  for (int c = 0; c < 4; ++c) {
    r[c] = _mm512_shuffle_f32x4(t[c], t[8 + c], 0x88);
    r[8 + c] = _mm512_shuffle_f32x4(t[c], t[8 + c], 0xdd);
    r[4 + c] = _mm512_shuffle_f32x4(t[4 + c], t[12 + c], 0x88);
    r[12 + c] = _mm512_shuffle_f32x4(t[4 + c], t[12 + c], 0xdd);
  }
}

// One panel: columns [j0, j0 + width) of op(b), steps [p0, p0 + kc) of k, zero beyond width.
void pack_panel(const float* b, bool tb, int64_t ldb, int64_t p0, int64_t kc, int64_t j0, int64_t width, float* panel) {
  if (!tb) {
    for (int64_t p = 0; p < kc; ++p) {
      const float* src = b + (p0 + p) * ldb + j0;
      for (int v = 0; v < kVecs; ++v) {
        _mm512_store_ps(panel + p * kNr + v * 16, _mm512_maskz_loadu_ps(first_lanes(width - v * 16), src + v * 16));
      }
    }
    return;
  }
  // b is [n, k]: rows of b are columns of op(b); 16 of them at a time, 16 steps of k at a time.
  for (int64_t jb = 0; jb < kNr; jb += 16) {
    for (int64_t pb = 0; pb < kc; pb += 16) {
      const int64_t steps = std::min<int64_t>(16, kc - pb);
      const __mmask16 lanes = first_lanes(steps);
      __m512 r[16];
      for (int64_t i = 0; i < 16; ++i) {
        r[i] = jb + i < width ? _mm512_maskz_loadu_ps(lanes, b + (j0 + jb + i) * ldb + p0 + pb) : _mm512_setzero_ps();
      }
      transpose16(r);
      for (int64_t i = 0; i < steps; ++i) {
        _mm512_store_ps(panel + (pb + i) * kNr + jb, r[i]);
      }
    }
  }
}

// out[i] = pt.position(r0 + i) for i < count, walking the output positions instead of dividing.
void positions(const Patches& pt, int64_t r0, int64_t count, int64_t* out) {
  const int64_t out_h = pt.per_image / pt.out_w;
  int64_t image = r0 / pt.per_image;
  int64_t oh = (r0 % pt.per_image) / pt.out_w;
  int64_t ow = r0 % pt.out_w;
  for (int64_t i = 0; i < count; ++i) {
    out[i] = image * pt.image_stride + oh * pt.row_stride + ow * pt.col_stride;
    if (++ow == pt.out_w) {
      ow = 0;
      if (++oh == out_h) {
        oh = 0;
        ++image;
      }
    }
  }
}

// op(a) over one k block [pc, pc + kc): where each kernel call reads its rows.
struct ABlocks {
  const AOperand& op;
  int64_t m, k, pc, kc;
  ARead read;
  const int64_t* steps;  // Gathered: the block's step offsets

  ABlocks(const AOperand& operand, int64_t m_, int64_t k_, int64_t pc_, int64_t kc_, int64_t* step_buffer)
      : op(operand), m(m_), k(k_), pc(pc_), kc(kc_) {
    if (op.patches == nullptr) {
      read = op.transposed ? ARead::Cols : ARead::Rows;
      steps = nullptr;
      return;
    }
    read = ARead::Gathered;
    if (!op.transposed) {
      steps = op.patches->taps + pc;  // op(a)(r, p) = x[position(r) + taps[p]]
      return;
    }
    positions(*op.patches, pc, kc, step_buffer);  // op(a)(i, q) = x[taps[i] + position(q)]
    steps = step_buffer;
  }

  int64_t lda() const { return op.ld != 0 ? op.ld : (op.transposed ? m : k); }

  // Rows [ir, ir + rows) of op(a); `row_buffer` holds the gathered rows' origins.
  ABlock at(int64_t ir, int rows, const float** row_buffer) const {
    switch (read) {
      case ARead::Rows:
        return {op.a + ir * lda() + pc, lda(), nullptr, nullptr};
      case ARead::Cols:
        return {op.a + pc * lda() + ir, lda(), nullptr, nullptr};
      case ARead::Gathered:
        break;
    }
    const Patches& pt = *op.patches;
    int64_t origin[kMaxRows];
    if (op.transposed) {
      std::copy(pt.taps + ir, pt.taps + ir + rows, origin);
    } else {
      positions(pt, ir, rows, origin);
    }
    for (int r = 0; r < rows; ++r) {
      row_buffer[r] = pt.x + origin[r];
    }
    return {nullptr, 0, row_buffer, steps};
  }
};

// c[i0:i1, j0:j1] (+)= op(a)[i0:i1, block] @ the packed panels of columns [j0, j1) of the block.
// One kernel width for them all: j1 - j0 is a multiple of kNr, or the last panel's width.
void run_panels(const ABlocks& blocks, int64_t i0, int64_t i1, const float* packed, int64_t j0, int64_t j1, float* c,
                int64_t ldc, bool add) {
  if (j0 == j1) {
    return;
  }
  const int vecs = static_cast<int>(std::min<int64_t>(kVecs, (j1 - j0 + 15) / 16));
  const int block_rows = kRowsFor[vecs];
  const float* row_buffer[kMaxRows];
  for (int64_t ir = i0; ir < i1; ir += block_rows) {
    const int rows = static_cast<int>(std::min<int64_t>(block_rows, i1 - ir));
    const Kernel kernel = kernel_for(vecs, rows, blocks.read);
    const ABlock ab = blocks.at(ir, rows, row_buffer);
    for (int64_t jr = j0; jr < j1; jr += kNr) {
      kernel(blocks.kc, ab, packed + jr * blocks.kc, c + ir * ldc + jr, ldc,
             static_cast<int>(std::min<int64_t>(kNr, j1 - jr)), add);
    }
  }
}

}  // namespace

void gemm_tile_avx512(const AOperand& a, const float* b, bool tb, int64_t ldb, float* c, int64_t ldc, int64_t m,
                      int64_t n, int64_t k, const TileRange& t, bool accumulate) {
  alignas(64) float packed[kKc * kNc];
  int64_t step_buffer[kKc];
  const int64_t i0 = t.i0;
  const int64_t i1 = t.i1;
  for (int64_t jc = t.j0; jc < t.j1; jc += kNc) {
    const int64_t nc = std::min(kNc, t.j1 - jc);
    for (int64_t kb = t.kb0; kb < t.kb1; ++kb) {
      const int64_t pc = k_block_start(kb, k);
      const int64_t kc = k_block_start(kb + 1, k) - pc;  // <= kKc
      for (int64_t jr = 0; jr < nc; jr += kNr) {
        pack_panel(b, tb, ldb, pc, kc, jc + jr, std::min<int64_t>(kNr, nc - jr), packed + jr * kc);
      }
      const ABlocks blocks(a, m, k, pc, kc, step_buffer);
      const bool add = accumulate || kb > t.kb0;
      // Full panels with the 6 x 64 kernel, then a narrower last panel (a convolution's 16 or 32
      // filters are nothing else) with the kernel of its width.
      const int64_t full = nc / kNr * kNr;
      run_panels(blocks, i0, i1, packed, 0, full, c + jc, ldc, add);
      run_panels(blocks, i0, i1, packed, full, nc, c + jc, ldc, add);
    }
  }
}

}  // namespace iputrain::ir

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif
