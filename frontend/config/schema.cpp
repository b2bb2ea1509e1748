#include "frontend/config/schema.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>
#include <utility>

namespace iputrain::config {

namespace {

std::string format_number(double v) {
  if (v == std::floor(v) && std::abs(v) < 1e15) {
    return fmt::format("{}", static_cast<int64_t>(v));
  }
  return fmt::format("{}", v);
}

std::string parent_of(std::string_view path) {
  size_t dot = path.rfind('.');
  return dot == std::string_view::npos ? std::string{} : std::string(path.substr(0, dot));
}

std::string leaf_of(std::string_view path) {
  size_t dot = path.rfind('.');
  return std::string(dot == std::string_view::npos ? path : path.substr(dot + 1));
}

bool bare_key(const std::string& k) {
  return !k.empty() && std::all_of(k.begin(), k.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
  });
}

}  // namespace

bool operator==(const Value& a, const Value& b) {
  return a.base() == b.base();
}

std::string toml_text(const Value& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) {
    return param_value_str(*i);
  }
  if (const auto* d = std::get_if<double>(&v)) {
    return param_value_str(*d);
  }
  if (const auto* b = std::get_if<bool>(&v)) {
    return param_value_str(*b);
  }
  if (const auto* s = std::get_if<std::string>(&v)) {
    return param_value_str(*s);
  }
  if (const auto* l = std::get_if<ValueList>(&v)) {
    std::vector<std::string> items;
    for (const auto& e : *l) {
      items.push_back(toml_text(e));
    }
    return fmt::format("[{}]", fmt::join(items, ", "));
  }
  const auto& t = std::get<ValueTable>(v);
  if (t.empty()) {
    return "{}";
  }
  std::vector<std::string> items;
  for (const auto& [k, e] : t) {
    items.push_back(fmt::format("{} = {}", bare_key(k) ? k : param_value_str(k), toml_text(e)));
  }
  return fmt::format("{{ {} }}", fmt::join(items, ", "));
}

std::string_view key_type_name(KeyType t) {
  switch (t) {
    case KeyType::Int:
      return "integer";
    case KeyType::Float:
      return "float";
    case KeyType::Bool:
      return "boolean";
    case KeyType::String:
    case KeyType::Enum:
      return "string";
    case KeyType::AutoBool:
      return "boolean or \"auto\"";
    case KeyType::IntList:
      return "list of integers";
    case KeyType::FloatList:
      return "list of floats";
    case KeyType::NestedIntList:
      return "list of integers or lists of integers";
    case KeyType::BoolList:
      return "list of booleans";
    case KeyType::StringList:
      return "list of strings";
    case KeyType::OptionMap:
      return "table of strings";
    case KeyType::StageOptions:
      return "stage options table";
    case KeyType::StageOptionsList:
      return "list of stage options tables";
    case KeyType::FreeTable:
      return "table";
  }
  return "?";
}

std::string_view effect_text(Effect e) {
  switch (e) {
    case Effect::Runs:
      return "changes what the engine computes, how it runs or what it writes";
    case Effect::Models:
      return "changes the plan's memory, cycles or topology (`plan --format json`); trained results unchanged";
    case Effect::Refused:
      return "a value other than the default is an error";
    case Effect::None:
      return "accepted for compatibility; a value other than the default prints a warning";
  }
  return "?";
}

bool Range::bounded() const {
  return std::isfinite(min) || std::isfinite(max);
}

bool Range::contains(double v) const {
  if (std::isnan(v)) {
    return false;
  }
  bool above = min_open ? v > min : v >= min;
  bool below = max_open ? v < max : v <= max;
  return above && below;
}

std::string Range::str() const {
  const bool lo = std::isfinite(min);
  const bool hi = std::isfinite(max);
  if (lo && hi && !min_open && !max_open) {
    return fmt::format("between {} and {}", format_number(min), format_number(max));
  }
  std::string out;
  if (lo) {
    out = fmt::format("{} {}", min_open ? ">" : ">=", format_number(min));
  }
  if (hi) {
    out += fmt::format("{}{} {}", lo ? " and " : "", max_open ? "<" : "<=", format_number(max));
  }
  return out;
}

