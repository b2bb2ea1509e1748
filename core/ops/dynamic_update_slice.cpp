// dynamic_update_slice: x with `update` written over the window of update's shape that starts at
// `offsets` (an i32 tensor computed at run time, one entry per dimension, each clamped into
// [0, dim - size] as XLA clamps). Any dtype. Gradient: dy with the window zeroed for x, the window
// of dy for update; none flows into the offsets.
#include "core/ops/dynamic_window.hpp"

namespace iputrain::ir {

namespace {
namespace impl_dynamic_update_slice {

TensorType infer(std::span<const TensorType* const> in, const Attrs& /*attrs*/) {
  const TensorType& x = *in[0];
  const TensorType& u = *in[1];
  check_offsets(*in[2], x.rank(), "dynamic_update_slice");
  bool fits = u.dtype == x.dtype && u.rank() == x.rank();
  for (size_t d = 0; fits && d < u.shape.size(); ++d) {
    fits = u.shape[d] <= x.shape[d];
  }
  if (!fits) {
    throw OpError{fmt::format("dynamic_update_slice: update {} does not fit in {}", u.str(), x.str()),
                  "the update has x's dtype and rank, and no dimension larger than x's"};
  }
  return x;
}

void forward(const KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const Tensor& u = args.inputs[1];
  const size_t esize = dtype_size(x.type->dtype);
  if (args.output.data != x.data) {
    par::copy(args.output.data, x.data, x.type->bytes());
  }
  if (u.numel() == 0) {
    return;
  }
  const auto* src = static_cast<const std::byte*>(u.data);
  auto* out = static_cast<std::byte*>(args.output.data);
  const size_t row = u.shape().empty() ? esize : static_cast<size_t>(u.shape().back()) * esize;
  for_each_window_row(x.shape(), u.shape(), window_start(args.inputs[2], x.shape(), u.shape()),
                      [&](int64_t w, int64_t t) { std::memcpy(out + t * esize, src + w * esize, row); });
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  const TensorType update = g.type(n.inputs[1]);
  const ValueId zeros = g.add_constant(0, update, n.span);
  const ValueId dx = g.add(OpKind::DynamicUpdateSlice, {dy, zeros, n.inputs[2]});
  const ValueId du = g.add(OpKind::DynamicSlice, {dy, n.inputs[2]}, Attrs{{"sizes", update.shape}});
  return {dx, du, kNoValue};
}

Cost cost(const Graph& g, const Node& node) {
  return {0, static_cast<double>(node.type.bytes() + g.type(node.inputs[1]).bytes()),
          static_cast<double>(node.type.bytes())};
}

}  // namespace impl_dynamic_update_slice
}  // namespace

constexpr std::string_view kDynamicUpdateSliceInputs[] = {"x", "update", "offsets"};

const OpDef kDynamicUpdateSliceOp{
    .kind = OpKind::DynamicUpdateSlice,
    .name = "dynamic_update_slice",
    .arity = 3,
    .infer = impl_dynamic_update_slice::infer,
    .forward = impl_dynamic_update_slice::forward,
    .backward = impl_dynamic_update_slice::backward,
    .cost = impl_dynamic_update_slice::cost,
    .doc =
        "dynamic_update_slice(x, update, offsets i32[rank]): x with update written at offsets (computed at run "
        "time), each clamped into [0, dim - size]; any dtype.",
    .inputs = kDynamicUpdateSliceInputs,
    .edges = "moves values unchanged; an offset out of range is clamped (XLA's rule), never an error.",
};

}  // namespace iputrain::ir
