#include "core/ir/attrs.hpp"

#include <fmt/format.h>

#include "iputrain/error.hpp"

namespace iputrain::ir {

Attrs& Attrs::set(std::string key, AttrValue value) {
  for (auto& [k, v] : items_) {
    if (k == key) {
      v = std::move(value);
      return *this;
    }
  }
  items_.emplace_back(std::move(key), std::move(value));
  return *this;
}

const AttrValue* Attrs::find(std::string_view key) const {
  for (const auto& [k, v] : items_) {
    if (k == key) {
      return &v;
    }
  }
  return nullptr;
}

namespace {
template <typename T>
const T& typed(const AttrValue* v, std::string_view key) {
  if (const T* p = std::get_if<T>(v)) {
    return *p;
  }
  throw Error(ErrorKind::Internal, fmt::format("attribute '{}' has an unexpected type", key));
}
}  // namespace

int64_t Attrs::get_int(std::string_view key, int64_t def) const {
  const AttrValue* v = find(key);
  return v ? typed<int64_t>(v, key) : def;
}

double Attrs::get_float(std::string_view key, double def) const {
  const AttrValue* v = find(key);
  if (v == nullptr) {
    return def;
  }
  if (const int64_t* i = std::get_if<int64_t>(v)) {
    return static_cast<double>(*i);
  }
  return typed<double>(v, key);
}

const std::string& Attrs::get_str(std::string_view key) const {
  static const std::string empty;
  const AttrValue* v = find(key);
  return v ? typed<std::string>(v, key) : empty;
}

std::vector<int64_t> Attrs::get_ints(std::string_view key) const {
  const AttrValue* v = find(key);
  return v ? typed<std::vector<int64_t>>(v, key) : std::vector<int64_t>{};
}

std::string Attrs::str() const {
  std::string out;
  for (const auto& [k, v] : items_) {
    if (!out.empty()) {
      out += ", ";
    }
    out += k + "=";
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, std::string>) {
            out += fmt::format("\"{}\"", x);
          } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
            out += fmt::format("[{}]", fmt::join(x, ", "));
          } else {
            out += fmt::format("{}", x);
          }
        },
        v);
  }
  return out;
}

}  // namespace iputrain::ir
