// Sharded optimizer state (pipeline.replicated_optimizer_state_sharding, R > 1), the
// WeightUpdate's part: each replica reduces, updates and keeps the state of one block of every
// tensor (planner/sharding.hpp), then takes the other replicas' updated blocks of the weights.
//
// - Reduce-scatter: a replica combines the replicas' accumulation trees for the elements of its
//   block only, with the same canonical order as the all-reduce (reduce_slice), and writes the
//   sums into its own trees; every element's sum is the same bits as unsharded.
// - Update: the optimizer sees block slots. Sums over whole tensors (the clipping norm, LAMB's
//   norms) are taken grain by grain; each replica posts its blocks' grains and all add every
//   grain in the tensor's order (ShardSums), so the norms are the unsharded ones.
// - All-gather: once every replica has updated its blocks, each copies the others' blocks of the
//   weights into its own.
//
// Sharded weights (pipeline.replicated_weight_sharding, R > 1) go further: the update works on
// the replica's shard of each trained weight (its block, kept in its own memory) and nothing is
// all-gathered after it. Instead each task first gathers the full weights it reads from the
// replicas' shards into the weight's buffer, the IPU's gather buffer in the memory account
// (planner/sharding.hpp); under half compute the half copy the task reads is made there too.
// Between executions the weights' buffers hold the gathered weights, which the host reads, and
// the next execution takes its shards from them (the host may have loaded others). The replicas
// meet after taking their shards, before writing them in an update and after.
//
// The meetings use the IPU's reduction rendezvous (its R replicas), in the same sequence on every
// replica; the simulated clock is not moved by them (the planner charges the collectives in the
// cycles of ReduceReplicas, UpdateWeights and, for sharded weights, of the tasks).
#include <fmt/format.h>

#include <cstring>

#include "core/half_round.hpp"
#include "core/optim/tensor_sums.hpp"
#include "engine/cluster/weight_update.hpp"
#include "engine/cluster/worker.hpp"
#include "iputrain/error.hpp"

