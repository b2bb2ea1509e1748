// cross_replica_sum: the sum (mean = 1: the mean) of x over the replicas of the node's group, on
// every member (the seed's cross_replica_sum / cross_replica_mean, an all-reduce). group = 0 takes
// every replica of the run; G > 0 groups of G consecutive replicas. f32 sums in double over the
// members in replica order, then rounds once, so the bits depend on the group's values only, never
// on how the replicas are spread over processes; i32 wraps on overflow (mean: f32 only).
// Gradient: the same reduction of dy (each member's output reads every member's input).
#include <fmt/format.h>

#include "core/ops/collective_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_cross_replica_sum {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  const bool mean = attrs.get_int("mean", 0) != 0;
  if (x.dtype != DType::F32 && (mean || x.dtype != DType::I32)) {
    throw OpError{fmt::format("cross-replica {} needs an {} operand, got {}", mean ? "mean" : "sum",
                              mean ? "f32" : "f32 or i32", x.str()),
                  "cast it first"};
  }
  return x;
}

void forward(const KernelArgs& args) {
  const GroupOperands members(args, args.inputs[0], args.node.attrs.get_int("group", 0));
  const int64_t n = args.output.numel();
  const int32_t g = members.size();
  if (args.output.type->dtype == DType::I32) {
    auto* y = args.output.i32();
    par::for_elements(n, g, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        uint32_t acc = 0;
        for (int32_t k = 0; k < g; ++k) {
          acc += static_cast<uint32_t>(reinterpret_cast<const int32_t*>(members.member(k))[i]);
        }
        y[i] = static_cast<int32_t>(acc);
      }
    });
    return;
  }
  const double divisor = args.node.attrs.get_int("mean", 0) != 0 ? g : 1;
  float* y = args.output.f32();
  par::for_elements(n, g, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      y[i] = static_cast<float>(members.sum_f32(i) / divisor);
    }
  });
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  return {g.add(OpKind::CrossReplicaSum, {dy}, g.node(id).attrs)};
}

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node, 1.0); }

ReplicaTraffic traffic(const Graph& g, const Node& node) {
  return {CollectiveKind::AllReduce, static_cast<double>(g.type(node.inputs[0]).bytes()),
          node.attrs.get_int("group", 0)};
}

constexpr AttrSpec kAttrs[] = {{.name = "group", .type = AttrType::Int, .number = 0, .min = 0},
                               {.name = "mean", .type = AttrType::Int, .number = 0, .min = 0, .max = 1}};

}  // namespace impl_cross_replica_sum
}  // namespace

const OpDef kCrossReplicaSumOp{
    .kind = OpKind::CrossReplicaSum,
    .name = "cross_replica_sum",
    .arity = 1,
    .infer = impl_cross_replica_sum::infer,
    .forward = impl_cross_replica_sum::forward,
    .backward = impl_cross_replica_sum::backward,
    .cost = impl_cross_replica_sum::cost,
    .doc =
        "cross_replica_sum(x f32 | i32; group = 0, mean = 0): x summed (mean = 1: averaged) over the replicas "
        "of its group (0: all replicas; G: groups of G consecutive replicas), on every one of them.",
    .inputs = kInputX,
    .attrs = impl_cross_replica_sum::kAttrs,
    .edges =
        "f32: summed in double in replica order (divided by the group for the mean), then rounded once, so nan "
        "and inf spread to every replica, inf + -inf gives nan and -0 stays -0 only where every member has it, "
        "as in a sum; one replica passes x unchanged; i32 wraps on overflow.",
    .traffic = impl_cross_replica_sum::traffic,
};

}  // namespace iputrain::ir
