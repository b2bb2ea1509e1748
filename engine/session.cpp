// Session: the public face of the engine. It plans the model under the settings its config was read
// into (api/session_api.cpp), builds the virtual IPU cluster the plan asks for (engine/cluster/),
// binds the replicas' infeeds to the model's inputs and drives the device executions
// (steps_per_execution weight updates per host call), handing the outfeed to the host after every
// execution. Evaluation runs the forward program on the inference plan (engine/inference.hpp) holding
// a copy of the trained weights, over every sample of a split.
#include "iputrain/session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <variant>

#include "core/data/dataset.hpp"
#include "core/data/safetensors.hpp"
#include "core/init.hpp"
#include "core/ir/graph.hpp"
#include "core/optim/lr_schedule.hpp"
#include "engine/checkpoint.hpp"
#include "engine/cluster/cluster.hpp"
#include "engine/distributed/instances_config.hpp"
#include "engine/host_weights.hpp"
#include "engine/infeed.hpp"
#include "engine/profile_report.hpp"
#include "engine/scalar_mean.hpp"
#include "engine/session_impl.hpp"
#include "engine/validation_cadence.hpp"
#include "frontend/model_access.hpp"
#include "planner/plan.hpp"

namespace iputrain {

namespace {

// The training time (device executions only) when the first execution of a train() call ended:
// the steady-state rate leaves out its one-off costs (first touch of the arenas, starting the
// threads, filling the infeed).
class FirstExecution {
 public:
  void ended(int64_t steps, double train_seconds) {
    if (steps_ < 0) {
      steps_ = steps;
      seconds_ = train_seconds;
    }
  }
  //! samples/s after it, for `steps` steps of `batch` in all over `train_seconds`; `overall` when
  //! there was no other execution.
  double steady_rate(int64_t steps, int64_t batch, double train_seconds, double overall) const {
    const double seconds = steps_ >= 0 ? train_seconds - seconds_ : 0.0;
    return steps > steps_ && seconds > 0 ? static_cast<double>((steps - steps_) * batch) / seconds : overall;
  }

