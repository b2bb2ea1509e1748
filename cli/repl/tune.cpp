// `tune [SECONDS]`: searches the fastest layout from the current config (iputrain/tune.hpp) and
// makes it the current config, so that `diff` compares it with the plan before and `step` runs it.
#include <fmt/format.h>

#include "cli/repl/handlers.hpp"
#include "cli/tune_command.hpp"

namespace iputrain::repl {

bool cmd_tune(State& state, const Args& args) {
  expect_words(args, 0, 1, "tune [SECONDS]");
  TuneRequest request;
  request.model_path = state.model_path();
  request.config_path = state.config_path();
  request.sets = state.cli_sets();
  for (const Override& o : state.overrides()) {
    request.sets.push_back(o.text());
  }
  // The config's [tune] section limits the search as it does `iputrain tune`'s; where it gives no
  // time or top, the REPL's own defaults (shorter than the command's: a person is waiting).
  const Config& config = state.config();
  request.time_seconds = config.is_set("tune.time") ? 0 : 30;
  request.top = config.is_set("tune.top") ? 0 : 3;
  if (!args.words.empty()) {
    try {
      request.time_seconds = std::stod(args.words[0]);
    } catch (const std::exception&) {
      throw Error(ErrorKind::Usage, fmt::format("`{}` is not a number of seconds", args.words[0]), {}, "e.g. tune 20");
    }
  }
  const TuneResult result = tune(request);
  fmt::print("{}", cli::tune_text(result, static_cast<int32_t>(result.ranked.size())));
  // The best plan's changes become `set`s of this session: `diff`, `unset` and `save-config` see them.
  std::vector<Override> overrides = state.overrides();
  for (const std::string& change : result.ranked.front().changes) {
    const size_t eq = change.find('=');
    const std::string key = change.substr(0, eq);
    std::erase_if(overrides, [&](const Override& o) { return o.key == key; });
    overrides.push_back({key, change.substr(eq + 1)});
  }
  state.apply(std::move(overrides));
  fmt::print("the best plan is now the current config ({} key{} set); `diff` compares it with the one before\n",
             result.ranked.front().changes.size(), result.ranked.front().changes.size() == 1 ? "" : "s");
  return true;
}

}  // namespace iputrain::repl
