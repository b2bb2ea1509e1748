// floor: floor(x): the largest integer <= x (f32). No gradient: piecewise constant, its derivative is 0 wherever it
// exists.
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_floor {

void forward(const KernelArgs& args) {
  unary_blocks(args, 1, [&](const ConstArrayMap& x, ArrayMap& y) { y = x.floor(); });
}

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node, 1.0); }

}  // namespace impl_floor
}  // namespace

const OpDef kFloorOp{
    .kind = OpKind::Floor,
    .name = "floor",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = impl_floor::forward,
    .backward = nullptr,
    .cost = impl_floor::cost,
    .doc = "floor(x): the largest integer <= x (f32).",
    .inputs = kInputX,
    .edges = "±inf, nan and -0 pass unchanged (floor(-0.5) = -1, floor(-0) = -0).",
};

}  // namespace iputrain::ir
