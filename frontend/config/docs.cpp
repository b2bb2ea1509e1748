// Text generated from the schema: docs/config.md and `iputrain config explain`.
#include <fmt/format.h>

#include <algorithm>

#include "frontend/config/rules.hpp"
#include "frontend/config/schema.hpp"

namespace iputrain::config {

namespace {

std::string default_text(const KeySpec& k) {
  if (k.type == KeyType::FreeTable || k.path == "extends") {
    return "(none)";
  }
  const bool sentinel = (k.type == KeyType::Int &&
                         !k.range.contains(static_cast<double>(std::get<int64_t>(k.default_value)))) ||
                        (k.type == KeyType::Float && !k.range.contains(std::get<double>(k.default_value)));
  return sentinel ? std::string("unset") : toml_text(k.default_value);
}

std::string allowed_text(const KeySpec& k) {
  if (k.type == KeyType::Enum || (k.type == KeyType::StringList && !k.allowed.empty())) {
    std::vector<std::string> quoted;
    for (const auto& a : k.allowed) {
      quoted.push_back(fmt::format("\"{}\"", a));
    }
    return fmt::format("{}{}", k.type == KeyType::StringList ? "each of " : "", fmt::join(quoted, ", "));
  }
  if (k.type == KeyType::AutoBool) {
    return "true, false, \"auto\"";
  }
  std::string r = k.range.str();
  if (!r.empty() && (k.type == KeyType::IntList || k.type == KeyType::FloatList || k.type == KeyType::NestedIntList)) {
    r = "each " + r;
  }
  if (k.unique) {
    r += r.empty() ? "distinct" : ", distinct";
  }
  return r;
}

std::string type_text(const KeySpec& k) {
  if (k.type == KeyType::Enum) {
    return "string (enum, case-insensitive)";
  }
  return std::string(key_type_name(k.type));
}

// The status cell: the word, and the reason of a refused or no-effect key.
std::string status_cell(const KeySpec& k) {
  if (k.reason.empty()) {
    return std::string(effect_word(k.effect));
  }
  return fmt::format("{}: {}", effect_word(k.effect), k.reason);
}

std::string cell(std::string s) {
  std::string out;
  for (char c : s) {
    out += c == '|' ? std::string("\\|") : std::string(1, c);
  }
  return out;
}

std::vector<const RuleDoc*> rules_for(const std::string& path) {
  std::vector<const RuleDoc*> out;
  for (const auto& r : rule_docs()) {
    if (std::find(r.keys.begin(), r.keys.end(), path) != r.keys.end()) {
      out.push_back(&r);
    }
  }
  return out;
}

std::string key_table(const std::string& section) {
  std::string out = "| Key | Type | Default | Allowed | Status | Meaning |\n|---|---|---|---|---|---|\n";
  for (const auto& k : schema()) {
    const size_t dot = k.path.rfind('.');
    const std::string parent = dot == std::string::npos ? std::string{} : k.path.substr(0, dot);
    if (parent != section) {
      continue;
    }
    const std::string def = default_text(k);
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", k.path, type_text(k),
                       def == "unset" ? def : fmt::format("`{}`", cell(def)), cell(allowed_text(k)),
                       cell(status_cell(k)), cell(k.doc));
  }
  return out;
}

}  // namespace

