// Builtins across replicas beyond the plain ones (cross_replica_sum, all_gather, reduce_scatter and
// all_to_all come from the op list): cross_replica_mean, and replication_index(), whose op is
// anchored on a constant.
#include "frontend/builtins.hpp"

namespace iputrain::frontend {

namespace {

using ir::OpKind;
using namespace builtin_args;

Value b_cross_replica_mean(CallArgs& c) {
  const int64_t group = integer(c, 1, "group");
  return Value::of_tensor(
      add(c, OpKind::CrossReplicaSum, {tensor(c, 0, "x")}, ir::Attrs{{"group", group}, {"mean", int64_t{1}}}));
}

Value b_replication_index(CallArgs& c) {
  const ir::ValueId anchor = c.graph.add_constant(0, TensorType{DType::I32, {}}, c.span);
  return Value::of_tensor(add(c, OpKind::ReplicationIndex, {anchor}));
}

}  // namespace

void add_collective_builtins(std::vector<Builtin>& table) {
  table.push_back({"cross_replica_mean", {req("x"), opt("group", Value::of_int(0))}, b_cross_replica_mean});
  table.push_back({"replication_index", {}, b_replication_index});
}

}  // namespace iputrain::frontend
