#include "engine/inference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "iputrain/error.hpp"

namespace iputrain::engine {

namespace {

// The inference cluster hands every output of every micro-batch to the host.
Settings inference_settings(Settings s) {
  s.plain.training_outfeed_mode = OutfeedMode::All;
  s.plain.pipeline_accumulate_outfeed = false;
  s.plain.pipeline_outfeed_loss = false;
  s.plain.pipeline_outfeed_mask.clear();
  return s;
}

planner::Plan inference_plan(const ir::Graph& forward, Settings alone, bool predict) {
  planner::PlanOptions options;
  options.inference = true;
  options.predict = predict;
  // Evaluation and prediction run whole in each instance (they reduce nothing between replicas).
  alone.ipu.instances = 1;
  return planner::make_plan(forward, alone, options);
}

}  // namespace

InferenceRun::InferenceRun(const ir::Graph& forward, const Settings& settings, bool predict)
    : plan_(inference_plan(forward, settings, predict)),
      settings_(inference_settings(settings)),
      cluster_(std::make_unique<Cluster>(plan_, settings_)) {}

InferenceRun::~InferenceRun() = default;

bool InferenceRun::has_param(ir::ValueId p) const {
  const auto& params = plan_.graph.params;
  return std::find(params.begin(), params.end(), p) != params.end();
}

void InferenceRun::set_param(ir::ValueId p, const float* values) {
  for (int32_t r = 0; r < cluster_->replicas(); ++r) {
    ir::Tensor t = cluster_->param(r, p);
    std::memcpy(t.data, values, t.type->bytes());
  }
}

std::vector<int32_t> InferenceRun::physical_ipus() const {
  std::vector<int32_t> out;
  for (const auto& replica : plan_.placement.physical) {
    out.insert(out.end(), replica.begin(), replica.end());
  }
  return out;
}

void InferenceRun::run(const data::Dataset& dataset, const std::vector<size_t>& fields, int64_t micro_batches,
                       const std::string& label, const Sink& sink) {
  try {
    run_cycles(dataset, fields, micro_batches, label, sink);
  } catch (...) {
    // A failed execution leaves the cluster refusing to run; inference changes no weights, so a
    // fresh one (its parameters set again by the caller) serves the next run.
    cluster_ = std::make_unique<Cluster>(plan_, settings_);
    throw;
  }
}

void InferenceRun::run_cycles(const data::Dataset& dataset, const std::vector<size_t>& fields,
                              int64_t micro_batches, const std::string& label, const Sink& sink) {
  if (micro_batches <= 0) {
    return;
  }
  const int64_t size = plan_.micro_batch();
  const int32_t replicas = plan_.placement.replicas;
  const int64_t per_replica = plan_.decided.accumulation_count;
  const int64_t per_cycle = replicas * per_replica;
  const int64_t cycles = (micro_batches + per_cycle - 1) / per_cycle;
  const auto& outputs = plan_.graph.outputs;

  cluster_->set_run_label(label);
  cluster_->open_feeds({&dataset, fields, Sampler(dataset.size(), size, /*shuffle=*/false, 0)}, 0, cycles);
  struct CloseFeeds {
    Cluster& cluster;
    ~CloseFeeds() { cluster.close_feeds(); }
  } close_feeds{*cluster_};

  std::vector<const double*> row(outputs.size(), nullptr);
  const int64_t per_execution = cluster_->updates_per_execution();
  for (int64_t first = 0; first < cycles; first += per_execution) {
    const int64_t count = std::min(per_execution, cycles - first);
    cluster_->execute(first, count);
    const std::vector<OutfeedTensor> got = cluster_->outfeed().dequeue();
    if (got.size() != outputs.size()) {
      throw Error(ErrorKind::Internal,
                  fmt::format("the inference outfeed holds {} values for {} outputs", got.size(), outputs.size()));
    }
    // Element e = u * A + m of the execution, replica r: global micro-batch ((first + u) R + r) A + m,
    // taken in that global order (u, then r, then m).
    for (int64_t i = 0; i < count * replicas * per_replica; ++i) {
      const int64_t u = i / (replicas * per_replica);
      const auto r = static_cast<int32_t>((i / per_replica) % replicas);
      const int64_t m = i % per_replica;
      const int64_t g = (first + u) * replicas * per_replica + i % (replicas * per_replica);
      if (g >= micro_batches) {
        continue;  // wrapped-around data filling the last cycle
      }
      const int64_t e = u * per_replica + m;
      for (size_t k = 0; k < outputs.size(); ++k) {
        const int64_t numel = plan_.graph.type(outputs[k].value).numel();
        row[k] = got[k].values.data() + (e * replicas + r) * numel;
      }
      sink(g, row);
    }
  }
}

}  // namespace iputrain::engine
