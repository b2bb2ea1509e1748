// Session(model, Config): the config a session is made with, read once into engine::SessionConfig
// (the settings resolved with mpirun's instances, the data specs and what checkpoints record); the
// engine plans and builds the session from that (engine/session.cpp), and never sees the Config.
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "api/instances_config.hpp"
#include "api/plan_access.hpp"
#include "engine/checkpoint.hpp"
#include "engine/session_impl.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/session.hpp"

namespace iputrain {

namespace api {

namespace {

// Every run-defining key (its row says so: config::defines_run) with its value as TOML text, the model's
// parameters as `model.NAME`: what a checkpoint records as `run_config`.
std::string run_config_text(const Config& config) {
  std::map<std::string, std::string> values;
  for (const std::string& key : config::keys()) {
    const std::optional<std::string> v = config::defines_run(key) ? config::value_text(config, key) : std::nullopt;
    if (v) {
      values[key] = *v;
    }
  }
  for (const auto& [name, value] : config.model) {
    values["model." + name] = param_value_str(value);
  }
  return engine::run_config_text(values);
}

// The one reading of the config a session is made with: the settings resolved once (with the
// instances mpirun started), the data specs with their folders, what checkpoints record.
engine::SessionConfig session_config(const Config& config) {
  Config run = with_instances(config);
  engine::SessionConfig out;
  out.settings = config::resolve(run);
  for (const auto& [key, spec] : {std::pair<std::string, std::string>{"data.train", run.data.train},
                                  {"data.validation", run.data.validation},
                                  {"data.test", run.data.test}}) {
    out.data[key] = {spec, run.base_dir_of(key), run.resolve_data_spec(key, spec)};
  }
  out.config_text = config::show(config, /*rebase_paths=*/false);
  out.run_config = run_config_text(config);
  return out;
}

}  // namespace

}  // namespace api

Session::Session(const Model& model, const Config& config) : impl_(Impl::make(model, api::session_config(config))) {}

Session::Session(const Model& model, const Config& config, const Plan& plan)
    : impl_(Impl::make(model, api::session_config(config), plan_of(plan), plan.model_name())) {}

}  // namespace iputrain
