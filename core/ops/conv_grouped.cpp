#include "core/ops/conv_grouped.hpp"

#include <algorithm>

#include "core/ops/gemm.hpp"
#include "core/parallel.hpp"

namespace iputrain::ir {

namespace {

// Channels per accumulator block: four AVX-512 vectors, kept in registers across the taps.
constexpr int64_t kLanes = 64;
// Groups at least this wide in both inputs and outputs run per-group GEMMs: narrower ones would
// leave most of a GEMM panel's 16 lanes empty.
constexpr int64_t kWide = 16;

struct Dims {
  int64_t cg, fg, f;
  bool simple;  // one input and one output channel per group: lane o reads channel o (depthwise)
};

Dims dims_of(const ConvGeom& g, int64_t f) {
  const int64_t cg = g.c / g.groups;
  const int64_t fg = f / g.groups;
  return {cg, fg, f, cg == 1 && fg == 1};
}

// body(o) for o in [0, len): with a constant trip count for full blocks, so that the compiler
// unrolls it into whole vectors.
template <typename Body>
inline void over_lanes(int64_t len, Body&& body) {
  if (len == kLanes) {
    for (int64_t o = 0; o < kLanes; ++o) {
      body(o);
    }
  } else {
    for (int64_t o = 0; o < len; ++o) {
      body(o);
    }
  }
}

// Blocks of `per_unit`-costly units that hold at least kSerialWork each (a function of the shape).
int64_t grain_of(int64_t per_unit) { return std::max<int64_t>(1, par::kSerialWork / std::max<int64_t>(per_unit, 1)); }

// table[ci * F + o] = the input channel output o reads at its group's channel ci.
void input_channel_table(const Dims& d, int32_t* table) {
  for (int64_t ci = 0; ci < d.cg; ++ci) {
    for (int64_t o = 0; o < d.f; ++o) {
      table[ci * d.f + o] = static_cast<int32_t>(o / d.fg * d.cg + ci);
    }
  }
}

// Output positions o along one dimension whose tap at offset `off` (tap * dilation - padding)
// reads inside [0, in): o * stride + off in [0, in). Empty when lo >= hi.
struct Span {
  int64_t lo, hi;
};

Span inside(int64_t in, int64_t out, int64_t off, int64_t stride) {
  const int64_t lo = off >= 0 ? 0 : (-off + stride - 1) / stride;
  const int64_t hi = in - 1 - off < 0 ? 0 : (in - 1 - off) / stride + 1;
  return {lo, std::min(hi, out)};
}

// acc[0, len) += one tap of the window: x at the tap's input position times the tap's filter rows.
void forward_tap(float* acc, const float* xp, const float* wp, const int32_t* xi, const Dims& d, int64_t o0,
                 int64_t len) {
  if (d.simple) {
    over_lanes(len, [&](int64_t o) { acc[o] += xp[o0 + o] * wp[o]; });
    return;
  }
  for (int64_t ci = 0; ci < d.cg; ++ci) {
    const int32_t* idx = xi + ci * d.f + o0;
    const float* wc = wp + ci * d.f;
    over_lanes(len, [&](int64_t o) { acc[o] += xp[idx[o]] * wc[o]; });
  }
}

// y at output position (n, oh, ow), block by block of channels: the taps inside x, in order.
void forward_at(const float* x, const float* w, const ConvGeom& g, const Dims& d, const int32_t* xi, int64_t n,
                int64_t oh, int64_t ow, float* y) {
  for (int64_t o0 = 0; o0 < d.f; o0 += kLanes) {
    const int64_t len = std::min(kLanes, d.f - o0);
    alignas(64) float acc[kLanes] = {};
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t ih = oh * g.sh - g.pt + i * g.dh;
      for (int64_t j = 0; j < g.kw && ih >= 0 && ih < g.h; ++j) {
        const int64_t iw = ow * g.sw - g.pl + j * g.dw;
        if (iw >= 0 && iw < g.w) {
          forward_tap(acc, x + ((n * g.h + ih) * g.w + iw) * g.c, w + (i * g.kw + j) * d.cg * d.f + o0, xi, d, o0, len);
        }
      }
    }
    std::copy(acc, acc + len, y + o0);
  }
}

void direct_forward(const float* x, const float* w, float* y, const ConvGeom& g, const Dims& d, const int32_t* xi) {
  const int64_t rows = g.n * g.oh;
  const int64_t per_row = g.ow * d.f * g.kh * g.kw * d.cg;
  par::for_blocks(rows, grain_of(per_row), rows * per_row, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        forward_at(x, w, g, d, xi, r / g.oh, r % g.oh, ow, y + (r * g.ow + ow) * d.f);
      }
    }
  });
}