 private:
  int64_t steps_ = -1;
  double seconds_ = 0;
};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// An execution's steps as records: numbers after `done`, learning rates, the outputs' values.
void read_records(engine::Cluster& cluster, const Settings& run, int64_t done, int64_t n, size_t outputs,
                  std::vector<StepRecord>& records) {
  records.resize(static_cast<size_t>(n), StepRecord{0, std::vector<double>(outputs)});
  for (int64_t i = 0; i < n; ++i) {
    StepRecord& r = records[static_cast<size_t>(i)];
    r.step = done + i + 1;
    r.learning_rate = engine::learning_rate_at(run, r.step);
    for (size_t k = 0; k < outputs; ++k) {
      r.values[k] = cluster.step_value(i, k);
    }
  }
}

}  // namespace

std::unique_ptr<Session::Impl> Session::Impl::make(const Model& model, engine::SessionConfig config) {
  auto impl = std::make_unique<Impl>(model, std::move(config));
  Impl& s = *impl;
  try {
    s.plan = planner::make_plan(graph_for(model, s.settings), s.settings);
  } catch (Error& e) {
    throw e.with_sources(model.sources());  // errors located in the model (config ones have theirs)
  }
  s.setup();
  return impl;
}

std::unique_ptr<Session::Impl> Session::Impl::make(const Model& model, engine::SessionConfig config,
                                                   const planner::Plan& plan, const std::string& plan_model) {
  auto impl = std::make_unique<Impl>(model, std::move(config));
  Impl& s = *impl;
  if (plan_model != model.name()) {
    throw Error(ErrorKind::Usage, fmt::format("the plan was made for model `{}`, not `{}`", plan_model, model.name()),
                {}, "make the plan with Plan::make(model, config) for the same model and config");
  }
  s.plan = plan;
  s.setup();
  return impl;
}

void Session::Impl::setup() {
  Impl& s = *this;
  const ir::Graph& g = s.plan.graph;
  // The planner has checked that there are inputs and that each leads with the batch.
  s.batch = g.type(g.inputs.front()).shape.front();
  s.wanted = engine::input_fields(g);

  // Training keeps the weights in the cluster; a model that does not train keeps them on the host
  // (eval and predict run on the inference cluster either way).
  if (g.loss != ir::kNoValue) {
    s.cluster = std::make_unique<engine::Cluster>(s.plan, s.settings, engine::instance_of(s.plan, s.settings.keys));
  } else {
    s.host_weights = std::make_unique<engine::HostWeights>(g);
  }
  if (!s.settings.plain.ipu_serialization_output_folder.empty()) {
    engine::write_executable(s.plan, s.model.name(), s.settings.plain.ipu_serialization_output_folder);
  }
  for (ir::ValueId p : g.params) {
    s.initialise(p);
  }
}

Session::~Session() = default;

int64_t Session::planned_steps() const {
  const Impl& s = *impl_;
  if (s.settings.plain.training_steps > 0) {
    return s.settings.plain.training_steps;
  }
  // The dataset is opened on first use, even by this const query.
  const data::Dataset& train_data = const_cast<Impl&>(s).split_data("train");
  // Epochs count micro-batches of the sample stream; a weight update takes accumulation x replicas.
  const double per_epoch = static_cast<double>(train_data.size() / s.batch) /
                           static_cast<double>(s.plan.global_batch() / s.batch);
  const double epochs = s.settings.plain.training_epochs;
  return std::max<int64_t>(1, static_cast<int64_t>(std::llround(epochs * per_epoch)));
}

int64_t Session::global_batch() const { return impl_->plan.global_batch(); }

namespace {

void finish_run(const Session& session, Session::Impl& s, TrainSummary& summary);

// The loop of one train() call: its executions, the validations and checkpoints between them.
struct TrainLoop {
  Session& session;
  Session::Impl& s;
  TrainSummary& summary;
  Progress& progress;
  const std::string checkpoint_folder;
  const int64_t end;
  const int64_t every;  // checkpoint.every
  const int64_t global_batch;
  const double updates_per_epoch;
  const data::Dataset* validation = nullptr;
  int64_t next_validation = 0;
  int64_t best_output = -1;  // the output checkpoint.keep_best follows (-1: none)
  bool have_best = false;

  // training.validate_every counts epochs (else weight updates).
  bool by_epochs() const { return s.settings.plain.training_validate_every_unit == ValidateEveryUnit::Epochs; }

  void open_validation() {
    const ValidationSettings& vs = s.settings.validation;
    validation = vs.enabled ? &s.split_data("validation") : nullptr;
    next_validation = validation ? engine::next_validation(s.step, s.settings.plain.training_validate_every,
                                                           by_epochs(), updates_per_epoch)
                                 : end;
    if (!validation || s.settings.plain.checkpoint_keep_best.empty()) {
      return;
    }
    const std::vector<std::string> names = session.validation_names();
    const auto it = std::find(names.begin(), names.end(), s.settings.plain.checkpoint_keep_best);
    if (it == names.end()) {
      const std::string near = nearest_name(s.settings.plain.checkpoint_keep_best, names);
      s.settings.keys.fail_at("checkpoint.keep_best",
                              fmt::format("`checkpoint.keep_best` = \"{}\" is not a validation metric of model `{}`",
                                          s.settings.plain.checkpoint_keep_best, s.model.name()),
                              near.empty() ? fmt::format("its metrics are: {}", fmt::join(names, ", "))
                                           : fmt::format("did you mean \"{}\"?", near));
    }
    best_output = it - names.begin();
  }

  // Weight updates of the next execution: it ends on every checkpoint and validation step.
  int64_t execution_length(int64_t per_execution) const {
    int64_t n = std::min(per_execution, end - s.step);
    if (!checkpoint_folder.empty() && every > 0) {
      n = std::min(n, every - s.step % every);
    }
    if (validation) {
      n = std::min(n, next_validation - s.step);
    }
    return n;
  }

