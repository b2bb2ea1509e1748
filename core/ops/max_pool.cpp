// max_pool: the maximum of each ksize window of x f32[N, H, W, C] (NHWC) per channel; attributes
// ksize [kh, kw] (required), strides (default ksize), padding "valid" (default) | "same" (padded
// positions never win). Gradient: max_pool_grad(x, dy), which routes dy to the first maximum of
// each window, as TensorFlow and PyTorch do.
#include <limits>

#include "core/ops/pool_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_max_pool {

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
        if (count == 0) {
          for (int64_t c = 0; c < g.c; ++c) {
            dst[c] = src[c];
          }
          return;
        }
        for (int64_t c = 0; c < g.c; ++c) {
          dst[c] = src[c] > dst[c] ? src[c] : dst[c];
        }
      },
      [&](int64_t out, int64_t count) {
        if (count == 0) {  // cannot happen with TF padding (padding < window); keep it defined
          for (int64_t c = 0; c < g.c; ++c) {
            y[out + c] = -std::numeric_limits<float>::infinity();
          }
        }
      });
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  return {g.add(OpKind::MaxPoolGrad, {n.inputs[0], dy}, window_attrs(n.attrs))};
}

}  // namespace impl_max_pool
}  // namespace

const OpDef kMaxPoolOp{
    .kind = OpKind::MaxPool,
    .name = "max_pool",
    .arity = 1,
    .infer = impl_max_pool::infer,
    .forward = impl_max_pool::forward,
    .backward = impl_max_pool::backward,
    .cost = pool_cost,
    .doc =
        "max_pool(x f32[N,H,W,C]; ksize, strides = ksize, padding = \"valid\" | \"same\"): window maxima "
        "per channel.",
    .edges =
        "a window holding nan gives nan (PyTorch); padding never wins (TF \"same\"). Gradient to the "
        "first maximum of each window.",
};

}  // namespace iputrain::ir
