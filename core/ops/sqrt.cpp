// sqrt: the square root (f32). Gradient: dy / (2 sqrt(x)).
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {

void forward(const KernelArgs& args) {
  unary_blocks(args, 4, [&](const ConstArrayMap& x, ArrayMap& y) {
    y = x.sqrt();
  });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 4.0);
}

}  // namespace

const OpDef kSqrtOp{
    .kind = OpKind::Sqrt,
    .name = "sqrt",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = forward,
    .backward = unary_backward,
    .cost = cost,
    .doc = "sqrt(x) (f32).",
};

}  // namespace iputrain::ir
