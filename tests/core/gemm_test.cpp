// The GEMM under every product (core/ops/gemm.*): values against a double-precision reference for
// every operand layout and the shapes that reach each edge of the tiling (a partial row block, a
// partial column panel, several k blocks, several column blocks), accumulation, bitwise equality
// across thread counts, and a convolution's patch matrix read in place. Each test runs through
// every kernel this CPU can run: the AVX-512 one where it has it, and always the portable
// fallback (forced with set_gemm_kernel(), as IPUTRAIN_GEMM=portable does), which is what a CPU
// without AVX-512 runs.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "core/ops/conv_util.hpp"
#include "core/ops/gemm.hpp"
#include "core/ops/gemm_tile.hpp"
#include "core/parallel.hpp"
#include "core/rng.hpp"

namespace iputrain::ir {

namespace {

struct Case {
  int64_t m, n, k;
};

// The kernels to test here, and a scope that forces one (restoring the choice after it).
std::vector<GemmKernel> kernels() {
  if (gemm_avx512_usable()) {
    return {GemmKernel::Avx512, GemmKernel::Portable};
  }
  return {GemmKernel::Portable};
}

struct KernelScope {
  GemmKernel before = gemm_kernel();
  explicit KernelScope(GemmKernel kernel) { REQUIRE(set_gemm_kernel(kernel)); }
  ~KernelScope() { set_gemm_kernel(before); }
  KernelScope(const KernelScope&) = delete;
  KernelScope& operator=(const KernelScope&) = delete;
};

const char* kernel_name(GemmKernel kernel) { return kernel == GemmKernel::Avx512 ? "avx512" : "portable"; }

std::vector<float> random_floats(int64_t count, uint64_t seed) {
  std::vector<float> v(static_cast<size_t>(count));
  for (size_t i = 0; i < v.size(); ++i) {
    // Uniform in [-1, 1).
    const uint32_t bits = philox4x32(seed * 1000003 + i, {1, 2, 3, 4})[0];
    v[i] = static_cast<float>(bits) / 2147483648.0f - 1.0f;
  }
  return v;
}

// A case's operands and their product in double precision, computed once for all its layouts.
struct Reference {
  std::vector<float> a, b, c0;             // a [m, k] and b [k, n], row-major; c0 [m, n]
  std::vector<double> product, magnitude;  // [m, n]: sum of the terms, sum of their magnitudes
};

Reference reference_of(const Case& s) {
  Reference r{random_floats(s.m * s.k, 1), random_floats(s.k * s.n, 2), random_floats(s.m * s.n, 3), {}, {}};
  r.product.assign(static_cast<size_t>(s.m * s.n), 0.0);
  r.magnitude.assign(r.product.size(), 0.0);
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t p = 0; p < s.k; ++p) {
      const double x = r.a[static_cast<size_t>(i * s.k + p)];
      const float* row = r.b.data() + p * s.n;
      double* sum = r.product.data() + i * s.n;
      double* magnitude = r.magnitude.data() + i * s.n;
      for (int64_t j = 0; j < s.n; ++j) {
        const double term = x * double(row[j]);
        sum[j] += term;
        magnitude[j] += std::fabs(term);
      }
    }
  }
  return r;
}

// x [rows, cols] row-major as stored for a transposed operand: [cols, rows].
std::vector<float> transposed(const std::vector<float>& x, int64_t rows, int64_t cols) {
  std::vector<float> t(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      t[static_cast<size_t>(c * rows + r)] = x[static_cast<size_t>(r * cols + c)];
    }
  }
  return t;
}

