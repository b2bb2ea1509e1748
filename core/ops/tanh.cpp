// tanh: the hyperbolic tangent (f32). Gradient: dy * (1 - tanh(x)^2).
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {

void forward(const KernelArgs& args) {
  unary_blocks(args, 8, [&](const ConstArrayMap& x, ArrayMap& y) {
    y = x.tanh();
  });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 12.0);
}

}  // namespace

const OpDef kTanhOp{
    .kind = OpKind::Tanh,
    .name = "tanh",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = forward,
    .backward = unary_backward,
    .cost = cost,
    .doc = "tanh(x) (f32).",
};

}  // namespace iputrain::ir
