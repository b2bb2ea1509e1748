// The REPL's state: the model and config files, the `set` overrides made in this session, the
// current and previous plans and, once `step` or `weights` needs one, a training session.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "iputrain/iputrain.hpp"

namespace iputrain::repl {

//! One `set KEY=VALUE` of this session (the key as typed, the value as text).
struct Override {
  std::string key;
  std::string value;
  std::string text() const { return key + "=" + value; }
};

class State {
 public:
  //! Loads the config (with the command line's `--set`s) and the model, then plans. A model or
  //! config error propagates (the REPL cannot start); a plan error is kept in plan_error().
  State(std::string model_path, std::string config_path, std::vector<std::string> cli_sets);

  const Config& config() const { return run_.config(); }
  const Model& model() const { return model_; }
  const std::string& model_path() const { return model_path_; }
  const std::string& config_path() const { return config_path_; }
  const std::vector<Override>& overrides() const { return overrides_; }
  const std::vector<std::string>& cli_sets() const { return cli_sets_; }  //!< the command line's `--set`s

  //! The current plan; throws a short Error(Plan) naming the failure when there is none (the full
  //! error was printed when planning failed; throw_plan_failure() repeats it).
  const Plan& plan() const;
  //! Throws the planner's full error of the last planning attempt; does nothing if it succeeded.
  void throw_plan_failure() const;
  bool has_plan() const { return plan_.has_value(); }
  //! First line of the error of the last planning attempt ("" if it succeeded).
  const std::string& plan_error() const { return plan_error_; }
  //! The plan before the last re-plan that changed the config, if any.
  const std::optional<Plan>& previous_plan() const { return previous_; }

  //! Replaces the overrides and re-plans. A config or model error leaves everything unchanged and
  //! propagates; a plan error is kept (plan() throws it) while the new config stays in force, so a
  //! second `set` can repair it. Returns true if a training session was dropped.
  bool apply(std::vector<Override> overrides);
  //! Config (resolved once) and model for the command line's sets + current overrides + `extra`
  //! (for `sweep`).
  std::pair<ResolvedConfig, Model> load_with(const std::vector<std::string>& extra) const;

  //! The training session (made on first use from the current config, one update per train()).
  Session& session();
  //! Runs one weight update; returns the outfeed values (Session::output_names() order).
  StepRecord step();
  int64_t steps_done() const { return steps_done_; }

 private:
  void replan();

  std::string model_path_;
  std::string config_path_;
  std::vector<std::string> cli_sets_;
  std::vector<Override> overrides_;
  ResolvedConfig run_;  // the current config, resolved once for its model, plan and session
  Model model_;
  std::optional<Plan> plan_;
  std::optional<Error> plan_failure_;
  std::string plan_error_;
  std::optional<Plan> previous_;
  std::unique_ptr<Session> session_;
  int64_t steps_done_ = 0;
};

//! The first line of an error's message, for table cells and one-line reports.
std::string first_line(const std::string& text);

}  // namespace iputrain::repl
