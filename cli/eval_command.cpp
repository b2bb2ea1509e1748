// `iputrain eval MODEL CONFIG --weights W`: the mean of each model output over a data split.
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "cli/command.hpp"
#include "cli/commands.hpp"
#include "iputrain/iputrain.hpp"

namespace iputrain::cli {

namespace {

struct EvalArgs : CommonArgs {
  std::string weights;
  std::string split = "test";
};

int run_eval(const EvalArgs& args) {
  auto [config, model, run] = load(args);
  Session session(model, run);
  load_weights_for(session, model, args.weights, "eval");
  const EvalResult r = session.evaluate(args.split);
  fmt::print("{}:{}\n", args.split, eval_str(r, output_order(session, r)));
  fmt::print("ran on {} IPU{} ({} replica{} x {}): physical {}\n", r.ipus.size(), r.ipus.size() == 1 ? "" : "s",
             r.replicas, r.replicas == 1 ? "" : "s", r.ipus.size() / static_cast<size_t>(std::max(1, r.replicas)),
             fmt::join(r.ipus, ", "));
  return 0;
}

Runner add_eval(CLI::App& cmd) {
  auto a = std::make_shared<EvalArgs>();
  add_common(cmd, *a);
  cmd.add_option("--weights", a->weights,
                 "weights to evaluate (safetensors, or a checkpoint file or directory); required when the model has "
                 "parameters")
      ->check(CLI::ExistingPath)
      ->type_name("FILE|DIR");
  cmd.add_option("--split", a->split, "test, train or validation (data.validation, data.validation_split)")
      ->check(CLI::IsMember({"test", "train", "validation"}));
  return [a](const CommandLine&) { return run_eval(*a); };
}

}  // namespace

const CommandDef kEvalCommand{"eval", "mean of each model output over a data split", add_eval};

}  // namespace iputrain::cli
