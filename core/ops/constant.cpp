// constant: a leaf — a tensor filled with its `value` attribute (by the engine).
// Leaves are made by Graph::add_constant, never by Graph::add, so they have no shape function, kernel,
// gradient or cost of their own.
#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_constant {

TensorType infer(std::span<const TensorType* const>, const Attrs&) {
  throw OpError{"is a leaf", "use Graph::add_constant"};
}

}  // namespace impl_constant
}  // namespace

const OpDef kConstantOp{
    .kind = OpKind::Constant,
    .name = "constant",
    .arity = 0,
    .infer = impl_constant::infer,
    .forward = nullptr,
    .backward = nullptr,
    .cost = nullptr,
    .doc = "A tensor filled with attribute value (a leaf).",
};

}  // namespace iputrain::ir
