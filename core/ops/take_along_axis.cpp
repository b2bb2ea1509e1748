// take_along_axis: out[..., t, ...] = x[..., idx[..., t, ...], ...] along attribute axis (NumPy's
// take_along_axis): idx is i32 of x's rank, equal to x's shape but along the axis, where it may be
// any length. Any dtype. Gradient for x: take_along_axis_grad, which adds dy back at the indices.
#include <fmt/format.h>

#include "core/ops/along_axis_util.hpp"
#include "core/ops/element_bits.hpp"
#include "core/ops/gather_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_take_along_axis {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  const TensorType& idx = *in[1];
  if (idx.dtype != DType::I32) {
    throw OpError{fmt::format("indices must be i32, got {}", idx.str()), "cast them to i32 first"};
  }
  const size_t axis = axis_attr(attrs, x.rank(), x);
  bool fits = idx.rank() == x.rank();
  for (size_t d = 0; fits && d < x.shape.size(); ++d) {
    fits = d == axis || idx.shape[d] == x.shape[d];
  }
  if (!fits) {
    throw OpError{fmt::format("indices {} do not fit {} along axis {}", idx.str(), x.str(), axis),
                  "the indices have x's rank and shape, except along the axis"};
  }
  return TensorType{x.dtype, idx.shape};
}

template <typename T>
void run(const KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const Tensor& idx = args.inputs[1];
  const size_t axis = axis_attr(args.node.attrs, x.type->rank(), *x.type);
  const AxisLines from = axis_lines(x.shape(), axis);
  const AxisLines to = axis_lines(idx.shape(), axis);
  const T* px = static_cast<const T*>(x.data);
  const int32_t* pi = idx.i32();
  T* py = static_cast<T*>(args.output.data);
  for (int64_t line = 0; line < to.outer * to.inner; ++line) {
    for (int64_t t = 0; t < to.n; ++t) {
      const int32_t k = pi[to.at(line, t)];
      if (k < 0 || k >= from.n) {
        throw_bad_index(args.node, k, from.n);
      }
      py[to.at(line, t)] = px[from.at(line, k)];
    }
  }
}

void forward(const KernelArgs& args) {
  with_element_bits(args.output.type->dtype, [&](auto bits) { run<decltype(bits)>(args); });
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  const ValueId x = n.inputs[0];
  Attrs attrs{{"axis", n.attrs.get_int("axis", -1)}, {"shape", g.type(x).shape}};
  return {g.add(OpKind::TakeAlongAxisGrad, {n.inputs[1], dy}, std::move(attrs)), kNoValue};
}

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node, 1.0); }

constexpr std::string_view kInputs[] = {"x", "indices"};
constexpr AttrSpec kAttrs[] = {{.name = "axis", .type = AttrType::Int, .number = -1}};

}  // namespace impl_take_along_axis
}  // namespace

const OpDef kTakeAlongAxisOp{
    .kind = OpKind::TakeAlongAxis,
    .name = "take_along_axis",
    .arity = 2,
    .infer = impl_take_along_axis::infer,
    .forward = impl_take_along_axis::forward,
    .backward = impl_take_along_axis::backward,
    .cost = impl_take_along_axis::cost,
    .doc =
        "take_along_axis(x, indices i32; axis = -1): x's elements picked along axis by indices of x's rank "
        "(NumPy's take_along_axis); any dtype.",
    .inputs = impl_take_along_axis::kInputs,
    .attrs = impl_take_along_axis::kAttrs,
    .edges = "moves values unchanged; an index outside the axis stops the run with a located data error.",
    .cost_class = CostClass::Rearrange,
};

}  // namespace iputrain::ir
