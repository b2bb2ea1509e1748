// The WeightUpdate at work: the start of an update, the reduction across replicas, the moving
// statistics, the optimizer step and the rounding after it (sharded state and weights:
// weight_sharding.cpp).
#include <algorithm>
#include <cmath>

#include "core/optim/clipping.hpp"
#include "core/optim/lr_schedule.hpp"
#include "core/optim/tensor_sums.hpp"
#include "engine/cluster/instance_reduce.hpp"
#include "engine/cluster/moving_average_update.hpp"
#include "engine/cluster/weight_update.hpp"
#include "engine/cluster/worker.hpp"

namespace iputrain::engine {

void WeightUpdate::begin_update() {
  for (ParamState& ps : params_) {
    for (auto& tree : ps.trees) {
      tree->clear();
    }
  }
  for (StatisticState& st : statistics_) {
    st.tree->clear();
  }
  // The master weights may have changed since the last update (the optimizer, a restored
  // checkpoint), so the copies are made afresh; nearest rounding keeps them a function of the
  // master weights alone. A weight beyond the half range is not an overflow of this update.
  for (const WeightCopy& w : weight_copies_) {
    if (w.gathered) {
      continue;  // made by gather() before each task that reads it
    }
    if (plan_.settings.plain.training_master_weights == MasterWeightsPlace::None) {
      // Weights kept in the compute type start there too (initialised or loaded in f32); a no-op
      // once an update has rounded them.
      round_in_place(const_cast<float*>(w.master), w.size,
                     HalfRounding{rounding_->type, false, rounding_->nan_on_overflow}, 0);
    }
    round_nearest_copy(w.master, w.copy, w.size, *rounding_);
  }
  if (loss_seed_.data != nullptr) {
    std::fill_n(loss_seed_.f32(), loss_seed_.numel(), static_cast<float>(loss_scale_.scale));
  }
}

double WeightUpdate::reduce(int32_t bucket) {
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

ReduceParts WeightUpdate::bucket_trees(int32_t bucket) const {
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

double WeightUpdate::reduce_parts(const ReduceParts& parts, ReduceScratch& scratch) {
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

void WeightUpdate::sum_statistics() {
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

void WeightUpdate::update_statistics() {
  const int64_t n = static_cast<int64_t>(shared_.replicas) * shared_.micro_batches;
  for (const StatisticState& st : statistics_) {
    apply_moving_average(st.value, static_cast<const float*>(st.tree->slot(0)), st.tree->size(), n, st.momentum);
    if (plan_.settings.plain.training_master_weights == MasterWeightsPlace::None && rounding_) {
      // Stored in the compute type like the weights, rounded to nearest (no key needed).
      round_in_place(st.value, st.tree->size(), HalfRounding{rounding_->type, false, rounding_->nan_on_overflow}, 0);
    }
  }
}

void WeightUpdate::update(int64_t update, int64_t overflows) {
  const Settings& run = shared_.settings;
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
  if (plan_.settings.plain.optimizer_loss_scaling_mode == LossScaling::Dynamic) {
    const bool overflow = any_overflow(overflows);
    advance_loss_scale(loss_scale_, overflow, run);
    if (overflow) {
      return;  // every worker of every replica skips this update, so the replicas stay equal
    }
  }
  update_statistics();
  // The tree holds the plain sum of the N = R x A micro-batch gradients, each computed from a
  // backward pass seeded with the loss scale.
  const double n = static_cast<double>(shared_.replicas * shared_.micro_batches);
  const double mean =
      plan_.settings.plain.pipeline_reduction_method == GradientReduction::Sum ? 1.0 / shared_.replicas : 1.0 / n;
  const double scale = mean / seed;
  float factor = static_cast<float>(scale);
  if (run.plain.optimizer_gradient_clip_norm > 0) {
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
    factor = static_cast<float>(scale * clip_scale(total * scale * scale, run));
  }
  // A skipped update is not a step of the optimizer (its moments' bias correction counts only
  // applied updates, as with GradScaler), while the learning-rate schedule follows the updates.
  Rendezvous& meet = *shared_.reduce_meet[static_cast<size_t>(ipu_)];
  const WaitContext wait{shared_.detector.get(), index_, nullptr};
  if (shared_.shard_weights) {
    meet.arrive(local_, 0, observer_.sim(), wait);  // every replica's tasks have read the shards they gather
  }
  optimizer_->update_blocks(slots_, update + 1 - loss_scale_.skipped, learning_rate_at(run, update + 1), factor,
                            *sums_);
  round_after_update(update);
  if (shared_.shard_weights) {
    meet.arrive(local_, 0, observer_.sim(), wait);  // every shard is updated before the next task gathers it
  } else if (shared_.shard_state) {
    gather_weights();
  }
}

void WeightUpdate::round_after_update(int64_t update) {
  const Settings& settings = shared_.settings;
  const uint64_t seed = shared_.settings.plain.training_seed;
  // Keyed by the parameter, the slot and the update only, so every replica and placement rounds
  // the same elements the same way; negative values keep these keys apart from the passes'.
  auto key = [&](const HalfRounding& r, const ParamState& ps, int64_t k) {
    return r.stochastic ? rounding_key(seed, -1 - 8 * static_cast<int64_t>(ps.param) - k, update) : 0;
  };
  if (plan_.settings.plain.training_master_weights == MasterWeightsPlace::None && rounding_) {
    // No f32 master: the weights are stored in the compute type, every update rounded into it.
    for (const ParamState& ps : params_) {
      round_in_place(ps.slot.front().weights, ps.slot.front().size, *rounding_, key(*rounding_, ps, 0), ps.block.begin);
    }
  }
  const DType state = planner::state_dtype_of(plan_.settings);
  if (state != DType::F32) {
    const HalfRounding r{state, settings.plain.ipu_floating_point_behaviour_esr,
                         settings.plain.ipu_floating_point_behaviour_nanoo};
    for (const ParamState& ps : params_) {
      const ParamSlot& slot = ps.slot.front();
      // Each state array on its own key.
      int64_t offset = 0;
      for (size_t k = 0; k < ps.state_arrays.size(); ++k) {
        const int64_t size = ps.state_arrays[k];
        round_in_place(slot.state + offset, size, r, key(r, ps, 1 + static_cast<int64_t>(k)), ps.block.begin);
        offset += size;
      }
    }
  }
}

bool WeightUpdate::any_overflow(int64_t overflows) {
  bool local = overflows > 0;
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
