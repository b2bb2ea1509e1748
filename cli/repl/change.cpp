// `set`, `unset`, `diff`, `sweep`, `save-config`: changing the config and comparing plans.
#include <fmt/format.h>

#include <algorithm>

#include "cli/repl/handlers.hpp"
#include "cli/repl/plan_diff.hpp"
#include "cli/repl/sweep.hpp"
#include "iputrain/config_loader.hpp"
#include "iputrain/files.hpp"

namespace iputrain::repl {

namespace {

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) {
    return {};
  }
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// The key's effective value as TOML ("" when the schema has no single field for it).
std::string value_of(const Config& config, const std::string& key) {
  return config::value_text(config, key).value_or("");
}

// Applies `overrides` and reports the change of `key` and of the plan.
void change(State& state, std::vector<Override> overrides, const std::string& key) {
  const std::string before = value_of(state.config(), key);
  const int64_t steps = state.steps_done();
  const bool dropped = state.apply(std::move(overrides));
  const std::string after = value_of(state.config(), key);
  std::string out;
  if (!after.empty()) {
    out += before == after ? fmt::format("{} = {} (unchanged)\n", key, after)
                           : fmt::format("{}: {} -> {}\n", key, before, after);
  }
  for (const std::string& w : state.config().warnings()) {
    if (w.find(fmt::format("`{}`", key)) != std::string::npos) {
      out += w;
    }
  }
  if (dropped) {
    out += fmt::format("note: the training session ({} step{}) ran under the old config; the next `step` starts a "
                       "new one\n", steps, steps == 1 ? "" : "s");
  }
  if (!state.has_plan()) {
    fmt::print("{}re-planning failed; the change is kept (`unset {}` undoes it):\n", out, key);
    state.throw_plan_failure();
  }
  // After a failed plan, `previous` is the last plan that worked: compare against it.
  if (state.previous_plan()) {
    out += plan_diff(*state.previous_plan(), state.plan());
  } else {
    out += fmt::format("planned: {:.0f} samples/s predicted\n", state.plan().samples_per_second());
  }
  fmt::print("{}", out);
}

}  // namespace

bool cmd_set(State& state, const Args& args) {
  const size_t eq = args.rest.find('=');
  if (args.rest.empty() || eq == std::string::npos) {
    throw Error(ErrorKind::Usage, args.rest.empty() ? "missing KEY=VALUE" : fmt::format("`{}` is not of the form KEY=VALUE", args.rest),
                {}, "e.g. set pipeline.schedule=interleaved; `explain KEY` lists a key's values");
  }
  const Override o{trim(args.rest.substr(0, eq)), trim(args.rest.substr(eq + 1))};
  if (o.key.empty() || o.value.empty()) {
    throw Error(ErrorKind::Usage, fmt::format("`{}` needs both a key and a value", args.rest), {},
                "e.g. set pipeline.schedule=interleaved");
  }
  std::vector<Override> overrides;
  for (const Override& old : state.overrides()) {
    if (old.key != o.key) {
      overrides.push_back(old);
    }
  }
  overrides.push_back(o);
  change(state, std::move(overrides), o.key);
  return true;
}

bool cmd_unset(State& state, const Args& args) {
  expect_words(args, 1, 1, "unset KEY");
  const std::string& key = args.words[0];
  std::vector<Override> overrides = state.overrides();
  const auto set_here = std::remove_if(overrides.begin(), overrides.end(), [&](const Override& o) { return o.key == key; });
  if (set_here != overrides.end()) {
    overrides.erase(set_here, overrides.end());
    change(state, std::move(overrides), key);
    return true;
  }
  const std::optional<std::string> default_value = config::default_text(key);
  if (!default_value) {
    const std::string near = config::suggest_key(key);
    throw Error(ErrorKind::Usage, fmt::format("unknown config key `{}`", key), {},
                near.empty() ? "`explain TABLE` lists the keys of a table" : fmt::format("did you mean `{}`?", near));
  }
  if (!state.config().is_set(key)) {
    fmt::print("{} is not set; it has its default, {}\n", key, value_of(state.config(), key));
    return true;
  }
  overrides.push_back({key, *default_value});
  try {
    change(state, std::move(overrides), key);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Config) {
      throw;
    }
    throw Error(ErrorKind::Usage,
                fmt::format("{} is set by {} and its default cannot be restored here: {}", key,
                            state.config_path(), first_line(e.diagnostic().message)),
                {}, fmt::format("`set {}=VALUE` to another value, or edit the file", key));
  }
  return true;
}

bool cmd_diff(State& state, const Args& args) {
  expect_words(args, 0, 0, "diff");
  if (!state.previous_plan()) {
    throw Error(ErrorKind::Usage, "there is no previous plan yet", {},
                "`set KEY=VALUE` re-plans and keeps the plan before the change for `diff`");
  }
  fmt::print("{}", plan_diff(*state.previous_plan(), state.plan()));
  return true;
}

bool cmd_sweep(State& state, const Args& args) {
  fmt::print("{}", run_sweep(state, parse_sweep(args.words)));
  return true;
}

bool cmd_save_config(State& state, const Args& args) {
  expect_words(args, 1, 1, "save-config FILE");
  // The config file extended by the session's sets (the command line's, then `set`'s), or the
  // whole effective config where that cannot be said so.
  std::vector<std::string> sets = state.cli_sets();
  for (const Override& o : state.overrides()) {
    sets.push_back(o.text());
  }
  const std::optional<std::string> extending = config::show_extending(state.config(), state.config_path(), sets);
  write_file_atomically(args.words[0], extending ? *extending : config::show(state.config()));
  fmt::print("wrote {} to {}\n", extending ? "the config file and this session's sets" : "the effective config",
             args.words[0]);
  return true;
}

}  // namespace iputrain::repl
