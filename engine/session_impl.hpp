// Session::Impl: what a Session holds (the plan, the datasets, the training cluster or the host's
// weights, and the inference cluster) and the small helpers its methods share. The methods live in session.cpp
// (planning, training, weights) and in files named for the rest (predict.cpp, …).
#pragma once

#include <fmt/format.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/data/dataset.hpp"
#include "core/data/subset.hpp"
#include "core/init.hpp"
#include "core/ir/graph.hpp"
#include "engine/cluster/cluster.hpp"
#include "engine/fp_trap.hpp"
#include "engine/host_weights.hpp"
#include "engine/inference.hpp"
#include "frontend/model_access.hpp"
#include "iputrain/session.hpp"
#include "iputrain/settings.hpp"
#include "planner/plan.hpp"

namespace iputrain {

namespace engine {

//! A data source the config names (`data.train`, …) and the folder its relative paths are in.
struct DataSpec {
  std::string spec;
  std::string base_dir;
  std::string resolved;  //!< the spec with its path resolved, as `iputrain check` shows it
  bool in_file = false;  //!< a config file set it (its folder is base_dir, "" for the current directory)
};

// The hint of a data source that cannot be opened, with where its relative path was resolved.
inline std::string data_hint(const DataSpec& source, const Error& e) {
  const std::string& message = e.diagnostic().message;
  if (message.find("cannot open") == std::string::npos && message.find("cannot find") == std::string::npos) {
    return e.hint();
  }
  if (!source.in_file) {
    return e.hint() + "; a relative path given on the command line is relative to the current directory";
  }
  return e.hint() + fmt::format("; a relative path in a config file is relative to its folder, `{}`",
                                source.base_dir.empty() ? "." : source.base_dir);
}

//! The model's inputs as data fields: each input's name, dtype and shape without the leading batch.
std::vector<data::Field> input_fields(const ir::Graph& g);

//! Opens the source `key` names for `fields` (data::open_dataset checks that it holds them). An error
//! without a location is raised again at `key`, with data_hint's hint.
std::unique_ptr<data::Dataset> open_source(const std::string& key, const DataSpec& source,
                                           const std::vector<data::Field>& fields, uint64_t seed,
                                           const KeyLocations& keys);

//! Opens each data source of `data` (data.train, data.test, data.validation) and checks its fields
//! against the inputs of `g` as training would; an error without a location is located at its key.
std::vector<DataSourceInfo> inspect_sources(const ir::Graph& g, const std::map<std::string, DataSpec>& data,
                                            const KeyLocations& keys);

//! What a session keeps of its config, which api/session_api.cpp reads once: the settings, and apart from
//! them only the data specs and what a checkpoint records.
struct SessionConfig {
  Settings settings;                     //!< with mpirun's instances
  std::map<std::string, DataSpec> data;  //!< data.train, data.validation, data.test
  std::string config_text;               //!< the effective config (config::show): its hash marks a checkpoint's config
  std::string run_config;                //!< its run-defining keys' values, as a checkpoint records them
};

}  // namespace engine

struct Session::Impl : engine::SessionConfig {
  Impl(const Model& m, engine::SessionConfig c) : engine::SessionConfig(std::move(c)), model(m) {}

  Model model;
  planner::Plan plan;
  int64_t batch = 0;
  std::vector<data::Field> wanted;  // the model's inputs, per sample
  std::unique_ptr<data::Dataset> train_data;       // the whole `data.train` source
  std::unique_ptr<data::Dataset> train_view;       // what training reads: train_data less a validation split
  std::unique_ptr<data::Dataset> test_data;
  std::unique_ptr<data::Dataset> validation_file;  // `data.validation`
  std::unique_ptr<data::Dataset> validation_view;  // the validation set: validation_file or the split
  std::unique_ptr<data::Dataset> predict_file;     // a split opened for the inputs predict needs
  std::unique_ptr<data::Dataset> predict_view;
  std::unique_ptr<engine::HostWeights> host_weights;  // the weights of a model that does not train
  std::unique_ptr<engine::Cluster> cluster;           // training; holds the weights when present
  std::unique_ptr<engine::InferenceRun> inference;  // eval and predict on the plan, built on first use
  bool tracing = false;
  int64_t step = 0;  // weight updates done
  // Updates the loaded weights had had (a weight file's `step`, load_weights): a weight file
  // written without further training carries the step it was loaded with, byte for byte.
  int64_t loaded_step = 0;
  // Set by resume(): the next train() continues the checkpoint's run to its total, instead of
  // training another training.steps.
  bool resumed = false;
  // Checkpoint directories: the one resume() read (weakly canonical; a new run may write on
  // there), the one this session writes (claimed once), and whether a used one may be cleared.
  std::string resumed_dir;
  std::string claimed_dir;
  bool overwrite = false;

