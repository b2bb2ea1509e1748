// The command table, generated from command_list.hpp in its order, and the arguments most
// commands share.
#include <CLI/CLI.hpp>

#include "cli/command.hpp"
#include "cli/commands.hpp"

namespace iputrain::cli {

const std::vector<const CommandDef*>& command_table() {
  static const std::vector<const CommandDef*> all = {
#define IPUTRAIN_COMMAND(Name) &k##Name##Command,
#include "cli/command_list.hpp"
#undef IPUTRAIN_COMMAND
  };
  return all;
}

void add_common(CLI::App& cmd, CommonArgs& args) {
  cmd.add_option("model", args.model, "model file (*.ipu)")->required()->check(CLI::ExistingFile);
  cmd.add_option("config", args.config, "config file (*.toml)")->required()->check(CLI::ExistingFile);
  cmd.add_option("--set", args.sets, "override a config key: --set data.batch_size=64 (repeatable)")
      ->type_name("KEY=VALUE");
}

}  // namespace iputrain::cli
