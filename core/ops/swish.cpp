// swish: x * sigmoid(x) (f32), also known as SiLU. Gradient: dy * (s + x s (1 - s)).
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_swish {

void forward(const KernelArgs& args) {
  unary_blocks(args, 8, [&](const ConstArrayMap& x, ArrayMap& y) { y = x * x.logistic(); });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 13.0);
}

void derivative(const Attrs&, const float* x, const float* dy, float* dx, int64_t n) {
  GradBlock b(x, dy, dx, n);
  b.dx = b.dy * b.x.logistic() * (1.0f + b.x * (1.0f - b.x.logistic()));
}

}  // namespace impl_swish
}  // namespace

const OpDef kSwishOp{
    .kind = OpKind::Swish,
    .name = "swish",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = impl_swish::forward,
    .backward = unary_backward,
    .cost = impl_swish::cost,
    .doc = "swish(x) = x * sigmoid(x) (f32), also known as SiLU.",
    .inputs = kInputX,
    .derivative = impl_swish::derivative,
    .edges = "swish(inf) = inf, swish(-inf) = 0; nan stays nan.",
};

}  // namespace iputrain::ir
