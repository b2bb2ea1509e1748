#include "core/ops/conv_util.hpp"

#include "core/parallel.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/ops/reduce_util.hpp"

namespace iputrain::ir {

namespace {

// A two-entry attribute such as strides = [2, 2].
std::array<int64_t, 2> pair_attr(const Attrs& attrs, std::string_view key, int64_t def_h, int64_t def_w) {
  const std::vector<int64_t>& v = ints_attr(attrs, key);
  if (v.empty()) {
    return {def_h, def_w};
  }
  if (v.size() != 2 || v[0] < 1 || v[1] < 1) {
    throw OpError{
        fmt::format("{} must be two positive integers [height, width], got [{}]", key, fmt::join(v, ", ")),
        fmt::format("e.g. {} = [2, 2]", key)};
  }
  return {v[0], v[1]};
}

// One spatial dimension: output size and padding before the first element.
std::array<int64_t, 2> out_and_pad(int64_t in, int64_t k, int64_t stride, int64_t dilation, bool same) {
  const int64_t eff = (k - 1) * dilation + 1;
  if (same) {
    const int64_t out = (in + stride - 1) / stride;
    const int64_t total = std::max<int64_t>((out - 1) * stride + eff - in, 0);
    return {out, total / 2};
  }
  return {in >= eff ? (in - eff) / stride + 1 : 0, 0};
}

}  // namespace

void require_nhwc(const TensorType& t, std::string_view what) {
  if (t.dtype != DType::F32 || t.rank() != 4) {
    throw OpError{fmt::format("{} must be f32 of rank 4, got {}", what, t.str()),
                  what == "filter" ? "filters are [height, width, in_channels, out_channels]"
                                   : "images are [batch, height, width, channels] (NHWC)"};
  }
}

ConvGeom conv_geom(const Shape& x, int64_t kh, int64_t kw, const Attrs& attrs, int64_t default_sh,
                   int64_t default_sw, bool dilated) {
  const std::string_view padding = str_attr(attrs, "padding", "valid");
  if (padding != "valid" && padding != "same") {
    throw OpError{fmt::format("padding must be \"valid\" or \"same\", got \"{}\"", padding), ""};
  }
  ConvGeom g;
  g.n = x[0];
  g.h = x[1];
  g.w = x[2];
  g.c = x[3];
  g.kh = kh;
  g.kw = kw;
  const auto s = pair_attr(attrs, "strides", default_sh, default_sw);
  g.sh = s[0];
  g.sw = s[1];
  if (dilated) {
    const auto d = pair_attr(attrs, "dilations", 1, 1);
    g.dh = d[0];
    g.dw = d[1];
  }
  const bool same = padding == "same";
  const auto [oh, pt] = out_and_pad(g.h, kh, g.sh, g.dh, same);
  const auto [ow, pl] = out_and_pad(g.w, kw, g.sw, g.dw, same);
  if (oh < 1 || ow < 1) {
    throw OpError{fmt::format("the {}x{} window (dilation {}x{}) does not fit in the {}x{} input", kh, kw,
                              g.dh, g.dw, g.h, g.w),
                  "use padding = \"same\", a smaller window or a larger input"};
  }
  g.oh = oh;
  g.ow = ow;
  g.pt = pt;
  g.pl = pl;
  return g;
}

ConvGeom conv2d_geom(const Shape& x, const Shape& filter, const Attrs& attrs) {
  const int64_t groups = int_attr(attrs, "groups", 1);
  if (groups > 1 && (x[3] % groups != 0 || filter[3] % groups != 0)) {
    throw OpError{fmt::format("{} groups do not divide the input's {} channels and the filter's {} outputs", groups,
                              x[3], filter[3]),
                  "groups must divide both the input channels and the filters", "groups"};
  }
  if (filter[2] * groups != x[3]) {
    throw OpError{fmt::format("the filter {} expects {} input channels but the input {} has {}{}",
                              TensorType{DType::F32, filter}.str(), filter[2] * groups, TensorType{DType::F32, x}.str(),
                              x[3], groups > 1 ? fmt::format(" ({} groups of {})", groups, filter[2]) : ""),
                  groups > 1 ? "with groups, filters are [height, width, in_channels / groups, out_channels]"
                             : "filters are [height, width, in_channels, out_channels]"};
  }
  ConvGeom g = conv_geom(x, filter[0], filter[1], attrs, 1, 1, true);
  g.groups = groups;
  return g;
}

int64_t conv_chunk_rows(const ConvGeom& g) {
  constexpr int64_t kTargetFloats = (2 << 20) / 4;
  return std::clamp<int64_t>(kTargetFloats / std::max<int64_t>(g.kh * g.kw * g.c, 1), 1,
                             std::max<int64_t>(g.rows(), 1));
}

namespace {

// The extent of the (padded) input a window walk reads along one dimension.
int64_t padded_extent(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t dilation, int64_t before) {
  return std::max(in + before, (out - 1) * stride + (k - 1) * dilation + 1);
}

struct PaddedSize {
  int64_t h, w;
  bool copy;  // the window walk leaves x: read a zero-bordered copy instead
  int64_t floats(const ConvGeom& g) const { return copy ? (g.n * h * w * g.c + 1) / 2 * 2 : 0; }
};

PaddedSize padded_size(const ConvGeom& g) {
  const int64_t h = padded_extent(g.h, g.oh, g.kh, g.sh, g.dh, g.pt);
  const int64_t w = padded_extent(g.w, g.ow, g.kw, g.sw, g.dw, g.pl);
  return {h, w, h != g.h || w != g.w};
}

}  // namespace

size_t conv_patches_bytes(const ConvGeom& g) {
  if (g.pointwise() && g.groups == 1) {
    return 0;
  }
  return static_cast<size_t>(padded_size(g).floats(g)) * sizeof(float) +
         static_cast<size_t>(g.patch()) * sizeof(int64_t);
}

Patches conv_patches(const float* x, const ConvGeom& g, void* workspace) {
  const PaddedSize ps = padded_size(g);
  auto* padded = static_cast<float*>(workspace);
  auto* taps = reinterpret_cast<int64_t*>(padded + ps.floats(g));
  const int64_t row = ps.w * g.c;  // floats per (padded) input row
  if (ps.copy) {
    const int64_t image = ps.h * row;
    par::for_blocks(g.n, 1, g.n * image, [&](int64_t b, int64_t e) {
      for (int64_t n = b; n < e; ++n) {
        float* dst = padded + n * image;
        std::fill(dst, dst + image, 0.0f);
        for (int64_t i = 0; i < g.h; ++i) {
          const float* src = x + (n * g.h + i) * g.w * g.c;
          std::copy(src, src + g.w * g.c, dst + (i + g.pt) * row + g.pl * g.c);
        }
      }
    });
  }
  int64_t p = 0;
  for (int64_t i = 0; i < g.kh; ++i) {
    for (int64_t j = 0; j < g.kw; ++j) {
      for (int64_t ch = 0; ch < g.c / g.groups; ++ch) {
        taps[p++] = i * g.dh * row + j * g.dw * g.c + ch;
      }
    }
  }
  return Patches{.x = ps.copy ? padded : x,
                 .taps = taps,
                 .per_image = std::max<int64_t>(g.oh * g.ow, 1),
                 .out_w = std::max<int64_t>(g.ow, 1),
                 .image_stride = ps.h * row,
                 .row_stride = g.sh * row,
                 .col_stride = g.sw * g.c};
}

size_t conv_workspace_bytes(const ConvGeom& g) {
  if (g.pointwise() && g.groups == 1) {
    return 0;
  }
  return static_cast<size_t>(conv_chunk_rows(g) * g.kh * g.kw * g.c) * sizeof(float);
}

namespace {

// Calls f(cols_offset, x_offset or -1 for padding) for every C-long run of the patch of row r.
template <typename F>
void for_each_tap(const ConvGeom& g, int64_t r, F f) {
  const int64_t ow = r % g.ow;
  const int64_t oh = (r / g.ow) % g.oh;
  const int64_t n = r / (g.ow * g.oh);
  int64_t col = 0;
  for (int64_t i = 0; i < g.kh; ++i) {
    const int64_t ih = oh * g.sh - g.pt + i * g.dh;
    for (int64_t j = 0; j < g.kw; ++j, col += g.c) {
      const int64_t iw = ow * g.sw - g.pl + j * g.dw;
      const bool inside = ih >= 0 && ih < g.h && iw >= 0 && iw < g.w;
      f(col, inside ? ((n * g.h + ih) * g.w + iw) * g.c : int64_t{-1});
    }
  }
}

}  // namespace

void col2im_add(const float* cols, const ConvGeom& g, int64_t r0, int64_t r1, float* dx) {
  const int64_t k = g.patch();
  for (int64_t r = r0; r < r1; ++r) {
    const float* row = cols + (r - r0) * k;
    for_each_tap(g, r, [&](int64_t col, int64_t xo) {
      if (xo >= 0) {
        float* dst = dx + xo;
        const float* src = row + col;
        for (int64_t c = 0; c < g.c; ++c) {
          dst[c] += src[c];
        }
      }
    });
  }
}

Attrs window_attrs(const Attrs& attrs) {
  Attrs out;
  for (const char* key : {"ksize", "strides", "dilations", "padding", "groups"}) {
    if (const AttrValue* v = attrs.find(key)) {
      out.set(key, *v);
    }
  }
  return out;
}

void col2im_add_parallel(const float* cols, const ConvGeom& g, int64_t r0, int64_t r1, float* dx) {
  const int64_t per_image = std::max<int64_t>(g.oh * g.ow, 1);
  const int64_t first = r0 / per_image;
  const int64_t images = (r1 - 1) / per_image - first + 1;
  const int64_t k = g.patch();
  par::for_blocks(images, 1, (r1 - r0) * k, [&](int64_t b, int64_t e) {
    const int64_t s = std::max(r0, (first + b) * per_image);
    const int64_t t = std::min(r1, (first + e) * per_image);
    col2im_add(cols + (s - r0) * k, g, s, t, dx);
  });
}

}  // namespace iputrain::ir
