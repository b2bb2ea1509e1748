#include "cli/usage.hpp"

#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>

#include "iputrain/config_loader.hpp"
#include "iputrain/instances.hpp"

namespace iputrain::cli {

namespace {

// Leaves that share a name with many keys (`enabled`, `dtype`) make a poor suggestion past this.
constexpr size_t kMaxKeySuggestions = 3;

bool is_option_word(const std::string& w) {
  // "-5" and "-.5" are values (a negative number), not options.
  return w.size() > 1 && w[0] == '-' && std::isdigit(static_cast<unsigned char>(w[1])) == 0 && w[1] != '.';
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    out += fmt::format("{}`{}`", out.empty() ? "" : ", ", n);
  }
  return out;
}

std::string command_path(const CLI::App& cmd) {
  std::string path = cmd.get_name();
  for (const CLI::App* p = cmd.get_parent(); p != nullptr && p->get_parent() != nullptr; p = p->get_parent()) {
    path = p->get_name() + " " + path;
  }
  return path;
}

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  return names;
}

//! Every option of `cmd` as typed: `--save`, `-o`; `long_only`: one name per option, `--help` left out.
std::vector<std::string> option_names(const CLI::App& cmd, bool long_only = false) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : cmd.get_options()) {
    for (const std::string& l : opt->get_lnames()) {
      if (!long_only || l != "help") {
        names.push_back("--" + l);
      }
    }
    for (const std::string& s : opt->get_snames()) {
      if (!long_only || opt->get_lnames().empty()) {
        names.push_back("-" + s);
      }
    }
  }
  return names;
}

//! `learning_rate` -> `lr`: the abbreviation users type for a key of several words.
std::string initials(const std::string& leaf) {
  std::string out;
  for (size_t i = 0; i < leaf.size(); ++i) {
    if (i == 0 || leaf[i - 1] == '_') {
      out += leaf[i];
    }
  }
  return out.size() > 1 ? out : std::string();
}

std::string leaf_of(const std::string& key) { return key.substr(key.rfind('.') + 1); }