  // Runs `n` weight updates and reads their records; their seconds.
  double execute(int64_t n) {
    const auto exec_start = std::chrono::steady_clock::now();
    s.with_model_sources([&] { s.cluster->execute(s.step, n); });
    const double exec_seconds = seconds_since(exec_start);
    summary.train_seconds += exec_seconds;
    read_records(*s.cluster, s.settings, s.step, n, summary.output_names.size(), progress.records);
    s.step += n;
    return exec_seconds;
  }

  // Validates when due (and after the last step); keeps the best checkpoint.
  void after_execution() {
    progress.validations.clear();
    if (!validation || (s.step < next_validation && s.step != end)) {
      return;
    }
    const auto validation_start = std::chrono::steady_clock::now();
    const double begin_us = s.cluster->now_us();
    const EvalResult r = s.evaluate_on(*validation, "validation");
    ValidationRecord v{s.step, static_cast<double>(s.step) / updates_per_epoch, {}};
    engine::HostSpan span{"validation", begin_us, s.cluster->now_us(), s.step, {}};
    for (const auto& o : s.plan.graph.outputs) {
      v.values.push_back(r.means.at(o.name));
      span.values.emplace_back("val_" + o.name, v.values.back());
    }
    s.cluster->add_host_span(std::move(span));
    progress.validations.push_back(v);
    summary.validations.push_back(v);
    next_validation =
        engine::next_validation(s.step, s.settings.plain.training_validate_every, by_epochs(), updates_per_epoch);
    summary.validation_seconds += seconds_since(validation_start);
    // checkpoint.keep_best: a value better by more than keep_best_min_delta replaces best.safetensors
    // (never rotated away).
    const double value = best_output >= 0 ? v.values[static_cast<size_t>(best_output)] : 0.0;
    const double delta = s.settings.plain.checkpoint_keep_best_min_delta;
    if (best_output >= 0 && !checkpoint_folder.empty() &&
        (!have_best ||
         (s.settings.plain.checkpoint_keep_best_mode == KeepBestMode::Max ? value > summary.best_value + delta
                                                                          : value < summary.best_value - delta))) {
      have_best = true;
      summary.best_value = value;
      summary.best_checkpoint = s.save_checkpoint_as(checkpoint_folder, "best.safetensors");
    }
  }

