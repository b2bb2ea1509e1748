// What the iputrain commands share: the model and config most of them take, loaded, and the
// weights eval and predict run with. Each command is a thin client of the public API
// (include/iputrain/) in a file of its own (cli/command_list.hpp lists them).
#pragma once

#include <string>
#include <vector>

#include "iputrain/iputrain.hpp"

namespace iputrain::cli {

struct CommonArgs {
  std::string model;
  std::string config;
  std::vector<std::string> sets;  //!< --set key=value
};

//! The config (with --set overrides) and the model it parameterises; prints model warnings to stderr.
struct Loaded {
  Config config;
  Model model;
  ResolvedConfig
      run;  //!< `config` resolved once (with the instances this process joined), for the model, plan and session
};
Loaded load(const CommonArgs& args);

//! Loads `weights` into the session (warnings to stderr); with none given, a model that has
//! parameters is refused (Error(Usage)): only a parameter-free model runs without weights.
void load_weights_for(Session& session, const Model& model, const std::string& weights, const char* command);

//! An evaluation's means in `order` and the samples they cover (a last batch that does not fill
//! one named): the test line after training and eval's line.
std::string eval_str(const EvalResult& r, const std::vector<std::string>& order);

//! The outputs of an evaluation in the session's output order, then any others.
std::vector<std::string> output_order(const Session& session, const EvalResult& r);

}  // namespace iputrain::cli