void check_case(const Case& s, const Reference& r, bool ta, bool tb, bool accumulate) {
  CAPTURE(s.m);
  CAPTURE(s.n);
  CAPTURE(s.k);
  CAPTURE(ta);
  CAPTURE(tb);
  CAPTURE(accumulate);
  const std::vector<float> a = ta ? transposed(r.a, s.m, s.k) : r.a;
  const std::vector<float> b = tb ? transposed(r.b, s.k, s.n) : r.b;
  std::vector<float> c = r.c0;
  gemm(a.data(), ta, b.data(), tb, c.data(), s.m, s.n, s.k, accumulate);
  int64_t wrong = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    const double c0 = accumulate ? r.c0[i] : 0.0;
    const double sum = c0 + r.product[i];
    const double magnitude = std::fabs(c0) + r.magnitude[i];
    // fp32 rounding of a sum of k + 1 terms: at most about (k + 1) ulps of the magnitudes' sum.
    if (std::fabs(double(c[i]) - sum) > 1.2e-7 * double(s.k + 2) * magnitude + 1e-30) {
      ++wrong;
    }
  }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("gemm: every layout against a double reference, at the edges of the tiling") {
  // 6-row kernel, 64-column panels, 256-step k blocks, 256-column blocks, tiles of about 128 rows;
  // 12 x 16, 12 x 32 and 8 x 48 kernels for blocks of at most 16, 32 and 48 columns.
  const std::vector<Case> cases = {
      {1, 1, 1},      {1, 7, 3},      {5, 1, 9},     {6, 64, 16},  {7, 65, 17},    {13, 33, 255},   {12, 128, 256},
      {11, 129, 257}, {32, 128, 784}, {33, 300, 70}, {200, 70, 5}, {257, 513, 31}, {130, 600, 520}, {384, 96, 40},
      {40, 16, 25},   {100, 32, 400}, {77, 48, 9},   {50, 20, 33}, {25, 16, 3000}, {70, 80, 30},
  };
  for (const auto& s : cases) {
    const Reference r = reference_of(s);
    for (const GemmKernel kernel : kernels()) {
      CAPTURE(kernel_name(kernel));
      const KernelScope scope(kernel);
      for (int layout = 0; layout < 4; ++layout) {
        check_case(s, r, (layout & 1) != 0, (layout & 2) != 0, false);
      }
      check_case(s, r, false, false, true);
      check_case(s, r, true, true, true);
    }
  }
}

TEST_CASE("gemm: k = 0 writes zeros, or leaves c alone when accumulating") {
  std::vector<float> c = {1.0f, 2.0f, 3.0f, 4.0f};
  gemm(nullptr, false, nullptr, false, c.data(), 2, 2, 0, true);
  CHECK(c == std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f});
  gemm(nullptr, false, nullptr, false, c.data(), 2, 2, 0, false);
  CHECK(c == std::vector<float>{0.0f, 0.0f, 0.0f, 0.0f});
}

TEST_CASE("gemm: bitwise the same for 1, 2, 3 and 8 threads, batched too") {
  const int64_t m = 300, n = 700, k = 530, batch = 3;
  const auto a = random_floats(batch * m * k, 4);
  const auto b = random_floats(k * n, 5);
  for (const GemmKernel kernel : kernels()) {
    CAPTURE(kernel_name(kernel));
    const KernelScope scope(kernel);
    std::vector<float> first;
    for (int64_t threads : {1, 2, 3, 8}) {
      CAPTURE(threads);
      par::set_threads(threads);
      std::vector<float> c(static_cast<size_t>(batch * m * n));
      gemm(a.data(), false, b.data(), true, c.data(), m, n, k);
      std::vector<float> cb(static_cast<size_t>(batch * m * n));
      gemm_batched(batch, a.data(), m * k, true, b.data(), 0, false, cb.data(), m * n, m, n, k);
      c.insert(c.end(), cb.begin(), cb.end());
      if (first.empty()) {
        first = c;
      } else {
        CHECK(c == first);
      }
    }
  }
  par::set_threads(0);
}

namespace {

void grouped_case() {
  // Three entries of [m, n] = op(a) [m, k] @ op(b) [k, n], each operand a column block of a wider
  // row-major matrix (a grouped convolution's per-group products), c's blocks side by side.
  const int64_t batch = 3, m = 70, n = 37, k = 300;
  for (const bool ta : {false, true}) {
    for (const bool tb : {false, true}) {
      CAPTURE(ta);
      CAPTURE(tb);
      const int64_t lda = batch * (ta ? m : k) + 5;
      const int64_t ldb = batch * (tb ? k : n) + 3;
      const int64_t ldc = batch * n + 1;
      const auto a = random_floats((ta ? k : m) * lda, 21);
      const auto b = random_floats((tb ? n : k) * ldb, 22);
      std::vector<float> c(static_cast<size_t>(m * ldc), 7.0f);
      gemm_grouped(batch, m, n, k, GroupedOperand{.data = a.data(), .transposed = ta, .ld = lda, .stride = ta ? m : k},
                   GroupedOperand{.data = b.data(), .transposed = tb, .ld = ldb, .stride = tb ? k : n}, c.data(), ldc,
                   n);
      int64_t bad = 0;
      for (int64_t e = 0; e < batch; ++e) {
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            double want = 0;
            for (int64_t p = 0; p < k; ++p) {
              const double av =
                  ta ? a[static_cast<size_t>(p * lda + e * m + i)] : a[static_cast<size_t>(i * lda + e * k + p)];
              const double bv =
                  tb ? b[static_cast<size_t>(j * ldb + e * k + p)] : b[static_cast<size_t>(p * ldb + e * n + j)];
              want += av * bv;
            }
            bad += std::fabs(c[static_cast<size_t>(i * ldc + e * n + j)] - want) > 1e-4 * (1 + std::fabs(want));
          }
        }
      }
      CHECK(bad == 0);
      for (int64_t i = 0; i < m; ++i) {
        CHECK(c[static_cast<size_t>(i * ldc + batch * n)] == 7.0f);  // the gap column is left alone
      }
    }
  }
}

}  // namespace