  // Saves a checkpoint on every `every` steps, at the end and when stopping; whether it did.
  bool checkpoint_if_due() {
    if (!checkpoint_folder.empty() && ((every > 0 && s.step % every == 0) || s.step == end || s.stop_requested)) {
      summary.checkpoints.push_back(session.save_checkpoint(checkpoint_folder));
      return true;
    }
    return false;
  }
};

}  // namespace

void Session::check_training_data() {
  Impl& s = *impl_;
  const data::Dataset& train_data = s.split_data("train");
  engine::Sampler(train_data.size(), s.batch, false, 0);  // throws below one micro-batch
  if (s.settings.validation.enabled) {
    s.split_data("validation");
  }
}

TrainSummary Session::train(const std::function<void(const Progress&)>& on_progress) {
  Impl& s = *impl_;
  if (s.plan.graph.loss == ir::kNoValue) {
    throw Error(ErrorKind::Semantic, "the model has no `minimize` objective, so it cannot be trained", {},
                "add `minimize LOSS` to the model");
  }
  check_training_data();
  const data::Dataset& train_data = s.split_data("train");
  // training.steps (or epochs) counts the run from step 0: a resumed session only finishes it.
  const int64_t end = s.resumed ? std::max(s.step, planned_steps()) : s.step + planned_steps();
  s.resumed = false;
  const int64_t total = end - s.step;
  TrainSummary summary;
  summary.output_names = output_names();
  if (total == 0) {
    return summary;
  }
  const int64_t per_execution = s.cluster->updates_per_execution();
  const std::string checkpoint_folder = s.checkpoint_folder();
  if (!checkpoint_folder.empty() && engine::writes_run_files()) {
    s.claim_checkpoint_dir(checkpoint_folder);  // before the first step: a used directory is refused at once
  }
  engine::Sampler sampler(train_data.size(), s.batch, s.settings.plain.data_shuffle, s.shuffle_seed());
  const int64_t global_batch = s.plan.global_batch();
  const double updates_per_epoch =
      static_cast<double>(sampler.steps_per_epoch()) / static_cast<double>(global_batch / s.batch);
  s.cluster->record_events(s.tracing || engine::profile_records_events(s.settings));
  s.cluster->open_feeds({&train_data, s.field_indices(train_data), sampler}, s.step, total);
  struct CloseFeeds {
    engine::Cluster& cluster;
    ~CloseFeeds() { cluster.close_feeds(); }
  } close_feeds{*s.cluster};

  Progress progress;
  TrainLoop loop{*this,
                 s,
                 summary,
                 progress,
                 checkpoint_folder,
                 end,
                 s.settings.plain.checkpoint_every,
                 global_batch,
                 updates_per_epoch};
  // Validation (data.validation or data.validation_split): opened before the first step, so a bad
  // source fails at once; run on the inference plan between executions.
  loop.open_validation();
  progress.total_steps = end;
  progress.steps_per_epoch = std::max<int64_t>(1, static_cast<int64_t>(updates_per_epoch));
  progress.records.assign(static_cast<size_t>(std::min(per_execution, total)),
                          StepRecord{0, std::vector<double>(summary.output_names.size())});
  const auto start = std::chrono::steady_clock::now();
  FirstExecution first;
  const int64_t start_step = s.step;
  s.stop_requested = false;
  bool stopping = false;
  while (s.step < end && !stopping) {
    const int64_t n = loop.execution_length(per_execution);
    const double exec_seconds = loop.execute(n);  // the rates' time: validation is apart
    loop.after_execution();
    const bool saved = loop.checkpoint_if_due();
    if (on_progress) {
      progress.step = s.step;
      progress.epoch = static_cast<double>(s.step) / updates_per_epoch;
      progress.samples_per_second = exec_seconds > 0 ? static_cast<double>(n * global_batch) / exec_seconds : 0;
      progress.elapsed_seconds = seconds_since(start);
      progress.samples = (s.step - start_step) * global_batch;
      progress.train_seconds = summary.train_seconds;
      on_progress(progress);
    }
    summary.last_values = progress.records[static_cast<size_t>(n - 1)].values;
    summary.learning_rate = progress.records[static_cast<size_t>(n - 1)].learning_rate;
    first.ended(s.step - start_step, summary.train_seconds);
    // A stop asked for by the callback (or a signal) on any instance stops them all after the same
    // execution, and the state they stopped at is saved too.
    stopping = s.cluster->any_instance(s.stop_requested);
    if (stopping && !saved && !checkpoint_folder.empty()) {
      summary.checkpoints.push_back(save_checkpoint(checkpoint_folder));
    }
  }
  summary.stopped = s.step < end;
  summary.steps = total - (end - s.step);
  summary.samples = summary.steps * global_batch;
  summary.seconds = seconds_since(start);
  summary.samples_per_second =
      summary.train_seconds > 0 ? static_cast<double>(summary.samples) / summary.train_seconds : 0;
  summary.steady_samples_per_second =
      first.steady_rate(summary.steps, global_batch, summary.train_seconds, summary.samples_per_second);
  finish_run(*this, s, summary);
  return summary;
}

namespace {

// After the last execution of a train() call: the report gathered, the loss scale read, the profile written.
void finish_run(const Session& session, Session::Impl& s, TrainSummary& summary) {
  s.cluster->gather_report();
  const engine::LossScaleState loss_scale = s.cluster->loss_scale();
  summary.skipped_updates = loss_scale.skipped;
  summary.loss_scale = loss_scale.scale;
  if (engine::profile_wanted(s.settings) && engine::writes_run_files()) {
    const RunReport report = session.run_report();
    summary.profile_directory =
        engine::write_profile({s.plan, s.model.name(), report, s.cluster->recorder(),
                               std::max<int64_t>(1, s.settings.plain.training_steps_per_execution) *
                                   std::max<int64_t>(1, s.settings.plain.pipeline_repeat_count),
                               s.model.sources().get(), s.config_text});
  }
}

// Each output's mean over a micro-batch, summed over the micro-batches in order.
engine::InferenceRun::Sink add_means(const ir::Graph& g, std::vector<double>& sums) {
  sums.assign(g.outputs.size(), 0.0);
  return [&g, &sums](int64_t, const std::vector<const double*>& out) {
    for (size_t k = 0; k < g.outputs.size(); ++k) {
      const int64_t n = g.type(g.outputs[k].value).numel();
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        sum += out[k][i];
      }
      sums[k] += n > 0 ? sum / static_cast<double>(n) : 0.0;
    }
  };
}

// `m` built again with its int parameter `batch` at `size`, its other parameters as they were;
// nothing when `batch` is not what its inputs lead with (`now`): the model fixes its batch.
std::optional<Model> model_at_batch(const Model& m, int64_t now, int64_t size) {
  std::map<std::string, ParamValue> params = m.compile_time_params();
  const auto it = params.find("batch");
  if (it == params.end() || !std::holds_alternative<int64_t>(it->second) || std::get<int64_t>(it->second) != now) {
    return std::nullopt;
  }
  it->second = size;
  const SourceManager& sources = *m.sources();
  Model at = Model::parse(sources.text(0), sources.path(0), params);
  const ir::Graph& g = graph_of(at);
  if (g.inputs.empty() || g.type(g.inputs.front()).shape.front() != size) {
    return std::nullopt;
  }
  return at;
}

}  // namespace

