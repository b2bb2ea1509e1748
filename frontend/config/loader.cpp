#include "frontend/config/loader.hpp"

#include <fmt/format.h>

#include <toml++/toml.h>
#include <charconv>
#include <cmath>
#include <optional>

#include "frontend/config/schema.hpp"

namespace iputrain {

namespace {

using config::KeySpec;
using config::KeyType;

//! A value as the user wrote it, before it is checked against a key's type.
struct Raw {
  std::optional<ParamValue> value;  //!< empty for arrays, tables, dates
  std::string type;                 //!< "integer", "array", … for messages
};

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) {
    return {};
  }
  size_t e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

std::string lower(std::string s) {
  for (char& c : s) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return s;
}

std::string_view toml_type_name(toml::node_type t) {
  switch (t) {
    case toml::node_type::table:
      return "table";
    case toml::node_type::array:
      return "array";
    case toml::node_type::string:
      return "string";
    case toml::node_type::integer:
      return "integer";
    case toml::node_type::floating_point:
      return "float";
    case toml::node_type::boolean:
      return "boolean";
    case toml::node_type::date:
      return "date";
    case toml::node_type::time:
      return "time";
    case toml::node_type::date_time:
      return "date-time";
    default:
      return "nothing";
  }
}

Raw raw_of(const toml::node& n) {
  Raw r{std::nullopt, std::string(toml_type_name(n.type()))};
  if (auto v = n.as_integer()) {
    r.value = v->get();
  } else if (auto f = n.as_floating_point()) {
    r.value = f->get();
  } else if (auto b = n.as_boolean()) {
    r.value = b->get();
  } else if (auto s = n.as_string()) {
    r.value = s->get();
  }
  return r;
}

std::string unquote(const std::string& s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) {
    return s.substr(1, s.size() - 2);
  }
  return s;
}

// `--set` values have no TOML types, so they are read the way a person would: a whole number is
// an integer, then a float, then true/false, else text.
Raw parse_scalar(const std::string& text) {
  const char* b = text.data();
  const char* e = b + text.size();
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') && text.back() == text.front()) {
    return {unquote(text), "string"};
  }
  int64_t i = 0;
  if (auto [p, ec] = std::from_chars(b, e, i); ec == std::errc{} && p == e && !text.empty()) {
    return {i, "integer"};
  }
  double d = 0;
  if (auto [p, ec] = std::from_chars(b, e, d); ec == std::errc{} && p == e && !text.empty()) {
    return {d, "float"};
  }
  if (text == "true" || text == "false") {
    return {text == "true", "boolean"};
  }
  return {text, "string"};
}

SourceSpan region_span(const toml::source_region& r, int32_t file) {
  if (r.begin.line == 0) {
    return {};
  }
  SourceSpan s{file, static_cast<int32_t>(r.begin.line), static_cast<int32_t>(r.begin.column), 1};
  if (r.end.line == r.begin.line && r.end.column > r.begin.column) {
    s.length = static_cast<int32_t>(r.end.column - r.begin.column);
  }
  return s;
}

// From the start of `a` to the end of `b` when both are on one line (`batch_size = 64`).
SourceSpan join(SourceSpan a, SourceSpan b) {
  if (!a.valid() || !b.valid() || a.file != b.file || a.line != b.line || b.col < a.col) {
    return a;
  }
  a.length = b.col + b.length - a.col;
  return a;
}

bool before(const SourceSpan& a, const SourceSpan& b) {
  return a.file != b.file ? a.file < b.file : (a.line != b.line ? a.line < b.line : a.col < b.col);
}

//! The state of one load; holds references to the Config's private parts (see ConfigLoader).
class Builder {
 public:
  Builder(Config& cfg, std::map<std::string, SourceSpan>& spans, std::shared_ptr<SourceManager> sources)
      : cfg_(cfg), spans_(spans), sources_(std::move(sources)) {}

