// iputrain — binds schema rows to Config fields (internal to frontend/config/keys_*.cpp).
//
// Each field type has a store (Value -> field) and a load (field -> Value); bind() makes a row's
// Accessor of a field (keys_plain.cpp binds each plain line's `cfg.plain.FIELD`).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "frontend/config/schema.hpp"

namespace iputrain::config::detail {

void store(int64_t& f, const Value& v);
void store(uint64_t& f, const Value& v);
void store(double& f, const Value& v);
void store(bool& f, const Value& v);
void store(std::string& f, const Value& v);
void store(std::optional<bool>& f, const Value& v);
void store(std::vector<int64_t>& f, const Value& v);
void store(std::vector<double>& f, const Value& v);
void store(std::vector<std::vector<int64_t>>& f, const Value& v);
void store(std::vector<bool>& f, const Value& v);
void store(std::vector<std::string>& f, const Value& v);
void store(OptionMap& f, const Value& v);
void store(StageOptions& f, const Value& v);
void store(std::vector<StageOptions>& f, const Value& v);

Value load(int64_t f);
Value load(uint64_t f);
Value load(double f);
Value load(bool f);
Value load(const std::string& f);
Value load(const std::optional<bool>& f);
Value load(const std::vector<int64_t>& f);
Value load(const std::vector<double>& f);
Value load(const std::vector<std::vector<int64_t>>& f);
Value load(const std::vector<bool>& f);
Value load(const std::vector<std::string>& f);
Value load(const OptionMap& f);
Value load(const StageOptions& f);
Value load(const std::vector<StageOptions>& f);

//! An Accessor from a function returning a reference to the field of a (const) Config.
template <class Ref>
Accessor bind(Ref ref) {
  return {[ref](Config& c, const Value& v) { store(ref(c), v); },
          [ref](const Config& c) -> Value { return load(ref(c)); }};
}

//! One schema row.
KeySpec key(std::string path, Accessor access, KeyType type, Value default_value, Effect effect,
            std::string doc, Range range = {}, std::vector<std::string> allowed = {});

}  // namespace iputrain::config::detail
