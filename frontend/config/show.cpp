// `iputrain config show`: the effective config as TOML that loads back into the same Config (the
// keys it did not set as comments, so that they stay unset), and one key's value as TOML text.
#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "frontend/config/rules.hpp"
#include "frontend/config/schema.hpp"

namespace iputrain::config {

namespace {

std::string parent_of(const std::string& path) {
  size_t dot = path.rfind('.');
  return dot == std::string::npos ? std::string{} : path.substr(0, dot);
}

std::string leaf_of(const std::string& path) {
  size_t dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

// A path as a config written anywhere must hold it to mean the same: absolute (docs/config.md, Paths).
Value rebased(const Config& cfg, const KeySpec& k, Value v) {
  const auto* text = std::get_if<std::string>(&v);
  if (!k.is_path || text == nullptr || text->empty()) {
    return v;
  }
  return Value(k.path.rfind("data.", 0) == 0 ? cfg.resolve_data_spec(k.path, *text, true)
                                             : cfg.resolve_path(k.path, *text, true));
}

// TOML text written key by key: a table's header before its first key, a blank line between.
struct TomlTables {
  std::string out;
  std::string table;  // the table the last line belongs to ("" = the root)
  void open(const std::string& t) {
    if (t != table) {
      out += fmt::format("{}[{}]\n", out.empty() ? "" : "\n", t);
      table = t;
    }
  }
};

}  // namespace

std::string show(const Config& cfg, bool rebase_paths) {
  Config settled = cfg;  // an unset plain key is shown with the value its line settles it to
  settled.plain = settled_plain_keys(cfg);
  TomlTables toml;
  std::string& out = toml.out;
  for (const auto& k : schema()) {
    if (k.path == "extends") {
      continue;  // the keys it brought in are written out below
    }
    if (k.type == KeyType::FreeTable) {
      toml.open(k.path);
      for (const auto& [name, v] : cfg.model) {
        out += fmt::format("{} = {}\n", name, param_value_str(v));
      }
      continue;
    }
    toml.open(parent_of(k.path));
    // A key the config did not set is written as a comment with its value: set, some keys change
    // what the others mean (a schedule makes the run pipelined, its accumulation count derived),
    // so the text must read back with the same keys set to plan the same.
    std::string reason = inactive_reason(cfg, k);
    const bool unset_and_active = reason.empty() && !cfg.is_set(k.path);
    const Value value = k.access.get(unset_and_active ? settled : cfg);
    if (unset_and_active) {
      reason = toml_text(value) == toml_text(k.default_value) ? "default" : "not set; derived";
    }
    out += fmt::format("{}{} = {}{}\n", reason.empty() ? "" : "# ", leaf_of(k.path),
                       toml_text(rebase_paths ? rebased(cfg, k, value) : value),
                       reason.empty() ? "" : fmt::format("  ({})", reason));
  }
  return out;
}

std::optional<std::string> show_extending(const Config& cfg, const std::string& base_path,
                                          const std::vector<std::string>& sets) {
  std::set<std::string> keys;
  for (const std::string& s : sets) {
    keys.insert(s.substr(0, s.find('=')));
  }
  const std::string base = std::filesystem::absolute(base_path).lexically_normal().string();
  TomlTables toml{fmt::format("extends = {}\n", toml_text(Value(base))), ""};
  size_t written = 0;
  for (const auto& k : schema()) {
    if (k.type == KeyType::FreeTable) {
      for (const auto& [name, v] : cfg.model) {
        if (keys.count(k.path + "." + name) != 0) {
          toml.open(k.path);
          toml.out += fmt::format("{} = {}\n", name, param_value_str(v));
          written += 1;
        }
      }
      continue;
    }
    if (keys.count(k.path) == 0 || k.path == "extends") {
      continue;
    }
    const std::string parent = parent_of(k.path);
    if (parent.empty() && !toml.table.empty()) {
      return std::nullopt;  // a root key after a table: TOML would put it in the table (no schema key does)
    }
    toml.open(parent);
    toml.out += fmt::format("{} = {}\n", leaf_of(k.path), toml_text(rebased(cfg, k, k.access.get(cfg))));
    written += 1;
  }
  if (written != keys.size()) {
    return std::nullopt;  // a key as typed that is no schema path (nor a model parameter)
  }
  return toml.out;
}

std::optional<std::string> value_text(const Config& cfg, const std::string& key) {
  const KeySpec* k = find_key(key);
  if (k == nullptr || !k->access.get) {
    return std::nullopt;
  }
  return toml_text(k->access.get(cfg));
}

}  // namespace iputrain::config