// The model and its inference plan at the size of a split's last micro-batch, built on first use
// with the placement of every other micro-batch (the same stages, replicas and schedule), so that
// every plan computes it as one IPU does; holding the session's current weights.
Session::Impl::TailRun& Session::Impl::tail_run(int64_t size) {
  TailRun& t = tail_runs[size];
  if (!t.run && t.why_not.empty()) {
    try {
      t.model = model_at_batch(model, batch, size);
      if (!t.model) {
        t.why_not = fmt::format("model `{}` fixes its batch (no int parameter `batch` sets it)", model.name());
        return t;
      }
      Settings at = settings;
      at.model_batch = settings.model_batch != 0 ? size : 0;
      at.plain.data_batch_size =
          settings.plain.data_batch_size != 0 ? size * settings.plain.pipeline_batch_serialization_iterations : 0;
      t.run = std::make_unique<engine::InferenceRun>(graph_of(*t.model), at, false);
      // The parameters by name: the rebuilt graph numbers its values afresh.
      const ir::Graph& g = t.run->plan().graph;
      for (ir::ValueId q : g.params) {
        const auto p = std::find_if(plan.graph.params.begin(), plan.graph.params.end(),
                                    [&](ir::ValueId v) { return plan.graph.node(v).name == g.node(q).name; });
        if (p == plan.graph.params.end() || plan.graph.type(*p).shape != g.type(q).shape) {
          throw Error(ErrorKind::Semantic, fmt::format("parameter `{}` changes with the batch", g.node(q).name));
        }
        t.params.emplace_back(*p, q);
      }
    } catch (const Error& e) {
      t.run.reset();
      t.params.clear();
      t.why_not = fmt::format("model `{}` cannot run a batch of {}: {}", model.name(), size, e.diagnostic().message);
      return t;
    }
  }
  for (const auto& [p, q] : t.params) {
    if (has_weight(p)) {
      t.run->set_param(q, weight(p).f32());
    }
  }
  return t;
}