  void load_toml(const std::string& text, const std::string& path) {
    file_ = sources_->add(path, text);
    toml::table root;
    try {
      root = toml::parse(text, std::string_view(path));
    } catch (const toml::parse_error& e) {
      std::string what(e.description());
      // toml++ prefixes its messages with the grammar rule it was in; the caret says enough.
      if (what.rfind("Error while parsing ", 0) == 0 && what.find(": ") != std::string::npos) {
        what = what.substr(what.find(": ") + 2);
      }
      fail(region_span(e.source(), file_), fmt::format("invalid TOML: {}", what), {});
    }
    walk(root, "");
    check_conflicts();
  }

  void apply_sets(const std::vector<std::string>& sets) {
    if (sets.empty()) {
      return;
    }
    std::string text;
    for (const auto& s : sets) {
      text += s + "\n";
    }
    set_file_ = sources_->add("--set", text);
    for (size_t i = 0; i < sets.size(); ++i) {
      apply_set(sets[i], static_cast<int32_t>(i + 1));
    }
  }

 private:
  [[noreturn]] void fail(SourceSpan at, std::string message, std::string hint) {
    throw Error(ErrorKind::Config, std::move(message), at, std::move(hint)).with_sources(sources_);
  }

  void walk(const toml::table& table, const std::string& prefix) {
    for (auto&& [key, node] : table) {
      const std::string path =
          prefix.empty() ? std::string(key.str()) : fmt::format("{}.{}", prefix, key.str());
      const SourceSpan kspan = region_span(key.source(), file_);
      const SourceSpan vspan = region_span(node.source(), file_);
      if (const KeySpec* k = config::find_key(path)) {
        if (k->type == KeyType::FreeTable) {
          take_free_table(*k, node, kspan, vspan);
          continue;
        }
        k->access.set(cfg_, validate(*k, raw_of(node), vspan, ""));
        spans_[path] = join(kspan, vspan);
        continue;
      }
      if (config::is_section(path)) {
        if (!node.is_table()) {
          fail(
              vspan,
              fmt::format("wrong type for `{}`: expected table, found {}", path, toml_type_name(node.type())),
              section_hint(path));
        }
        spans_[path] = kspan;
        walk(*node.as_table(), path);
        continue;
      }
      unknown(path, node.is_table(), kspan, "");
    }
  }

  void take_free_table(const KeySpec& k, const toml::node& node, SourceSpan kspan, SourceSpan vspan) {
    const toml::table* t = node.as_table();
    if (t == nullptr) {
      fail(vspan,
           fmt::format("wrong type for `{}`: expected table, found {}", k.path, toml_type_name(node.type())),
           fmt::format("write the values under a `[{}]` header, one `name = value` per line", k.path));
    }
    spans_[k.path] = kspan;
    for (auto&& [key, value] : *t) {
      const std::string path = fmt::format("{}.{}", k.path, key.str());
      const SourceSpan item_key = region_span(key.source(), file_);
      const SourceSpan item_value = region_span(value.source(), file_);
      Raw raw = raw_of(value);
      if (!raw.value) {
        fail(item_value,
             fmt::format("wrong type for `{}`: expected integer, float, boolean or string, found {}", path,
                         raw.type),
             fmt::format("`[{}]` takes one scalar per parameter, e.g. `{} = 256`", k.path, key.str()));
      }
      cfg_.model[std::string(key.str())] = *raw.value;
      spans_[path] = join(item_key, item_value);
    }
  }

  std::string section_hint(const std::string& section) const {
    return fmt::format("`{}` is a table of keys: {}", section, fmt::join(config::keys_in(section), ", "));
  }

