// all_to_all: member i of the node's group splits x along split_axis into G chunks and sends chunk j
// to member j, which concatenates what it receives along concat_axis in replica order (the seed's
// all_to_all; G = `group` consecutive replicas). x[..., s, ..., c, ...] -> s / G and c x G (the same
// shape when the axes are one). Any dtype: the bytes are copied.
// Gradient: the exchange the other way round, all_to_all of dy with the two axes swapped.
#include <fmt/format.h>

#include <array>
#include <cstring>

#include "core/ops/collective_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_all_to_all {

struct Axes {
  size_t split;
  size_t concat;
};

Axes axes_of(const Attrs& attrs, const TensorType& x) {
  const auto split = normalize_axis(attrs.get_int("split_axis"), x.rank());
  const auto concat = normalize_axis(attrs.get_int("concat_axis"), x.rank());
  if (!split || !concat) {
    throw OpError{fmt::format("all_to_all: axis {} is out of range for {}",
                              split ? attrs.get_int("concat_axis") : attrs.get_int("split_axis"), x.str()),
                  "axes count from 0, or from -1 for the last", split ? "concat_axis" : "split_axis"};
  }
  return {static_cast<size_t>(*split), static_cast<size_t>(*concat)};
}

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  const int64_t group = attrs.get_int("group");
  if (x.rank() == 0) {
    throw OpError{fmt::format("all_to_all needs an operand of rank 1 or more, got {}", x.str()), "reshape it first"};
  }
  const Axes a = axes_of(attrs, x);
  if (x.shape[a.split] % group != 0) {
    throw OpError{fmt::format("all_to_all over groups of {} needs dimension {} of {} divisible by {}", group, a.split,
                              x.str(), group),
                  "split along an axis with one chunk per replica of the group"};
  }
  Shape shape = x.shape;
  shape[a.split] /= group;
  shape[a.concat] *= group;
  TensorType out{x.dtype, std::move(shape)};
  check_rank(out);
  return out;
}

void forward(const KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const GroupOperands members(args, x, args.node.attrs.get_int("group"));
  const Axes a = axes_of(args.node.attrs, *x.type);
  const Shape& in = x.shape();
  const Shape& out = args.output.shape();
  const size_t esize = dtype_size(x.type->dtype);
  const int64_t chunk = in[a.split] / members.size();    // rows of one chunk along split_axis
  const int64_t piece = out[a.concat] / members.size();  // rows one member brings along concat_axis
  // Fixed arrays: a kernel allocates nothing.
  std::array<int64_t, kMaxRank> in_strides{};
  in_strides[in.size() - 1] = 1;
  for (size_t d = in.size(); d-- > 1;) {
    in_strides[d - 1] = in_strides[d] * in[d];
  }
  auto* y = static_cast<std::byte*>(args.output.data);
  std::array<int64_t, kMaxRank> idx{};
  for (int64_t o = 0; o < args.output.numel(); ++o) {
    // Output index -> the member that sent it and where it sits in that member's x.
    const int64_t from = idx[a.concat] / piece;
    int64_t src = 0;
    for (size_t d = 0; d < in.size(); ++d) {
      int64_t v = idx[d];
      v = d == a.concat ? v % piece : v;
      v = d == a.split ? v + members.index() * chunk : v;
      src += v * in_strides[d];
    }
    std::memcpy(y + static_cast<size_t>(o) * esize, members.member(static_cast<int32_t>(from)) + src * esize, esize);
    for (size_t d = out.size(); d-- > 0;) {
      if (++idx[d] < out[d]) {
        break;
      }
      idx[d] = 0;
    }
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Attrs& at = g.node(id).attrs;
  Attrs back{{"split_axis", at.get_int("concat_axis")},
             {"concat_axis", at.get_int("split_axis")},
             {"group", at.get_int("group")}};
  return {g.add(OpKind::AllToAll, {dy}, std::move(back))};
}

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node, 0.0); }

ReplicaTraffic traffic(const Graph& g, const Node& node) {
  return {CollectiveKind::AllToAll, static_cast<double>(g.type(node.inputs[0]).bytes()), node.attrs.get_int("group")};
}

constexpr AttrSpec kAttrs[] = {{.name = "split_axis", .type = AttrType::Int, .required = true},
                               {.name = "concat_axis", .type = AttrType::Int, .required = true},
                               {.name = "group", .type = AttrType::Int, .required = true, .min = 1}};

}  // namespace impl_all_to_all
}  // namespace

const OpDef kAllToAllOp{
    .kind = OpKind::AllToAll,
    .name = "all_to_all",
    .arity = 1,
    .infer = impl_all_to_all::infer,
    .forward = impl_all_to_all::forward,
    .backward = impl_all_to_all::backward,
    .cost = impl_all_to_all::cost,
    .doc =
        "all_to_all(x; split_axis, concat_axis, group): member i of a group of G consecutive replicas sends chunk "
        "j of x (split along split_axis) to member j, which concatenates its G chunks along concat_axis in "
        "replica order.",
    .inputs = kInputX,
    .attrs = impl_all_to_all::kAttrs,
    .edges = "copies bytes: every value, nan and -0 included, arrives unchanged.",
    .traffic = impl_all_to_all::traffic,
};

}  // namespace iputrain::ir
