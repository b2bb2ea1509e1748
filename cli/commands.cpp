// What the iputrain commands share (commands.hpp).
#include "cli/commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "cli/progress.hpp"
#include "iputrain/iputrain.hpp"

namespace iputrain::cli {

// The test line (and eval's): the means in the model's output order, as on the step lines, and
// the samples they cover, a last batch that does not fill one named.
std::string eval_str(const EvalResult& r, const std::vector<std::string>& order) {
  std::vector<double> values;
  for (const std::string& name : order) {
    values.push_back(r.means.at(name));
  }
  std::string out = metrics_text(order, values);
  if (r.skipped > 0) {
    return out + fmt::format("  ({} of {} samples; the last {} do not fill a batch and are left out: {})", r.samples,
                             r.samples + r.skipped, r.skipped, r.skipped_why);
  }
  out += fmt::format("  ({} samples", r.samples);
  if (r.last_batch > 0) {
    out += r.last_batch == r.samples ? ", fewer than a batch: run as one"
                                     : fmt::format(", the last {} as a batch of their own", r.last_batch);
  }
  return out + ")";
}

std::vector<std::string> output_order(const Session& session, const EvalResult& r) {
  std::vector<std::string> names;
  for (const std::string& name : session.output_names()) {
    if (r.means.count(name) != 0) {
      names.push_back(name);
    }
  }
  for (const auto& [name, value] : r.means) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
  }
  return names;
}

Loaded load(const CommonArgs& args) {
  Config config = config::load(args.config, args.sets);
  for (const std::string& w : config.warnings()) {
    std::fputs(w.c_str(), stderr);
  }
  ResolvedConfig run(config, current_instances());
  Model model = Model::load(args.model, run);
  for (const std::string& w : model.warnings()) {
    std::fputs(w.c_str(), stderr);
  }
  return {std::move(config), std::move(model), std::move(run)};
}

void load_weights_for(Session& session, const Model& model, const std::string& weights, const char* command) {
  if (weights.empty()) {
    if (model.parameter_count() > 0) {
      throw Error(ErrorKind::Usage,
                  fmt::format("model `{}` has {} parameters: `{}` needs --weights", model.name(),
                              model.parameter_count(), command),
                  {}, "train it with `iputrain train ... --save w.safetensors` and pass --weights w.safetensors (or a checkpoint)");
    }
    return;
  }
  for (const std::string& w : session.load_weights(weights)) {
    fmt::print(stderr, "warning: {}\n", w);
  }
}

}  // namespace iputrain::cli
