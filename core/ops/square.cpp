// square: x * x (f32). Gradient: 2 x dy.
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_square {

void forward(const KernelArgs& args) {
  unary_blocks(args, 1, [&](const ConstArrayMap& x, ArrayMap& y) { y = x.square(); });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 1.0);
}

void derivative(const Attrs&, const float* x, const float* dy, float* dx, int64_t n) {
  GradBlock b(x, dy, dx, n);
  b.dx = 2.0f * b.dy * b.x;
}

}  // namespace impl_square
}  // namespace

const OpDef kSquareOp{
    .kind = OpKind::Square,
    .name = "square",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = impl_square::forward,
    .backward = unary_backward,
    .cost = impl_square::cost,
    .doc = "square(x) = x * x (f32).",
    .inputs = kInputX,
    .derivative = impl_square::derivative,
    .edges = "overflows to inf beyond ±1.8e19; nan stays nan.",
};

}  // namespace iputrain::ir
