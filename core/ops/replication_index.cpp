// replication_index: the replica running the node, 0 .. replicas - 1, as an i32 scalar (the
// seed's replication_index). Its operand only anchors it in the graph (the builtin passes a
// constant); nothing flows back through it.
#include <fmt/format.h>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_replication_index {

TensorType infer(std::span<const TensorType* const> in, const Attrs& /*attrs*/) {
  if (in[0]->rank() != 0) {
    throw OpError{fmt::format("replication_index is anchored on a scalar, got {}", in[0]->str()),
                  "call the builtin replication_index(), which makes its own anchor"};
  }
  return {DType::I32, {}};
}

void forward(const KernelArgs& args) {
  const ReplicaLink* link = args.ctx != nullptr ? args.ctx->replicas : nullptr;
  args.output.i32()[0] = link != nullptr ? link->replica() : 0;
}

Cost cost(const Graph& /*g*/, const Node& node) { return {0, 0, static_cast<double>(node.type.bytes())}; }

}  // namespace impl_replication_index
}  // namespace

const OpDef kReplicationIndexOp{
    .kind = OpKind::ReplicationIndex,
    .name = "replication_index",
    .arity = 1,
    .infer = impl_replication_index::infer,
    .forward = impl_replication_index::forward,
    .backward = nullptr,
    .cost = impl_replication_index::cost,
    .doc = "replication_index(x scalar): the replica running it, an i32 scalar in [0, replicas); x is not read.",
    .inputs = kInputX,
    .edges = "no floating-point value: 0 with one replica.",
};

}  // namespace iputrain::ir