// dx at input position (n, ih, iw), channels [c0, c0 + len): the taps that read it, in order.
// Tables (general case): dyi[m * C + c] = dy channel of c's group's output m, wi[m * C + c] = its
// filter entry within a tap.
struct BackInput {
  const float* dy;
  const float* w;
  const ConvGeom& g;
  const Dims& d;
  const int32_t* dyi;
  const int32_t* wi;

  void at(int64_t n, int64_t ih, int64_t iw, int64_t c0, int64_t len, float* acc) const {
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t t = ih + g.pt - i * g.dh;
      if (t < 0 || t % g.sh != 0 || t / g.sh >= g.oh) {
        continue;
      }
      for (int64_t j = 0; j < g.kw; ++j) {
        const int64_t u = iw + g.pl - j * g.dw;
        if (u < 0 || u % g.sw != 0 || u / g.sw >= g.ow) {
          continue;
        }
        const float* dyp = dy + ((n * g.oh + t / g.sh) * g.ow + u / g.sw) * d.f;
        const float* wp = w + (i * g.kw + j) * d.cg * d.f;
        if (d.simple) {
          over_lanes(len, [&](int64_t c) { acc[c] += dyp[c0 + c] * wp[c0 + c]; });
          continue;
        }
        for (int64_t m = 0; m < d.fg; ++m) {
          const int32_t* a = dyi + m * g.c + c0;
          const int32_t* b = wi + m * g.c + c0;
          over_lanes(len, [&](int64_t c) { acc[c] += dyp[a[c]] * wp[b[c]]; });
        }
      }
    }
  }
};

void direct_backprop_input(const float* dy, const float* w, float* dx, const ConvGeom& g, const Dims& d,
                           int32_t* tables) {
  int32_t* dyi = tables;
  int32_t* wi = d.simple ? nullptr : tables + d.fg * g.c;
  if (!d.simple) {
    for (int64_t m = 0; m < d.fg; ++m) {
      for (int64_t c = 0; c < g.c; ++c) {
        dyi[m * g.c + c] = static_cast<int32_t>(c / d.cg * d.fg + m);
        wi[m * g.c + c] = static_cast<int32_t>(c % d.cg * d.f + c / d.cg * d.fg + m);
      }
    }
  }
  const BackInput bi{dy, w, g, d, dyi, wi};
  const int64_t rows = g.n * g.h;
  const int64_t per_row = g.w * g.c * g.kh * g.kw * d.fg;
  par::for_blocks(rows, grain_of(per_row), rows * per_row, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      for (int64_t iw = 0; iw < g.w; ++iw) {
        for (int64_t c0 = 0; c0 < g.c; c0 += kLanes) {
          const int64_t len = std::min(kLanes, g.c - c0);
          alignas(64) float acc[kLanes] = {};
          bi.at(r / g.h, r % g.h, iw, c0, len, acc);
          std::copy(acc, acc + len, dx + (r * g.w + iw) * g.c + c0);
        }
      }
    }
  });
}

// acc[0, len) += x[xo + ow * x_step + lane] * dy[ow * f + lane] over ow in [lo, hi), in order; the
// lane's input channel from `idx` unless the convolution is simple (idx null, channel o0 + o).
void filter_row(float* acc, const float* x, int64_t xo, int64_t x_step, const float* dy, int64_t f, Span ws,
                const int32_t* idx, int64_t o0, int64_t len) {
  for (int64_t ow = ws.lo; ow < ws.hi; ++ow) {
    const float* xp = x + xo + ow * x_step;
    const float* dyp = dy + ow * f;
    if (idx == nullptr) {
      over_lanes(len, [&](int64_t o) { acc[o] += xp[o0 + o] * dyp[o]; });
    } else {
      over_lanes(len, [&](int64_t o) { acc[o] += xp[idx[o]] * dyp[o]; });
    }
  }
}