std::string KeySpec::expected() const {
  const std::string r = range.str();
  switch (type) {
    case KeyType::Int:
    case KeyType::Float:
    case KeyType::IntList:
    case KeyType::FloatList:
    case KeyType::NestedIntList:
      return r.empty() ? std::string(key_type_name(type)) : fmt::format("{} {}", key_type_name(type), r);
    case KeyType::Enum:
    case KeyType::StringList: {
      std::vector<std::string> quoted;
      for (const auto& a : allowed) {
        quoted.push_back(fmt::format("\"{}\"", a));
      }
      if (type == KeyType::StringList) {
        return allowed.empty() ? "list of strings" : fmt::format("list of {}", fmt::join(quoted, ", "));
      }
      return fmt::format("one of {}", fmt::join(quoted, ", "));
    }
    case KeyType::FreeTable:
      return "table of integers, floats, booleans and strings";
    case KeyType::StageOptions:
      return "table with `convolution_options` and `matmul_options` tables of strings";
    default:
      return std::string(key_type_name(type));
  }
}

const std::vector<SectionSpec>& sections() {
  static const std::vector<SectionSpec> all = {
      {"ipu", "The virtual IPU system: IPUConfig, attribute path = key path."},
      {"ipu.convolutions", "Options for every convolution (IPUConfig.convolutions)."},
      {"ipu.device_connection", "When and how the IPUs are attached (IPUConfig.device_connection)."},
      {"ipu.experimental", "Experimental IPUConfig options."},
      {"ipu.experimental.multi_replica_distribution", "Several processes sharing one program (one MPI rank per host)."},
      {"ipu.floating_point_behaviour", "Floating-point traps and stochastic rounding."},
      {"ipu.io_tiles", "Tiles reserved for host I/O."},
      {"ipu.ipu_model", "The IPU Model: the simulated IPU's version and tile count."},
      {"ipu.matmuls", "Options for every matrix multiplication."},
      {"ipu.norms", "Normalisation layers."},
      {"ipu.norms.experimental", "Experimental normalisation options."},
      {"ipu.optimizations", "Graph optimisations and collective buffering."},
      {"ipu.pooling", "Options for every pooling op."},
      {"ipu.scheduling", "The op scheduler, which decides peak liveness."},
      {"pipeline", "Pipelined model parallelism: the arguments of pipeline()."},
      {"optimizer", "The optimizer that updates the model's parameters."},
      {"data", "Where training and evaluation samples come from and how they are batched."},
      {"training", "The training loop: how long, how often to log, seeds, outfeed."},
      {"checkpoint", "Periodic checkpoints (also writable as `[training] checkpoint = { … }`)."},
      {"profiling", "Compile and execution reports (the legacy create_ipu_config profiling options)."},
      {"transfers", "Host-device transfer options (legacy set_transfer_options)."},
      {"engine", "How the host runs the virtual IPUs' kernels (not part of the model: weights never depend on it)."},
      {"device",
       "Figures of one virtual IPU for the planner's cost and memory model. `version` (or "
       "`ipu.ipu_model.version`) picks a preset (configs/ipu1.toml, ipu2.toml, bow.toml); a figure set "
       "here replaces the preset's."},
      {"system",
       "Where the IPUs sit, for the planner's collectives and host feed: machines, IPU-Links, GW-Links "
       "and hosts. `preset` picks the figures (configs/systems/pod4.toml .. pod256.toml cite their "
       "sources); a figure set here replaces the preset's."},
      {"tune",
       "What `iputrain tune` may vary and over what (docs/tune.md). A key set elsewhere in the config is "
       "fixed unless a list here names its values; the command's flags override the keys of the same name."},
  };
  return all;
}

const std::vector<std::pair<std::string, std::string>>& aliases() {
  static const std::vector<std::pair<std::string, std::string>> all = {{"training.checkpoint", "checkpoint"}};
  return all;
}

namespace {

// Where a key goes in documentation order: root keys, then [model], then the tables in section order.
size_t doc_rank(const KeySpec& k) {
  const std::string parent = parent_of(k.path);
  if (parent.empty()) {
    return k.type == KeyType::FreeTable ? 1 : 0;
  }
  const auto& s = sections();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i].path == parent) {
      return i + 2;
    }
  }
  return s.size() + 2;
}

}  // namespace

