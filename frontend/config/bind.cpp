#include "frontend/config/bind.hpp"

namespace iputrain::config::detail {

namespace {

OptionMap to_options(const Value& v) {
  OptionMap out;
  for (const auto& [k, e] : std::get<ValueTable>(v)) {
    out[k] = std::get<std::string>(e);
  }
  return out;
}

ValueTable from_options(const OptionMap& m) {
  ValueTable out;
  for (const auto& [k, e] : m) {
    out[k] = e;
  }
  return out;
}

}  // namespace

void store(int64_t& f, const Value& v) {
  f = std::get<int64_t>(v);
}
// Seeds are unsigned in the sections but validated as non-negative TOML integers.
void store(uint64_t& f, const Value& v) {
  f = static_cast<uint64_t>(std::get<int64_t>(v));
}
void store(double& f, const Value& v) {
  f = std::get<double>(v);
}
void store(bool& f, const Value& v) {
  f = std::get<bool>(v);
}
void store(std::string& f, const Value& v) {
  f = std::get<std::string>(v);
}
void store(std::optional<bool>& f, const Value& v) {
  if (const auto* b = std::get_if<bool>(&v)) {
    f = *b;
  } else {
    f.reset();  // "auto"
  }
}
void store(std::vector<int64_t>& f, const Value& v) {
  f.clear();
  for (const auto& e : std::get<ValueList>(v)) {
    f.push_back(std::get<int64_t>(e));
  }
}
void store(std::vector<double>& f, const Value& v) {
  f.clear();
  for (const auto& e : std::get<ValueList>(v)) {
    f.push_back(std::get<double>(e));
  }
}
void store(std::vector<std::vector<int64_t>>& f, const Value& v) {
  f.clear();
  for (const auto& e : std::get<ValueList>(v)) {
    if (const auto* i = std::get_if<int64_t>(&e)) {
      f.push_back({*i});
      continue;
    }
    std::vector<int64_t> inner;
    store(inner, e);
    f.push_back(std::move(inner));
  }
}
void store(std::vector<bool>& f, const Value& v) {
  f.clear();
  for (const auto& e : std::get<ValueList>(v)) {
    f.push_back(std::get<bool>(e));
  }
}
void store(std::vector<std::string>& f, const Value& v) {
  f.clear();
  for (const auto& e : std::get<ValueList>(v)) {
    f.push_back(std::get<std::string>(e));
  }
}
void store(OptionMap& f, const Value& v) {
  f = to_options(v);
}
void store(StageOptions& f, const Value& v) {
  f = {};
  const auto& t = std::get<ValueTable>(v);
  if (auto it = t.find("convolution_options"); it != t.end()) {
    f.convolution_options = to_options(it->second);
  }
  if (auto it = t.find("matmul_options"); it != t.end()) {
    f.matmul_options = to_options(it->second);
  }
}
void store(std::vector<StageOptions>& f, const Value& v) {
  f.clear();
  for (const auto& e : std::get<ValueList>(v)) {
    store(f.emplace_back(), e);
  }
}

Value load(int64_t f) {
  return f;
}
Value load(uint64_t f) {
  return static_cast<int64_t>(f);
}
Value load(double f) {
  return f;
}
Value load(bool f) {
  return f;
}
Value load(const std::string& f) {
  return f;
}
Value load(const std::optional<bool>& f) {
  return f ? Value(*f) : Value(std::string("auto"));
}
Value load(const std::vector<int64_t>& f) {
  ValueList out;
  for (int64_t e : f) {
    out.emplace_back(e);
  }
  return out;
}
Value load(const std::vector<double>& f) {
  ValueList out;
  for (double e : f) {
    out.emplace_back(e);
  }
  return out;
}
Value load(const std::vector<std::vector<int64_t>>& f) {
  // A stage on one IPU is written as a plain integer, as users write it.
  ValueList out;
  for (const auto& e : f) {
    out.push_back(e.size() == 1 ? Value(e[0]) : load(e));
  }
  return out;
}
Value load(const std::vector<bool>& f) {
  ValueList out;
  for (bool e : f) {
    out.emplace_back(e);
  }
  return out;
}
Value load(const std::vector<std::string>& f) {
  ValueList out;
  for (const auto& e : f) {
    out.emplace_back(e);
  }
  return out;
}
Value load(const OptionMap& f) {
  return from_options(f);
}
Value load(const StageOptions& f) {
  ValueTable t;
  if (!f.convolution_options.empty()) {
    t["convolution_options"] = from_options(f.convolution_options);
  }
  if (!f.matmul_options.empty()) {
    t["matmul_options"] = from_options(f.matmul_options);
  }
  return t;
}
Value load(const std::vector<StageOptions>& f) {
  ValueList out;
  for (const auto& e : f) {
    out.push_back(load(e));
  }
  return out;
}

KeySpec key(std::string path, Accessor access, KeyType type, Value default_value, Effect effect,
            std::string doc, Range range, std::vector<std::string> allowed) {
  KeySpec k;
  k.path = std::move(path);
  k.access = std::move(access);
  k.type = type;
  k.default_value = std::move(default_value);
  k.effect = effect;
  k.doc = std::move(doc);
  k.range = range;
  k.allowed = std::move(allowed);
  return k;
}

}  // namespace iputrain::config::detail
