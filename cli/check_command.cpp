// `iputrain check MODEL CONFIG`: parses and checks the model against the config, prints its
// inputs, parameters and FLOPs, plans it and opens its data sources as training would.
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <algorithm>

#include "cli/command.hpp"
#include "cli/commands.hpp"
#include "iputrain/iputrain.hpp"

namespace iputrain::cli {

namespace {

// Every data source opened as training opens it (once: the session keeps it for the checks after),
// each field beside the input it feeds: a misspelt kind or a missing file fails here, located at its
// key, not after planning a run. Then what train checks of the data before its first step.
void check_data(const Model& model, const ResolvedConfig& run, const Plan& plan) {
  const std::vector<TensorInfo> inputs = model.inputs();
  const Config& config = run.config();
  Session session(model, run, plan);  // the plan made by check, not a second one
  for (const DataSourceInfo& d : session.data_sources()) {
    fmt::print("{}: {}, {} samples\n", d.key, d.path, d.samples);
    for (const TensorInfo& f : d.fields) {
      const bool feeds =
          std::any_of(inputs.begin(), inputs.end(), [&](const TensorInfo& t) { return t.name == f.name; });
      fmt::print("  {:<32} {}[{}]  {}\n", f.name, f.dtype, fmt::join(f.shape, ", "),
                 feeds ? "-> input " + f.name : std::string("(not an input: unused)"));
    }
    // An image folder's labels are indices into its sorted class folders: show which is which.
    if (!d.classes.empty()) {
      std::vector<std::string> numbered;
      for (size_t i = 0; i < d.classes.size(); ++i) {
        numbered.push_back(fmt::format("{} {}", i, d.classes[i]));
      }
      fmt::print("  classes: {}\n", fmt::join(numbered, ", "));
    }
  }
  // A batch larger than the training split, a validation split without a micro-batch.
  if (!config.plain.data_train.empty()) {
    session.check_training_data();
    fmt::print("training data: ok\n");
  }
}

int run_check(const CommonArgs& args) {
  auto [config, model, run] = load(args);
  fmt::print("model {}: ok\n", model.name());
  fmt::print("stages: {}\n", fmt::join(model.stages(), ", "));
  fmt::print("inputs:\n");
  for (const TensorInfo& t : model.inputs()) {
    fmt::print("  {:<32} {}[{}]\n", t.name, t.dtype, fmt::join(t.shape, ", "));
  }
  fmt::print("parameters:\n");
  for (const TensorInfo& t : model.parameters()) {
    fmt::print("  {:<32} {}[{}]  {}{}\n", t.name, t.dtype, fmt::join(t.shape, ", "), t.numel(),
               t.trainable ? "" : "  (non-trainable)");
  }
  fmt::print("outputs: {}\n", fmt::join(model.outputs(), ", "));
  fmt::print("total parameters: {}\n", model.parameter_count());
  fmt::print("FLOPs per sample (forward): {:.0f}\n", model.flops_per_sample());
  // The plan checks the config against the model (stages, mapping, accumulation, batch), so
  // `check` refuses whatever `plan` and `train` would.
  const Plan plan = Plan::make(model, run);
  fmt::print("plan: {} replica{} x {} IPU{}, {} schedule\n", plan.replicas(), plan.replicas() == 1 ? "" : "s",
             plan.ipus_per_replica(), plan.ipus_per_replica() == 1 ? "" : "s", plan.schedule());
  if (!config.plain.data_train.empty() || !config.plain.data_test.empty() || !config.plain.data_validation.empty()) {
    check_data(model, run, plan);
  }
  return 0;
}

Runner add_check(CLI::App& cmd) {
  auto a = std::make_shared<CommonArgs>();
  add_common(cmd, *a);
  return [a](const CommandLine&) { return run_check(*a); };
}

}  // namespace

const CommandDef kCheckCommand{"check", "parse and check; print parameters and FLOPs per sample", add_check};

}  // namespace iputrain::cli
