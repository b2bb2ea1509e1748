// `iputrain export MODEL CONFIG --from CKPT -o W`: the weights of a checkpoint alone, as the plain
// weight file `eval --weights`, `predict --weights` and `train --init-from` read.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "iputrain/iputrain.hpp"

namespace iputrain::cli {

int run_export(const ExportArgs& args) {
  auto [config, model] = load(args);
  prepare_output(args.out, "-o");
  const ExportInfo info = export_checkpoint_weights(model, args.from, args.out);
  fmt::print("exported the weights of {} (step {}) to {}\n", info.from, info.step, args.out);
  return 0;
}

}  // namespace iputrain::cli