TEST_CASE("gemm_grouped: column blocks of wider matrices, every layout, against a double reference") {
  for (const GemmKernel kernel : kernels()) {
    CAPTURE(kernel_name(kernel));
    const KernelScope scope(kernel);
    grouped_case();
  }
}

namespace {

void split_case() {
  // Few output tiles and several k blocks: gemm() sums the blocks' partials in order (a batch of
  // 32 against a [784, 128] weight, a filter gradient over 5,000 positions). One gemm_tile()
  // call over the whole output and every k block is the unsplit reference. The packed kernel gives
  // the same bits either way; Eigen (other targets) sums a split product in its own fixed order,
  // so there the two agree to rounding.
  const Case cases[] = {{32, 128, 784}, {25, 16, 5000}, {40, 200, 300}};
  for (const Case& s : cases) {
    for (int layout = 0; layout < 4; ++layout) {
      for (bool accumulate : {false, true}) {
        const bool ta = (layout & 1) != 0;
        const bool tb = (layout & 2) != 0;
        CAPTURE(s.m);
        CAPTURE(s.k);
        CAPTURE(layout);
        CAPTURE(accumulate);
        const auto a = random_floats(s.m * s.k, 6);
        const auto b = random_floats(s.k * s.n, 7);
        const std::vector<float> c0 = random_floats(s.m * s.n, 8);
        std::vector<float> whole = c0;
        std::vector<float> split;
        for (int64_t threads : {1, 2}) {
          par::set_threads(threads);
          std::vector<float> c = c0;
          gemm(a.data(), ta, b.data(), tb, c.data(), s.m, s.n, s.k, accumulate);
          if (!split.empty()) {
            CHECK(c == split);
          }
          split = c;
        }
        gemm_tile(AOperand{.a = a.data(), .transposed = ta}, b.data(), tb, tb ? s.k : s.n, whole.data(), s.n, s.m, s.n,
                  s.k, TileRange{0, s.m, 0, s.n, 0, k_blocks(s.k)}, accumulate);
        if (gemm_kernel() == GemmKernel::Avx512) {
          CHECK(split == whole);
        } else {
          for (size_t i = 0; i < split.size(); ++i) {
            CHECK(std::fabs(split[i] - whole[i]) <= 1e-4f * (1.0f + std::fabs(whole[i])));
          }
        }
      }
    }
  }
  par::set_threads(0);
}

}  // namespace

TEST_CASE("gemm: a product split by k blocks gives the bits of one tile over the whole k") {
  for (const GemmKernel kernel : kernels()) {
    CAPTURE(kernel_name(kernel));
    const KernelScope scope(kernel);
    split_case();
  }
}

