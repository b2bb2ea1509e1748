#include "cli/repl/commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <sstream>

#include "cli/repl/handlers.hpp"
#include "iputrain/config_loader.hpp"

namespace iputrain::repl {

namespace {

bool cmd_help(State& state, const Args& args);

bool cmd_quit(State&, const Args& args) {
  expect_words(args, 0, 0, "quit");
  return false;
}

const std::vector<std::string> kShowTopics = {"config", "model", "ir", "plan", "stage", "ipu"};

std::vector<std::string> command_names() {
  std::vector<std::string> out;
  for (const Command& c : commands()) {
    out.push_back(c.name);
  }
  return out;
}

const Command* find_command(const std::string& name) {
  for (const Command& c : commands()) {
    if (c.name == name || (name == "exit" && c.name == "quit")) {
      return &c;
    }
  }
  return nullptr;
}

bool cmd_help(State&, const Args& args) {
  expect_words(args, 0, 1, "help [COMMAND]");
  if (args.words.empty()) {
    size_t width = 0;
    for (const Command& c : commands()) {
      width = std::max(width, c.usage.size());
    }
    std::string out = "commands:\n";
    for (const Command& c : commands()) {
      out += fmt::format("  {:<{}}  {}\n", c.usage, width, c.summary);
    }
    out += "`help COMMAND` tells more; TAB completes commands, config keys and names.\n";
    fmt::print("{}", out);
    return true;
  }
  const Command* c = find_command(args.words[0]);
  if (c == nullptr) {
    fail_unknown("command", args.words[0], command_names());
  }
  fmt::print("usage: {}\n{}\n{}", c->usage, c->summary, c->detail);
  return true;
}

Args split(const std::string& line) {
  Args a;
  std::istringstream in(line);
  std::string w;
  in >> w;  // the command word
  const size_t at = line.find_first_not_of(" \t", line.find(w) + w.size());
  a.rest = at == std::string::npos ? "" : line.substr(at);
  while (in >> w) {
    a.words.push_back(w);
  }
  while (!a.rest.empty() && (a.rest.back() == ' ' || a.rest.back() == '\t')) {
    a.rest.pop_back();
  }
  return a;
}

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) {
    out.push_back(w);
  }
  return out;
}

// Values a key accepts, for completion after `set KEY=`.
std::vector<std::string> key_values(const std::string& key) { return config::key_choices(key); }

}  // namespace

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"help", "help [COMMAND]", "list the commands, or tell more about one", "", ArgKind::Command, cmd_help},
      {"show", "show config|model|ir|plan|stage NAME|ipu N", "show one side of the model, config or plan",
       "  config       the effective config as TOML (every key, defaults filled in)\n"
       "  model        stages, inputs, parameters and outputs of the model\n"
       "  ir           the model's forward IR\n"
       "  plan         the whole plan report (as `iputrain plan`)\n"
       "  stage NAME   where one stage runs, its parameters and cycles\n"
       "  ipu N        what logical IPU N holds and runs\n",
       ArgKind::ShowTopic, cmd_show},
      {"memory", "memory [ipu N]", "memory per IPU at its peak, or per timestep for one IPU",
       "Without arguments: bytes per IPU by kind at the IPU's worst timestep, against its capacity.\n"
       "`memory ipu N`: the bytes IPU N holds at each timestep of one accumulation cycle.\n",
       ArgKind::MemoryTopic, cmd_memory},
      {"schedule", "schedule", "the timeline of one accumulation cycle",
       "One row per IPU, one column per timestep; F3/B3 are the forward/backward pass of micro-batch 3.\n",
       ArgKind::None, cmd_schedule},
      {"set", "set KEY=VALUE", "change a config key and re-plan at once",
       "The value is TOML (strings may be left unquoted). The plan before the change is kept for `diff`;\n"
       "the changes in placement, memory peak per IPU and predicted samples/s are printed.\n"
       "A training session started by `step` is reset: it ran under the old config.\n",
       ArgKind::Key, cmd_set},
      {"unset", "unset KEY", "drop this session's `set` of KEY (or restore its default) and re-plan",
       "A key set with `set` goes back to the config file's value; a key set by the file goes back to\n"
       "its default.\n",
       ArgKind::Key, cmd_unset},
      {"diff", "diff", "the previous plan against the current one", "", ArgKind::None, cmd_diff},
      {"explain", "explain KEY", "type, default, allowed values and effect of a config key", "", ArgKind::Key,
       cmd_explain},
      {"step", "step [N] [--checkpoint]", "run N training steps (default 1) and print the outfeed of each",
       "The first `step` opens a training session on the current config (weights from training.seed);\n"
       "later steps continue it. No checkpoint is written unless asked: `--checkpoint` writes one after\n"
       "the N steps into checkpoint.dir, which must not hold another run's checkpoints.\n",
       ArgKind::None, cmd_step},
      {"weights", "weights [NAME]", "list the weights, or one weight's shape and statistics",
       "Statistics are of the current values: the initial ones before any `step`.\n", ArgKind::Weight, cmd_weights},
      {"trace", "trace FILE", "write a Chrome trace (Perfetto) of the steps run so far", "", ArgKind::None, cmd_trace},
      {"sweep", "sweep KEY=V1,V2 [KEY=...]", "plan every combination of values; tabulate speed and memory",
       "Each combination is planned on top of the current config, which does not change. Rows marked `*`\n"
       "are Pareto-optimal: no other plan that fits is faster with no more memory per IPU. A combination\n"
       "that cannot be planned shows its error. At most 64 combinations.\n",
       ArgKind::Key, cmd_sweep},
      {"tune", "tune [SECONDS]", "search the fastest layout that fits and make it the current config",
       "Runs `iputrain tune` from the current config, within its [tune] section: its `time` (else 30 s;\n"
       "SECONDS overrides both), its `top` (else 3), its ranges and lists. The best plan's changes become\n"
       "`set`s of the session, ready for `diff`, `step` and `save-config`.\n",
       ArgKind::None, cmd_tune},
      {"save-config", "save-config FILE", "write the config with this session's sets (TOML) to FILE",
       "The file `extends` the config file (by its absolute path) and sets what the command line's --set and\n"
       "this session's `set`s set: it loads back into the same config, and `iputrain plan MODEL FILE` gives\n"
       "the current plan.\n",
       ArgKind::None, cmd_save_config},
      {"quit", "quit", "leave (also `exit` or end of input)", "", ArgKind::None, cmd_quit},
  };
  return table;
}

