// `iputrain config show|explain|keys|docs`: the config schema from the command line.
#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.hpp"
#include "iputrain/iputrain.hpp"

namespace iputrain::cli {

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

}  // namespace iputrain::cli
