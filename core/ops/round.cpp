// round: round(x) to the nearest integer, halves to even as NumPy (0.5 -> 0, 1.5 -> 2, -2.5 -> -2) (f32). No gradient:
// piecewise constant, its derivative is 0 wherever it exists.
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_round {

void forward(const KernelArgs& args) {
  unary_blocks(args, 1, [&](const ConstArrayMap& x, ArrayMap& y) { y = x.rint(); });
}

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node, 1.0); }

}  // namespace impl_round
}  // namespace

const OpDef kRoundOp{
    .kind = OpKind::Round,
    .name = "round",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = impl_round::forward,
    .backward = nullptr,
    .cost = impl_round::cost,
    .doc = "round(x) to the nearest integer, halves to even as NumPy (0.5 -> 0, 1.5 -> 2, -2.5 -> -2) (f32).",
    .inputs = kInputX,
    .edges =
        "halves go to the even neighbour (NumPy's round, PyTorch's round), not away from zero as std::round; ±inf, nan "
        "and -0 pass unchanged.",
};

}  // namespace iputrain::ir
