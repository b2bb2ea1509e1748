// `iputrain export MODEL CONFIG --from CKPT|W -o W`: the weights of a checkpoint alone, as the
// plain weight file `eval --weights`, `predict --weights` and `train --init-from` read; or a weight
// file read as `--init-from` reads it (checked against the model) and written as `--save` writes it.
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "cli/command.hpp"
#include "cli/commands.hpp"
#include "iputrain/iputrain.hpp"

namespace iputrain::cli {

namespace {

struct ExportArgs : CommonArgs {
  std::string from;  //!< checkpoint directory (its newest) or file, or a weight file
  std::string out;   //!< weight file to write
};

int run_export(const ExportArgs& args) {
  auto [config, model, run] = load(args);
  prepare_output(args.out, "-o");
  if (is_checkpoint(args.from)) {
    const ExportInfo info = export_checkpoint_weights(model, args.from, args.out);
    fmt::print("exported the weights of {} (step {}) to {}\n", info.from, info.step, args.out);
    return 0;
  }
  // A file of iputrain's comes out with the same bytes (the step it records included); one written
  // elsewhere comes out with the model's names, shapes and state, or is refused as --init-from
  // refuses it.
  Session session(model, run);
  for (const std::string& w : session.load_weights(args.from)) {
    fmt::print(stderr, "warning: {}\n", w);
  }
  session.save_weights(args.out);
  fmt::print("exported the weights of {} (a weight file, read as --init-from reads it) to {}\n", args.from, args.out);
  return 0;
}

Runner add_export(CLI::App& cmd) {
  auto a = std::make_shared<ExportArgs>();
  add_common(cmd, *a);
  cmd.add_option(
         "--from", a->from,
         "checkpoint directory (its newest), step-*.safetensors file, or weight file (read as --init-from reads it)")
      ->required()
      ->type_name("DIR|FILE");
  cmd.add_option("-o,--out", a->out, "weight file to write")->required()->type_name("FILE");
  return [a](const CommandLine&) { return run_export(*a); };
}

}  // namespace

const CommandDef kExportCommand{"export",
                                "write a checkpoint's weights (or a weight file's, checked against the model) as a "
                                "plain weight file (safetensors)",
                                add_export};

}  // namespace iputrain::cli
