// The Worker's update part: its parameters' accumulation trees and optimizer state, the moving
// statistics, the reduction across replicas, the optimizer step and the rounding after it
// (sharded state and weights: worker_sharding.cpp; checkpoints' view: worker_state.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "engine/cluster/instance_reduce.hpp"
#include "engine/cluster/moving_average_update.hpp"
#include "engine/cluster/worker.hpp"
#include "engine/optim/clipping.hpp"
#include "engine/optim/lr_schedule.hpp"
#include "engine/optim/tensor_sums.hpp"
#include "iputrain/error.hpp"
#include "planner/memory_model.hpp"
#include "planner/moving_statistics.hpp"
#include "planner/precision.hpp"
#include "planner/sharding.hpp"

namespace iputrain::engine {

void Worker::build_params() {
  const ir::Graph& g = plan_.graph;
  const int32_t r = shared_.replicas;
  // What the memory model counts; 0: the optimizer reads the gradient buffer, nothing accumulates.
  const int32_t depth = planner::accumulator_buffers(plan_);
  const DType acc = plan_.settings.accumulation_dtype == DType::F16 ? DType::F16 : DType::F32;
  if (plan_.settings.accumulation_dtype != DType::F16 && plan_.settings.accumulation_dtype != DType::F32) {
    throw Error(ErrorKind::Internal, fmt::format("gradient accumulation in {} is not implemented",
                                                 dtype_name(plan_.settings.accumulation_dtype)));
  }
  optimizer_ = make_optimizer(shared_.settings.optimizer);
  const int64_t state_floats = optimizer_->state_slots();

  // Sharded state: this replica's block of each tensor, and the largest block it reserves.
  const int32_t shards = shared_.shard_state ? r : 1;
  std::vector<size_t> updated;
  int64_t elements = 0;       // of the state per slot: what the account counts (no alignment padding)
  int64_t part_elements = 0;  // the same, once per gradient part (what the accumulators hold)
  size_t acc_bytes = 0;
  size_t state_bytes = 0;
  size_t widened_bytes = 0;
  size_t shard_bytes = 0;
  // The optimizer reads the f32 root of a lone f32 tree, or a lone gradient buffer, in place; f16
  // roots are widened and several parts summed into a host buffer first.
  auto summed = [&](size_t parts) { return parts > 1 || (depth > 0 && acc == DType::F16); };
  for (size_t k = 0; k < g.params.size(); ++k) {
    if (plan_.placement.param_ipu[k] != ipu_ || k >= plan_.grads.size() || plan_.grads[k].empty()) {
      continue;
    }
    updated.push_back(k);
    const size_t n = static_cast<size_t>(g.type(g.params[k]).numel());
    const size_t parts = plan_.grads[k].size();
    const auto reserved = static_cast<size_t>(planner::shard_capacity(static_cast<int64_t>(n), shards));
    elements += static_cast<int64_t>(reserved);
    part_elements += static_cast<int64_t>(n * parts);
    acc_bytes += parts * static_cast<size_t>(depth) * AlignedBlock::aligned(n * dtype_size(acc));
    state_bytes += AlignedBlock::aligned(static_cast<size_t>(state_floats) * reserved * sizeof(float));
    widened_bytes += summed(parts) ? AlignedBlock::aligned(n * sizeof(float)) : 0;
    shard_bytes += shared_.shard_weights ? AlignedBlock::aligned(reserved * sizeof(float)) : 0;
  }
  shards_ = AlignedBlock(shard_bytes);
  std::byte* shard_next = shards_.data();
  accumulators_ = AlignedBlock(acc_bytes);
  optimizer_state_ = AlignedBlock(state_bytes);
  widened_roots_ = AlignedBlock(widened_bytes);
  fixed_.accumulators =
      plan_.settings.offload_accumulators ? 0 : depth * part_elements * static_cast<int64_t>(dtype_size(acc));
  fixed_.optimizer_state = plan_.settings.offload_optimizer_state
                               ? 0
                               : planner::optimizer_state_bytes(static_cast<int32_t>(state_floats), elements,
                                                                plan_.settings.optimizer_state_dtype);

  std::byte* acc_next = accumulators_.data();
  std::byte* state_next = optimizer_state_.data();
  std::byte* widened_next = widened_roots_.data();
  const auto last = static_cast<int32_t>(plan_.programs.ipus[ipu_].size()) - 1;
  int64_t grains = 0;
  for (size_t k : updated) {
    const ir::ValueId p = g.params[k];
    const int64_t n = g.type(p).numel();
    ParamState ps;
    ps.param = p;
    ps.index = static_cast<int64_t>(k);
    ps.parts = plan_.grads[k];
    ps.block = planner::shard_range(n, shards, replica_);
    ps.grain_base = grains;
    grains += planner::shard_grains(n);
    for (ir::ValueId part : ps.parts) {
      if (depth == 0) {
        // Without accumulators the optimizer reads micro-batch 0's gradient, kept to the cycle's end.
        ps.unaccumulated.push_back(memory_.tensor(part, 0, last).f32());
        continue;
      }
      std::vector<void*> slots;
      for (int32_t d = 0; d < depth; ++d) {
        slots.push_back(acc_next);
        acc_next += AlignedBlock::aligned(static_cast<size_t>(n) * dtype_size(acc));
      }
      ps.trees.push_back(std::make_unique<GradTree>(acc, n, std::move(slots), plan_.settings.accumulation_order));
    }
    const float* grad = nullptr;
    if (summed(ps.parts.size())) {
      ps.sum_f32 = reinterpret_cast<float*>(widened_next);
      widened_next += AlignedBlock::aligned(static_cast<size_t>(n) * sizeof(float));
      grad = ps.sum_f32;
    } else {
      grad = depth == 0 ? ps.unaccumulated.front() : ps.trees.front()->root_if_f32();
    }
    auto* state = reinterpret_cast<float*>(state_next);
    state_next +=
        AlignedBlock::aligned(static_cast<size_t>(state_floats * planner::shard_capacity(n, shards)) * sizeof(float));
    const int64_t lo = ps.block.begin;
    float* weights = memory_.tensor(p).f32() + lo;
    if (shared_.shard_weights) {
      // The update works on the shard; the weight's buffer only receives gathers.
      ps.shard = reinterpret_cast<float*>(shard_next);
      shard_next += AlignedBlock::aligned(static_cast<size_t>(planner::shard_capacity(n, shards)) * sizeof(float));
      weights = ps.shard;
    }
    ps.slot.push_back(ParamSlot{weights, grad + lo, state, ps.block.size()});
    optimizer_->init_state(ps.slot.front());
    slots_.push_back(ps.slot.front());
    params_.push_back(std::move(ps));
  }
  const int64_t blocks = static_cast<int64_t>(r) * std::max(1, depth);
  reduce_scratch_ = std::make_unique<ReduceScratch>(blocks);
  optimizer_->reserve(slots_);
  clip_grains_.assign(static_cast<size_t>(grains), 0.0);
  clip_totals_.assign(slots_.size(), 0.0);
  if (shared_.shard_state) {
    sums_ = std::make_unique<ShardSums>(*this);
    auto& table = shared_.grain_sums.at(static_cast<size_t>(ipu_));
    table.resize(std::max(table.size(), static_cast<size_t>(2 * grains)));  // LAMB: two quantities
  } else {
    sums_ = std::make_unique<LocalSums>();
  }
}

void Worker::build_statistics() {
  const ir::Graph& g = plan_.graph;
  std::vector<const planner::MovingStatistic*> held;
  size_t bytes = 0;
  for (const planner::MovingStatistic& m : plan_.moving_statistics) {
    if (memory_.has(m.state)) {
      held.push_back(&m);
      bytes += static_cast<size_t>(planner::statistic_buffers(plan_)) *
               AlignedBlock::aligned(static_cast<size_t>(g.type(m.state).numel()) * sizeof(float));
    }
  }
  if (held.empty()) {
    return;
  }
  statistic_sums_ = AlignedBlock(bytes);
  std::byte* next = statistic_sums_.data();
  for (const planner::MovingStatistic* m : held) {
    const int64_t n = g.type(m->state).numel();
    std::vector<void*> slots;
    for (int32_t d = 0; d < planner::statistic_buffers(plan_); ++d) {
      slots.push_back(next);
      next += AlignedBlock::aligned(static_cast<size_t>(n) * sizeof(float));
    }
    // Always the canonical tree, so that every split of the micro-batches sums the same bits.
    statistics_.push_back({m->state, m->statistic, m->momentum, memory_.tensor(m->state).f32(),
                           std::make_unique<GradTree>(DType::F32, n, std::move(slots))});
  }
  statistic_scratch_ =
      std::make_unique<ReduceScratch>(static_cast<int64_t>(shared_.replicas) * planner::statistic_buffers(plan_));
}

void Worker::publish_trees() {
  auto& trees = shared_.trees[static_cast<size_t>(ipu_)];
  for (StatisticState& st : statistics_) {
    auto& list = trees[st.statistic];
    list.resize(static_cast<size_t>(shared_.replicas), nullptr);
    list[static_cast<size_t>(replica_)] = st.tree.get();
  }
  for (ParamState& ps : params_) {
    auto& weights = shared_.replica_weights[static_cast<size_t>(ipu_)][ps.param];
    weights.resize(static_cast<size_t>(shared_.replicas), nullptr);
    weights[static_cast<size_t>(replica_)] = ps.shard != nullptr ? ps.shard : memory_.tensor(ps.param).f32();
    for (size_t j = 0; j < ps.trees.size(); ++j) {
      auto& list = trees[ps.parts[j]];
      list.resize(static_cast<size_t>(shared_.replicas), nullptr);
      list[static_cast<size_t>(replica_)] = ps.trees[j].get();
    }
  }
}

double Worker::reduce(int32_t bucket) {
  if (shared_.shard_state) {
    return reduce_blocks(bucket);
  }
  if (bucket_parts_.empty()) {
    bucket_parts_.resize(plan_.programs.buckets.size());
  }
  ReduceParts& parts = bucket_parts_.at(static_cast<size_t>(bucket));
  if (parts.empty()) {
    parts = bucket_trees(bucket);
  }
  return reduce_parts(parts, *reduce_scratch_);
}

Worker::ReduceParts Worker::bucket_trees(int32_t bucket) const {
  // The bucket's elements: every part of every parameter's gradient, one after the other.
  ReduceParts parts;
  const auto& trees = shared_.trees[static_cast<size_t>(ipu_)];
  for (ir::ValueId p : plan_.programs.buckets[static_cast<size_t>(bucket)].params) {
    const int64_t n = plan_.graph.type(p).numel();
    for (const ParamState& ps : params_) {
      if (ps.param != p) {
        continue;
      }
      for (ir::ValueId part : ps.parts) {
        parts.emplace_back(&trees.at(part), n);
      }
    }
  }
  return parts;
}

double Worker::reduce_parts(const ReduceParts& parts, ReduceScratch& scratch) {
  Rendezvous& meet = *shared_.reduce_meet[static_cast<size_t>(ipu_)];
  // Every replica has pushed all its leaves once all have arrived.
  const WaitContext wait{shared_.detector.get(), index_, nullptr};
  const double start = std::max(observer_.sim(), meet.arrive(local_, 0, observer_.sim(), wait).latest_sim);
  if (shared_.link) {
    // The instance's first replica brings the other instances' trees for this instance's elements.
    if (local_ == 0) {
      send_stacks(span_of(shared_), ipu_, parts);
    }
    meet.arrive(local_, 0, start, wait);
  }
  const int64_t R = shared_.replicas;
  int64_t total = 0;
  for (const auto& [list, n] : parts) {
    total += n;
  }
  // Reduce-scatter: this replica computes its share of the elements for everyone.
  const int64_t lo = total * replica_ / R;
  const int64_t hi = total * (replica_ + 1) / R;
  int64_t offset = 0;
  for (const auto& [list, n] : parts) {
    const int64_t a = std::max(lo, offset) - offset;
    const int64_t b = std::min(hi, offset + n) - offset;
    if (a < b) {
      reduce_slice(*list, a, b, scratch);
    }
    offset += n;
  }
  // Nobody reads the root (or refills its accumulators) before every share is written.
  meet.arrive(local_, 0, start, wait);
  if (shared_.link) {
    if (local_ == 0) {
      share_roots(span_of(shared_), ipu_, parts);  // and the other instances' shares of the root
    }
    meet.arrive(local_, 0, start, wait);
  }
  return start;
}

void Worker::sum_statistics() {
  if (shared_.replicas == 1) {
    for (StatisticState& st : statistics_) {
      st.tree->fold();
    }
    return;
  }
  if (statistic_parts_.empty()) {
    const auto& trees = shared_.trees[static_cast<size_t>(ipu_)];
    for (const StatisticState& st : statistics_) {
      statistic_parts_.emplace_back(&trees.at(st.statistic), st.tree->size());
    }
  }
  // Not on the simulated clock: the planner's cycle model leaves these few bytes out.
  reduce_parts(statistic_parts_, *statistic_scratch_);
}

void Worker::update_statistics() {
  const int64_t n = static_cast<int64_t>(shared_.replicas) * shared_.micro_batches;
  for (const StatisticState& st : statistics_) {
    apply_moving_average(st.value, static_cast<const float*>(st.tree->slot(0)), st.tree->size(), n, st.momentum);
    if (plan_.settings.master_weights == planner::MasterWeights::None && rounding_) {
      // Stored in the compute type like the weights, rounded to nearest (no key needed).
      round_in_place(st.value, st.tree->size(), HalfRounding{rounding_->type, false, rounding_->nan_on_overflow}, 0);
    }
  }
}

void Worker::update_weights(int64_t update) {
  const OptimizerSettings& o = shared_.settings.optimizer;
  if (!statistics_.empty()) {
    sum_statistics();
  }
  for (ParamState& ps : params_) {
    if (shared_.replicas == 1) {
      for (auto& tree : ps.trees) {
        tree->fold();
      }
    }
    if (ps.sum_f32 == nullptr) {
      continue;
    }
    // The parts' roots summed in the parts' order, the same for every plan; only this replica's
    // block when the state is sharded (the reduce-scatter left only that block in its roots).
    const auto lo = static_cast<size_t>(ps.block.begin);
    const auto hi = static_cast<size_t>(ps.block.end);
    for (size_t j = 0; j < ps.parts.size(); ++j) {
      if (ps.trees.empty()) {
        const float* part = ps.unaccumulated[j];
        for (size_t i = lo; i < hi; ++i) {
          ps.sum_f32[i] = j == 0 ? part[i] : ps.sum_f32[i] + part[i];
        }
      } else if (j == 0) {
        ps.trees[j]->root_f32(ps.sum_f32, ps.block.begin, ps.block.end);
      } else {
        ps.trees[j]->add_root_f32(ps.sum_f32, ps.block.begin, ps.block.end);
      }
    }
  }
  const double seed = static_cast<float>(loss_scale_.scale);  // what the backward passes started from
  if (o.loss_scaling_mode == LossScaling::Dynamic) {
    const bool overflow = any_overflow();
    advance_loss_scale(loss_scale_, overflow, o);
    if (overflow) {
      return;  // every worker of every replica skips this update, so the replicas stay equal
    }
  }
  update_statistics();
  // The tree holds the plain sum of the N = R x A micro-batch gradients, each computed from a
  // backward pass seeded with the loss scale.
  const double n = static_cast<double>(shared_.replicas * shared_.micro_batches);
  const double mean = plan_.settings.reduction == planner::Reduction::Sum ? 1.0 / shared_.replicas : 1.0 / n;
  const double scale = mean / seed;
  float factor = static_cast<float>(scale);
  if (o.gradient_clip_norm > 0) {
    // The global norm spans every IPU of the replica; summing per parameter in the graph's order
    // gives the same bits whatever the placement.
    auto& squares = shared_.clip_squares[static_cast<size_t>(local_)][static_cast<size_t>(update % 2)];
    gradient_squares(*sums_);
    for (size_t k = 0; k < params_.size(); ++k) {
      squares[static_cast<size_t>(params_[k].index)] = clip_totals_[k];
    }
    shared_.clip_meet[static_cast<size_t>(local_)]->arrive(ipu_, 0, observer_.sim(),
                                                           {shared_.detector.get(), index_, nullptr});
    double total = 0;
    for (double s : squares) {
      total += s;
    }
    factor = static_cast<float>(scale * clip_scale(total * scale * scale, o));
  }
  // A skipped update is not a step of the optimizer (its moments' bias correction counts only
  // applied updates, as with GradScaler), while the learning-rate schedule follows the updates.
  Rendezvous& meet = *shared_.reduce_meet[static_cast<size_t>(ipu_)];
  const WaitContext wait{shared_.detector.get(), index_, nullptr};
  if (shared_.shard_weights) {
    meet.arrive(local_, 0, observer_.sim(), wait);  // every replica's tasks have read the shards they gather
  }
  optimizer_->update_blocks(slots_, update + 1 - loss_scale_.skipped, learning_rate_at(o, update + 1), factor, *sums_);
  round_after_update(update);
  if (shared_.shard_weights) {
    meet.arrive(local_, 0, observer_.sim(), wait);  // every shard is updated before the next task gathers it
  } else if (shared_.shard_state) {
    gather_weights();
  }
}

void Worker::round_after_update(int64_t update) {
  const auto& fp = shared_.settings.floating_point;
  const uint64_t seed = shared_.settings.seed;
  // Keyed by the parameter, the slot and the update only, so every replica and placement rounds
  // the same elements the same way; negative values keep these keys apart from the passes'.
  auto key = [&](const HalfRounding& r, const ParamState& ps, int64_t k) {
    return r.stochastic ? rounding_key(seed, -1 - 8 * static_cast<int64_t>(ps.param) - k, update) : 0;
  };
  if (plan_.settings.master_weights == planner::MasterWeights::None && rounding_) {
    // No f32 master: the weights are stored in the compute type, every update rounded into it.
    for (const ParamState& ps : params_) {
      round_in_place(ps.slot.front().weights, ps.slot.front().size, *rounding_, key(*rounding_, ps, 0), ps.block.begin);
    }
  }
  const DType state = plan_.settings.optimizer_state_dtype;
  if (state != DType::F32) {
    const HalfRounding r{state, fp.esr, fp.nanoo};
    const int64_t slots = optimizer_->state_slots();
    for (const ParamState& ps : params_) {
      const ParamSlot& slot = ps.slot.front();
      for (int64_t k = 0; k < slots; ++k) {
        round_in_place(slot.state + k * slot.size, slot.size, r, key(r, ps, 1 + k), ps.block.begin);
      }
    }
  }
}

bool Worker::any_overflow() {
  bool local = overflows_ > 0;
  for (const ParamSlot& slot : slots_) {
    for (int64_t i = 0; i < slot.size && !local; ++i) {
      local = !std::isfinite(slot.grad[i]);
    }
  }
  const Rendezvous::Met met = shared_.overflow_meet->arrive(index_, local ? 1.0 : 0.0, observer_.sim(),
                                                            {shared_.detector.get(), index_, nullptr});
  bool any = false;
  for (int32_t k = 0; k < shared_.overflow_meet->parties(); ++k) {
    any = any || met.values[k] != 0.0;
  }
  if (!shared_.link) {
    return any;
  }
  // Every instance skips together: worker 0 asks the others (on IPU 0's channel, which only it uses).
  if (index_ == 0) {
    shared_.overflow_anywhere = any_instance(*shared_.link, 0, any);
  }
  shared_.overflow_meet->arrive(index_, 0, observer_.sim(), {shared_.detector.get(), index_, nullptr});
  return shared_.overflow_anywhere;
}

}  // namespace iputrain::engine