  // The weights live in the cluster (its first replica stands for all) when the model trains.
  ir::Tensor weight(ir::ValueId p) const {
    return cluster ? cluster->param(cluster->first_replica(), p) : host_weights->tensor(p);
  }
  bool has_weight(ir::ValueId p) const { return cluster ? true : host_weights->has(p); }
  void set_weight(ir::ValueId p, const void* data) const {
    if (!cluster) {
      std::memcpy(host_weights->tensor(p).data, data, host_weights->tensor(p).type->bytes());
      return;
    }
    for (int32_t r = cluster->first_replica(); r < cluster->first_replica() + cluster->local_replicas(); ++r) {
      ir::Tensor t = cluster->param(r, p);
      std::memcpy(t.data, data, t.type->bytes());
    }
  }

  // Fills parameter `p` from its initializer (keyed by the config seed and its path).
  void initialise(ir::ValueId p) const {
    if (!has_weight(p)) {
      return;
    }
    const ir::Graph& g = plan.graph;
    std::vector<float> init(static_cast<size_t>(g.type(p).numel()), 0.0f);
    fill_initializer(g.node(p), settings.plain.training_seed, init.data());
    set_weight(p, init.data());
  }

  // Puts the non-trainable parameters `state` that `file` lacks back to their initial values
  // (a file written before the model kept that state) and says so, one note per file.
  std::vector<std::string> reset_state(const std::vector<ir::ValueId>& state, const std::string& file) const {
    if (state.empty()) {
      return {};
    }
    std::vector<std::string> names;
    for (ir::ValueId p : state) {
      initialise(p);
      names.push_back(fmt::format("`{}`", plan.graph.node(p).name));
    }
    return {fmt::format(
        "`{}` has no tensor for the non-trainable state {} (written before the model kept it?): it "
        "starts from its initial value",
        file, fmt::join(names, ", "))};
  }

  uint64_t shuffle_seed() const { return settings.plain.data_seed; }

  // Opens the source `key` names for the model's inputs, or for `fields` when given (predict reads
  // only the inputs its values need).
  std::unique_ptr<data::Dataset> open(const std::string& key, const std::vector<data::Field>* fields = nullptr) const {
    const std::vector<data::Field>& want = fields != nullptr ? *fields : wanted;
    const engine::DataSpec& source = data.at(key);
    if (source.spec.empty()) {
      settings.keys.fail_at(key, fmt::format("`{}` is not set", key), "name a source, e.g. \"idx:DIR/train\"");
    }
    return engine::open_source(key, source, want, shuffle_seed(), settings.keys);
  }

  // The whole source `key` names ("data.train", "data.test" or "data.validation"), opened on
  // first use and kept: `check` describes it and training then reads the same one.
  data::Dataset& source(const std::string& key) {
    std::unique_ptr<data::Dataset>& kept =
        key == "data.train" ? train_data : (key == "data.test" ? test_data : validation_file);
    if (!kept) {
      kept = open(key);
    }
    return *kept;
  }

  // Throws Error(Usage) unless `split` names one: "test", "train", or "validation" when the config
  // validates.
  void check_split(const std::string& split) const {
    if (split == "validation" && !settings.validation.enabled) {
      throw Error(ErrorKind::Usage, "there is no validation split", {},
                  "set `data.validation` to a source, or `data.validation_split` to the fraction to hold out");
    }
    if (split != "test" && split != "train" && split != "validation") {
      throw Error(ErrorKind::Usage, fmt::format("unknown split '{}'", split), {}, "use test, train or validation");
    }
  }

  // The dataset of a checked split, opened on first use. "train" is what training reads: without
  // the samples data.validation_split holds out (the last ones by index, as Keras's split).
  data::Dataset& split_data(const std::string& split) {
    if (split == "test") {
      return source("data.test");
    }
    if (split == "validation" && !settings.plain.data_validation_split && !validation_view) {
      data::Dataset& file = source("data.validation");
      validation_view = std::make_unique<data::SubsetDataset>(file, 0, file.size());
    }
    if (!train_view && (split == "train" || !validation_view)) {
      source("data.train");
      const int64_t n = train_data->size();
      const int64_t kept = trained_share(n);
      if (settings.plain.data_validation_split > 0 && (kept < batch || n - kept < batch)) {
        settings.keys.fail_at("data.validation_split",
                              fmt::format("holding out {} of the {} training samples leaves {} to train on and {} to "
                                          "validate on, but each needs at least one micro-batch of {}",
                                          settings.plain.data_validation_split, n, kept, n - kept, batch),
                              "choose a split that leaves a micro-batch on both sides");
      }
      train_view = std::make_unique<data::SubsetDataset>(*train_data, 0, kept);
      if (settings.plain.data_validation_split > 0) {
        validation_view = std::make_unique<data::SubsetDataset>(*train_data, kept, n - kept);
      }
    }
    return split == "train" ? *train_view : *validation_view;
  }