bool run_line(State& state, const std::string& line) {
  const std::vector<std::string> words = words_of(line);
  if (words.empty() || words[0][0] == '#') {
    return true;
  }
  const Command* c = find_command(words[0]);
  if (c == nullptr) {
    const std::string near = nearest_name(words[0], command_names());
    throw Error(ErrorKind::Usage, fmt::format("unknown command `{}`", words[0]), {},
                near.empty() ? "`help` lists the commands"
                             : fmt::format("did you mean `{}`? (`help` lists the commands)", near));
  }
  return c->run(state, split(line));
}

// The word typed so far does not narrow the candidates here: the line editor filters them.
Completion complete(const State& state, const std::string& line, const std::string& /*word*/) {
  const std::vector<std::string> before = words_of(line);
  if (before.empty()) {
    std::vector<std::string> names = command_names();
    names.push_back("exit");
    return {names};
  }
  const Command* c = find_command(before[0]);
  if (c == nullptr) {
    return {};
  }
  const size_t pos = before.size();  // 1 = first argument
  if (!line.empty() && line.back() == '=' && c->args == ArgKind::Key) {
    return {key_values(before.back().substr(0, before.back().size() - 1))};
  }
  switch (c->args) {
    case ArgKind::Command:
      return pos == 1 ? Completion{command_names()} : Completion{};
    case ArgKind::Key: {
      if (pos > 1 && c->name != "sweep") {
        return {};
      }
      std::vector<std::string> keys = config::keys();
      for (const auto& [name, value] : state.model().compile_time_params()) {
        keys.push_back("model." + name);
      }
      const bool takes_value = c->name == "set" || c->name == "sweep";
      return {keys, takes_value ? '=' : ' '};
    }
    case ArgKind::ShowTopic:
      if (pos == 1) {
        return {kShowTopics};
      }
      if (pos == 2 && before[1] == "stage") {
        return {state.model().stages()};
      }
      return {};
    case ArgKind::MemoryTopic:
      return pos == 1 ? Completion{{"ipu"}} : Completion{};
    case ArgKind::Weight: {
      Completion out;
      if (pos == 1) {
        for (const TensorInfo& t : state.model().parameters()) {
          out.words.push_back(t.name);
        }
      }
      return out;
    }
    case ArgKind::None:
      return {};
  }
  return {};
}

void expect_words(const Args& args, size_t min, size_t max, const std::string& usage) {
  if (args.words.size() < min || args.words.size() > max) {
    throw Error(ErrorKind::Usage,
                args.words.size() < min ? "missing argument" : fmt::format("unexpected argument `{}`", args.words[max]),
                {}, "usage: " + usage);
  }
}

int64_t parse_int(const std::string& text, int64_t lo, int64_t hi, const std::string& what) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi) {
    throw Error(ErrorKind::Usage, fmt::format("{} must be a whole number from {} to {}, not `{}`", what, lo, hi, text));
  }
  return v;
}

void fail_unknown(const std::string& what, const std::string& name, const std::vector<std::string>& known) {
  const std::string near = nearest_name(name, known);
  throw Error(ErrorKind::Usage, fmt::format("unknown {} `{}`", what, name), {},
              near.empty() ? fmt::format("known: {}", fmt::join(known, ", ")) : fmt::format("did you mean `{}`?", near));
}

}  // namespace iputrain::repl
