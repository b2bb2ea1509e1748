// The one GEMM every product of the op table runs (matmul and its transposed backward products,
// the convolutions and their gradients): row-major operands read transposed in place (never
// materialised), the output split into tiles computed in parallel on the shared arena.
//
// The tile grid is a function of (m, n, k) only, and gemm_tile() (core/ops/gemm_tile.hpp) sums
// every element over k blocks fixed by k (a product with few tiles is split by k blocks too, its
// partial sums added in block order), so every output element gets the same bits for any thread
// count.
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

//! A convolution's patch matrix [positions, patch] (im2col's output) read in place, never
//! materialised: element (r, p) is x[position(r) + taps[p]], x being the NHWC input (copied with
//! its zero border when the convolution pads). Built by conv_patches() (core/ops/conv_util.hpp).
struct Patches {
  const float* x = nullptr;
  const int64_t* taps = nullptr;  //!< offset in x of each patch element from its window's origin
  int64_t per_image = 1;          //!< output positions per image (OH * OW)
  int64_t out_w = 1;              //!< output positions per output row (OW)
  int64_t image_stride = 0;       //!< offset of the next image in x
  int64_t row_stride = 0;         //!< offset of the next output row's window (stride_h * W * C)
  int64_t col_stride = 0;         //!< offset of the next output column's window (stride_w * C)

  //! Offset in x of output position r's window origin.
  int64_t position(int64_t r) const {
    const int64_t q = r % per_image;
    return (r / per_image) * image_stride + (q / out_w) * row_stride + (q % out_w) * col_stride;
  }
};

//! c[m, n] = P @ b with P the [m, k] patch matrix, or P^T @ b when `transposed` (P is [k, m]);
//! b is [k, n] row-major; += when `accumulate`. Same tiling, order of sums and parallelism as gemm().
void gemm_patches(const Patches& a, bool transposed, const float* b, float* c, int64_t m, int64_t n, int64_t k,
                  bool accumulate = false);

//! One operand of gemm_grouped(): a row-major matrix whose rows are `ld` elements apart (0 =
//! dense), entry e starting `stride` elements after entry e - 1; or a patch matrix, entry e reading
//! x advanced by `stride` (a grouped convolution's channel block).
struct GroupedOperand {
  const float* data = nullptr;
  const Patches* patches = nullptr;
  bool transposed = false;
  int64_t ld = 0;
  int64_t stride = 0;
};

//! `batch` products c_e = op(a_e) @ op(b_e), [m, n] each, c_e starting at c + e * c_stride with rows
//! ldc apart: the per-group GEMMs of a grouped convolution, whose operands are column blocks of
//! wider matrices. Same tiles, order of sums and parallelism as gemm_batched(). Never allocates.
void gemm_grouped(int64_t batch, int64_t m, int64_t n, int64_t k, const GroupedOperand& a, const GroupedOperand& b,
                  float* c, int64_t ldc, int64_t c_stride);

//! The code behind every product: the packed AVX-512 kernel (x86-64 CPUs with AVX-512 F, BW, DQ
//! and VL) or the portable one (Eigen, any CPU; its bits differ from the AVX-512 kernel's but are
//! as independent of the thread count). Chosen at the first product: Avx512 where the CPU has it,
//! unless the environment sets IPUTRAIN_GEMM=portable.
enum class GemmKernel { Avx512, Portable };
GemmKernel gemm_kernel();

//! Whether this CPU (and this build) can run the AVX-512 kernel.
bool gemm_avx512_usable();

//! Forces a kernel (the fallback's tests): false, changing nothing, when Avx512 is asked for where it
//! cannot run. Not for use while products run on other threads.
bool set_gemm_kernel(GemmKernel kernel);

}  // namespace iputrain::ir
