#include "iputrain/config_loader.hpp"
#include "core/read_limits.hpp"

#include <fmt/format.h>

#include <toml++/toml.h>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/config/rules.hpp"
#include "frontend/config/schema.hpp"
#include "frontend/config/validate.hpp"

namespace iputrain {

namespace {

namespace fs = std::filesystem;
using config::KeySpec;
using config::KeyType;
using config::Locator;
using config::Value;

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) {
    return {};
  }
  size_t e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

std::string unquote(const std::string& s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) {
    return s.substr(1, s.size() - 2);
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

// The canonical path of a key written under an alias table (`training.checkpoint.dir`).
std::string canonical_path(const std::string& path) {
  for (const auto& [from, to] : config::aliases()) {
    if (path == from) {
      return to;
    }
    if (path.rfind(from + ".", 0) == 0) {
      return to + path.substr(from.size());
    }
  }
  return path;
}

//! The state of one load; holds references to the Config and to the origin it records.
class Builder {
 public:
  Builder(Config& cfg, std::map<std::string, SourceSpan>& spans, std::shared_ptr<SourceManager> sources)
      : cfg_(cfg), spans_(spans), sources_(std::move(sources)) {}

  //! Loads `text` (the file `path`), after the files it extends. `chain` holds the files that
  //! extend this one, outermost first, to detect cycles.
  void load_file(const std::string& text, const std::string& path, std::vector<std::string> chain) {
    const int32_t file = sources_->add(path, text);
    const Locator loc{file};
    toml::table root;
    try {
      root = toml::parse(text, std::string_view(path));
    } catch (const toml::parse_error& e) {
      std::string what(e.description());
      // toml++ prefixes its messages with the grammar rule it was in; the caret says enough.
      if (what.rfind("Error while parsing ", 0) == 0 && what.find(": ") != std::string::npos) {
        what = what.substr(what.find(": ") + 2);
      }
      fail(loc.span(e.source()), fmt::format("invalid TOML: {}", what),
           "TOML is `key = value` lines under `[table]` headers; each key once per table; strings in quotes");
    }
    chain.push_back(path);
    if (const toml::node* ext = root.get("extends")) {
      load_base(*ext, loc, chain);
    }
    walk(root, "", loc);
    check_conflicts(file);
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

  void load_base(const toml::node& ext, const Locator& loc, const std::vector<std::string>& chain) {
    const KeySpec& k = *config::find_key("extends");
    const SourceSpan at = loc.span(ext.source());
    const std::string rel = std::get<std::string>(config::validate_node(k, ext, loc, at, "", sources_));
    const fs::path base = (fs::path(chain.back()).parent_path() / rel).lexically_normal();
    std::error_code ec;
    const fs::path id = fs::weakly_canonical(base, ec);
    for (size_t i = 0; i < chain.size(); ++i) {
      std::error_code ec2;
      if (fs::weakly_canonical(fs::path(chain[i]), ec2) == id) {
        std::vector<std::string> cycle(chain.begin() + static_cast<std::ptrdiff_t>(i), chain.end());
        cycle.push_back(base.string());
        fail(at, fmt::format("`extends` cycle: {}", fmt::join(cycle, " -> ")),
             "a config cannot extend itself, directly or through other files");
      }
    }
    if (fs::is_directory(base, ec)) {
      fail(at, fmt::format("cannot read `extends` file `{}`: it is a directory", base.string()),
           "name a .toml file, relative to the file that extends it");
    }
    if (const auto size = fs::file_size(base, ec); !ec && size > kMaxTextBytes) {
      fail(at,
           fmt::format("`extends` file `{}` is larger than the {} MiB iputrain reads", base.string(),
                       kMaxTextBytes >> 20),
           "a config file is text of a few kilobytes");
    }
    std::ifstream in(base, std::ios::binary);
    if (!in) {
      fail(at, fmt::format("cannot read `extends` file `{}`: {}", base.string(), std::strerror(errno)),
           fmt::format("the path is relative to the directory of `{}`", chain.back()));
    }
    std::ostringstream text;
    text << in.rdbuf();
    load_file(text.str(), base.string(), chain);
  }

  void walk(const toml::table& table, const std::string& prefix, const Locator& loc) {
    for (auto&& [key, node] : table) {
      if (prefix.empty() && key.str() == "extends") {
        continue;  // loaded first, by load_file
      }
      const std::string written = prefix.empty() ? std::string(key.str()) : fmt::format("{}.{}", prefix, key.str());
      const std::string path = canonical_path(written);
      const SourceSpan kspan = loc.span(key.source());
      const SourceSpan vspan = loc.span(node.source());
      if (const KeySpec* k = config::find_key(path)) {
        if (k->type == KeyType::FreeTable) {
          take_free_table(*k, node, kspan, vspan, loc);
          continue;
        }
        set_key(*k, config::validate_node(*k, node, loc, vspan, "", sources_), join(kspan, vspan), written, false);
        continue;
      }
      if (config::is_section(path)) {
        if (!node.is_table()) {
          fail(vspan,
               fmt::format("wrong type for `{}`: expected table, found {}", written,
                           config::toml_type_name(node.type())),
               section_hint(path));
        }
        spans_.try_emplace(path, kspan);
        walk(*node.as_table(), written, loc);
        continue;
      }
      unknown(written, node.is_table(), kspan, "");
    }
  }

  //! Stores a validated value. A key set in one file replaces an exclusive partner (steps vs
  //! epochs) set by a file it extends or by an earlier `--set`; within one file both is an error
  //! (check_conflicts).
  void set_key(const KeySpec& k, const Value& v, SourceSpan span, const std::string& written, bool from_set) {
    if (auto it = spans_.find(k.path); !from_set && it != spans_.end() && it->second.file == span.file) {
      fail(span, fmt::format("`{}` is set twice", written),
           fmt::format("`{}` is already set at line {} (`[training] checkpoint` is `[checkpoint]`); keep one", k.path,
                       it->second.line));
    }
    for (const auto& other : k.conflicts) {
      auto it = spans_.find(other);
      if (it != spans_.end() && (from_set || it->second.file != span.file)) {
        const KeySpec* o = config::find_key(other);
        o->access.set(cfg_, o->default_value);
        spans_.erase(it);
      }
    }
    k.access.set(cfg_, v);
    spans_[k.path] = span;
  }

  void take_free_table(const KeySpec& k, const toml::node& node, SourceSpan kspan, SourceSpan vspan,
                       const Locator& loc) {
    const toml::table* t = node.as_table();
    if (t == nullptr) {
      fail(vspan,
           fmt::format("wrong type for `{}`: expected table, found {}", k.path, config::toml_type_name(node.type())),
           fmt::format("write the values under a `[{}]` header, one `name = value` per line", k.path));
    }
    spans_[k.path] = kspan;
    for (auto&& [key, value] : *t) {
      const std::string path = fmt::format("{}.{}", k.path, key.str());
      const SourceSpan item_key = loc.span(key.source());
      const SourceSpan item_value = loc.span(value.source());
      ParamValue pv;
      if (const auto* i = value.as_integer()) {
        pv = i->get();
      } else if (const auto* f = value.as_floating_point()) {
        pv = f->get();
      } else if (const auto* b = value.as_boolean()) {
        pv = b->get();
      } else if (const auto* s = value.as_string()) {
        pv = s->get();
      } else {
        fail(item_value,
             fmt::format("wrong type for `{}`: expected integer, float, boolean or string, found {}", path,
                         config::toml_type_name(value.type())),
             fmt::format("`[{}]` takes one scalar per parameter, e.g. `{} = 256`", k.path, key.str()));
      }
      cfg_.model[std::string(key.str())] = pv;
      spans_[path] = join(item_key, item_value);
    }
  }

  std::string section_hint(const std::string& section) const {
    return fmt::format("`{}` is a table of keys: {}", section, fmt::join(config::keys_in(section), ", "));
  }

  [[noreturn]] void unknown(const std::string& path, bool is_table, SourceSpan at, const std::string& origin) {
    std::string message = fmt::format("unknown config {} `{}`{}", is_table ? "table" : "key", path, origin);
    const std::string canonical = canonical_path(path);
    std::string near = config::suggest_key(canonical);
    if (!near.empty()) {
      fail(at, message, fmt::format("did you mean `{}`?", near));
    }
    size_t dot = canonical.rfind('.');
    std::string parent = dot == std::string::npos ? std::string{} : canonical.substr(0, dot);
    if (config::is_section(parent)) {
      fail(at, message, fmt::format("valid keys in [{}]: {}", parent, fmt::join(config::keys_in(parent), ", ")));
    }
    std::vector<std::string> tops = config::keys_in("");
    fail(at, message, fmt::format("valid top-level keys and tables: {}", fmt::join(tops, ", ")));
  }

  void check_conflicts(int32_t file) {
    for (const auto& k : config::schema()) {
      for (const auto& other : k.conflicts) {
        auto a = spans_.find(k.path);
        auto b = spans_.find(other);
        if (a == spans_.end() || b == spans_.end() || a->second.file != file || b->second.file != file ||
            before(b->second, a->second)) {
          continue;
        }
        // Report at the later of the two; the hint points back at the earlier one.
        fail(b->second, fmt::format("`{}` and `{}` cannot both be set", k.path, other),
             fmt::format("`{}` is already set at line {}; keep only one of them", k.path, a->second.line));
      }
    }
  }

  //! A `--set` value as a TOML node: text for string keys, else the value parsed as TOML (so
  //! `[0, 1]` is a list), else the raw text (reported as a string of the wrong type).
  std::unique_ptr<toml::node> set_value_node(const KeySpec& k, const std::string& text, toml::table& holder,
                                             Locator& loc, int32_t text_col) {
    if (k.type == KeyType::String || k.type == KeyType::Enum) {
      return std::make_unique<toml::value<std::string>>(unquote(text));
    }
    try {
      holder = toml::parse("v = " + text);
      if (const toml::node* n = holder.get("v"); n != nullptr && holder.size() == 1) {
        loc.col_shift = text_col - 5;  // `TEXT` starts at column 5 of the parsed line
        return nullptr;                // use holder["v"], which keeps its source positions
      }
    } catch (const toml::parse_error&) {
    }
    return std::make_unique<toml::value<std::string>>(text);
  }

  void apply_set(const std::string& set, int32_t line) {
    const SourceSpan whole{set_file_, line, 1, std::max<int32_t>(1, static_cast<int32_t>(set.size()))};
    const size_t eq = set.find('=');
    if (eq == std::string::npos) {
      fail(whole, fmt::format("`--set {}` is not of the form key=value", set), "example: --set data.batch_size=64");
    }
    const std::string key = trim(std::string_view(set).substr(0, eq));
    const std::string text = trim(std::string_view(set).substr(eq + 1));
    const std::string origin = fmt::format(" (from `--set {}`)", set);
    const size_t key_pos = set.find_first_not_of(" \t");
    const int32_t key_col = static_cast<int32_t>(key_pos == eq ? eq + 1 : key_pos + 1);
    const size_t text_pos = set.find_first_not_of(" \t", eq + 1);
    const SourceSpan kspan{set_file_, line, key_col, std::max<int32_t>(1, static_cast<int32_t>(key.size()))};
    const SourceSpan vspan =
        text_pos == std::string::npos
            ? SourceSpan{set_file_, line, static_cast<int32_t>(eq + 1), 1}
            : SourceSpan{set_file_, line, static_cast<int32_t>(text_pos + 1), static_cast<int32_t>(text.size())};
    const std::string path = canonical_path(key);

    const KeySpec* free_table = nullptr;
    for (const auto& k : config::schema()) {
      if (k.type == KeyType::FreeTable && path.rfind(k.path + ".", 0) == 0) {
        free_table = &k;
      }
    }
    if (free_table != nullptr) {
      const std::string name = path.substr(free_table->path.size() + 1);
      if (name.empty() || name.find('.') != std::string::npos) {
        fail(kspan, fmt::format("invalid key `{}` in `--set {}`", key, set),
             fmt::format("`{}` parameters are set as `--set {}.NAME=VALUE`", free_table->path, free_table->path));
      }
      cfg_.model[name] = config::parse_scalar(text);
      spans_[path] = join(kspan, vspan);
      return;
    }
    const KeySpec* k = config::find_key(path);
    if (k == nullptr || k->type == KeyType::FreeTable || k->path == "extends") {
      if (k != nullptr && k->path == "extends") {
        fail(kspan, "`extends` cannot be set with --set", "name the base file in the config file");
      }
      if (config::is_section(path) || k != nullptr) {
        fail(kspan, fmt::format("`--set {}` names a table, not a key", set), section_hint(path));
      }
      unknown(key, false, kspan, fmt::format(" in `--set {}`", set));
    }
    toml::table holder;
    Locator loc{set_file_, line, 0};
    std::unique_ptr<toml::node> own =
        set_value_node(*k, text, holder, loc, text_pos == std::string::npos ? 1 : static_cast<int32_t>(text_pos + 1));
    const toml::node& node = own ? *own : *holder.get("v");
    set_key(*k, config::validate_node(*k, node, loc, vspan, origin, sources_), join(kspan, vspan), key, true);
  }

  Config& cfg_;
  std::map<std::string, SourceSpan>& spans_;
  std::shared_ptr<SourceManager> sources_;
  int32_t set_file_ = -1;
};

}  // namespace

}  // namespace iputrain

namespace iputrain::config {

Config load(const std::string& path, const std::vector<std::string>& sets) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    throw Error(ErrorKind::Io, fmt::format("cannot read config file `{}`: it is a directory", path), {},
                "pass the path of a .toml file");
  }
  check_text_file_size(path, "config file", ErrorKind::Io);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ErrorKind::Io, fmt::format("cannot read config file `{}`: {}", path, std::strerror(errno)), {},
                "check the path; relative paths are resolved against the current directory");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path, sets);
}

Config parse(const std::string& text, const std::string& path, const std::vector<std::string>& sets) {
  if (text.size() > kMaxTextBytes) {
    throw Error(ErrorKind::Config,
                fmt::format("config text `{}` is {} bytes, more than the {} MiB iputrain reads", path, text.size(),
                            kMaxTextBytes >> 20),
                {}, "a config file is text of a few kilobytes");
  }
  Config cfg;
  cfg.origin.path = path;
  Builder b(cfg, cfg.origin.spans, cfg.origin.sources);
  b.load_file(text, path, {});
  b.apply_sets(sets);
  cfg.origin.warnings = check_statuses(cfg);
  apply_rules(cfg);
  return cfg;
}

}  // namespace iputrain::config
