// ceil: ceil(x): the smallest integer >= x (f32). No gradient: piecewise constant, its derivative is 0 wherever it
// exists.
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_ceil {

void forward(const KernelArgs& args) {
  unary_blocks(args, 1, [&](const ConstArrayMap& x, ArrayMap& y) { y = x.ceil(); });
}

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node, 1.0); }

}  // namespace impl_ceil
}  // namespace

const OpDef kCeilOp{
    .kind = OpKind::Ceil,
    .name = "ceil",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = impl_ceil::forward,
    .backward = nullptr,
    .cost = impl_ceil::cost,
    .doc = "ceil(x): the smallest integer >= x (f32).",
    .inputs = kInputX,
    .edges = "±inf, nan and -0 pass unchanged (ceil(-0.5) = -0).",
};

}  // namespace iputrain::ir
