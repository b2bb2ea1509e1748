// tril: the elements on and below diagonal k of every matrix (the last two dimensions), zeros
// elsewhere; any dtype. Gradient: tril of dy.
#include "core/ops/triangle_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_tril {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  return infer_triangle(in, attrs, "tril");
}

void forward(const KernelArgs& args) { triangle_forward(args, true); }

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node, 1.0); }

}  // namespace impl_tril
}  // namespace

const OpDef kTrilOp{
    .kind = OpKind::Tril,
    .name = "tril",
    .arity = 1,
    .infer = impl_tril::infer,
    .forward = impl_tril::forward,
    .backward = triangle_backward,
    .cost = impl_tril::cost,
    .doc = "tril(x; k = 0): element (i, j) of each matrix where j - i <= k, else 0 (any dtype).",
    .inputs = kInputX,
    .attrs = kTriangleAttrs,
    .edges = "moves values unchanged: nan and inf inside the triangle pass, outside it become 0.",
};

}  // namespace iputrain::ir