  [[noreturn]] void unknown(const std::string& path, bool is_table, SourceSpan at,
                            const std::string& origin) {
    std::string message = fmt::format("unknown config {} `{}`{}", is_table ? "table" : "key", path, origin);
    std::string near = config::suggest_key(path);
    if (!near.empty()) {
      fail(at, message, fmt::format("did you mean `{}`?", near));
    }
    size_t dot = path.rfind('.');
    std::string parent = dot == std::string::npos ? std::string{} : path.substr(0, dot);
    if (config::is_section(parent)) {
      fail(at, message,
           fmt::format("valid keys in [{}]: {}", parent, fmt::join(config::keys_in(parent), ", ")));
    }
    std::vector<std::string> tops = config::keys_in("");
    fail(at, message, fmt::format("valid top-level tables: {}", fmt::join(tops, ", ")));
  }

  //! Converts `raw` to the key's type and checks range and allowed values; throws at `at`.
  ParamValue validate(const KeySpec& k, const Raw& raw, SourceSpan at, const std::string& origin) {
    auto type_error = [&](std::string hint) {
      fail(at,
           fmt::format("wrong type for `{}`{}: expected {}, found {}", k.path, origin,
                       config::key_type_name(k.type), raw.type),
           std::move(hint));
    };
    const ParamValue* v = raw.value ? &*raw.value : nullptr;
    // A quoted number or boolean is the most common wrong type; say so.
    std::string quoted_hint;
    if (v != nullptr && std::holds_alternative<std::string>(*v) && k.type != KeyType::String &&
        k.type != KeyType::Enum) {
      Raw inner = parse_scalar(std::get<std::string>(*v));
      if (inner.type != "string") {
        quoted_hint = "remove the quotes around the value";
      }
    }
    switch (k.type) {
      case KeyType::Int: {
        if (v == nullptr || !std::holds_alternative<int64_t>(*v)) {
          bool whole_float = v != nullptr && std::holds_alternative<double>(*v) &&
                             std::abs(std::get<double>(*v)) < 9e18 &&
                             std::get<double>(*v) == std::trunc(std::get<double>(*v));
          type_error(whole_float ? "write the number without a decimal point" : quoted_hint);
        }
        check_range(k, static_cast<double>(std::get<int64_t>(*v)), *v, at, origin);
        return *v;
      }
      case KeyType::Float: {
        if (v != nullptr && std::holds_alternative<int64_t>(*v)) {
          ParamValue d = static_cast<double>(std::get<int64_t>(*v));
          check_range(k, std::get<double>(d), d, at, origin);
          return d;
        }
        if (v == nullptr || !std::holds_alternative<double>(*v)) {
          type_error(quoted_hint);
        }
        check_range(k, std::get<double>(*v), *v, at, origin);
        return *v;
      }
      case KeyType::Bool:
        if (v == nullptr || !std::holds_alternative<bool>(*v)) {
          type_error(quoted_hint.empty() ? std::string("write `true` or `false`") : quoted_hint);
        }
        return *v;
      case KeyType::String:
        if (v == nullptr || !std::holds_alternative<std::string>(*v)) {
          type_error(v != nullptr ? "put the value in double quotes" : "");
        }
        return *v;
      case KeyType::Enum: {
        if (v == nullptr || !std::holds_alternative<std::string>(*v)) {
          type_error(fmt::format("`{}` is {}", k.path, k.expected()));
        }
        const std::string& s = std::get<std::string>(*v);
        for (const auto& a : k.allowed) {
          if (lower(a) == lower(s)) {
            return a;
          }
        }
        std::string near = nearest_name(s, k.allowed);
        fail(at, fmt::format("invalid value \"{}\" for `{}`{}: expected {}", s, k.path, origin, k.expected()),
             near.empty() ? fmt::format("allowed values: {}", fmt::join(k.allowed, ", "))
                          : fmt::format("did you mean \"{}\"?", near));
      }
      case KeyType::FreeTable:
        break;
    }
    fail(at, fmt::format("`{}` cannot be set here", k.path), {});
  }

  void check_range(const KeySpec& k, double d, const ParamValue& v, SourceSpan at,
                   const std::string& origin) {
    if (k.range.contains(d)) {
      return;
    }
    fail(at, fmt::format("`{}`{} must be {}, found {}", k.path, origin, k.range.str(), param_value_str(v)),
         fmt::format("`{}`: {}", k.path, k.doc));
  }

