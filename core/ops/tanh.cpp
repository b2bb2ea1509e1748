// tanh: the hyperbolic tangent (f32). Gradient: dy * (1 - tanh(x)^2).
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_tanh {

void forward(const KernelArgs& args) {
  unary_blocks(args, 8, [&](const ConstArrayMap& x, ArrayMap& y) { y = x.tanh(); });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 12.0);
}

void derivative(const Attrs&, const float* x, const float* dy, float* dx, int64_t n) {
  GradBlock b(x, dy, dx, n);
  b.dx = b.dy * (1.0f - b.x.tanh().square());
}

}  // namespace impl_tanh
}  // namespace

const OpDef kTanhOp{
    .kind = OpKind::Tanh,
    .name = "tanh",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = impl_tanh::forward,
    .backward = unary_backward,
    .cost = impl_tanh::cost,
    .doc = "tanh(x) (f32).",
    .inputs = kInputX,
    .derivative = impl_tanh::derivative,
    .edges = "±1 at ±inf; nan stays nan.",
};

}  // namespace iputrain::ir