namespace {

// Pairs of keys that say one thing two ways: at most one of each is set (KeySpec::conflicts).
void exclude_each_other(std::vector<KeySpec>& rows) {
  static constexpr std::pair<std::string_view, std::string_view> kPairs[] = {
      {"training.steps", "training.epochs"},
      {"data.validation", "data.validation_split"},
      {"ipu.auto_select_ipus", "ipu.select_ipus"}};
  for (const auto& [a, b] : kPairs) {
    for (KeySpec& k : rows) {
      if (k.path == a) {
        k.conflicts = {std::string(b)};
      } else if (k.path == b) {
        k.conflicts = {std::string(a)};
      }
    }
  }
}

std::vector<KeySpec>& rows() {
  static std::vector<KeySpec> all = [] {
    std::vector<KeySpec> out = run_keys();
    // Root keys first, then [model], then the tables in section order (TOML needs a table's own
    // keys before its sub-tables, and `config show` writes them in this order).
    for (const std::vector<KeySpec>& part : {plain_keys(), hyper_keys()}) {
      out.insert(out.end(), part.begin(), part.end());
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const KeySpec& a, const KeySpec& b) { return doc_rank(a) < doc_rank(b); });
    exclude_each_other(out);
    return out;
  }();
  return all;
}

}  // namespace

const std::vector<KeySpec>& schema() { return rows(); }

void add_key_for_tests(KeySpec row) {
  std::vector<KeySpec>& all = rows();
  const size_t rank = doc_rank(row);
  const auto after = std::find_if(all.begin(), all.end(), [&](const KeySpec& k) { return doc_rank(k) > rank; });
  all.insert(after, std::move(row));
}

const KeySpec* find_key(std::string_view path) {
  for (const auto& k : schema()) {
    if (k.path == path) {
      return &k;
    }
  }
  return nullptr;
}

const SectionSpec* find_section(std::string_view path) {
  for (const auto& s : sections()) {
    if (s.path == path) {
      return &s;
    }
  }
  return nullptr;
}

bool is_section(std::string_view path) {
  return find_section(path) != nullptr;
}

std::vector<std::string> keys_in(std::string_view section) {
  std::vector<std::string> out;
  for (const auto& k : schema()) {
    if (parent_of(k.path) == section) {
      out.push_back(leaf_of(k.path));
    }
  }
  for (const auto& s : sections()) {
    if (parent_of(s.path) == section) {
      out.push_back(leaf_of(s.path));
    }
  }
  return out;
}

std::string enum_folded(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c != '_' && c != '-' && c != ' ') {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

std::optional<size_t> spelling_index(const std::vector<std::string>& allowed, std::string_view text) {
  const std::string folded = enum_folded(text);
  for (size_t i = 0; i < allowed.size(); ++i) {
    if (enum_folded(allowed[i]) == folded) {
      return i;
    }
  }
  return std::nullopt;
}

std::string suggest_key(std::string_view path) {
  const std::string parent = parent_of(path);
  const std::string leaf = leaf_of(path);
  // Inside a known table, only that table's keys are plausible corrections of a typo.
  if (!parent.empty() && is_section(parent)) {
    std::string near = nearest_name(leaf, keys_in(parent));
    if (!near.empty()) {
      return parent + "." + near;
    }
  }
  // A right key in the wrong table (`batch_size` under [training]).
  for (const auto& k : schema()) {
    if (leaf_of(k.path) == leaf && k.path != path) {
      return k.path;
    }
  }
  for (const auto& s : sections()) {
    if (leaf_of(s.path) == leaf && s.path != path) {
      return s.path;
    }
  }
  if (!parent.empty() && is_section(parent)) {
    return {};
  }
  std::vector<std::string> all;
  for (const auto& k : schema()) {
    all.push_back(k.path);
  }
  for (const auto& s : sections()) {
    all.push_back(s.path);
  }
  return nearest_name(std::string(path), all);
}

std::vector<std::string> keys() {
  std::vector<std::string> out;
  for (const auto& k : schema()) {
    out.push_back(k.path);
  }
  return out;
}

std::vector<std::string> key_choices(const std::string& key) {
  const KeySpec* k = find_key(key);
  if (k == nullptr) {
    return {};
  }
  switch (k->type) {
    case KeyType::Enum:
      return k->allowed;
    case KeyType::Bool:
      return {"true", "false"};
    case KeyType::AutoBool:
      return {"true", "false", "auto"};
    default:
      return {};
  }
}

std::optional<std::string> default_text(const std::string& key) {
  const KeySpec* k = find_key(key);
  if (k == nullptr || !k->access.get) {
    return std::nullopt;
  }
  return toml_text(k->default_value);
}

}  // namespace iputrain::config
