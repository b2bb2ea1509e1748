#include "cli/repl/state.hpp"

#include <utility>

#include "iputrain/config_loader.hpp"

namespace iputrain::repl {

namespace {

std::vector<std::string> joined(const std::vector<std::string>& cli, const std::vector<Override>& overrides,
                                const std::vector<std::string>& extra) {
  std::vector<std::string> sets = cli;
  for (const Override& o : overrides) {
    sets.push_back(o.text());
  }
  sets.insert(sets.end(), extra.begin(), extra.end());
  return sets;
}

Model load_model(const std::string& path, const ResolvedConfig& config) { return Model::load(path, config); }

}  // namespace

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

State::State(std::string model_path, std::string config_path, std::vector<std::string> cli_sets)
    : model_path_(std::move(model_path)),
      config_path_(std::move(config_path)),
      cli_sets_(std::move(cli_sets)),
      run_(config::load(config_path_, cli_sets_)),
      model_(load_model(model_path_, run_)) {
  replan();
}

std::pair<ResolvedConfig, Model> State::load_with(const std::vector<std::string>& extra) const {
  ResolvedConfig config(config::load(config_path_, joined(cli_sets_, overrides_, extra)));
  Model model = Model::load(model_path_, config);
  return {std::move(config), std::move(model)};
}

bool State::apply(std::vector<Override> overrides) {
  ResolvedConfig config(config::load(config_path_, joined(cli_sets_, overrides, {})));
  Model model = Model::load(model_path_, config);
  overrides_ = std::move(overrides);
  run_ = std::move(config);
  model_ = std::move(model);
  if (plan_) {
    previous_ = std::move(plan_);
  }
  replan();
  // The session ran under the old config (its plan, its optimizer); it cannot carry over.
  const bool dropped = session_ != nullptr;
  session_.reset();
  steps_done_ = 0;
  return dropped;
}

void State::replan() {
  plan_.reset();
  plan_failure_.reset();
  plan_error_.clear();
  try {
    plan_ = Plan::make(model_, run_);
  } catch (const Error& e) {
    plan_failure_ = e;
    plan_error_ = first_line(e.diagnostic().message);
  }
}

const Plan& State::plan() const {
  if (!plan_) {
    throw Error(ErrorKind::Plan, "there is no plan: " + plan_error_, {},
                "`set` or `unset` keys to repair it; `show plan` repeats the planner's error");
  }
  return *plan_;
}

void State::throw_plan_failure() const {
  if (plan_failure_) {
    throw *plan_failure_;
  }
}

Session& State::session() {
  if (!session_) {
    // One weight update per train() call, so `step N` can stop after any N and go on later.
    Config one_step = run_.config();
    one_step.plain.training_steps = 1;
    // Exploring writes nothing by itself: `step --checkpoint` saves into checkpoint.dir on request.
    one_step.plain.checkpoint_dir.clear();
    session_ = std::make_unique<Session>(model_, one_step);
    session_->record_trace(true);
  }
  return *session_;
}

StepRecord State::step() {
  Session& s = session();
  StepRecord record;
  s.train([&](const Progress& p) {
    if (!p.records.empty()) {
      record = p.records.back();
    }
  });
  ++steps_done_;
  return record;
}

}  // namespace iputrain::repl
