// sin: sin(x), x in radians (f32). Gradient: dy * cos(x).
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_sin {

void forward(const KernelArgs& args) {
  unary_blocks(args, 12, [&](const ConstArrayMap& x, ArrayMap& y) { y = x.sin(); });
}

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node, 12.0); }

void derivative(const Attrs&, const float* x, const float* dy, float* dx, int64_t n) {
  GradBlock b(x, dy, dx, n);
  b.dx = b.dy * b.x.cos();
}
}  // namespace impl_sin
}  // namespace

const OpDef kSinOp{
    .kind = OpKind::Sin,
    .name = "sin",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = impl_sin::forward,
    .backward = unary_backward,
    .cost = impl_sin::cost,
    .doc = "sin(x), x in radians (f32).",
    .inputs = kInputX,
    .derivative = impl_sin::derivative,
    .edges = "sin(±inf) = nan; nan stays nan; accurate for large |x| (1000, 1e30) as std::sin.",
};

}  // namespace iputrain::ir