  void check_conflicts() {
    for (const auto& k : config::schema()) {
      for (const auto& other : k.conflicts) {
        auto a = spans_.find(k.path);
        auto b = spans_.find(other);
        if (a == spans_.end() || b == spans_.end() || before(b->second, a->second)) {
          continue;
        }
        // Report at the later of the two; the hint points back at the earlier one.
        fail(b->second, fmt::format("`{}` and `{}` cannot both be set", k.path, other),
             fmt::format("`{}` is already set at line {}; keep only one of them", k.path, a->second.line));
      }
    }
  }

  void apply_set(const std::string& set, int32_t line) {
    const size_t eq = set.find('=');
    if (eq == std::string::npos) {
      fail({}, fmt::format("`--set {}` is not of the form key=value", set),
           "example: --set data.batch_size=64");
    }
    const std::string key = trim(std::string_view(set).substr(0, eq));
    const std::string text = trim(std::string_view(set).substr(eq + 1));
    const std::string origin = fmt::format(" (from `--set {}`)", set);
    const int32_t key_col = static_cast<int32_t>(set.find_first_not_of(" \t") + 1);
    const size_t text_pos = set.find_first_not_of(" \t", eq + 1);
    const SourceSpan kspan{set_file_, line, key_col, std::max<int32_t>(1, static_cast<int32_t>(key.size()))};
    const SourceSpan vspan = text_pos == std::string::npos
                                 ? SourceSpan{set_file_, line, static_cast<int32_t>(eq + 1), 1}
                                 : SourceSpan{set_file_, line, static_cast<int32_t>(text_pos + 1),
                                              static_cast<int32_t>(text.size())};

    const KeySpec* free_table = nullptr;
    for (const auto& k : config::schema()) {
      if (k.type == KeyType::FreeTable && key.rfind(k.path + ".", 0) == 0) {
        free_table = &k;
      }
    }
    if (free_table != nullptr) {
      const std::string name = key.substr(free_table->path.size() + 1);
      if (name.empty() || name.find('.') != std::string::npos) {
        fail({}, fmt::format("invalid key `{}` in `--set {}`", key, set),
             fmt::format("`{}` parameters are set as `--set {}.NAME=VALUE`", free_table->path,
                         free_table->path));
      }
      cfg_.model[name] = *parse_scalar(text).value;
      spans_[key] = join(kspan, vspan);
      return;
    }
    const KeySpec* k = config::find_key(key);
    if (k == nullptr || k->type == KeyType::FreeTable) {
      if (config::is_section(key) || k != nullptr) {
        fail({}, fmt::format("`--set {}` names a table, not a key", set), section_hint(key));
      }
      unknown(key, false, {}, fmt::format(" in `--set {}`", set));
    }
    const bool textual = k->type == KeyType::String || k->type == KeyType::Enum;
    const Raw raw = textual ? Raw{unquote(text), "string"} : parse_scalar(text);
    k->access.set(cfg_, validate(*k, raw, vspan, origin));
    // A later --set replaces an exclusive partner from the file instead of contradicting it.
    for (const auto& other : k->conflicts) {
      if (const KeySpec* o = config::find_key(other); o != nullptr && spans_.erase(other) > 0) {
        o->access.set(cfg_, o->default_value);
      }
    }
    spans_[key] = join(kspan, vspan);
  }

  Config& cfg_;
  std::map<std::string, SourceSpan>& spans_;
  std::shared_ptr<SourceManager> sources_;
  int32_t file_ = -1;
  int32_t set_file_ = -1;
};

}  // namespace

Config ConfigLoader::run(const std::string& text, const std::string& path,
                         const std::vector<std::string>& sets) {
  Config cfg;
  cfg.path_ = path;
  Builder b(cfg, cfg.spans_, cfg.sources_);
  b.load_toml(text, path);
  b.apply_sets(sets);
  return cfg;
}

}  // namespace iputrain
