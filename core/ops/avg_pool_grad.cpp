// avg_pool_grad: (dy f32[N, OH, OW, C]) -> f32[input_shape]: each dy element divided evenly over
// the non-padded positions of its window; the gradient of avg_pool (its attributes plus
// input_shape). Linear in dy; its own gradient is avg_pool, which is not wired up (no second order).
#include <fmt/format.h>

#include "core/ops/pool_util.hpp"
#include "core/ops/reduce_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_avg_pool_grad {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType x{DType::F32, ints_attr(attrs, "input_shape")};
  const TensorType out = infer_pool(x, attrs);
  if (*in[0] != out) {
    throw OpError{fmt::format("dy must be {} for input {}, got {}", out.str(), x.str(), in[0]->str()), ""};
  }
  return x;
}

void forward(const KernelArgs& args) {
  const ConvGeom g = pool_geom(args.output.shape(), args.node.attrs);
  const float* dy = args.inputs[0].f32();
  float* dx = args.output.f32();
  const int64_t total = args.output.numel();
  for (int64_t i = 0; i < total; ++i) {
    dx[i] = 0.0f;
  }
  // The window's size is known only after visiting it, so count first, then spread.
  for_each_window(
      g, [](int64_t, int64_t, int64_t) {},
      [&](int64_t out, int64_t count) {
        if (count == 0) {
          return;
        }
        const float scale = 1.0f / static_cast<float>(count);
        const int64_t pos = out / g.c;
        const int64_t ow = pos % g.ow;
        const int64_t oh = (pos / g.ow) % g.oh;
        const int64_t n = pos / (g.ow * g.oh);
        const int64_t h0 = oh * g.sh - g.pt;
        const int64_t w0 = ow * g.sw - g.pl;
        for (int64_t ih = std::max<int64_t>(h0, 0); ih < std::min(h0 + g.kh, g.h); ++ih) {
          for (int64_t iw = std::max<int64_t>(w0, 0); iw < std::min(w0 + g.kw, g.w); ++iw) {
            float* dst = dx + ((n * g.h + ih) * g.w + iw) * g.c;
            const float* src = dy + out;
            for (int64_t c = 0; c < g.c; ++c) {
              dst[c] += src[c] * scale;
            }
          }
        }
      });
}

Cost cost(const Graph& g, const Node& node) {
  return pool_cost(g, node);
}

}  // namespace impl_avg_pool_grad
}  // namespace

const OpDef kAvgPoolGradOp{
    .kind = OpKind::AvgPoolGrad,
    .name = "avg_pool_grad",
    .arity = 1,
    .infer = impl_avg_pool_grad::infer,
    .forward = impl_avg_pool_grad::forward,
    .backward = nullptr,
    .cost = impl_avg_pool_grad::cost,
    .doc =
        "avg_pool_grad(dy; avg_pool's attrs, input_shape): dy spread evenly over each window's non-padded "
        "positions.",
    .edges = "dy spread over the positions each mean counted.",
};

}  // namespace iputrain::ir
