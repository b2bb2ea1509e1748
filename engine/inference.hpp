// Inference on the plan: `eval` and `predict` run the model's forward program on a cluster of
// virtual IPUs planned as the config says (stages on their IPUs, micro-batches pipelined, the
// replicas splitting the data), not on one host-side device.
//
// The plan is the training plan's placement with the forward program only (PlanOptions::inference).
// Micro-batch g of the data is batch g of an unshuffled pass, whatever the plan, so the outputs of
// every plan are the same numbers. A run covers whole cycles of replicas x accumulation
// micro-batches; the micro-batches past the last one asked for take wrapped-around data and their
// outputs are dropped.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/data/dataset.hpp"
#include "engine/cluster/cluster.hpp"
#include "iputrain/settings.hpp"
#include "planner/plan.hpp"

namespace iputrain::engine {

class InferenceRun {
 public:
  //! Plans `forward` for inference under `settings` and starts its cluster; `predict` keeps the
  //! per-sample outputs (PlanOptions::predict). Throws like make_plan.
  InferenceRun(const ir::Graph& forward, const Settings& settings, bool predict = false);
  ~InferenceRun();

  const planner::Plan& plan() const { return plan_; }
  //! Sets parameter `p` (f32, its full shape) on every replica.
  void set_param(ir::ValueId p, const float* values);
  bool has_param(ir::ValueId p) const;

  //! The outputs of one micro-batch: per output of the plan's graph, its values as doubles, exact
  //! for every dtype (row-major, the output's full shape).
  using Sink = std::function<void(int64_t micro_batch, const std::vector<const double*>& outputs)>;
  //! Runs micro-batches 0 .. micro_batches - 1 of `dataset` (unshuffled batches of the plan's
  //! micro-batch size; `fields` picks the field of each graph input) and hands each one's outputs
  //! to `sink` in order. `label` names the run in trapped errors ("evaluation", "prediction").
  //! After an error the cluster is started afresh, without its parameters: set them again.
  void run(const data::Dataset& dataset, const std::vector<size_t>& fields, int64_t micro_batches,
           const std::string& label, const Sink& sink);

  //! Physical IPU ids the run used, replica by replica.
  std::vector<int32_t> physical_ipus() const;
  const Cluster& cluster() const { return *cluster_; }

 private:
  void run_cycles(const data::Dataset& dataset, const std::vector<size_t>& fields, int64_t micro_batches,
                  const std::string& label, const Sink& sink);

  planner::Plan plan_;
  Settings settings_;
  std::unique_ptr<Cluster> cluster_;
};

//! A dataset of `size` samples showing `inner`'s samples, the index clamped to its last one: pads
//! a split to whole micro-batches for prediction (the copies' rows are dropped).
class PaddedDataset final : public data::Dataset {
 public:
  PaddedDataset(const data::Dataset& inner, int64_t size) : inner_(inner), size_(size) {}
  int64_t size() const override { return size_; }
  const std::vector<data::Field>& fields() const override { return inner_.fields(); }
  void read(int64_t index, size_t field, void* dst) const override {
    inner_.read(std::min(index, inner_.size() - 1), field, dst);
  }

 private:
  const data::Dataset& inner_;
  int64_t size_;
};

}  // namespace iputrain::engine
