// `iputrain export MODEL CONFIG --from CKPT|W -o W`: the weights of a checkpoint alone, as the
// plain weight file `eval --weights`, `predict --weights` and `train --init-from` read; or a weight
// file read as `--init-from` reads it (checked against the model) and written as `--save` writes it.
#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.hpp"
#include "iputrain/iputrain.hpp"

namespace iputrain::cli {

int run_export(const ExportArgs& args) {
  auto [config, model] = load(args);
  prepare_output(args.out, "-o");
  if (is_checkpoint(args.from)) {
    const ExportInfo info = export_checkpoint_weights(model, args.from, args.out);
    fmt::print("exported the weights of {} (step {}) to {}\n", info.from, info.step, args.out);
    return 0;
  }
  // A file of iputrain's comes out with the same bytes (the step it records included); one written
  // elsewhere comes out with the model's names, shapes and state, or is refused as --init-from
  // refuses it.
  Session session(model, config);
  for (const std::string& w : session.load_weights(args.from)) {
    fmt::print(stderr, "warning: {}\n", w);
  }
  session.save_weights(args.out);
  fmt::print("exported the weights of {} (a weight file, read as --init-from reads it) to {}\n", args.from, args.out);
  return 0;
}

}  // namespace iputrain::cli
