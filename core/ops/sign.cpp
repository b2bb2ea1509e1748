// sign: sign(x): -1, 0 or 1 (f32). No gradient: piecewise constant, its derivative is 0 wherever it exists.
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_sign {

void forward(const KernelArgs& args) {
  unary_blocks(args, 1, [&](const ConstArrayMap& x, ArrayMap& y) { y = x.isNaN().select(x, x.sign()); });
}

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node, 1.0); }

}  // namespace impl_sign
}  // namespace

const OpDef kSignOp{
    .kind = OpKind::Sign,
    .name = "sign",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = impl_sign::forward,
    .backward = nullptr,
    .cost = impl_sign::cost,
    .doc = "sign(x): -1, 0 or 1 (f32).",
    .inputs = kInputX,
    .edges = "sign(nan) = nan, as NumPy (PyTorch 1.13 gives 0, which hides the nan); sign(±0) = 0; sign(±inf) = ±1.",
};

}  // namespace iputrain::ir
