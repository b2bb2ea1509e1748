// Named, typed attributes of an IR node (axis, shape, initializer, constant value, …).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace iputrain::ir {

using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>>;

//! A small ordered map; nodes carry a handful of attributes, so a vector beats a hash map.
class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<std::pair<std::string, AttrValue>> items) : items_(items) {}

  Attrs& set(std::string key, AttrValue value);
  bool has(std::string_view key) const { return find(key) != nullptr; }
  const AttrValue* find(std::string_view key) const;

  //! Typed getters; the default is returned when the key is absent. A present key of another
  //! type is a programming error (throws iputrain::Error of kind Internal).
  int64_t get_int(std::string_view key, int64_t def = 0) const;
  double get_float(std::string_view key, double def = 0.0) const;
  const std::string& get_str(std::string_view key) const;
  std::vector<int64_t> get_ints(std::string_view key) const;

  const std::vector<std::pair<std::string, AttrValue>>& items() const { return items_; }
  bool empty() const { return items_.empty(); }
  //! "axis=-1, keepdims=0"
  std::string str() const;

 private:
  std::vector<std::pair<std::string, AttrValue>> items_;
};

}  // namespace iputrain::ir
