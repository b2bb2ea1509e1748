// Session(model, config): the resolved config a session is made with, read into engine::SessionConfig
// (its settings, with mpirun's instances, the data specs and what checkpoints record); the
// engine plans and builds the session from that (engine/session.cpp), and never sees the Config.
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "api/plan_access.hpp"
#include "engine/checkpoint.hpp"
#include "engine/session_impl.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/instances.hpp"
#include "iputrain/session.hpp"

namespace iputrain {

namespace api {

namespace {

// Every run-defining key (its row says so: config::defines_run) with its value as TOML text (as written, or
// as `settled` holds it where the row says so: config::records_settled), the model's parameters as
// `model.NAME`: what a checkpoint records as `run_config`.
std::string run_config_text(const Config& config, const PlainKeys& settled) {
  Config at_settled = config;
  at_settled.plain = settled;
  std::map<std::string, std::string> values;
  for (const std::string& key : config::keys()) {
    const Config& from = config::records_settled(key) ? at_settled : config;
    const std::optional<std::string> v = config::defines_run(key) ? config::value_text(from, key) : std::nullopt;
    if (v) {
      values[key] = *v;
    }
  }
  for (const auto& [name, value] : config.model) {
    values["model." + name] = param_value_str(value);
  }
  return engine::run_config_text(values);
}

// The data sources the config names, with the folders their relative paths are in.
std::map<std::string, engine::DataSpec> data_specs(const Config& config) {
  std::map<std::string, engine::DataSpec> out;
  for (const auto& [key, spec] : {std::pair<std::string, std::string>{"data.train", config.plain.data_train},
                                  {"data.validation", config.plain.data_validation},
                                  {"data.test", config.plain.data_test}}) {
    out[key] = {spec, config.base_dir_of(key), config.resolve_data_spec(key, spec), config.set_in_file(key)};
  }
  return out;
}

// The one reading of the config a session is made with: the settings as resolved (again only
// when they lack the instances mpirun started), the data specs with their folders, what
// checkpoints record.
engine::SessionConfig session_config(const ResolvedConfig& given) {
  const Instances launched = current_instances();
  const Config& config = given.config();
  engine::SessionConfig out;
  out.settings = given.instances() == launched ? given.settings() : ResolvedConfig(config, launched).settings();
  out.data = data_specs(config);
  out.config_text = config::show(config, /*rebase_paths=*/false);
  out.run_config = run_config_text(config, out.settings.plain);
  return out;
}

}  // namespace

}  // namespace api

Session::Session(const Model& model, const ResolvedConfig& config)
    : impl_(Impl::make(model, api::session_config(config))) {}

Session::Session(const Model& model, const ResolvedConfig& config, const Plan& plan)
    : impl_(Impl::make(model, api::session_config(config), plan_of(plan), plan.model_name())) {}

std::vector<DataSourceInfo> inspect_data_sources(const Model& model, const ResolvedConfig& config) {
  return engine::inspect_sources(graph_of(model), api::data_specs(config.config()), config.settings().keys);
}

}  // namespace iputrain