//! The config keys a word typed as an option names: by leaf (`steps`, `batch-size`), by the
//! initials of the leaf (`lr`), else by the nearest leaf (`step`). Schema order.
std::vector<std::string> keys_named(const std::string& word) {
  std::string name;
  for (const char c : word) {
    name += c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (name.empty()) {
    return {};
  }
  const std::vector<std::string> all = config::keys();
  std::vector<std::string> out;
  for (const std::string& key : all) {
    if (leaf_of(key) == name) {
      out.push_back(key);
    }
  }
  const bool by_leaf = !out.empty();
  for (const std::string& key : all) {
    if (!by_leaf && initials(leaf_of(key)) == name) {
      out.push_back(key);
    }
  }
  if (out.empty() && name.size() > 2) {
    std::vector<std::string> leaves;
    for (const std::string& key : all) {
      leaves.push_back(leaf_of(key));
    }
    const std::string near = nearest_name(name, leaves);
    for (const std::string& key : all) {
      if (!near.empty() && leaf_of(key) == near) {
        out.push_back(key);
      }
    }
  }
  return out;
}

std::optional<Error> unknown_command(const CLI::App& app, const CommandLine& line, size_t at) {
  const std::vector<std::string> names = subcommand_names(app);
  const std::string near = nearest_name(line.words[at], names);
  const std::string where = app.get_parent() == nullptr ? "an iputrain command"
                                                        : fmt::format("a command of `iputrain {}`", command_path(app));
  return line.error_at(at, fmt::format("`{}` is not {}", line.words[at], where),
                       near.empty() ? fmt::format("the commands: {}", quoted_list(names))
                                    : fmt::format("did you mean `{}`? (the commands: {})", near, quoted_list(names)));
}

//! The other commands that have option `flag`.
std::vector<std::string> owners_of(const CLI::App& cmd, const std::string& flag) {
  std::vector<std::string> owners;
  const CLI::App* root = &cmd;
  while (root->get_parent() != nullptr) {
    root = root->get_parent();
  }
  for (const CLI::App* sub : root->get_subcommands([](const CLI::App*) { return true; })) {
    if (sub != &cmd && sub->get_option_no_throw(flag) != nullptr) {
      owners.push_back(sub->get_name());
    }
  }
  return owners;
}

//! `--set KEY=VALUE` for a key tried as an option: the value is what follows `=`, else the next word.
std::string set_hint(const std::vector<std::string>& keys, const CommandLine& line, size_t at) {
  const std::string& word = line.words[at];
  std::string value = "VALUE";
  if (const size_t eq = word.find('='); eq != std::string::npos) {
    value = word.substr(eq + 1);
  } else if (at + 1 < line.words.size() && !is_option_word(line.words[at + 1])) {
    value = line.words[at + 1];
  }
  std::vector<std::string> sets;
  for (size_t i = 0; i < keys.size() && i < kMaxKeySuggestions; ++i) {
    sets.push_back(fmt::format("--set {}={}", keys[i], value));
  }
  return fmt::format("{} {}{}", keys.size() == 1 ? "write" : "write one of", quoted_list(sets),
                     keys.size() > kMaxKeySuggestions ? " (`iputrain config keys` lists the rest)" : "");
}

std::optional<Error> unknown_option(const CLI::App& cmd, const CommandLine& line, size_t at) {
  const std::string flag = line.words[at].substr(0, line.words[at].find('='));
  const std::string bare = flag.substr(std::min(flag.size(), flag.find_first_not_of('-')));
  const std::string path = command_path(cmd);
  const std::vector<std::string> options = option_names(cmd);
  // One letter is near every other: a short option gets the list, not a guess.
  const std::string near = flag.size() > 2 && !bare.empty() ? nearest_name(flag, options) : std::string();
  const std::vector<std::string> keys = keys_named(bare);
  const std::vector<std::string> owners = owners_of(cmd, flag);
  const std::string message = fmt::format("`{}` has no option `{}`", path, flag);
  // In order: a key whose leaf is typed out (or abbreviated), another command's option, the closer
  // of the nearest option and the nearest key (the option on a tie).
  const std::string key_leaf = keys.empty() ? std::string() : leaf_of(keys.front());
  const bool exact = !keys.empty() && (key_leaf == bare || initials(key_leaf) == bare);
  const std::string near_bare = near.empty() ? std::string() : near.substr(near.find_first_not_of('-'));
  const bool key_closer =
      !keys.empty() &&
      (near.empty() || (near_bare != key_leaf && nearest_name(bare, {near_bare, key_leaf}) == key_leaf));
  if (exact || (owners.empty() && key_closer)) {
    return line.error_at(at, message + ": config keys are set with --set", set_hint(keys, line, at));
  }
  const std::string own = fmt::format("the options of `{}`: {}", path, fmt::join(option_names(cmd, true), ", "));
  if (!owners.empty()) {
    return line.error_at(at, message, fmt::format("`{}` is an option of {}; {}", flag, quoted_list(owners), own));
  }
  return line.error_at(at, message, near.empty() ? own : fmt::format("did you mean `{}`?", near));
}

// Kinds of file told apart by their first statement; both languages comment with `#`.
enum class FileKind { Model, Config, Unknown };

FileKind sniff(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  static const std::regex model_statement(R"(^\s*(import|from|model|def|layer)\s+[A-Za-z_].*)");
  static const std::regex toml_statement(R"(^\s*(\[.*\]|[A-Za-z0-9_."-]+\s*=.*)\s*)");
  const auto ends = [&](const std::string& ext) {
    return path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
  };
  for (int lines = 0; lines < 200 && std::getline(in, text); ++lines) {
    text.resize(std::min<size_t>(text.size(), 256));  // the regexes recurse per character
    const size_t first = text.find_first_not_of(" \t\r");
    if (first == std::string::npos || text[first] == '#') {
      continue;
    }
    if (std::regex_match(text, model_statement)) {
      return FileKind::Model;
    }
    // A key = value line is weaker evidence than a model's keyword and a name: a model file that
    // starts so is left to the model's parser.
    return std::regex_match(text, toml_statement) && !ends(".ipu") ? FileKind::Config : FileKind::Unknown;
  }
  return ends(".ipu") ? FileKind::Model : ends(".toml") ? FileKind::Config : FileKind::Unknown;
}

std::string positional(const CLI::App& command, const char* name) {
  const CLI::Option* opt = command.get_option_no_throw(name);
  return opt != nullptr && opt->count() > 0 ? opt->as<std::string>() : std::string();
}

}  // namespace

CommandLine::CommandLine(int argc, const char* const* argv) {
  words.emplace_back("iputrain");
  for (int i = 1; i < argc; ++i) {
    words.emplace_back(argv[i]);
  }
}

Error CommandLine::error_at(size_t index, std::string message, std::string hint) const {
  std::string text;
  SourceSpan span;
  span.file = 0;
  span.line = 1;
  for (size_t i = 0; i < words.size(); ++i) {
    const bool quote = words[i].empty() || words[i].find_first_of(" \t'\"") != std::string::npos;
    const std::string shown = quote ? fmt::format("'{}'", words[i]) : words[i];
    text += i == 0 ? "" : " ";
    if (i == index) {
      span.col = static_cast<int32_t>(text.size()) + 1;
      span.length = static_cast<int32_t>(shown.size());
    }
    text += shown;
  }
  if (index >= words.size()) {  // what is missing goes after the last word
    span.col = static_cast<int32_t>(text.size()) + 2;
  }
  auto sources = std::make_shared<SourceManager>();
  sources->add("command line", text);
  Error e(ErrorKind::Usage, std::move(message), span, std::move(hint));
  e.with_sources(sources);
  return e;
}

size_t CommandLine::find(const std::string& text) const {
  const auto it = std::find(words.begin() + 1, words.end(), text);
  return it == words.end() ? 0 : static_cast<size_t>(it - words.begin());
}

size_t CommandLine::find_value(const std::string& value) const {
  if (const size_t at = find(value); at != 0) {
    return at;
  }
  const std::string joined = "=" + value;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.size() > joined.size() && w.rfind("--", 0) == 0 &&
        w.compare(w.size() - joined.size(), joined.size(), joined) == 0) {
      return i;
    }
  }
  return 0;
}

