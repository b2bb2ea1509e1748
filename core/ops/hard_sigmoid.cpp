// hard_sigmoid: clip(0.2 x + 0.5, 0, 1) (f32), the Keras convention. Gradient: 0.2 dy inside
// (-2.5, 2.5), 0 outside.
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {

void forward(const KernelArgs& args) {
  unary_blocks(args, 2, [&](const ConstArrayMap& x, ArrayMap& y) {
    y = (0.2f * x + 0.5f).max(0.0f).min(1.0f);
  });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 3.0);
}

}  // namespace

const OpDef kHardSigmoidOp{
    .kind = OpKind::HardSigmoid,
    .name = "hard_sigmoid",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = forward,
    .backward = unary_backward,
    .cost = cost,
    .doc = "hard_sigmoid(x) = clip(0.2 x + 0.5, 0, 1) (f32, Keras).",
};

}  // namespace iputrain::ir
