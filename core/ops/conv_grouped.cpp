#include "core/ops/conv_grouped.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "core/ops/gemm.hpp"
#include "core/parallel.hpp"

namespace iputrain::ir {

namespace {

// Channels per accumulator block: four AVX-512 vectors, kept in registers across the taps.
constexpr int64_t kLanes = 64;

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

// The accumulators of one block of lanes: `len` floats on the stack (any block; the gathered
// reads of a group with several channels use `a` directly), or, for a depthwise block of 16 * V
// lanes, V vectors that stay in registers across the taps.
struct LaneAcc {
  int64_t len;
  alignas(64) float a[kLanes] = {};
  void add(const float* p, const float* q) {
    over_lanes(len, [&](int64_t o) { a[o] += p[o] * q[o]; });
  }
  void store(float* y) const { std::copy(a, a + len, y); }
};

using Vec = float __attribute__((vector_size(64)));

inline Vec load(const float* p) {
  Vec v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <int V>
struct VecAcc {
  Vec v[V] = {};
  void add(const float* p, const float* q) {
#pragma GCC unroll 4
    for (int i = 0; i < V; ++i) {
      v[i] += load(p + 16 * i) * load(q + 16 * i);
    }
  }
  void store(float* y) const { std::memcpy(y, v, sizeof v); }
};

// f(acc) with the accumulator for a block of `len` lanes: vectors when the convolution is simple
// and len is whole vectors, else lanes (a function of the shape only, as the bits must be).
template <typename F>
void with_acc(bool simple, int64_t len, F&& f) {
  if (simple && len % 16 == 0) {
    switch (len / 16) {
      case 4: {
        VecAcc<4> acc;
        return f(acc);
      }
      case 3: {
        VecAcc<3> acc;
        return f(acc);
      }
      case 2: {
        VecAcc<2> acc;
        return f(acc);
      }
      default: {
        VecAcc<1> acc;
        return f(acc);
      }
    }
  }
  LaneAcc acc{len};
  f(acc);
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

// acc += one tap of the window: x at the tap's input position (xp, its channel 0) times the tap's
// filter rows (wp, from lane o0).
template <typename Acc>
void forward_tap(Acc& acc, const float* xp, const float* wp, const int32_t* xi, const Dims& d, int64_t o0) {
  if constexpr (std::is_same_v<Acc, LaneAcc>) {
    if (!d.simple) {
      for (int64_t ci = 0; ci < d.cg; ++ci) {
        const int32_t* idx = xi + ci * d.f + o0;
        const float* wc = wp + ci * d.f;
        over_lanes(acc.len, [&](int64_t o) { acc.a[o] += xp[idx[o]] * wc[o]; });
      }
      return;
    }
  }
  acc.add(xp + o0, wp);
}

// Lanes [o0, o0 + len) of y at output position (n, oh, ow): the taps inside x, in order.
template <typename Acc>
void forward_block(const float* x, const float* w, const ConvGeom& g, const Dims& d, const int32_t* xi, int64_t n,
                   int64_t oh, int64_t ow, int64_t o0, Acc& acc) {
  for (int64_t i = 0; i < g.kh; ++i) {
    const int64_t ih = oh * g.sh - g.pt + i * g.dh;
    for (int64_t j = 0; j < g.kw && ih >= 0 && ih < g.h; ++j) {
      const int64_t iw = ow * g.sw - g.pl + j * g.dw;
      if (iw >= 0 && iw < g.w) {
        forward_tap(acc, x + ((n * g.h + ih) * g.w + iw) * g.c, w + (i * g.kw + j) * d.cg * d.f + o0, xi, d, o0);
      }
    }
  }
}

// y at output position (row r = n * OH + oh, ow), block by block of lanes.
void forward_position(const float* x, const float* w, const ConvGeom& g, const Dims& d, const int32_t* xi, int64_t r,
                      int64_t ow, float* y) {
  for (int64_t o0 = 0; o0 < d.f; o0 += kLanes) {
    with_acc(d.simple, std::min(kLanes, d.f - o0), [&](auto& acc) {
      forward_block(x, w, g, d, xi, r / g.oh, r % g.oh, ow, o0, acc);
      acc.store(y + o0);
    });
  }
}

void direct_forward(const float* x, const float* w, float* y, const ConvGeom& g, const Dims& d, const int32_t* xi) {
  const int64_t rows = g.n * g.oh;
  const int64_t per_row = g.ow * d.f * g.kh * g.kw * d.cg;
  par::for_blocks(rows, grain_of(per_row), rows * per_row, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        forward_position(x, w, g, d, xi, r, ow, y + (r * g.ow + ow) * d.f);
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
  const int32_t* out_row;  // [H, KH]: the output row whose tap i reads input row ih, or -1
  const int32_t* out_col;  // [W, KW]: likewise for columns

  template <typename Acc>
  void tap(Acc& acc, const float* dyp, const float* wp, int64_t c0) const {
    if constexpr (std::is_same_v<Acc, LaneAcc>) {
      if (!d.simple) {
        for (int64_t m = 0; m < d.fg; ++m) {
          const int32_t* a = dyi + m * g.c + c0;
          const int32_t* b = wi + m * g.c + c0;
          over_lanes(acc.len, [&](int64_t c) { acc.a[c] += dyp[a[c]] * wp[b[c]]; });
        }
        return;
      }
    }
    acc.add(dyp + c0, wp + c0);
  }

  template <typename Acc>
  void at(int64_t n, int64_t ih, int64_t iw, int64_t c0, Acc& acc) const {
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t oh = out_row[ih * g.kh + i];
      for (int64_t j = 0; j < g.kw && oh >= 0; ++j) {
        const int64_t ow = out_col[iw * g.kw + j];
        if (ow >= 0) {
          tap(acc, dy + ((n * g.oh + oh) * g.ow + ow) * d.f, w + (i * g.kw + j) * d.cg * d.f, c0);
        }
      }
    }
  }

  // dx at input position (row r = n * H + ih, iw), block by block of lanes.
  void position(int64_t r, int64_t iw, float* dx) const {
    for (int64_t c0 = 0; c0 < g.c; c0 += kLanes) {
      with_acc(d.simple, std::min(kLanes, g.c - c0), [&](auto& acc) {
        at(r / g.h, r % g.h, iw, c0, acc);
        acc.store(dx + c0);
      });
    }
  }
};

// table[p * k + i] = the output position whose tap i reads input position p along one dimension,
// or -1 (a stride skips it, or it falls outside): computed once, not divided out per position.
void output_table(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t dilation, int64_t pad, int32_t* table) {
  for (int64_t p = 0; p < in; ++p) {
    for (int64_t i = 0; i < k; ++i) {
      const int64_t t = p + pad - i * dilation;
      const bool hit = t >= 0 && t % stride == 0 && t / stride < out;
      table[p * k + i] = hit ? static_cast<int32_t>(t / stride) : -1;
    }
  }
}

void direct_backprop_input(const float* dy, const float* w, float* dx, const ConvGeom& g, const Dims& d,
                           int32_t* tables) {
  int32_t* out_row = tables;
  int32_t* out_col = out_row + g.h * g.kh;
  output_table(g.h, g.oh, g.kh, g.sh, g.dh, g.pt, out_row);
  output_table(g.w, g.ow, g.kw, g.sw, g.dw, g.pl, out_col);
  int32_t* dyi = out_col + g.w * g.kw;
  int32_t* wi = d.simple ? nullptr : dyi + d.fg * g.c;
  if (!d.simple) {
    for (int64_t m = 0; m < d.fg; ++m) {
      for (int64_t c = 0; c < g.c; ++c) {
        dyi[m * g.c + c] = static_cast<int32_t>(c / d.cg * d.fg + m);
        wi[m * g.c + c] = static_cast<int32_t>(c % d.cg * d.f + c / d.cg * d.fg + m);
      }
    }
  }
  const BackInput bi{dy, w, g, d, dyi, wi, out_row, out_col};
  const int64_t rows = g.n * g.h;
  const int64_t per_row = g.w * g.c * g.kh * g.kw * d.fg;
  par::for_blocks(rows, grain_of(per_row), rows * per_row, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      for (int64_t iw = 0; iw < g.w; ++iw) {
        bi.position(r, iw, dx + (r * g.w + iw) * g.c);
      }
    }
  });
}

// acc += x[xo + ow * x_step + lane] * dy[ow * f + lane] over ow in [lo, hi), in order; the lane's
// input channel from `idx` unless the convolution is simple (idx null, channel o0 + o).
template <typename Acc>
void filter_row(Acc& acc, const float* x, int64_t xo, int64_t x_step, const float* dy, int64_t f, Span ws,
                const int32_t* idx, int64_t o0) {
  for (int64_t ow = ws.lo; ow < ws.hi; ++ow) {
    const float* xp = x + xo + ow * x_step;
    const float* dyp = dy + ow * f;
    if constexpr (std::is_same_v<Acc, LaneAcc>) {
      if (idx != nullptr) {
        over_lanes(acc.len, [&](int64_t o) { acc.a[o] += xp[idx[o]] * dyp[o]; });
        continue;
      }
    }
    acc.add(xp + o0, dyp);
  }
}

// Filter entries [(tap, ci), o0 + lanes) summed over every output position in order.
template <typename Acc>
void filter_unit(const float* x, const float* dy, const ConvGeom& g, const Dims& d, const int32_t* xi, int64_t tap,
                 int64_t ci, int64_t o0, Acc& acc) {
  const int64_t i = tap / g.kw;
  const int64_t j = tap % g.kw;
  const Span hs = inside(g.h, g.oh, i * g.dh - g.pt, g.sh);
  const Span ws = inside(g.w, g.ow, j * g.dw - g.pl, g.sw);
  const int32_t* idx = d.simple ? nullptr : xi + ci * d.f + o0;
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t oh = hs.lo; oh < hs.hi; ++oh) {
      const int64_t xo = ((n * g.h + oh * g.sh - g.pt + i * g.dh) * g.w - g.pl + j * g.dw) * g.c;
      filter_row(acc, x, xo, g.sw * g.c, dy + (n * g.oh + oh) * g.ow * d.f + o0, d.f, ws, idx, o0);
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
      with_acc(d.simple, std::min(kLanes, d.f - o0), [&](auto& acc) {
        filter_unit(x, dy, g, d, xi, tap, ci, o0, acc);
        acc.store(dw + (tap * d.cg + ci) * d.f + o0);
      });
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

bool grouped_direct(const ConvGeom& g, int64_t f) { return g.c / g.groups == 1; }

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
  if (!grouped_direct(g, f)) {
    return conv_workspace_bytes(g);
  }
  return table_bytes(d, 2 * d.fg * g.c) + static_cast<size_t>(g.h * g.kh + g.w * g.kw) * sizeof(int32_t);
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
