// `iputrain config show|explain|keys|docs`: the config schema from the command line.
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "cli/command.hpp"
#include "cli/commands.hpp"
#include "iputrain/iputrain.hpp"

namespace iputrain::cli {

namespace {

struct ConfigShowArgs {
  std::string config;
  std::vector<std::string> sets;  //!< --set key=value
};

int run_config_show(const ConfigShowArgs& args) {
  const Config config = config::load(args.config, args.sets);
  for (const std::string& w : config.warnings()) {
    std::fputs(w.c_str(), stderr);
  }
  std::fputs(config::show(config).c_str(), stdout);
  return 0;
}

int run_config_explain(const std::string& key) {
  std::fputs(config::explain(key).c_str(), stdout);
  return 0;
}

int run_config_keys() {
  for (const std::string& k : config::keys()) {
    fmt::print("{}\n", k);
  }
  return 0;
}

int run_config_docs() {
  std::fputs(config::reference_markdown().c_str(), stdout);
  return 0;
}

// `config` has commands of its own: one of them is parsed (require_subcommand).
Runner add_config(CLI::App& cmd) {
  auto show_args = std::make_shared<ConfigShowArgs>();
  auto key = std::make_shared<std::string>();
  cmd.require_subcommand(1);
  CLI::App* show = cmd.add_subcommand("show", "print the effective config with defaults filled in");
  show->add_option("config", show_args->config, "config file (*.toml)")->required()->check(CLI::ExistingFile);
  show->add_option("--set", show_args->sets, "override a config key (repeatable)")->type_name("KEY=VALUE");
  CLI::App* explain = cmd.add_subcommand("explain", "type, default, allowed values and effect of a key");
  explain->add_option("key", *key, "key path, e.g. pipeline.schedule, or a table")->required();
  CLI::App* keys = cmd.add_subcommand("keys", "list every config key");
  cmd.add_subcommand("docs", "print the key reference (docs/config.md)");
  return [=](const CommandLine&) {
    return show->parsed()      ? run_config_show(*show_args)
           : explain->parsed() ? run_config_explain(*key)
           : keys->parsed()    ? run_config_keys()
                               : run_config_docs();
  };
}

}  // namespace

const CommandDef kConfigCommand{"config", "show, explain and document config keys", add_config};

}  // namespace iputrain::cli