namespace {

void patches_case() {
  // Against the patch matrix written out (a naive im2col) and the dense gemm on it: padded,
  // strided and dilated windows; enough positions (k of the transposed product) for several k
  // blocks. The packed kernel reads both the same way, so they agree to the bit; Eigen's product
  // (other targets) blocks the gathered operand differently, so there they agree to rounding.
  auto agree = [](const std::vector<float>& got, const std::vector<float>& want) {
    if (gemm_kernel() == GemmKernel::Avx512) {
      return got == want;
    }
    for (size_t i = 0; i < got.size(); ++i) {
      if (std::fabs(got[i] - want[i]) > 1e-4f * (1.0f + std::fabs(want[i]))) {
        return false;
      }
    }
    return true;
  };
  struct Conv {
    Shape x;
    int64_t kh, kw;
    std::vector<int64_t> strides, dilations;
    std::string padding;
  };
  const std::vector<Conv> convs = {
      {{2, 20, 19, 3}, 3, 3, {1, 1}, {1, 1}, "same"},
      {{3, 11, 12, 2}, 5, 4, {2, 1}, {1, 2}, "same"},
      {{2, 14, 14, 16}, 5, 5, {1, 1}, {1, 1}, "valid"},
  };
  for (const Conv& cv : convs) {
    CAPTURE(cv.padding);
    Attrs attrs;
    attrs.set("strides", cv.strides);
    attrs.set("dilations", cv.dilations);
    attrs.set("padding", cv.padding);
    const ConvGeom g = conv_geom(cv.x, cv.kh, cv.kw, attrs, 1, 1, true);
    const int64_t rows = g.rows(), patch = g.patch(), f = 7;
    const auto x = random_floats(g.n * g.h * g.w * g.c, 8);
    std::vector<float> cols(static_cast<size_t>(rows * patch));
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t ow = r % g.ow, oh = (r / g.ow) % g.oh, n = r / (g.ow * g.oh);
      for (int64_t p = 0; p < patch; ++p) {
        const int64_t ch = p % g.c, j = (p / g.c) % g.kw, i = p / (g.c * g.kw);
        const int64_t ih = oh * g.sh - g.pt + i * g.dh, iw = ow * g.sw - g.pl + j * g.dw;
        const bool inside = ih >= 0 && ih < g.h && iw >= 0 && iw < g.w;
        cols[static_cast<size_t>(r * patch + p)] =
            inside ? x[static_cast<size_t>(((n * g.h + ih) * g.w + iw) * g.c + ch)] : 0.0f;
      }
    }
    std::vector<std::byte> workspace(conv_patches_bytes(g));
    const Patches patches = conv_patches(x.data(), g, workspace.data());
    const auto w = random_floats(patch * f, 9);
    std::vector<float> got(static_cast<size_t>(rows * f)), want(got.size());
    gemm_patches(patches, false, w.data(), got.data(), rows, f, patch);
    gemm(cols.data(), false, w.data(), false, want.data(), rows, f, patch);
    CHECK(agree(got, want));
    const auto dy = random_floats(rows * f, 10);
    std::vector<float> got_t(static_cast<size_t>(patch * f)), want_t(got_t.size());
    gemm_patches(patches, true, dy.data(), got_t.data(), patch, f, rows);
    gemm(cols.data(), true, dy.data(), false, want_t.data(), patch, f, rows);
    CHECK(agree(got_t, want_t));
  }
}

}  // namespace

TEST_CASE("gemm_patches: a convolution's patch matrix read in place, and its transpose") {
  for (const GemmKernel kernel : kernels()) {
    CAPTURE(kernel_name(kernel));
    const KernelScope scope(kernel);
    patches_case();
  }
}

TEST_CASE("gemm: an element's sum depends on k alone (the packed kernel)") {
  // The rows of a product are bitwise the rows of a taller product: no tile bound, panel edge or
  // row block changes the order of a sum.
  if (!gemm_avx512_usable()) {
    MESSAGE("no AVX-512 on this CPU: the portable kernel's sums depend on the tile's shape");
    return;
  }
  const KernelScope scope(GemmKernel::Avx512);
  const int64_t m = 257, n = 301, k = 700;
  const auto a = random_floats(m * k, 6);
  const auto b = random_floats(k * n, 7);
  std::vector<float> full(static_cast<size_t>(m * n));
  gemm(a.data(), false, b.data(), false, full.data(), m, n, k);
  for (int64_t rows : {1, 5, 64, 200}) {
    CAPTURE(rows);
    std::vector<float> part(static_cast<size_t>(rows * n));
    gemm(a.data(), false, b.data(), false, part.data(), rows, n, k);
    CHECK(std::equal(part.begin(), part.end(), full.begin()));
  }
}

TEST_CASE("gemm: set_gemm_kernel forces the portable kernel, and refuses the AVX-512 one where the CPU lacks it") {
  const GemmKernel before = gemm_kernel();
  CHECK(set_gemm_kernel(GemmKernel::Portable));
  CHECK(gemm_kernel() == GemmKernel::Portable);
  CHECK(set_gemm_kernel(GemmKernel::Avx512) == gemm_avx512_usable());
  CHECK(gemm_kernel() == (gemm_avx512_usable() ? GemmKernel::Avx512 : GemmKernel::Portable));
  set_gemm_kernel(before);
}

}  // namespace iputrain::ir