namespace iputrain::engine {

double WeightUpdate::reduce_blocks(int32_t bucket) {
  if (bucket_blocks_.empty()) {
    bucket_blocks_.resize(plan_.programs.buckets.size());
  }
  auto& blocks = bucket_blocks_.at(static_cast<size_t>(bucket));
  if (blocks.empty()) {
    const auto& trees = shared_.trees[static_cast<size_t>(ipu_)];
    for (ir::ValueId p : plan_.programs.buckets[static_cast<size_t>(bucket)].params) {
      for (const ParamState& ps : params_) {
        if (ps.param != p) {
          continue;
        }
        for (ir::ValueId part : ps.parts) {
          blocks.emplace_back(&trees.at(part), ps.block);
        }
      }
    }
  }
  Rendezvous& meet = *shared_.reduce_meet[static_cast<size_t>(ipu_)];
  const WaitContext wait{shared_.detector.get(), index_, nullptr};
  const double start = std::max(observer_.sim(), meet.arrive(local_, 0, observer_.sim(), wait).latest_sim);
  for (const auto& [list, block] : blocks) {
    if (block.size() > 0) {
      reduce_slice(*list, block.begin, block.end, *reduce_scratch_, (*list)[static_cast<size_t>(replica_)]);
    }
  }
  // The others read this replica's stacks until they are done; nobody refills them before that.
  meet.arrive(local_, 0, start, wait);
  return start;
}

void WeightUpdate::gradient_squares(TensorSums& sums) {
  size_t at = 0;
  for (const ParamSlot& slot : slots_) {
    grains_of(slot.grad, slot.size, clip_grains_.data() + at);
    at += static_cast<size_t>(planner::shard_grains(slot.size));
  }
  sums.complete(slots_, 1, std::span<const double>(clip_grains_.data(), at), clip_totals_);
}

void WeightUpdate::ShardSums::complete(const std::vector<ParamSlot>& params, int32_t quantities,
                                       std::span<const double> grains, std::span<double> totals) {
  WeightUpdate& w = u_;
  if (params.size() != w.params_.size()) {
    throw Error(ErrorKind::Internal, "sharded sums: the slots are not this IPU's parameters");
  }
  auto& table = w.shared_.grain_sums[static_cast<size_t>(w.ipu_)];
  const size_t stride = w.clip_grains_.size();  // every tensor's grains, once per quantity
  if (table.size() < stride * static_cast<size_t>(quantities)) {
    throw Error(ErrorKind::Internal, "sharded sums: more quantities than the grain table holds");
  }
  size_t at = 0;
  for (const ParamState& ps : w.params_) {
    const auto mine = static_cast<size_t>(planner::shard_grains(ps.block.size()));
    const auto first = static_cast<size_t>(ps.grain_base + ps.block.begin / planner::kShardGrain);
    for (int32_t q = 0; q < quantities; ++q) {
      for (size_t j = 0; j < mine; ++j) {
        table[static_cast<size_t>(q) * stride + first + j] = grains[at + j];
      }
      at += mine;
    }
  }
  Rendezvous& meet = *w.shared_.reduce_meet[static_cast<size_t>(w.ipu_)];
  const WaitContext wait{w.shared_.detector.get(), w.index_, nullptr};
  meet.arrive(w.local_, 0, w.observer_.sim(), wait);
  for (size_t k = 0; k < w.params_.size(); ++k) {
    const ParamState& ps = w.params_[k];
    const auto count = static_cast<size_t>(planner::shard_grains(w.plan_.graph.type(ps.param).numel()));
    for (int32_t q = 0; q < quantities; ++q) {
      const double* row = table.data() + static_cast<size_t>(q) * stride + static_cast<size_t>(ps.grain_base);
      double total = 0;
      for (size_t j = 0; j < count; ++j) {
        total += row[j];
      }
      totals[k * static_cast<size_t>(quantities) + static_cast<size_t>(q)] = total;
    }
  }
  // The table is written again by the next sum of this update (LAMB after clipping).
  meet.arrive(w.local_, 0, w.observer_.sim(), wait);
}

void WeightUpdate::gather_weights() {
  Rendezvous& meet = *shared_.reduce_meet[static_cast<size_t>(ipu_)];
  const WaitContext wait{shared_.detector.get(), index_, nullptr};
  meet.arrive(local_, 0, observer_.sim(), wait);  // every replica has updated (and rounded) its blocks
  const auto& weights = shared_.replica_weights[static_cast<size_t>(ipu_)];
  for (const ParamState& ps : params_) {
    const std::vector<float*>& copies = weights.at(ps.param);
    float* mine = copies[static_cast<size_t>(replica_)];
    const int64_t n = plan_.graph.type(ps.param).numel();
    for (int32_t r = 0; r < shared_.replicas; ++r) {
      const planner::ShardRange b = planner::shard_range(n, shared_.replicas, r);
      if (r != replica_ && b.size() > 0) {
        std::memcpy(mine + b.begin, copies[static_cast<size_t>(r)] + b.begin,
                    static_cast<size_t>(b.size()) * sizeof(float));
      }
    }
  }
  // Nobody touches its weights again (the next update's copies, a rounding) before all have copied.
  meet.arrive(local_, 0, observer_.sim(), wait);
}

void WeightUpdate::gather(size_t k) {
  const ParamState& ps = params_[k];
  const std::vector<float*>& shards = shared_.replica_weights[static_cast<size_t>(ipu_)].at(ps.param);
  const ir::Tensor full = memory_.tensor(ps.param);
  const int64_t n = full.numel();
  for (int32_t r = 0; r < shared_.replicas; ++r) {
    const planner::ShardRange b = planner::shard_range(n, shared_.replicas, r);
    if (b.size() > 0) {
      std::memcpy(full.f32() + b.begin, shards[static_cast<size_t>(r)], static_cast<size_t>(b.size()) * sizeof(float));
    }
  }
  if (ps.copy >= 0) {
    const WeightCopy& w = weight_copies_[static_cast<size_t>(ps.copy)];
    round_nearest_copy(w.master, w.copy, w.size, *rounding_);
  }
}

void WeightUpdate::begin_execution() {
  if (!shared_.shard_weights) {
    return;
  }
  for (const ParamState& ps : params_) {
    const float* full = memory_.tensor(ps.param).f32();
    std::memcpy(ps.shard, full + ps.block.begin, static_cast<size_t>(ps.block.size()) * sizeof(float));
    if (plan_.settings.plain.training_master_weights == MasterWeightsPlace::None && rounding_) {
      // Weights kept in the compute type start there (as begin_update() rounds unsharded ones).
      round_in_place(ps.shard, ps.block.size(), HalfRounding{rounding_->type, false, rounding_->nan_on_overflow}, 0);
    }
  }
  // No replica gathers before every replica has taken its shards.
  shared_.reduce_meet[static_cast<size_t>(ipu_)]->arrive(local_, 0, observer_.sim(),
                                                         {shared_.detector.get(), index_, nullptr});
}

void WeightUpdate::end_execution() {
  if (!shared_.shard_weights) {
    return;
  }
  // The host reads (and checkpoints) whole weights between executions.
  for (size_t k = 0; k < params_.size(); ++k) {
    gather(k);
  }
}

}  // namespace iputrain::engine
