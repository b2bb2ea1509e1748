// all_gather: every member's x stacked in replica order, on every member of the node's group:
// x[...] -> [G, ...] (the seed's all_gather; G = `group`, consecutive replicas, required since it
// sizes the result). Any dtype: the bytes are copied.
// Gradient: member q's x reaches row q of every member's result, so its gradient is the sum of
// those rows of dy over the group: reduce_scatter of dy flattened, reshaped back.
#include <fmt/format.h>

#include <cstring>

#include "core/ops/collective_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_all_gather {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  Shape shape{attrs.get_int("group")};
  shape.insert(shape.end(), x.shape.begin(), x.shape.end());
  TensorType out{x.dtype, std::move(shape)};
  check_rank(out);
  return out;
}

void forward(const KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const GroupOperands members(args, x, args.node.attrs.get_int("group"));
  const size_t bytes = x.type->bytes();
  auto* y = static_cast<std::byte*>(args.output.data);
  for (int32_t k = 0; k < members.size(); ++k) {
    std::memcpy(y + static_cast<size_t>(k) * bytes, members.member(k), bytes);
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node& n = g.node(id);
  const Shape x_shape = g.type(n.inputs[0]).shape;
  const int64_t group = n.attrs.get_int("group");
  const ValueId flat = g.add(OpKind::Reshape, {dy}, Attrs{{"shape", Shape{g.type(dy).numel()}}});
  const ValueId mine = g.add(OpKind::ReduceScatter, {flat}, Attrs{{"group", group}});
  return {g.add(OpKind::Reshape, {mine}, Attrs{{"shape", x_shape}})};
}

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node, 0.0); }

ReplicaTraffic traffic(const Graph& g, const Node& node) {
  (void)g;
  return {CollectiveKind::AllGather, static_cast<double>(node.type.bytes()), node.attrs.get_int("group")};
}

constexpr AttrSpec kAttrs[] = {{.name = "group", .type = AttrType::Int, .required = true, .min = 1}};

}  // namespace impl_all_gather
}  // namespace

const OpDef kAllGatherOp{
    .kind = OpKind::AllGather,
    .name = "all_gather",
    .arity = 1,
    .infer = impl_all_gather::infer,
    .forward = impl_all_gather::forward,
    .backward = impl_all_gather::backward,
    .cost = impl_all_gather::cost,
    .doc =
        "all_gather(x; group): x of the group's G consecutive replicas stacked in replica order, [G, ...x], on "
        "every one of them.",
    .inputs = kInputX,
    .attrs = impl_all_gather::kAttrs,
    .edges = "copies bytes: every value, nan and -0 included, arrives unchanged.",
    .traffic = impl_all_gather::traffic,
};

}  // namespace iputrain::ir
