// `step`, `weights`, `trace`: running training steps and looking inside.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "cli/repl/handlers.hpp"

namespace iputrain::repl {

bool cmd_step(State& state, const Args& args) {
  Args counted = args;
  const auto flag = std::find(counted.words.begin(), counted.words.end(), "--checkpoint");
  const bool checkpoint = flag != counted.words.end();
  if (checkpoint) {
    counted.words.erase(flag);
  }
  expect_words(counted, 0, 1, "step [N] [--checkpoint]");
  const int64_t n = counted.words.empty() ? 1 : parse_int(counted.words[0], 1, 1000000, "the number of steps");
  if (!state.model().trainable()) {
    throw Error(ErrorKind::Usage, "the model has no `minimize` objective, so it cannot be trained", {},
                "add `minimize LOSS` to the model");
  }
  // Asked for before the steps run, so a missing directory costs no training.
  const std::string dir =
      checkpoint ? state.config().resolve_path("checkpoint.dir", state.config().plain.checkpoint_dir) : std::string();
  if (checkpoint && dir.empty()) {
    throw Error(ErrorKind::Usage, "`step --checkpoint`: no `checkpoint.dir` is set", {},
                "`set checkpoint.dir=DIR` first (a path typed here is relative to the current directory)");
  }
  if (checkpoint) {
    try {
      state.session().claim_checkpoint_dir(dir);
    } catch (const Error& e) {
      // The REPL neither resumes nor overwrites: a directory of its own is the way on.
      throw Error(e.kind(), e.diagnostic().message, {},
                  "`set checkpoint.dir=DIR` to a new directory (the steps of a session before a `set` are another "
                  "run)");
    }
  }
  const std::vector<std::string> names = state.session().output_names();
  for (int64_t i = 0; i < n; ++i) {
    const StepRecord r = state.step();
    std::string line = fmt::format("step {}", state.steps_done());
    for (size_t k = 0; k < names.size() && k < r.values.size(); ++k) {
      line += fmt::format("  {} {:.4f}", names[k], r.values[k]);
    }
    // As `train`'s step lines: the outputs, then the rate the update applied.
    line += fmt::format("  lr {:.4g}", r.learning_rate);
    fmt::print("{}\n", line);
    std::fflush(stdout);  // a long `step N` shows each step as it ends
  }
  if (checkpoint) {
    fmt::print("wrote the checkpoint {}\n", state.session().save_checkpoint(dir));
  }
  return true;
}

bool cmd_weights(State& state, const Args& args) {
  expect_words(args, 0, 1, "weights [NAME]");
  if (args.words.empty()) {
    for (const TensorInfo& t : state.model().parameters()) {
      fmt::print("  {:<32} {}[{}]\n", t.name, t.dtype, fmt::join(t.shape, ", "));
    }
    return true;
  }
  const std::vector<WeightInfo> weights = state.session().weights();
  const auto it = std::find_if(weights.begin(), weights.end(), [&](const WeightInfo& w) { return w.name == args.words[0]; });
  if (it == weights.end()) {
    std::vector<std::string> names;
    for (const WeightInfo& w : weights) {
      names.push_back(w.name);
    }
    fail_unknown("weight", args.words[0], names);
  }
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  double sum = 0;
  for (float v : it->values) {
    lo = std::min<double>(lo, v);
    hi = std::max<double>(hi, v);
    sum += v;
  }
  const double count = static_cast<double>(std::max<size_t>(1, it->values.size()));
  const double mean = sum / count;
  double var = 0;
  for (float v : it->values) {
    var += (v - mean) * (v - mean);
  }
  fmt::print("{}: f32[{}], {} values, after {} step{}\n", it->name, fmt::join(it->shape, ", "), it->values.size(),
             state.steps_done(), state.steps_done() == 1 ? "" : "s");
  fmt::print("  min {:.6f}  max {:.6f}  mean {:.6f}  std {:.6f}\n", lo, hi, mean, std::sqrt(var / count));
  return true;
}

bool cmd_trace(State& state, const Args& args) {
  expect_words(args, 1, 1, "trace FILE");
  if (state.steps_done() == 0) {
    throw Error(ErrorKind::Usage, "no steps have run in this session, so there is nothing to trace", {},
                "run `step N` first; the REPL records every step it runs");
  }
  state.session().write_trace(args.words[0]);
  fmt::print("wrote the trace of {} step{} to {} (open it in https://ui.perfetto.dev)\n", state.steps_done(),
             state.steps_done() == 1 ? "" : "s", args.words[0]);
  return true;
}

}  // namespace iputrain::repl
