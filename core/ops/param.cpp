// param: a leaf — a trainable parameter (filled by its initializer, see core/init.hpp).
// Leaves are made by Graph::add_param, never by Graph::add, so they have no shape function, kernel,
// gradient or cost of their own.
#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_param {

TensorType infer(std::span<const TensorType* const>, const Attrs&) {
  throw OpError{"is a leaf", "use Graph::add_param"};
}

}  // namespace impl_param
}  // namespace

const OpDef kParamOp{
    .kind = OpKind::Param,
    .name = "param",
    .arity = 0,
    .infer = impl_param::infer,
    .forward = nullptr,
    .backward = nullptr,
    .cost = nullptr,
    .doc = "A trainable weight (a leaf); attrs: init and its arguments.",
};

}  // namespace iputrain::ir
