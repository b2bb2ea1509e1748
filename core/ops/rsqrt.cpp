// rsqrt: 1 / sqrt(x) (f32), the normalisations' inverse standard deviation. Gradient:
// -dy / (2 x sqrt(x)).
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_rsqrt {

void forward(const KernelArgs& args) {
  unary_blocks(args, 4, [&](const ConstArrayMap& x, ArrayMap& y) { y = x.rsqrt(); });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 5.0);
}

void derivative(const Attrs&, const float* x, const float* dy, float* dx, int64_t n) {
  GradBlock b(x, dy, dx, n);
  // -y^3 / 2 with y = rsqrt(x), as PyTorch computes it (the sign at -0 follows y = -inf).
  b.dx = -0.5f * b.dy * b.x.rsqrt().cube();
}

}  // namespace impl_rsqrt
}  // namespace

const OpDef kRsqrtOp{
    .kind = OpKind::Rsqrt,
    .name = "rsqrt",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = impl_rsqrt::forward,
    .backward = unary_backward,
    .cost = impl_rsqrt::cost,
    .doc = "rsqrt(x) = 1 / sqrt(x) (f32).",
    .inputs = kInputX,
    .derivative = impl_rsqrt::derivative,
    .edges =
        "rsqrt(0) = inf, rsqrt(-0) = -inf, rsqrt(inf) = 0, rsqrt(x < 0) = nan. Gradient -dy * y^3 / 2 "
        "(PyTorch's form).",
};

}  // namespace iputrain::ir
