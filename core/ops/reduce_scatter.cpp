// reduce_scatter: x summed over the replicas of the node's group, each member keeping its block:
// x[G k, ...] -> [k, ...], member i rows i k .. (i + 1) k - 1 of the sum (the seed's
// reduce_scatter, whose flat operand is the rank-1 case; G = `group`, required since it sizes the
// result). f32 sums in double in replica order and rounds once, as cross_replica_sum.
// Gradient: every member's x reaches block i of member i's result: all_gather of dy, reshaped.
#include <fmt/format.h>

#include "core/ops/collective_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_reduce_scatter {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  const int64_t group = attrs.get_int("group");
  if (x.dtype != DType::F32) {
    throw OpError{fmt::format("reduce_scatter needs an f32 operand, got {}", x.str()), "cast it first"};
  }
  if (x.rank() == 0 || x.shape[0] % group != 0) {
    throw OpError{fmt::format("reduce_scatter over groups of {} needs a first dimension divisible by {}, got {}", group,
                              group, x.str()),
                  "reshape x so that its first dimension holds one block per replica of the group"};
  }
  Shape shape = x.shape;
  shape[0] /= group;
  return {x.dtype, std::move(shape)};
}

void forward(const KernelArgs& args) {
  const GroupOperands members(args, args.inputs[0], args.node.attrs.get_int("group"));
  const int64_t n = args.output.numel();
  const int64_t offset = n * members.index();
  const int32_t g = members.size();
  float* y = args.output.f32();
  par::for_elements(n, g, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      y[i] = static_cast<float>(members.sum_f32(offset + i));
    }
  });
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node& n = g.node(id);
  const Shape x_shape = g.type(n.inputs[0]).shape;
  const ValueId all = g.add(OpKind::AllGather, {dy}, Attrs{{"group", n.attrs.get_int("group")}});
  return {g.add(OpKind::Reshape, {all}, Attrs{{"shape", x_shape}})};
}

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node, 1.0); }

ReplicaTraffic traffic(const Graph& g, const Node& node) {
  return {CollectiveKind::ReduceScatter, static_cast<double>(g.type(node.inputs[0]).bytes()),
          node.attrs.get_int("group")};
}

constexpr AttrSpec kAttrs[] = {{.name = "group", .type = AttrType::Int, .required = true, .min = 1}};

}  // namespace impl_reduce_scatter
}  // namespace

const OpDef kReduceScatterOp{
    .kind = OpKind::ReduceScatter,
    .name = "reduce_scatter",
    .arity = 1,
    .infer = impl_reduce_scatter::infer,
    .forward = impl_reduce_scatter::forward,
    .backward = impl_reduce_scatter::backward,
    .cost = impl_reduce_scatter::cost,
    .doc =
        "reduce_scatter(x f32[G k, ...]; group): x summed over the group's G consecutive replicas; member i keeps "
        "rows i k .. (i + 1) k - 1, [k, ...].",
    .inputs = kInputX,
    .attrs = impl_reduce_scatter::kAttrs,
    .edges =
        "summed in double in replica order, then rounded once: nan and inf spread as in a sum, inf + -inf "
        "gives nan; one replica passes its block unchanged (-0 included).",
    .traffic = impl_reduce_scatter::traffic,
};

}  // namespace iputrain::ir
