// The plain keys' rows, one per line of IPUTRAIN_PLAIN_KEYS (core/public/iputrain/plain_keys.hpp): the
// path SECTION.NAME, the field Config::plain.SECTION_NAME, the type, default, doc, range and the key
// it needs, all from the line.
#include <cstdint>
#include <string>

#include "frontend/config/bind.hpp"
#include "iputrain/plain_keys.hpp"

namespace iputrain::config {

namespace {

template <class T>
constexpr KeyType plain_type() {
  if constexpr (std::is_same_v<T, bool>) {
    return KeyType::Bool;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return KeyType::Int;
  } else {
    static_assert(std::is_same_v<T, double>, "a plain key is a double, an int64_t or a bool");
    return KeyType::Float;
  }
}

}  // namespace

std::vector<KeySpec> plain_keys() {
  using detail::key;
  std::vector<KeySpec> out;
#define IPUTRAIN_PLAIN_ROW(section, name, type, value, doc, range, needed)                                       \
  out.push_back(key(#section "." #name, detail::bind([](auto& c) -> auto& { return c.plain.section##_##name; }), \
                    plain_type<type>(), Value(type(value)), Effect::Runs, doc, range));                          \
  out.back().needs = needed;
  IPUTRAIN_PLAIN_KEYS(IPUTRAIN_PLAIN_ROW)
#undef IPUTRAIN_PLAIN_ROW
  return out;
}

}  // namespace iputrain::config
