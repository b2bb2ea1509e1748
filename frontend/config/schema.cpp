#include "frontend/config/schema.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace iputrain::config {

namespace {

void store(int64_t& f, const ParamValue& v) {
  f = std::get<int64_t>(v);
}
// Seeds are unsigned in the sections but validated as non-negative TOML integers.
void store(uint64_t& f, const ParamValue& v) {
  f = static_cast<uint64_t>(std::get<int64_t>(v));
}
void store(double& f, const ParamValue& v) {
  f = std::get<double>(v);
}
void store(bool& f, const ParamValue& v) {
  f = std::get<bool>(v);
}
void store(std::string& f, const ParamValue& v) {
  f = std::get<std::string>(v);
}

ParamValue load(int64_t f) {
  return f;
}
ParamValue load(uint64_t f) {
  return static_cast<int64_t>(f);
}
ParamValue load(double f) {
  return f;
}
ParamValue load(bool f) {
  return f;
}
ParamValue load(const std::string& f) {
  return f;
}

//! Binds a key to `cfg.*Section.*Member`.
template <auto Section, auto Member>
Accessor field() {
  return {[](Config& c, const ParamValue& v) { store((c.*Section).*Member, v); },
          [](const Config& c) -> ParamValue { return load((c.*Section).*Member); }};
}

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

}  // namespace

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
    case KeyType::FreeTable:
      return "table";
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
  switch (type) {
    case KeyType::Int:
    case KeyType::Float: {
      std::string r = range.str();
      return r.empty() ? std::string(key_type_name(type)) : fmt::format("{} {}", key_type_name(type), r);
    }
    case KeyType::Enum: {
      std::vector<std::string> quoted;
      for (const auto& a : allowed) {
        quoted.push_back(fmt::format("\"{}\"", a));
      }
      return fmt::format("one of {}", fmt::join(quoted, ", "));
    }
    case KeyType::FreeTable:
      return "table of integers, floats, booleans and strings";
    default:
      return std::string(key_type_name(type));
  }
}

const std::vector<SectionSpec>& sections() {
  static const std::vector<SectionSpec> all = {
      {"ipu", "The virtual IPU system (mirrors IPUConfig attribute paths)."},
      {"optimizer", "The optimizer that updates the model's parameters."},
      {"data", "Where training and evaluation samples come from and how they are batched."},
      {"training", "The training loop: how long, how often to log, seeds."},
  };
  return all;
}

