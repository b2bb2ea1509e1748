// Cases for conv2d and its backprop ops, the pools and their gradients, dropout_mask,
// moving_average and sigmoid_cross_entropy_with_logits. The references re-derive TensorFlow's padding rule.
#include <cmath>
#include <limits>

#include "core/rng.hpp"
#include "tests/core/ref_util.hpp"

namespace iputrain::test {

namespace {

struct Axis {
  int64_t out, pad;
};

// Output size and leading padding of one spatial dimension.
Axis axis_of(int64_t in, int64_t k, int64_t stride, int64_t dilation, bool same) {
  const int64_t eff = (k - 1) * dilation + 1;
  if (!same) {
    return {(in - eff) / stride + 1, 0};
  }
  const int64_t out = (in + stride - 1) / stride;
  return {out, std::max<int64_t>((out - 1) * stride + eff - in, 0) / 2};
}

int64_t pair(const Attrs& a, const char* key, size_t i, int64_t def) {
  const Shape v = a.get_ints(key);
  return v.empty() ? def : v[i];
}

// The window of a conv/pool: for every (n, oh, ow) and tap (i, j) inside the input, calls
// f(n, oh, ow, i, j, ih, iw).
struct Window {
  Shape x;  // [N, H, W, C]
  int64_t kh, kw, sh, sw, dh, dw;
  Axis ah, aw;