// Filter entries [(tap, ci), o0 + [0, len)) summed over every output position in order.
void filter_unit(const float* x, const float* dy, const ConvGeom& g, const Dims& d, const int32_t* xi, int64_t tap,
                 int64_t ci, int64_t o0, int64_t len, float* acc) {
  const int64_t i = tap / g.kw;
  const int64_t j = tap % g.kw;
  const Span hs = inside(g.h, g.oh, i * g.dh - g.pt, g.sh);
  const Span ws = inside(g.w, g.ow, j * g.dw - g.pl, g.sw);
  const int32_t* idx = d.simple ? nullptr : xi + ci * d.f + o0;
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t oh = hs.lo; oh < hs.hi; ++oh) {
      const int64_t xo = ((n * g.h + oh * g.sh - g.pt + i * g.dh) * g.w - g.pl + j * g.dw) * g.c;
      filter_row(acc, x, xo, g.sw * g.c, dy + (n * g.oh + oh) * g.ow * d.f + o0, d.f, ws, idx, o0, len);
    }
  }
}

// One work item per (tap, channel of the group, block of outputs).
void direct_backprop_filter(const float* x, const float* dy, float* dw, const ConvGeom& g, const Dims& d,
                            const int32_t* xi) {
  const int64_t blocks = (d.f + kLanes - 1) / kLanes;
  const int64_t units = g.kh * g.kw * d.cg * blocks;
  par::for_blocks(units, 1, units * g.rows() * std::min(kLanes, d.f), [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      const int64_t tap = u / (d.cg * blocks);
      const int64_t ci = u / blocks % d.cg;
      const int64_t o0 = u % blocks * kLanes;
      const int64_t len = std::min(kLanes, d.f - o0);
      alignas(64) float acc[kLanes] = {};
      filter_unit(x, dy, g, d, xi, tap, ci, o0, len, acc);
      std::copy(acc, acc + len, dw + (tap * d.cg + ci) * d.f + o0);
    }
  });
}

// dx += the patch of output position r (row r - r0 of every group's block of cols).
void col2im_grouped_row(const float* cols, int64_t chunk, const ConvGeom& g, int64_t r, int64_t r0, float* dx) {
  const int64_t per_image = g.oh * g.ow;
  const int64_t n = r / per_image;
  const int64_t oh = r % per_image / g.ow;
  const int64_t ow = r % g.ow;
  const int64_t cg = g.c / g.groups;
  const int64_t k = g.patch();
  for (int64_t i = 0; i < g.kh; ++i) {
    const int64_t ih = oh * g.sh - g.pt + i * g.dh;
    for (int64_t j = 0; j < g.kw && ih >= 0 && ih < g.h; ++j) {
      const int64_t iw = ow * g.sw - g.pl + j * g.dw;
      float* dst = dx + ((n * g.h + ih) * g.w + iw) * g.c;
      for (int64_t grp = 0; grp < g.groups && iw >= 0 && iw < g.w; ++grp) {
        const float* src = cols + (grp * chunk + r - r0) * k + (i * g.kw + j) * cg;
        std::transform(src, src + cg, dst + grp * cg, dst + grp * cg, [](float a, float b) { return b + a; });
      }
    }
  }
}

