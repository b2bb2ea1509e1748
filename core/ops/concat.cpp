// concat: joins one or more tensors of one dtype and rank along attribute axis (default 0,
// negative counts from the end); the other dimensions must agree. Gradient: a slice of dy per input.
#include <cstddef>
#include <cstring>

#include <fmt/format.h>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_concat {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  if (in.empty()) {
    throw OpError{"needs at least one tensor", ""};
  }
  const TensorType& first = *in[0];
  const int64_t axis = int_attr(attrs, "axis", 0);
  const auto a = normalize_axis(axis, first.rank());
  if (!a) {
    throw OpError{fmt::format("axis {} is out of range for {}", axis, first.str()),
                  fmt::format("axis must lie in [{}, {})", -first.rank(), first.rank())};
  }
  TensorType out = first;
  out.shape[static_cast<size_t>(*a)] = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const TensorType& t = *in[i];
    bool ok = t.dtype == first.dtype && t.rank() == first.rank();
    for (size_t d = 0; ok && d < t.shape.size(); ++d) {
      ok = d == static_cast<size_t>(*a) || t.shape[d] == first.shape[d];
    }
    if (!ok) {
      throw OpError{fmt::format("cannot join {} and {} along axis {}", first.str(), t.str(), axis),
                    "all dimensions except the axis must agree, and the element types too"};
    }
    out.shape[static_cast<size_t>(*a)] += t.shape[static_cast<size_t>(*a)];
  }
  return out;
}

void forward(const KernelArgs& args) {
  const Shape& os = args.output.shape();
  const auto axis =
      static_cast<size_t>(*normalize_axis(args.node.attrs.get_int("axis", 0), args.output.type->rank()));
  const size_t elem = dtype_size(args.output.type->dtype);
  int64_t outer = 1;
  for (size_t d = 0; d < axis; ++d) {
    outer *= os[d];
  }
  // Per outer index, each input contributes one contiguous run of (its axis length x inner) elements.
  const auto out_row = static_cast<size_t>(args.output.numel() / std::max<int64_t>(outer, 1)) * elem;
  auto* out = static_cast<std::byte*>(args.output.data);
  size_t offset = 0;
  for (const Tensor& t : args.inputs) {
    const auto run = static_cast<size_t>(t.numel() / std::max<int64_t>(outer, 1)) * elem;
    const auto* src = static_cast<const std::byte*>(t.data);
    if (run == 0) {
      continue;
    }
    for (int64_t o = 0; o < outer; ++o) {
      std::memcpy(out + static_cast<size_t>(o) * out_row + offset, src + static_cast<size_t>(o) * run, run);
    }
    offset += run;
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  const int64_t rank = g.type(id).rank();
  const auto axis = static_cast<size_t>(*normalize_axis(n.attrs.get_int("axis", 0), rank));
  std::vector<ValueId> grads;
  int64_t start = 0;
  for (ValueId in : n.inputs) {
    const Shape s = g.type(in).shape;
    std::vector<int64_t> begin(static_cast<size_t>(rank), 0);
    std::vector<int64_t> end = g.type(id).shape;
    begin[axis] = start;
    end[axis] = start + s[axis];
    start += s[axis];
    grads.push_back(g.add(OpKind::Slice, {dy}, Attrs{{"begin", begin}, {"end", end}}));
  }
  return grads;
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 0.0);
}

}  // namespace impl_concat
}  // namespace

const OpDef kConcatOp{
    .kind = OpKind::Concat,
    .name = "concat",
    .arity = -1,
    .infer = impl_concat::infer,
    .forward = impl_concat::forward,
    .backward = impl_concat::backward,
    .cost = impl_concat::cost,
    .doc = "concat(x1, ..., xn; axis = 0) joins tensors of one dtype and rank along axis.",
    .edges = "moves values unchanged.",
    .cost_class = CostClass::Rearrange,
};

}  // namespace iputrain::ir