std::string explain(const std::string& key) {
  if (const KeySpec* k = find_key(key)) {
    std::string out = fmt::format("{}\n", k->path);
    out += fmt::format("  type:     {}\n", type_text(*k));
    if (std::string a = allowed_text(*k); !a.empty()) {
      out += fmt::format("  allowed:  {}\n", a);
    }
    out += fmt::format("  default:  {}\n", default_text(*k));
    out += fmt::format("  meaning:  {}\n", k->doc);
    out += fmt::format("  status:   {}: {}\n", effect_word(k->effect), effect_text(k->effect));
    if (!k->reason.empty()) {
      out += fmt::format("  because:  {}\n", k->reason);
    }
    if (!k->hint.empty()) {
      out += fmt::format("  instead:  {}\n", k->hint);
    }
    for (const auto& other : k->conflicts) {
      out += fmt::format("  excludes: {}\n", other);
    }
    for (const RuleDoc* r : rules_for(k->path)) {
      out += fmt::format("  rule:     {}{}\n", r->text, r->needs_model ? " (checked against the model)" : "");
    }
    return out;
  }
  if (const SectionSpec* s = find_section(key)) {
    std::string out = fmt::format("[{}]\n  {}\n", s->path, s->doc);
    for (const auto& name : keys_in(s->path)) {
      const std::string path = s->path + "." + name;
      if (const KeySpec* k = find_key(path)) {
        out += fmt::format("  {:<40} {}\n", name, k->doc);
      } else {
        out += fmt::format("  {:<40} [{}] {}\n", name, path, find_section(path)->doc);
      }
    }
    return out;
  }
  for (const auto& [from, to] : aliases()) {
    if (key == from || key.rfind(from + ".", 0) == 0) {
      return explain(to + key.substr(from.size()));
    }
  }
  auto sources = std::make_shared<SourceManager>();
  const int32_t file = sources->add("config explain", key);
  const std::string near = suggest_key(key);
  throw Error(ErrorKind::Usage, fmt::format("unknown config key `{}`", key),
              SourceSpan{file, 1, 1, std::max<int32_t>(1, static_cast<int32_t>(key.size()))},
              near.empty() ? fmt::format("top-level keys and tables: {}", fmt::join(keys_in(""), ", "))
                           : fmt::format("did you mean `{}`?", near))
      .with_sources(sources);
}

std::string reference_markdown() {
  std::string out =
      "<!-- GENERATED from the config schema (frontend/config/keys_*.cpp and rules.cpp): do not edit.\n"
      "     Regenerate with `iputrain config docs > docs/config.md`; test_config fails when it is stale. "
      "-->\n"
      "# Config reference\n\n"
      "A config is one TOML file. `extends = \"base.toml\"` (relative to the file) loads a base first and "
      "replaces its keys one by one; `--set key=value` (repeatable) overrides any key, the value parsed by "
      "the key's type (`--set pipeline.device_mapping=[0,1]`). `iputrain config show FILE` prints the "
      "effective config and `iputrain config explain KEY` one key.\n\n"
      "Types are exact: a boolean is not an integer, an integer is not a string, but an integer is "
      "accepted for a float. Enum values are strings matched without regard to case, `_` or `-` "
      "(`\"SNAKE\"`, `\"RecomputeThenBackpropagate\"`). Unknown keys, values out of range and broken "
      "rules are errors that name the key and its file:line:col.\n\n"
      "Status of a key on virtual IPUs, declared on its schema row and enforced when a config is loaded "
      "(so `check`, `plan`, `train` and the API agree): **acts** = changes what the engine computes, how "
      "it runs or what it writes; **modelled** = changes the plan's memory, cycles or topology (visible "
      "in `iputrain plan --format json`), trained results unchanged; **refused** = a value other than the "
      "default is an error giving the reason; **no effect** = accepted for compatibility with the "
      "seeds' IPUConfig, a value other than the default prints a warning naming the key and why. "
      "A test sets every key to a non-default value on a pipelined, replicated plan and checks that its "
      "status holds.\n\n"
      "## Paths\n\n"
      "One rule for every path: a path written in a config file resolves against the folder of that file "
      "(a base file's paths against the base's folder); a path given on the command line (`--set`, the REPL's "
      "`set`, and flags such as `-o`, `--resume`, `--save`) resolves against the current directory. Absolute "
      "paths are taken as they are. The keys it covers: `data.train`, `data.test`, `data.validation`, "
      "`checkpoint.dir`, `profiling.report_directory`, `ipu.serialization_output_folder`.\n\n"
      "A key left unset reads as \"unset\" in the Default column: it has no value of its own, and its "
      "meaning says what happens then.\n\n";
  out += "## Top-level keys\n\n" + key_table("");
  for (const auto& s : sections()) {
    out += fmt::format("\n## [{}]\n\n{}\n\n", s.path, s.doc);
    if (s.path == "checkpoint") {
      out += "Also accepted as `[training] checkpoint = { dir = \"…\", every = 500 }`.\n\n";
    }
    out += key_table(s.path);
  }
  out += "\n## Cross-key rules\n\n";
  for (const auto& r : rule_docs()) {
    std::vector<std::string> keys;
    for (const auto& k : r.keys) {
      keys.push_back(fmt::format("`{}`", k));
    }
    out += fmt::format("- {}: {}{}\n", fmt::join(keys, ", "), r.text,
                       r.needs_model ? " *(checked against the model by the planner)*" : "");
  }
  return out;
}

}  // namespace iputrain::config