// dx += the patches of cols ([groups][chunk rows][patch]) for output positions [r0, r1), image by
// image (the images' patches never overlap; within one, rows and taps in order).
void col2im_grouped_add(const float* cols, int64_t chunk, const ConvGeom& g, int64_t r0, int64_t r1, float* dx) {
  const int64_t per_image = g.oh * g.ow;
  const int64_t first = r0 / per_image;
  const int64_t images = (r1 - 1) / per_image - first + 1;
  par::for_blocks(images, 1, (r1 - r0) * g.patch() * g.groups, [&](int64_t b, int64_t e) {
    const int64_t s = std::max(r0, (first + b) * per_image);
    const int64_t t = std::min(r1, (first + e) * per_image);
    for (int64_t r = s; r < t; ++r) {
      col2im_grouped_row(cols, chunk, g, r, r0, dx);
    }
  });
}

size_t table_bytes(const Dims& d, int64_t entries) { return d.simple ? 0 : static_cast<size_t>(entries) * 4; }

}  // namespace

bool grouped_direct(const ConvGeom& g, int64_t f) { return g.c / g.groups < kWide || f / g.groups < kWide; }

void grouped_forward(const float* x, const float* w, float* y, const ConvGeom& g, int64_t f, void* workspace) {
  const Dims d = dims_of(g, f);
  if (grouped_direct(g, f)) {
    auto* table = static_cast<int32_t*>(workspace);
    if (!d.simple) {
      input_channel_table(d, table);
    }
    direct_forward(x, w, y, g, d, table);
    return;
  }
  const Patches p = conv_patches(x, g, workspace);
  gemm_grouped(g.groups, g.rows(), d.fg, g.patch(), GroupedOperand{.patches = &p, .stride = d.cg},
               GroupedOperand{.data = w, .ld = f, .stride = d.fg}, y, f, d.fg);
}

size_t grouped_forward_bytes(const ConvGeom& g, int64_t f) {
  const Dims d = dims_of(g, f);
  return grouped_direct(g, f) ? table_bytes(d, d.cg * f) : conv_patches_bytes(g);
}

void grouped_backprop_input(const float* dy, const float* w, float* dx, const ConvGeom& g, int64_t f, void* workspace) {
  const Dims d = dims_of(g, f);
  if (grouped_direct(g, f)) {
    direct_backprop_input(dy, w, dx, g, d, static_cast<int32_t*>(workspace));
    return;
  }
  const int64_t total = g.n * g.h * g.w * g.c;
  par::for_elements(total, 1, [dx](int64_t b, int64_t e) { std::fill(dx + b, dx + e, 0.0f); });
  const int64_t chunk = conv_chunk_rows(g);
  const int64_t k = g.patch();
  auto* cols = static_cast<float*>(workspace);
  for (int64_t r0 = 0; r0 < g.rows(); r0 += chunk) {
    const int64_t r1 = std::min(g.rows(), r0 + chunk);
    gemm_grouped(g.groups, r1 - r0, k, d.fg, GroupedOperand{.data = dy + r0 * f, .ld = f, .stride = d.fg},
                 GroupedOperand{.data = w, .transposed = true, .ld = f, .stride = d.fg}, cols, k, chunk * k);
    col2im_grouped_add(cols, chunk, g, r0, r1, dx);
  }
}

size_t grouped_backprop_input_bytes(const ConvGeom& g, int64_t f) {
  const Dims d = dims_of(g, f);
  return grouped_direct(g, f) ? table_bytes(d, 2 * d.fg * g.c) : conv_workspace_bytes(g);
}

void grouped_backprop_filter(const float* x, const float* dy, float* dw, const ConvGeom& g, int64_t f,
                             void* workspace) {
  const Dims d = dims_of(g, f);
  if (grouped_direct(g, f)) {
    auto* table = static_cast<int32_t*>(workspace);
    if (!d.simple) {
      input_channel_table(d, table);
    }
    direct_backprop_filter(x, dy, dw, g, d, table);
    return;
  }
  const Patches p = conv_patches(x, g, workspace);
  gemm_grouped(g.groups, g.patch(), d.fg, g.rows(), GroupedOperand{.patches = &p, .transposed = true, .stride = d.cg},
               GroupedOperand{.data = dy, .ld = f, .stride = d.fg}, dw, f, d.fg);
}

size_t grouped_backprop_filter_bytes(const ConvGeom& g, int64_t f) { return grouped_forward_bytes(g, f); }

}  // namespace iputrain::ir
