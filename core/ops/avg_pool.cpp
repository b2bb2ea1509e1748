// avg_pool: the mean of each ksize window of x f32[N, H, W, C] (NHWC) per channel; attributes
// ksize [kh, kw] (required), strides (default ksize), padding "valid" (default) | "same". With
// "same", each mean is over the window's non-padded positions (TensorFlow/Keras). Gradient:
// avg_pool_grad(dy), which spreads dy evenly over the same positions.
#include "core/ops/pool_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_avg_pool {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  return infer_pool(*in[0], attrs);
}

void forward(const KernelArgs& args) {
  const ConvGeom g = pool_geom(args.inputs[0].shape(), args.node.attrs);
  const float* x = args.inputs[0].f32();
  float* y = args.output.f32();
  for_each_window(
      g,
      [&](int64_t out, int64_t in, int64_t count) {
        float* dst = y + out;
        const float* src = x + in;
        for (int64_t c = 0; c < g.c; ++c) {
          dst[c] = count == 0 ? src[c] : dst[c] + src[c];
        }
      },
      [&](int64_t out, int64_t count) {
        const float scale = count > 0 ? 1.0f / static_cast<float>(count) : 0.0f;
        for (int64_t c = 0; c < g.c; ++c) {
          y[out + c] = count > 0 ? y[out + c] * scale : 0.0f;
        }
      });
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  Attrs attrs = window_attrs(n.attrs);
  attrs.set("input_shape", g.type(n.inputs[0]).shape);
  return {g.add(OpKind::AvgPoolGrad, {dy}, std::move(attrs))};
}

}  // namespace impl_avg_pool
}  // namespace

const OpDef kAvgPoolOp{
    .kind = OpKind::AvgPool,
    .name = "avg_pool",
    .arity = 1,
    .infer = impl_avg_pool::infer,
    .forward = impl_avg_pool::forward,
    .backward = impl_avg_pool::backward,
    .cost = pool_cost,
    .doc =
        "avg_pool(x f32[N,H,W,C]; ksize, strides = ksize, padding = \"valid\" | \"same\"): window means "
        "over non-padded positions.",
    .edges = "means over the window's positions inside the input (TF \"same\"); nan and inf propagate.",
};

}  // namespace iputrain::ir
