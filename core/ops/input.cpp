// input: a leaf — an infeed input (fed by name from the dataset).
// Leaves are made by Graph::add_input, never by Graph::add, so they have no shape function, kernel,
// gradient or cost of their own.
#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_input {

TensorType infer(std::span<const TensorType* const>, const Attrs&) {
  throw OpError{"is a leaf", "use Graph::add_input"};
}

}  // namespace impl_input
}  // namespace

const OpDef kInputOp{
    .kind = OpKind::Input,
    .name = "input",
    .arity = 0,
    .infer = impl_input::infer,
    .forward = nullptr,
    .backward = nullptr,
    .cost = nullptr,
    .doc = "A value fed by the infeed each step (a leaf; name = the dataset field).",
};

}  // namespace iputrain::ir