  // Of `n` training samples, how many training reads: the rest (the last ones) data.validation_split holds out.
  int64_t trained_share(int64_t n) const {
    return static_cast<int64_t>(static_cast<double>(n) * (1.0 - settings.plain.data_validation_split));
  }
  // The samples of `split` with at least `fields` (predict.cpp).
  const data::Dataset& predict_data(const std::string& split, const std::vector<data::Field>& fields);

  // The session of `model` under what its config says, read once (api/session_api.cpp): plans the
  // model, or takes `plan` (made for the same model), then setup().
  static std::unique_ptr<Impl> make(const Model& model, engine::SessionConfig config);
  //! With a plan made beforehand (Plan::make); `plan_model` is the model it was made for.
  static std::unique_ptr<Impl> make(const Model& model, engine::SessionConfig config, const planner::Plan& plan,
                                    const std::string& plan_model);
  // Fills what the plan decides (batch, wanted inputs, cluster or host weights, initial weights).
  void setup();
  // request_stop(): the training loop stops after the execution under way.
  std::atomic<bool> stop_requested{false};

  // Writes a checkpoint into `dir`: step-N.safetensors (rotated by checkpoint.keep), or `file`
  // (e.g. best.safetensors, never rotated) when given (session_checkpoint.cpp).
  std::string save_checkpoint_as(const std::string& dir, const std::string& file);
  // Makes `dir` this session's checkpoint directory: refused (Error(Usage) located at
  // checkpoint.dir) when it holds another run's files, unless `overwrite` clears them; then
  // writes its run record (session_checkpoint.cpp).
  void claim_checkpoint_dir(const std::string& dir);
  // Where train() writes checkpoints: checkpoint.dir by the path rule; "" when checkpoints are off.
  std::string checkpoint_folder() const {
    return settings.plain.checkpoint_every == 0 ? std::string() : settings.plain.checkpoint_dir;
  }

  // set_data's split: "train", "test" or "validation" (Error(Usage) otherwise).
  static void check_data_split(const std::string& split) {
    if (split != "test" && split != "train" && split != "validation") {
      throw Error(ErrorKind::Usage, fmt::format("unknown split '{}'", split), {}, "use train, test or validation");
    }
  }
  // Replaces a split's dataset (Session::set_data); the views are made again from it on use.
  void set_split(const std::string& split, std::unique_ptr<data::Dataset> ds) {
    if (split == "test") {
      test_data = std::move(ds);
    } else if (split == "validation") {
      validation_file = std::move(ds);
      validation_view = std::make_unique<data::SubsetDataset>(*validation_file, 0, validation_file->size());
      settings.validation.enabled = true;  // validated on as if data.validation named it
      settings.plain.data_validation_split = 0;
    } else {
      train_data = std::move(ds);
      train_view.reset();
      if (settings.plain.data_validation_split > 0) {
        validation_view.reset();
      }
    }
  }

  // The mean of each output over every sample of `ds`, on the inference plan (session.cpp).
  EvalResult evaluate_on(const data::Dataset& ds, const char* label);
  // The inference cluster of a split's last micro-batch when it does not fill one, by its size:
  // the model built again at that size, or why it cannot be (session.cpp).
  struct TailRun {
    std::optional<Model> model;
    std::unique_ptr<engine::InferenceRun> run;
    std::vector<std::pair<ir::ValueId, ir::ValueId>> params;  // the session's parameter, the run's
    std::string why_not;
  };
  std::map<int64_t, TailRun> tail_runs;
  TailRun& tail_run(int64_t size);

  std::vector<size_t> field_indices(const data::Dataset& ds) const {
    std::vector<size_t> out;
    for (const auto& w : wanted) {
      for (size_t i = 0; i < ds.fields().size(); ++i) {
        if (ds.fields()[i].name == w.name) {
          out.push_back(i);
        }
      }
    }
    return out;
  }

  // Runs `run`; an error it throws that is located in the model (a trapped op: engine/fp_trap.hpp)
  // leaves with the model's sources, so that it prints its file:line:col and source line.
  template <class F>
  void with_model_sources(F&& run) const {
    try {
      run();
    } catch (Error& e) {
      e.with_sources(model.sources());
      throw;
    }
  }

  // The inference cluster, planned on first use, holding the session's current weights.
  engine::InferenceRun& inference_run() {
    if (!inference) {
      inference = plan_inference(graph_of(model), false);
    }
    set_weights(*inference);
    return *inference;
  }
  // An inference cluster for `forward` (predict: `predict_outputs` keeps the per-sample outputs).
  std::unique_ptr<engine::InferenceRun> plan_inference(const ir::Graph& forward, bool predict_outputs) const {
    try {
      return std::make_unique<engine::InferenceRun>(forward, settings, predict_outputs);
    } catch (Error& e) {
      throw e.with_sources(model.sources());
    }
  }
  // Gives `run` the session's current weights.
  void set_weights(engine::InferenceRun& run) const {
    for (ir::ValueId p : plan.graph.params) {
      if (has_weight(p) && run.has_param(p)) {
        run.set_param(p, weight(p).f32());
      }
    }
  }
};

}  // namespace iputrain
