// dynamic_slice: the window of x of shape `sizes` whose first element sits at `offsets`, an i32
// tensor computed at run time (one entry per dimension), each clamped into [0, dim - size] as XLA's
// dynamic_slice clamps. Any dtype. Gradient: dy written back at the same window into zeros
// (dynamic_update_slice); none flows into the offsets.
#include "core/ops/dynamic_window.hpp"

namespace iputrain::ir {

namespace {
namespace impl_dynamic_slice {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  check_offsets(*in[1], x.rank(), "dynamic_slice");
  const Shape& sizes = attrs.get_ints("sizes");
  if (static_cast<int64_t>(sizes.size()) != x.rank()) {
    throw OpError{
        fmt::format("dynamic_slice: sizes {} must have one entry per dimension of {}", shape_str(sizes), x.str()), "",
        "sizes"};
  }
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0 || sizes[d] > x.shape[d]) {
      throw OpError{fmt::format("dynamic_slice: size {} along dimension {} does not fit {}", sizes[d], d, x.str()),
                    "each size lies in [0, the dimension]", "sizes"};
    }
  }
  return {x.dtype, sizes};
}

void forward(const KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const Shape& sizes = args.output.shape();
  const size_t esize = dtype_size(x.type->dtype);
  const auto* src = static_cast<const std::byte*>(x.data);
  auto* out = static_cast<std::byte*>(args.output.data);
  const size_t row = sizes.empty() ? esize : static_cast<size_t>(sizes.back()) * esize;
  if (args.output.numel() == 0) {
    return;
  }
  for_each_window_row(x.shape(), sizes, window_start(args.inputs[1], x.shape(), sizes),
                      [&](int64_t w, int64_t t) { std::memcpy(out + w * esize, src + t * esize, row); });
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  const ValueId zeros = g.add_constant(0, g.type(n.inputs[0]), n.span);
  return {g.add(OpKind::DynamicUpdateSlice, {zeros, dy, n.inputs[1]}), kNoValue};
}

Cost cost(const Graph& g, const Node& node) { return {0, static_cast<double>(node.type.bytes()) * 2, 0}; }

}  // namespace impl_dynamic_slice
}  // namespace

constexpr std::string_view kDynamicSliceInputs[] = {"x", "offsets"};

const OpDef kDynamicSliceOp{
    .kind = OpKind::DynamicSlice,
    .name = "dynamic_slice",
    .arity = 2,
    .infer = impl_dynamic_slice::infer,
    .forward = impl_dynamic_slice::forward,
    .backward = impl_dynamic_slice::backward,
    .cost = impl_dynamic_slice::cost,
    .doc =
        "dynamic_slice(x, offsets i32[rank]; sizes): the window of shape sizes starting at offsets (computed at "
        "run time), each clamped into [0, dim - size]; any dtype.",
    .inputs = kDynamicSliceInputs,
    .edges = "moves values unchanged; an offset out of range is clamped (XLA's rule), never an error.",
};

}  // namespace iputrain::ir