// Every sample counts once: the whole micro-batches as one plan runs them, then the last one that
// does not fill a micro-batch at its own size (tail_run). The mean over the split weighs each
// micro-batch's mean by its samples; over whole micro-batches alone that is their plain mean.
EvalResult Session::Impl::evaluate_on(const data::Dataset& ds, const char* label) {
  const int64_t batches = ds.size() / batch;
  const int64_t rest = ds.size() - batches * batch;
  engine::InferenceRun& run = inference_run();
  const ir::Graph& g = run.plan().graph;
  std::vector<double> sums;
  with_model_sources([&] { run.run(ds, field_indices(ds), batches, label, add_means(g, sums)); });
  EvalResult r;
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    r.means[g.outputs[k].name] = batches > 0 ? sums[k] / static_cast<double>(batches) : 0.0;
  }
  r.samples = batches * batch;
  r.ipus = run.physical_ipus();
  r.replicas = run.plan().placement.replicas;
  TailRun* tail = rest > 0 ? &tail_run(rest) : nullptr;
  if (tail == nullptr || !tail->run) {
    r.skipped = rest;
    r.skipped_why = tail != nullptr ? tail->why_not : std::string();
    return r;
  }
  const data::SubsetDataset last(ds, batches * batch, rest);
  const ir::Graph& tg = tail->run->plan().graph;
  std::vector<double> tail_sums;
  with_model_sources([&] { tail->run->run(last, field_indices(last), 1, label, add_means(tg, tail_sums)); });
  for (size_t k = 0; k < tg.outputs.size(); ++k) {
    double& mean = r.means[tg.outputs[k].name];
    mean = batches == 0 ? tail_sums[k]
                        : (mean * static_cast<double>(r.samples) + tail_sums[k] * static_cast<double>(rest)) /
                              static_cast<double>(ds.size());
  }
  r.samples = ds.size();
  r.last_batch = rest;
  return r;
}

EvalResult Session::evaluate(const std::string& split) {
  Impl& s = *impl_;
  s.check_split(split);
  return s.evaluate_on(s.split_data(split), split == "validation" ? "validation" : "evaluation");
}

std::vector<std::string> Session::validation_names() const {
  std::vector<std::string> out;
  for (const auto& o : impl_->plan.graph.outputs) {
    out.push_back("val_" + o.name);
  }
  return out;
}

std::vector<std::string> Session::output_names() const {
  std::vector<std::string> out;
  for (const auto& o : impl_->plan.graph.outputs) {
    out.push_back(o.name);
  }
  return out;
}

std::vector<WeightInfo> Session::weights() const {
  const Impl& s = *impl_;
  std::vector<WeightInfo> out;
  for (ir::ValueId p : s.plan.graph.params) {
    if (!s.has_weight(p)) {
      continue;
    }
    ir::Tensor t = s.weight(p);
    out.push_back({s.plan.graph.node(p).name, t.shape(), std::vector<float>(t.f32(), t.f32() + t.numel()),
                   ir::trainable(s.plan.graph.node(p))});
  }
  return out;
}

void Session::save_weights(const std::string& path) const {
  if (!engine::writes_run_files()) {
    return;  // several instances hold the same weights; the first writes them
  }
  std::vector<data::NamedTensor> tensors;
  for (const WeightInfo& w : weights()) {
    tensors.push_back(engine::f32_tensor(w.name, w.shape, w.values.data()));
  }
  engine::write_weight_file(path, tensors, impl_->model.name(), impl_->loaded_step + impl_->step);
}

