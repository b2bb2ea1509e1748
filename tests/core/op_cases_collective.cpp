// Op cases for the collectives at one replica (no ExecContext::replicas: the run has one), where
// each is the identity up to its shape; tests/core/collectives_test.cpp runs them across replicas.
#include "tests/core/ref_util.hpp"

namespace iputrain::test {

namespace {

// The operand's values, unchanged (one replica: every collective passes its own x).
Values ref_same(const std::vector<Values>& in, const std::vector<TensorType>&, const TensorType&, const Attrs&) {
  return in[0];
}

}  // namespace

void add_collective_cases(std::vector<OpCase>& cases) {
  cases.push_back({.name = "cross_replica_sum alone",
                   .op = OpKind::CrossReplicaSum,
                   .inputs = {f32({2, 3})},
                   .reference = ref_same});
  cases.push_back({.name = "cross_replica_sum mean alone",
                   .op = OpKind::CrossReplicaSum,
                   .inputs = {f32({4})},
                   .attrs = {{"mean", int64_t{1}}},
                   .reference = ref_same});
  cases.push_back({.name = "cross_replica_sum i32 alone",
                   .op = OpKind::CrossReplicaSum,
                   .inputs = {i32({3})},
                   .values = {{2147483647, -3, 0}},
                   .expected = {2147483647, -3, 0}});
  cases.push_back({.name = "cross_replica_sum mean of i32",
                   .op = OpKind::CrossReplicaSum,
                   .inputs = {i32({3})},
                   .attrs = {{"mean", int64_t{1}}},
                   .infer_error = "needs an f32 operand"});
  cases.push_back({.name = "all_gather alone",
                   .op = OpKind::AllGather,
                   .inputs = {f32({2, 3})},
                   .attrs = {{"group", int64_t{1}}},
                   .reference = ref_same});
  cases.push_back({.name = "all_gather past the largest rank",
                   .op = OpKind::AllGather,
                   .inputs = {f32({1, 1, 1, 1, 1, 1, 1, 2})},
                   .attrs = {{"group", int64_t{1}}},
                   .infer_error = "rank"});
  cases.push_back({.name = "reduce_scatter alone",
                   .op = OpKind::ReduceScatter,
                   .inputs = {f32({4, 2})},
                   .attrs = {{"group", int64_t{1}}},
                   .reference = ref_same});
  cases.push_back({.name = "reduce_scatter indivisible",
                   .op = OpKind::ReduceScatter,
                   .inputs = {f32({3, 2})},
                   .attrs = {{"group", int64_t{2}}},
                   .infer_error = "divisible by 2"});
  cases.push_back({.name = "all_to_all alone",
                   .op = OpKind::AllToAll,
                   .inputs = {f32({2, 3})},
                   .attrs = {{"split_axis", int64_t{0}}, {"concat_axis", int64_t{-1}}, {"group", int64_t{1}}},
                   .reference = ref_same});
  cases.push_back({.name = "all_to_all indivisible",
                   .op = OpKind::AllToAll,
                   .inputs = {f32({3, 2})},
                   .attrs = {{"split_axis", int64_t{0}}, {"concat_axis", int64_t{1}}, {"group", int64_t{2}}},
                   .infer_error = "divisible by 2"});
  cases.push_back(
      {.name = "replication_index alone", .op = OpKind::ReplicationIndex, .inputs = {i32({})}, .expected = {0}});
  cases.push_back({.name = "replication_index of a vector",
                   .op = OpKind::ReplicationIndex,
                   .inputs = {i32({2})},
                   .infer_error = "scalar"});
}

}  // namespace iputrain::test