std::optional<Error> explain_refusal(const CLI::App& app, const CommandLine& line) {
  const CLI::App* cmd = &app;
  for (size_t i = 1; i < line.words.size(); ++i) {
    const std::string& w = line.words[i];
    if (w == "--") {
      break;
    }
    if (is_option_word(w)) {
      const std::string flag = w.substr(0, w.find('='));
      const bool known = cmd->get_option_no_throw(w.rfind("--", 0) == 0 ? flag : w.substr(0, 2)) != nullptr;
      if (!known) {
        return unknown_option(*cmd, line, i);
      }
      continue;
    }
    // A word where a command goes (the command has commands, not arguments) must be one.
    if (!cmd->get_subcommands([](const CLI::App*) { return true; }).empty()) {
      const std::vector<const CLI::App*> subs =
          cmd->get_subcommands([&](const CLI::App* c) { return c->check_name(w); });
      const CLI::App* sub = subs.empty() ? nullptr : subs.front();
      if (sub == nullptr) {
        return unknown_command(*cmd, line, i);
      }
      cmd = sub;
    }
  }
  if (!cmd->get_subcommands([](const CLI::App*) { return true; }).empty()) {
    const std::vector<std::string> names = subcommand_names(*cmd);
    return line.error_at(
        line.words.size(),
        fmt::format("`iputrain{}` needs a command", cmd->get_parent() == nullptr ? "" : " " + command_path(*cmd)),
        fmt::format("the commands: {} (add --help to one for its arguments)", quoted_list(names)));
  }
  return std::nullopt;
}

std::optional<Error> explain_missing_path(const std::string& cli11_message, const CommandLine& line) {
  static const std::regex kMissing(R"(^(\S+): (File|Path|Directory) does not exist: (.*)$)");
  std::smatch m;
  if (!std::regex_search(cli11_message, m, kMissing)) {
    return std::nullopt;
  }
  const std::string role = m[1].str();
  const std::string path = m[3].str();
  const size_t at = line.find_value(path);
  const std::string what = role == "model" ? "model file"
                           : role == "config"
                               ? "config file"
                               : fmt::format("{} path", role.rfind('-', 0) == 0 ? role : "`" + role + "`");
  namespace fs = std::filesystem;
  const fs::path given(path);
  const fs::path folder = given.parent_path().empty() ? fs::path(".") : given.parent_path();
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  const std::string near = nearest_name(given.filename().string(), names);
  std::string hint;
  if (!near.empty()) {
    hint = fmt::format("did you mean `{}`?", (given.parent_path() / near).string());
  } else if (ec || !fs::is_directory(folder)) {
    hint = fmt::format(
        "the folder `{}` does not exist either; a path on the command line is relative to the "
        "current folder, {}",
        folder.string(), fs::current_path(ec).string());
  } else {
    hint = fmt::format(
        "nothing of a similar name in `{}`; a path on the command line is relative to the current "
        "folder, {}",
        folder.string(), fs::current_path(ec).string());
  }
  return line.error_at(at == 0 ? line.words.size() : at, fmt::format("{} `{}` does not exist", what, path), hint);
}

void check_file_roles(const CLI::App& command, const CommandLine& line) {
  const std::string model = positional(command, "model");
  const std::string config = positional(command, "config");
  const FileKind model_kind = model.empty() ? FileKind::Unknown : sniff(model);
  const FileKind config_kind = config.empty() ? FileKind::Unknown : sniff(config);
  const std::string path = command_path(command);
  if (model_kind == FileKind::Config && config_kind == FileKind::Model) {
    throw line.error_at(line.find(model),
                        fmt::format("MODEL and CONFIG are swapped: `{}` is a config and `{}` a model", model, config),
                        fmt::format("the model comes first: `iputrain {} {} {}`", path, config, model));
  }
  if (model_kind == FileKind::Config) {
    throw line.error_at(line.find(model), fmt::format("`{}` is a config (TOML), given where the model goes", model),
                        fmt::format("`iputrain {}` takes the model file (*.ipu) first, then the config", path));
  }
  if (config_kind == FileKind::Model) {
    throw line.error_at(line.find(config), fmt::format("`{}` is a model file, given where the config goes", config),
                        fmt::format("`iputrain {}` takes {}the config (TOML, *.toml; docs/config.md)", path,
                                    model.empty() ? "" : "the model file (*.ipu) first, then "));
  }
}

std::string mpirun_root_note(const Error& error) {
  const bool about_mpirun = error.diagnostic().hint.find("mpirun -n") != std::string::npos ||
                            error.diagnostic().message.find("mpirun -n") != std::string::npos;
  if (!about_mpirun || geteuid() != 0 || current_instances().launched) {
    return "";
  }
  return "note: this process runs as root, and Open MPI's mpirun refuses root: add --allow-run-as-root (`mpirun "
         "--allow-run-as-root -n N iputrain ...`) or set OMPI_ALLOW_RUN_AS_ROOT=1 and "
         "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 (docs/distributed.md#troubleshooting)\n";
}

}  // namespace iputrain::cli