std::vector<std::string> Session::load_weights(const std::string& path) {
  Impl& s = *impl_;
  const data::SafetensorsFile file = engine::read_weights(path);
  const ir::Graph& g = s.plan.graph;
  // Walk the model's parameters in declaration order so the first problem reported is the
  // first parameter that does not fit.
  std::vector<std::string> names;
  std::vector<bool> used(file.tensors.size(), false);
  std::vector<ir::ValueId> missing_state;
  for (ir::ValueId p : g.params) {
    const std::string& name = g.node(p).name;
    names.push_back(name);
    size_t i = 0;
    while (i < file.tensors.size() && file.tensors[i].name != name) {
      ++i;
    }
    if (i == file.tensors.size() && !ir::trainable(g.node(p))) {
      // A file written before the model had this state (moving statistics): it starts afresh.
      missing_state.push_back(p);
      continue;
    }
    if (i == file.tensors.size()) {
      throw Error(ErrorKind::Data, fmt::format("{}: no tensor for parameter `{}`", path, name), {},
                  "the file must hold every trainable parameter of the model");
    }
    const data::NamedTensor& t = file.tensors[i];
    ir::Tensor w = s.weight(p);
    if (t.dtype != DType::F32 || t.shape != w.shape()) {
      throw Error(ErrorKind::Data,
                  fmt::format("{}: tensor `{}` is {}{} but the model's parameter is {}", path, t.name,
                              dtype_name(t.dtype), shape_str(t.shape), w.type->str()),
                  {}, "the weights were saved from a model with other sizes");
    }
    used[i] = true;
  }
  for (size_t i = 0; i < file.tensors.size(); ++i) {
    if (!used[i]) {
      const std::string near = nearest_name(file.tensors[i].name, names);
      throw Error(ErrorKind::Data,
                  fmt::format("{}: tensor `{}` is not a parameter of the model", path, file.tensors[i].name), {},
                  near.empty() ? "the weights were saved from another model" : "did you mean `" + near + "`?");
    }
  }
  // Only copy once the whole file is known to fit, so a bad file leaves the weights untouched.
  for (ir::ValueId p : g.params) {
    for (const data::NamedTensor& t : file.tensors) {
      if (t.name == g.node(p).name) {
        s.set_weight(p, t.bytes.data());
      }
    }
  }
  const auto step = file.metadata.find("step");
  s.loaded_step = 0;
  if (step != file.metadata.end()) {
    try {
      s.loaded_step = std::max<int64_t>(0, std::stoll(step->second)) - s.step;
    } catch (const std::exception&) {
      s.loaded_step = 0;  // a file of another tool: its weights have no step of ours
    }
  }
  return s.reset_state(missing_state, path);
}

std::vector<int64_t> Session::memory_per_ipu() const {
  if (impl_->cluster) {
    return impl_->cluster->bytes_allocated();
  }
  return impl_->inference ? impl_->inference->cluster().bytes_allocated() : std::vector<int64_t>{};
}

OutfeedLayout Session::outfeed_layout() const {
  const Impl& s = *impl_;
  OutfeedLayout l;
  if (!s.cluster) {
    return l;
  }
  const engine::OutfeedSpec& spec = s.cluster->outfeed().spec();
  l.names = spec.names;
  l.last_only = spec.last_only;
  l.accumulated = spec.accumulate;
  l.micro_batches = spec.accumulate ? 1 : std::max<int64_t>(1, s.plan.decided.accumulation_count);
  l.replicas = s.plan.placement.replicas;
  return l;
}

std::vector<OutfeedTensor> Session::dequeue_outfeed() {
  return impl_->cluster ? impl_->cluster->outfeed().dequeue() : std::vector<OutfeedTensor>{};
}

RunReport Session::run_report() const { return impl_->cluster ? impl_->cluster->report() : RunReport{}; }

void Session::record_trace(bool on) { impl_->tracing = on; }

void Session::write_trace(const std::string& path) const {
  const Impl& s = *impl_;
  if (!s.cluster || !s.tracing) {
    throw Error(ErrorKind::Usage, "no trace was recorded", {}, "call record_trace(true) before train()");
  }
  if (!engine::writes_run_files()) {
    return;  // the first instance writes the run's files
  }
  s.cluster->recorder().write_chrome_trace(path, s.plan.decided.device.clock_hz, engine::Recorder::kMaxTraceEvents,
                                           s.settings.plain.pipeline_name);
}

}  // namespace iputrain
