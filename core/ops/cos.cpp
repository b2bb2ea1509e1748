// cos: cos(x), x in radians (f32). Gradient: -dy * sin(x).
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_cos {

void forward(const KernelArgs& args) {
  unary_blocks(args, 12, [&](const ConstArrayMap& x, ArrayMap& y) { y = x.cos(); });
}

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node, 12.0); }

void derivative(const Attrs&, const float* x, const float* dy, float* dx, int64_t n) {
  GradBlock b(x, dy, dx, n);
  b.dx = -b.dy * b.x.sin();
}
}  // namespace impl_cos
}  // namespace

const OpDef kCosOp{
    .kind = OpKind::Cos,
    .name = "cos",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = impl_cos::forward,
    .backward = unary_backward,
    .cost = impl_cos::cost,
    .doc = "cos(x), x in radians (f32).",
    .inputs = kInputX,
    .derivative = impl_cos::derivative,
    .edges = "cos(±inf) = nan; nan stays nan; accurate for large |x| (1000, 1e30) as std::cos.",
};

}  // namespace iputrain::ir
