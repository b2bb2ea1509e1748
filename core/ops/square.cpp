// square: x * x (f32). Gradient: 2 x dy.
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {

void forward(const KernelArgs& args) {
  unary_blocks(args, 1, [&](const ConstArrayMap& x, ArrayMap& y) {
    y = x.square();
  });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 1.0);
}

}  // namespace

const OpDef kSquareOp{
    .kind = OpKind::Square,
    .name = "square",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = forward,
    .backward = unary_backward,
    .cost = cost,
    .doc = "square(x) = x * x (f32).",
};

}  // namespace iputrain::ir