const std::vector<KeySpec>& schema() {
  // The defaults here must equal the member initialisers in include/iputrain/config.hpp
  // (tests/config checks it): the struct is what code reads, this table is what users read.
  static const std::vector<KeySpec> all = {
      {.path = "model",
       .type = KeyType::FreeTable,
       .default_value = std::string{},
       .doc = "Overrides of the model's compile-time parameters, by name (e.g. `hidden = 256`)."},

      {.path = "ipu.auto_select_ipus",
       .type = KeyType::Int,
       .default_value = int64_t{1},
       .range = Range::at_least(1),
       .doc = "Number of virtual IPUs to acquire.",
       .access = field<&Config::ipu, &IpuSection::auto_select_ipus>()},

      {.path = "optimizer.type",
       .type = KeyType::Enum,
       .default_value = std::string{"sgd"},
       .allowed = {"sgd"},
       .doc = "Optimizer algorithm.",
       .access = field<&Config::optimizer, &OptimizerSection::type>()},
      {.path = "optimizer.learning_rate",
       .type = KeyType::Float,
       .default_value = 0.01,
       .range = Range::at_least(0, true),
       .doc = "Step size of each weight update.",
       .access = field<&Config::optimizer, &OptimizerSection::learning_rate>()},

      {.path = "data.train",
       .type = KeyType::String,
       .default_value = std::string{},
       .doc = "Training data source: \"idx:PREFIX\" (IDX image/label pair, .gz allowed) or "
              "\"synthetic:samples=N,classes=C\"; relative paths are resolved against the config file.",
       .access = field<&Config::data, &DataSection::train>()},
      {.path = "data.test",
       .type = KeyType::String,
       .default_value = std::string{},
       .doc = "Evaluation data source, same forms as `data.train`; empty = no evaluation.",
       .access = field<&Config::data, &DataSection::test>()},
      {.path = "data.batch_size",
       .type = KeyType::Int,
       .default_value = int64_t{0},
       .range = Range::at_least(1),
       .doc = "Micro-batch per replica; unset = the model's `batch` parameter.",
       .access = field<&Config::data, &DataSection::batch_size>()},
      {.path = "data.shuffle",
       .type = KeyType::Bool,
       .default_value = true,
       .doc = "Reshuffle the training set every epoch.",
       .access = field<&Config::data, &DataSection::shuffle>()},
      {.path = "data.seed",
       .type = KeyType::Int,
       .default_value = int64_t{0},
       .range = Range::at_least(0),
       .doc = "Shuffle seed; 0 = `training.seed`.",
       .access = field<&Config::data, &DataSection::seed>()},
      {.path = "data.prefetch_depth",
       .type = KeyType::Int,
       .default_value = int64_t{2},
       .range = Range::at_least(1),
       .doc = "Batches the infeed thread prepares ahead of the device.",
       .access = field<&Config::data, &DataSection::prefetch_depth>()},

      {.path = "training.steps",
       .type = KeyType::Int,
       .default_value = int64_t{0},
       .range = Range::at_least(1),
       .doc = "Number of weight updates; unset = run `training.epochs` passes instead.",
       .access = field<&Config::training, &TrainingSection::steps>(),
       .conflicts = {"training.epochs"}},
      {.path = "training.epochs",
       .type = KeyType::Float,
       .default_value = 0.0,
       .range = Range::at_least(0, true),
       .doc = "Passes over the training set (fractions allowed); only when `training.steps` is unset.",
       .access = field<&Config::training, &TrainingSection::epochs>(),
       .conflicts = {"training.steps"}},
      {.path = "training.steps_per_execution",
       .type = KeyType::Int,
       .default_value = int64_t{1},
       .range = Range::at_least(1),
       .doc = "Steps run by the on-device loop per host call.",
       .access = field<&Config::training, &TrainingSection::steps_per_execution>()},
      {.path = "training.seed",
       .type = KeyType::Int,
       .default_value = int64_t{42},
       .range = Range::at_least(0),
       .doc = "Seeds parameter initialisers, dropout and shuffling.",
       .access = field<&Config::training, &TrainingSection::seed>()},
      {.path = "training.log_every",
       .type = KeyType::Int,
       .default_value = int64_t{0},
       .range = Range::at_least(0),
       .doc = "Log a line every N steps; 0 = automatic.",
       .access = field<&Config::training, &TrainingSection::log_every>()},
  };
  return all;
}

const KeySpec* find_key(std::string_view path) {
  for (const auto& k : schema()) {
    if (k.path == path) {
      return &k;
    }
  }
  return nullptr;
}

bool is_section(std::string_view path) {
  return std::any_of(sections().begin(), sections().end(), [&](const auto& s) { return s.path == path; });
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

std::string effective_toml(const Config& cfg) {
  std::string out;
  std::string table = "\x01";  // no table open yet
  for (const auto& k : schema()) {
    if (k.type == KeyType::FreeTable) {
      if (k.path == "model") {
        out += fmt::format("{}[model]\n", out.empty() ? "" : "\n");
        for (const auto& [name, v] : cfg.model) {
          out += fmt::format("{} = {}\n", name, param_value_str(v));
        }
      }
      table = k.path;
      continue;
    }
    const std::string parent = parent_of(k.path);
    if (parent != table) {
      table = parent;
      if (!parent.empty()) {
        out += fmt::format("{}[{}]\n", out.empty() ? "" : "\n", parent);
      }
    }
    const ParamValue v = k.access.get(cfg);
    // Sentinel defaults ("0 = use the model's value") lie outside the key's range; writing them as
    // comments keeps the output loadable.
    const bool sentinel =
        (k.type == KeyType::Int && !k.range.contains(static_cast<double>(std::get<int64_t>(v)))) ||
        (k.type == KeyType::Float && !k.range.contains(std::get<double>(v)));
    out += fmt::format("{}{} = {}{}\n", sentinel ? "# " : "", leaf_of(k.path), param_value_str(v),
                       sentinel ? "  (unset)" : "");
  }
  return out;
}

}  // namespace iputrain::config