  Window(const Shape& x_, int64_t kh_, int64_t kw_, const Attrs& a, bool pool) : x(x_), kh(kh_), kw(kw_) {
    sh = pair(a, "strides", 0, pool ? kh : 1);
    sw = pair(a, "strides", 1, pool ? kw : 1);
    dh = pool ? 1 : pair(a, "dilations", 0, 1);
    dw = pool ? 1 : pair(a, "dilations", 1, 1);
    const bool same = a.has("padding") && a.get_str("padding") == "same";
    ah = axis_of(x[1], kh, sh, dh, same);
    aw = axis_of(x[2], kw, sw, dw, same);
  }
  template <typename F>
  void each(F f) const {
    for (int64_t n = 0; n < x[0]; ++n) {
      for (int64_t oh = 0; oh < ah.out; ++oh) {
        for (int64_t ow = 0; ow < aw.out; ++ow) {
          for (int64_t i = 0; i < kh; ++i) {
            for (int64_t j = 0; j < kw; ++j) {
              const int64_t ih = oh * sh - ah.pad + i * dh;
              const int64_t iw = ow * sw - aw.pad + j * dw;
              if (ih >= 0 && ih < x[1] && iw >= 0 && iw < x[2]) {
                f(n, oh, ow, i, j, ih, iw);
              }
            }
          }
        }
      }
    }
  }
  size_t xi(int64_t n, int64_t h, int64_t w, int64_t c) const {
    return static_cast<size_t>(((n * x[1] + h) * x[2] + w) * x[3] + c);
  }
  size_t yi(int64_t n, int64_t h, int64_t w, int64_t c, int64_t channels) const {
    return static_cast<size_t>(((n * ah.out + h) * aw.out + w) * channels + c);
  }
};

// Output channel f of a conv2d with `groups` reads input channels [grp * c_in, (grp + 1) * c_in) of
// its group grp = f / (F / groups); the filter holds c_in = C / groups of them.
struct Groups {
  int64_t c_in, f_out, per_group;
  explicit Groups(const Shape& ws, const Attrs& a)
      : c_in(ws[2]), f_out(ws[3]), per_group(ws[3] / a.get_int("groups", 1)) {}
  int64_t channel(int64_t f, int64_t c) const { return f / per_group * c_in + c; }
  size_t wi(const Shape& ws, int64_t i, int64_t j, int64_t c, int64_t f) const {
    return static_cast<size_t>(((i * ws[1] + j) * c_in + c) * f_out + f);
  }
};

Values ref_conv(const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType& out,
                const Attrs& a) {
  const Shape& ws = t[1].shape;
  const Window win(t[0].shape, ws[0], ws[1], a, false);
  const Groups gr(ws, a);
  Values y(static_cast<size_t>(out.numel()), 0.0);
  win.each([&](int64_t n, int64_t oh, int64_t ow, int64_t i, int64_t j, int64_t ih, int64_t iw) {
    for (int64_t c = 0; c < gr.c_in; ++c) {
      for (int64_t f = 0; f < gr.f_out; ++f) {
        y[win.yi(n, oh, ow, f, gr.f_out)] += in[0][win.xi(n, ih, iw, gr.channel(f, c))] * in[1][gr.wi(ws, i, j, c, f)];
      }
    }
  });
  return y;
}

// conv2d_backprop_input(dy, filter): the adjoint of ref_conv in x.
Values ref_conv_dx(const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType& out,
                   const Attrs& a) {
  const Shape& ws = t[1].shape;
  const Window win(out.shape, ws[0], ws[1], a, false);
  const Groups gr(ws, a);
  Values dx(static_cast<size_t>(out.numel()), 0.0);
  win.each([&](int64_t n, int64_t oh, int64_t ow, int64_t i, int64_t j, int64_t ih, int64_t iw) {
    for (int64_t c = 0; c < gr.c_in; ++c) {
      for (int64_t f = 0; f < gr.f_out; ++f) {
        dx[win.xi(n, ih, iw, gr.channel(f, c))] += in[0][win.yi(n, oh, ow, f, gr.f_out)] * in[1][gr.wi(ws, i, j, c, f)];
      }
    }
  });
  return dx;
}

// conv2d_backprop_filter(x, dy): the adjoint of ref_conv in the filter.
Values ref_conv_dw(const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType& out,
                   const Attrs& a) {
  const Shape& ws = out.shape;
  const Window win(t[0].shape, ws[0], ws[1], a, false);
  const Groups gr(ws, a);
  Values dw(static_cast<size_t>(out.numel()), 0.0);
  win.each([&](int64_t n, int64_t oh, int64_t ow, int64_t i, int64_t j, int64_t ih, int64_t iw) {
    for (int64_t c = 0; c < gr.c_in; ++c) {
      for (int64_t f = 0; f < gr.f_out; ++f) {
        dw[gr.wi(ws, i, j, c, f)] += in[0][win.xi(n, ih, iw, gr.channel(f, c))] * in[1][win.yi(n, oh, ow, f, gr.f_out)];
      }
    }
  });
  return dw;
}

// mode 0 max_pool(x), 1 avg_pool(x), 2 max_pool_grad(x, dy), 3 avg_pool_grad(dy).
RefFn ref_pool(int mode) {
  return [mode](const std::vector<Values>& in, const std::vector<TensorType>& t, const TensorType& out,
                const Attrs& a) {
    const Shape k = a.get_ints("ksize");
    const Shape xs = mode == 3 ? out.shape : t[0].shape;
    const Window win(xs, k[0], k[1], a, true);
    const int64_t ch = xs[3];
    const int64_t n_out = xs[0] * win.ah.out * win.aw.out * ch;
    Values best(static_cast<size_t>(n_out), -std::numeric_limits<double>::infinity());
    std::vector<size_t> arg(static_cast<size_t>(n_out), 0);
    Values sum(static_cast<size_t>(n_out), 0.0);
    Values count(static_cast<size_t>(n_out), 0.0);
    win.each([&](int64_t n, int64_t oh, int64_t ow, int64_t, int64_t, int64_t ih, int64_t iw) {
      for (int64_t c = 0; c < ch; ++c) {
        const size_t o = win.yi(n, oh, ow, c, ch);
        count[o] += 1;
        if (mode != 3) {
          const double v = in[0][win.xi(n, ih, iw, c)];
          sum[o] += v;
          if (v > best[o]) {  // taps arrive in row-major window order: the first maximum stays
            best[o] = v;
            arg[o] = win.xi(n, ih, iw, c);
          }
        }
      }
    });
    if (mode == 0) {
      return best;
    }
    if (mode == 1) {
      for (size_t o = 0; o < sum.size(); ++o) {
        sum[o] /= count[o];
      }
      return sum;
    }
    Values dx(static_cast<size_t>(numel(xs)), 0.0);
    if (mode == 2) {
      for (size_t o = 0; o < arg.size(); ++o) {
        dx[arg[o]] += in[1][o];
      }
      return dx;
    }
    win.each([&](int64_t n, int64_t oh, int64_t ow, int64_t, int64_t, int64_t ih, int64_t iw) {
      for (int64_t c = 0; c < ch; ++c) {
        const size_t o = win.yi(n, oh, ow, c, ch);
        dx[win.xi(n, ih, iw, c)] += in[0][o] / count[o];
      }
    });
    return dx;
  };
}

Attrs conv_attrs(Shape strides, Shape dilations, const std::string& padding, int64_t groups = 1) {
  Attrs a{{"strides", std::move(strides)}, {"dilations", std::move(dilations)}, {"padding", padding}};
  if (groups != 1) {
    a.set("groups", groups);
  }
  return a;
}

// The mask definition, from the Rng API: row r uses stream step * 2^32 + offset + r.
RefFn ref_dropout(const std::string& path) {
  return [path](const std::vector<Values>&, const std::vector<TensorType>&, const TensorType& out,
                const Attrs& a) {
    const double rate = a.get_float("rate");
    const int64_t rows = out.shape.empty() ? 1 : out.shape[0];
    const int64_t per_row = out.numel() / rows;
    Values m;
    for (int64_t r = 0; r < rows; ++r) {
      Rng rng(7, path, (uint64_t{3} << 32) + 100 + static_cast<uint64_t>(r));
      for (int64_t j = 0; j < per_row; ++j) {
        m.push_back(rng.uniform() < rate ? 0.0 : 1.0 / (1.0 - static_cast<double>(static_cast<float>(rate))));
      }
    }
    return m;
  };
}

}  // namespace

void add_nn_cases(std::vector<OpCase>& cases) {
  struct Conv {
    std::string name;
    Shape x, w;
    Attrs attrs;
    double range = 2.0;  // inputs in [-range, range]: the wide cases' sums of 144 products stay small
                         // enough for f32 finite differences
  };
  const std::vector<Conv> convs = {
      {"3x3 valid", {2, 5, 5, 2}, {3, 3, 2, 3}, conv_attrs({1, 1}, {1, 1}, "valid")},
      {"3x3 same", {1, 4, 5, 2}, {3, 3, 2, 2}, conv_attrs({1, 1}, {1, 1}, "same")},
      {"2x4 same (padding after)", {2, 4, 5, 2}, {2, 4, 2, 3}, conv_attrs({1, 1}, {1, 1}, "same")},
      {"stride 2 same (odd padding)", {2, 6, 5, 1}, {3, 2, 1, 2}, conv_attrs({2, 2}, {1, 1}, "same")},
      {"stride 2 valid", {1, 7, 7, 2}, {3, 3, 2, 2}, conv_attrs({2, 2}, {1, 1}, "valid")},
      {"dilated", {1, 7, 6, 2}, {2, 2, 2, 3}, conv_attrs({1, 1}, {2, 2}, "valid")},
      {"dilated same", {1, 5, 5, 1}, {3, 3, 1, 2}, conv_attrs({1, 1}, {2, 1}, "same")},
      {"pointwise", {2, 3, 3, 4}, {1, 1, 4, 3}, conv_attrs({1, 1}, {1, 1}, "valid")},
      {"pointwise stride 2", {1, 4, 4, 2}, {1, 1, 2, 2}, conv_attrs({2, 2}, {1, 1}, "same")},
      {"defaults", {1, 4, 4, 1}, {2, 2, 1, 1}, Attrs{}},
      // Grouped: the direct kernels (depthwise, one input channel per group, with a depth multiplier
      // too) and the per-group GEMMs (any other grouping), with strides, dilations and padding.
      {"depthwise 3x3 same", {2, 5, 6, 4}, {3, 3, 1, 4}, conv_attrs({1, 1}, {1, 1}, "same", 4)},
      {"depthwise stride 2 dilated", {1, 7, 8, 3}, {3, 2, 1, 3}, conv_attrs({2, 2}, {2, 1}, "same", 3)},
      {"depthwise multiplier 2 valid", {2, 5, 5, 3}, {2, 3, 1, 6}, conv_attrs({1, 2}, {1, 1}, "valid", 3)},
      {"depthwise 70 channels (a partial lane block)",
       {1, 4, 3, 70},
       {3, 3, 1, 70},
       conv_attrs({1, 1}, {1, 1}, "same", 70)},
      {"grouped 2 of 2 channels to 3", {2, 5, 4, 4}, {3, 3, 2, 6}, conv_attrs({1, 1}, {1, 1}, "same", 2)},
      {"grouped strided dilated valid", {1, 8, 7, 6}, {2, 2, 3, 4}, conv_attrs({2, 1}, {2, 2}, "valid", 2)},
      {"grouped pointwise", {2, 3, 3, 6}, {1, 1, 2, 9}, conv_attrs({1, 1}, {1, 1}, "valid", 3)},
      {"16 channels per group same", {1, 4, 5, 32}, {3, 3, 16, 32}, conv_attrs({1, 1}, {1, 1}, "same", 2), 0.5},
      {"16 channels per group stride 2 dilated",
       {1, 7, 6, 32},
       {3, 2, 16, 48},
       conv_attrs({2, 2}, {1, 2}, "same", 2),
       0.5},
      {"16 channels per group pointwise", {2, 3, 3, 48}, {1, 1, 16, 48}, conv_attrs({1, 1}, {1, 1}, "valid", 3), 0.5},
  };
  for (const Conv& c : convs) {
    cases.push_back({.name = "conv2d " + c.name,
                     .op = OpKind::Conv2D,
                     .inputs = {f32(c.x), f32(c.w)},
                     .attrs = c.attrs,
                     .reference = ref_conv,
                     .lo = -c.range,
                     .hi = c.range,
                     .rtol = 1e-4,
                     .atol = 1e-5});
    // The backprop ops against the naive adjoints, at the output shape conv2d infers.
    ir::Graph g;
    const auto y = g.add(OpKind::Conv2D, {g.add_input("x", f32(c.x)), g.add_input("w", f32(c.w))}, c.attrs);
    const Shape ys = g.type(y).shape;
    Attrs in_attrs = c.attrs;
    in_attrs.set("input_shape", c.x);
    Attrs f_attrs = c.attrs;
    f_attrs.set("filter_shape", c.w);
    cases.push_back({.name = "conv2d_backprop_input " + c.name,
                     .op = OpKind::Conv2DBackpropInput,
                     .inputs = {f32(ys), f32(c.w)},
                     .attrs = in_attrs,
                     .reference = ref_conv_dx,
                     .rtol = 1e-4,
                     .atol = 1e-5});
    cases.push_back({.name = "conv2d_backprop_filter " + c.name,
                     .op = OpKind::Conv2DBackpropFilter,
                     .inputs = {f32(c.x), f32(ys)},
                     .attrs = f_attrs,
                     .reference = ref_conv_dw,
                     .rtol = 1e-4,
                     .atol = 1e-5});
  }
  cases.push_back(
      {.name = "conv2d channels",
       .op = OpKind::Conv2D,
       .inputs = {f32({1, 4, 4, 3}), f32({3, 3, 2, 4})},
       .infer_error =
           "the filter f32[3, 3, 2, 4] expects 2 input channels but the input f32[1, 4, 4, 3] has 3"});
  cases.push_back({.name = "conv2d groups do not divide the channels",
                   .op = OpKind::Conv2D,
                   .inputs = {f32({1, 4, 4, 6}), f32({3, 3, 2, 4})},
                   .attrs = {{"groups", int64_t{4}}},
                   .infer_error = "4 groups do not divide the input's 6 channels and the filter's 4 outputs"});
  cases.push_back({.name = "conv2d groups do not divide the filters",
                   .op = OpKind::Conv2D,
                   .inputs = {f32({1, 4, 4, 6}), f32({3, 3, 2, 4})},
                   .attrs = {{"groups", int64_t{3}}},
                   .infer_error = "3 groups do not divide the input's 6 channels and the filter's 4 outputs"});
  cases.push_back({.name = "conv2d grouped filter channels",
                   .op = OpKind::Conv2D,
                   .inputs = {f32({1, 4, 4, 6}), f32({3, 3, 2, 4})},
                   .attrs = {{"groups", int64_t{2}}},
                   .infer_error = "expects 4 input channels but the input f32[1, 4, 4, 6] has 6 (2 groups of 2)"});
  cases.push_back({.name = "conv2d groups 0",
                   .op = OpKind::Conv2D,
                   .inputs = {f32({1, 4, 4, 2}), f32({3, 3, 2, 2})},
                   .attrs = {{"groups", int64_t{0}}},
                   .infer_error = "groups"});
  cases.push_back({.name = "conv2d groups not an int",
                   .op = OpKind::Conv2D,
                   .inputs = {f32({1, 4, 4, 2}), f32({3, 3, 2, 2})},
                   .attrs = {{"groups", std::string("two")}},
                   .infer_error = "groups"});
  cases.push_back({.name = "conv2d_backprop_filter groups",
                   .op = OpKind::Conv2DBackpropFilter,
                   .inputs = {f32({1, 4, 4, 4}), f32({1, 2, 2, 6})},
                   .attrs = {{"filter_shape", Shape{3, 3, 2, 6}}, {"groups", int64_t{4}}},
                   .infer_error = "4 groups do not divide"});
  cases.push_back({.name = "conv2d rank",
                   .op = OpKind::Conv2D,
                   .inputs = {f32({4, 4, 3}), f32({3, 3, 3, 4})},
                   .infer_error = "input must be f32 of rank 4, got f32[4, 4, 3]"});
  cases.push_back({.name = "conv2d window too large",
                   .op = OpKind::Conv2D,
                   .inputs = {f32({1, 2, 2, 1}), f32({3, 3, 1, 1})},
                   .infer_error = "the 3x3 window (dilation 1x1) does not fit in the 2x2 input"});
  cases.push_back({.name = "conv2d padding",
                   .op = OpKind::Conv2D,
                   .inputs = {f32({1, 4, 4, 1}), f32({3, 3, 1, 1})},
                   .attrs = {{"padding", std::string("full")}},
                   .infer_error = "padding must be \"valid\" or \"same\", got \"full\""});
  cases.push_back({.name = "conv2d strides",
                   .op = OpKind::Conv2D,
                   .inputs = {f32({1, 4, 4, 1}), f32({3, 3, 1, 1})},
                   .attrs = {{"strides", Shape{2}}},
                   .infer_error = "strides must be two positive integers [height, width], got [2]"});
  cases.push_back({.name = "conv2d_backprop_input dy",
                   .op = OpKind::Conv2DBackpropInput,
                   .inputs = {f32({1, 3, 3, 2}), f32({3, 3, 1, 2})},
                   .attrs = {{"input_shape", Shape{1, 4, 4, 1}}},
                   .infer_error = "do not fit the input f32[1, 4, 4, 1]"});
  cases.push_back({.name = "conv2d_backprop_filter dy",
                   .op = OpKind::Conv2DBackpropFilter,
                   .inputs = {f32({1, 4, 4, 1}), f32({1, 3, 3, 2})},
                   .attrs = {{"filter_shape", Shape{3, 3, 1, 2}}},
                   .infer_error = "do not fit the filter f32[3, 3, 1, 2]"});

  // Pools.
  struct Pool {
    std::string name;
    Shape x;
    Attrs attrs;
  };
  const std::vector<Pool> pools = {
      {"2x2", {2, 4, 4, 3}, Attrs{{"ksize", Shape{2, 2}}}},
      {"3x3 stride 2 same",
       {1, 5, 6, 2},
       Attrs{{"ksize", Shape{3, 3}}, {"strides", Shape{2, 2}}, {"padding", std::string("same")}}},
      {"2x2 same odd", {1, 5, 5, 1}, Attrs{{"ksize", Shape{2, 2}}, {"padding", std::string("same")}}},
      {"overlapping valid", {1, 5, 4, 2}, Attrs{{"ksize", Shape{3, 2}}, {"strides", Shape{1, 1}}}},
  };
  for (const Pool& p : pools) {
    cases.push_back({.name = "max_pool " + p.name,
                     .op = OpKind::MaxPool,
                     .inputs = {f32(p.x)},
                     .attrs = p.attrs,
                     .reference = ref_pool(0)});
    cases.push_back({.name = "avg_pool " + p.name,
                     .op = OpKind::AvgPool,
                     .inputs = {f32(p.x)},
                     .attrs = p.attrs,
                     .reference = ref_pool(1)});
    ir::Graph g;
    const Shape ys = g.type(g.add(OpKind::MaxPool, {g.add_input("x", f32(p.x))}, p.attrs)).shape;
    cases.push_back({.name = "max_pool_grad " + p.name,
                     .op = OpKind::MaxPoolGrad,
                     .inputs = {f32(p.x), f32(ys)},
                     .attrs = p.attrs,
                     .reference = ref_pool(2)});
    Attrs ga = p.attrs;
    ga.set("input_shape", p.x);
    cases.push_back({.name = "avg_pool_grad " + p.name,
                     .op = OpKind::AvgPoolGrad,
                     .inputs = {f32(ys)},
                     .attrs = ga,
                     .reference = ref_pool(3)});
  }
  cases.push_back({.name = "max_pool_grad ties go to the first",
                   .op = OpKind::MaxPoolGrad,
                   .inputs = {f32({1, 2, 2, 1}), f32({1, 1, 1, 1})},
                   .attrs = {{"ksize", Shape{2, 2}}},
                   .values = {{3, 5, 5, 1}, {2}},
                   .expected = {0, 2, 0, 0}});
  cases.push_back({.name = "max_pool ksize",
                   .op = OpKind::MaxPool,
                   .inputs = {f32({1, 4, 4, 1})},
                   .infer_error = "ksize must be two positive integers [height, width], got []"});
  cases.push_back({.name = "avg_pool rank",
                   .op = OpKind::AvgPool,
                   .inputs = {f32({4, 4})},
                   .attrs = {{"ksize", Shape{2, 2}}},
                   .infer_error = "input must be f32 of rank 4"});
  cases.push_back({.name = "max_pool_grad dy",
                   .op = OpKind::MaxPoolGrad,
                   .inputs = {f32({1, 4, 4, 1}), f32({1, 4, 4, 1})},
                   .attrs = {{"ksize", Shape{2, 2}}},
                   .infer_error = "dy must be f32[1, 2, 2, 1]"});
  cases.push_back({.name = "avg_pool_grad dy",
                   .op = OpKind::AvgPoolGrad,
                   .inputs = {f32({1, 4, 4, 1})},
                   .attrs = {{"ksize", Shape{2, 2}}, {"input_shape", Shape{1, 4, 4, 1}}},
                   .infer_error = "dy must be f32[1, 2, 2, 1]"});

  // dropout_mask: the definition, eval mode, and the errors.
  const ir::ExecContext ctx{.seed = 7, .step = 3, .sample_offset = 100, .training = true};
  cases.push_back({.name = "dropout_mask from input",
                   .op = OpKind::DropoutMask,
                   .inputs = {f32({6, 5})},
                   .attrs = {{"rate", 0.3}, {"name", std::string("block/dropout")}},
                   .reference = ref_dropout("block/dropout"),
                   .ctx = ctx});
  cases.push_back({.name = "dropout_mask from shape",
                   .op = OpKind::DropoutMask,
                   .inputs = {},
                   .attrs = {{"rate", 0.5}, {"shape", Shape{4, 2, 3}}, {"name", std::string("d")}},
                   .reference = ref_dropout("d"),
                   .ctx = ctx});
  cases.push_back({.name = "dropout_mask eval",
                   .op = OpKind::DropoutMask,
                   .inputs = {i32({2, 2})},
                   .attrs = {{"rate", 0.5}},
                   .expected = {1, 1, 1, 1},
                   .ctx = ir::ExecContext{.seed = 7, .training = false}});
  cases.push_back({.name = "dropout_mask rate",
                   .op = OpKind::DropoutMask,
                   .inputs = {f32({2})},
                   .attrs = {{"rate", 1.0}},
                   .infer_error = "rate must lie in [0, 1), got 1"});
  cases.push_back({.name = "dropout_mask no shape",
                   .op = OpKind::DropoutMask,
                   .inputs = {},
                   .attrs = {{"rate", 0.1}},
                   .infer_error = "needs an input or the shape attribute"});

  // moving_average: the statistic while training (its gradient is dy), the state in inference.
  cases.push_back({.name = "moving_average training",
                   .op = OpKind::MovingAverage,
                   .inputs = {f32({3}), f32({3})},
                   .attrs = {{"momentum", 0.99}},
                   .values = {{1.5, -2, 0.25}, {0, 1, 4}},
                   .expected = {1.5, -2, 0.25},
                   .ctx = ir::ExecContext{.training = true}});
  cases.push_back({.name = "moving_average inference",
                   .op = OpKind::MovingAverage,
                   .inputs = {f32({3}), f32({3})},
                   .attrs = {{"momentum", 0.99}},
                   .values = {{1.5, -2, 0.25}, {0, 1, 4}},
                   .expected = {0, 1, 4},
                   .grad = false,
                   .ctx = ir::ExecContext{.training = false}});
  cases.push_back({.name = "moving_average random, gradient into the statistic",
                   .op = OpKind::MovingAverage,
                   .inputs = {f32({2, 4}), f32({2, 4})},
                   .attrs = {{"momentum", 0.5}},
                   .reference = [](const std::vector<Values>& in, const std::vector<TensorType>&,
                                   const TensorType&, const Attrs&) { return in[0]; }});
  cases.push_back({.name = "moving_average types",
                   .op = OpKind::MovingAverage,
                   .inputs = {f32({3}), f32({4})},
                   .attrs = {{"momentum", 0.9}},
                   .infer_error = "the statistic is f32[3] but the state is f32[4]"});
  cases.push_back({.name = "moving_average momentum",
                   .op = OpKind::MovingAverage,
                   .inputs = {f32({3}), f32({3})},
                   .attrs = {{"momentum", 1.5}},
                   .infer_error = "momentum must lie in [0, 1], got 1.5"});

  // state_read: the state, or zeros where the states are reset (no gradient into the state);
  // state_write: the value (the engine copies it into the state: tests/engine/stateful_rnn_test.cpp).
  cases.push_back({.name = "state_read",
                   .op = OpKind::StateRead,
                   .inputs = {f32({2, 3})},
                   .reference = [](const std::vector<Values>& in, const std::vector<TensorType>&, const TensorType&,
                                   const Attrs&) { return in[0]; }});
  cases.push_back({.name = "state_read reset",
                   .op = OpKind::StateRead,
                   .inputs = {f32({2, 2})},
                   .values = {{1.5, -2, 0.25, 7}},
                   .expected = {0, 0, 0, 0},
                   .grad = false,
                   .ctx = ir::ExecContext{.reset_states = true}});
  cases.push_back({.name = "state_read i32",
                   .op = OpKind::StateRead,
                   .inputs = {i32({2})},
                   .infer_error = "takes an f32 state, got i32[2]"});
  cases.push_back({.name = "state_write, gradient into the value",
                   .op = OpKind::StateWrite,
                   .inputs = {f32({2, 4}), f32({2, 4})},
                   .reference = [](const std::vector<Values>& in, const std::vector<TensorType>&, const TensorType&,
                                   const Attrs&) { return in[0]; }});
  cases.push_back({.name = "state_write types",
                   .op = OpKind::StateWrite,
                   .inputs = {f32({2, 4}), f32({2, 5})},
                   .infer_error = "the value is f32[2, 4] but the state is f32[2, 5]"});

  // sigmoid_cross_entropy_with_logits.
  auto bce = [](double x, double z) {
    return std::max(x, 0.0) - x * z + std::log1p(std::exp(-std::fabs(x)));
  };
  cases.push_back({.name = "sigmoid_cross_entropy_with_logits",
                   .op = OpKind::SigmoidCrossEntropyWithLogits,
                   .inputs = {f32({3, 4}), f32({3, 4})},
                   .reference = ref_binary(bce),
                   .lo = -4,
                   .hi = 4});
  cases.push_back({.name = "sigmoid_cross_entropy_with_logits extremes",
                   .op = OpKind::SigmoidCrossEntropyWithLogits,
                   .inputs = {f32({4}), f32({4})},
                   .values = {{100, -100, 100, 0}, {1, 0, 0, 0.5}},
                   .expected = {0, 0, 100, std::log(2.0)},
                   .grad = false});
  cases.push_back({.name = "sigmoid_cross_entropy_with_logits shapes",
                   .op = OpKind::SigmoidCrossEntropyWithLogits,
                   .inputs = {f32({3, 4}), f32({4})},
                   .infer_error = "logits and labels must be f32 of one shape"});
}

}  // namespace iputrain::test
