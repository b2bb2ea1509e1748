// The plain keys' rows, one per line of IPUTRAIN_PLAIN_KEYS (core/public/iputrain/plain_keys.hpp): the
// path, the field Config::plain.FIELD, the type, default, effect, marks, doc, range and the key it
// needs, all from the line. An enum key's spellings are its enumerators (KeyEnum). A line's EFFECT
// is Runs or Models, or no_effect_here(WHY) / refused_here(WHY, INSTEAD) for a key kept for
// compatibility (config/status.cpp warns of it or refuses it; nothing reads its field).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/data_source_table.hpp"                // data.train's doc lists the formats
#include "core/optim/lr_schedule.hpp"                // the schedule keys' docs name their schedules
#include "core/optim_table.hpp"                      // optimizer.type's names
#include "core/pipeline_schedules/schedule_def.hpp"  // pipeline.schedule's names and doc
#include "frontend/config/bind.hpp"
#include "iputrain/plain_keys.hpp"

namespace iputrain::config {

namespace {

// The MARKS of a line.
enum Marks : unsigned { plain = 0, defining = 1, layout = 2, tunable = 4, path = 8, unique = 16, record_settled = 32 };

// A line's RANGE that is names, not numbers: the values a string key may hold (its row is an Enum
// row, spelt as the names are) or the elements of a list of strings, from a table (the schedules)
// or an enum's spellings. A braced `{}` is a Range, never these.
struct Names {
  explicit Names(std::vector<std::string> names) : values(std::move(names)) {}
  std::vector<std::string> values;
};
Range range_of(const Range& r) { return r; }
Range range_of(const Names& /*names*/) { return {}; }
std::vector<std::string> names_of(const Range& /*range*/) { return {}; }
std::vector<std::string> names_of(const Names& names) { return names.values; }

template <class T>
constexpr KeyType plain_type(bool named = false) {
  if constexpr (std::is_enum_v<T>) {
    return KeyType::Enum;
  } else if constexpr (std::is_same_v<T, bool>) {
    return KeyType::Bool;
  } else if constexpr (std::is_same_v<T, std::optional<bool>>) {
    return KeyType::AutoBool;
  } else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t>) {
    return KeyType::Int;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return named ? KeyType::Enum : KeyType::String;
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    return KeyType::StringList;
  } else if constexpr (std::is_same_v<T, OptionMap>) {
    return KeyType::OptionMap;
  } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
    return KeyType::IntList;
  } else if constexpr (std::is_same_v<T, std::vector<double>>) {
    return KeyType::FloatList;
  } else if constexpr (std::is_same_v<T, std::vector<bool>>) {
    return KeyType::BoolList;
  } else if constexpr (std::is_same_v<T, std::vector<std::vector<int64_t>>>) {
    return KeyType::NestedIntList;
  } else if constexpr (std::is_same_v<T, StageOptions>) {
    return KeyType::StageOptions;
  } else if constexpr (std::is_same_v<T, std::vector<StageOptions>>) {
    return KeyType::StageOptionsList;
  } else {
    static_assert(std::is_same_v<T, double>,
                  "a plain key is a double, an int64_t, a uint64_t, a bool, an optional bool, a string, a list "
                  "of int64_t, double, bool, string, int64_t list or StageOptions, an OptionMap, a StageOptions "
                  "or a KeyEnum");
    return KeyType::Float;
  }
}

// The enum value `text` spells (the loader has already restricted it to the row's spellings).
template <class E>
E enum_value(const std::string& path, const Value& v) {
  if (const auto i = spelling_index(key_spellings<E>(), std::get<std::string>(v))) {
    return static_cast<E>(*i);
  }
  throw Error(ErrorKind::Internal, fmt::format("`{}` = {} passed the schema but spells no value", path, toml_text(v)));
}

// The row's value of `value`, and its Accessor: an enum is its spelling, the rest as bind() does.
template <class T>
Value plain_value(const T& value) {
  if constexpr (std::is_enum_v<T>) {
    return std::string(key_spelling(value));
  } else {
    return detail::load(value);
  }
}

template <class T, class Ref>
Accessor plain_access(const char* path, Ref ref, std::vector<std::string> names) {
  if constexpr (std::is_enum_v<T>) {
    return {[path, ref](Config& c, const Value& v) { ref(c) = enum_value<T>(path, v); },
            [ref](const Config& c) -> Value { return plain_value(ref(c)); }};
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (names.empty()) {
      return detail::bind(ref);
    }
    // A name from a table, kept in the table's spelling, as an enum's.
    return {[path, ref, names](Config& c, const Value& v) {
              const auto i = spelling_index(names, std::get<std::string>(v));
              if (!i) {
                throw Error(ErrorKind::Internal,
                            fmt::format("`{}` = {} passed the schema but names no row", path, toml_text(v)));
              }
              ref(c) = names[*i];
            },
            [ref](const Config& c) -> Value { return ref(c); }};
  } else {
    return detail::bind(ref);
  }
}

// The spellings of an enum key, or the names its line's RANGE lists.
template <class T>
std::vector<std::string> plain_allowed(std::vector<std::string> names) {
  if constexpr (std::is_enum_v<T>) {
    return key_spellings<T>();
  } else {
    return names;
  }
}

// A line's EFFECT: Runs or Models, or a status with its reason (and, refused, what to do instead).
struct LineEffect {
  Effect status;
  const char* reason = "";
  const char* instead = "";
  LineEffect(Effect e) : status(e) {}  // NOLINT(google-explicit-constructor): a line writes `Runs`
  LineEffect(Effect e, const char* why, const char* hint) : status(e), reason(why), instead(hint) {}
};

// A key accepted for compatibility that changes nothing here: a value other than its default warns, `why`.
LineEffect no_effect_here(const char* why) { return {Effect::None, why, ""}; }
// A key whose values other than its default are refused, `why`, with what to do `instead`.
LineEffect refused_here(const char* why, const char* instead) { return {Effect::Refused, why, instead}; }

// `pipeline.schedule`'s doc: each schedule of the table and what it does.
std::string schedules_doc() {
  std::string doc = "Order of the stages' forward and backward tasks:";
  for (const pipeline_schedules::ScheduleDef* def : pipeline_schedules::schedule_table()) {
    doc += fmt::format(" {} ({}){}", def->name, def->summary,
                       def == pipeline_schedules::schedule_table().back() ? "." : ",");
  }
  return doc;
}

// The names the lines of optimizer.lr_schedule and optimizer.type take, from their tables.
using optim::lr_schedule_names;

// `doc` and the learning-rate schedules that read schedule key `key` (from their table).
std::string schedule_key_doc(std::string_view key, std::string_view doc) {
  return fmt::format("{} Read by the schedules: {}.", doc, fmt::join(optim::lr_schedules_reading(key), ", "));
}

// The row of one line: FIELD must be PATH with `_` for `.`, so that the two cannot drift apart.
KeySpec plain_row(std::string_view field, KeySpec row, const LineEffect& effect, unsigned marks, std::string needs) {
  std::string expected = row.path;
  std::replace(expected.begin(), expected.end(), '.', '_');
  if (expected != field) {
    throw Error(ErrorKind::Internal,
                fmt::format("plain key `{}` is held in field `{}`; name it `{}`", row.path, field, expected));
  }
  row.defines_run = (marks & defining) != 0;
  row.layout = (marks & layout) != 0;
  row.tunable = (marks & tunable) != 0;
  row.is_path = (marks & path) != 0;
  row.unique = (marks & unique) != 0;
  row.record_settled = (marks & record_settled) != 0;
  row.needs = std::move(needs);
  if (effect.status == Effect::None) {
    return std::move(row).no_effect(effect.reason);
  }
  if (effect.status == Effect::Refused) {
    return std::move(row).refused(effect.reason, effect.instead);
  }
  return row;
}

}  // namespace

std::vector<KeySpec> plain_keys() {
  using detail::key;
  using enum Effect;
  std::vector<KeySpec> out;
#define IPUTRAIN_PLAIN_ROW(field, path, type, value, effect, marks, doc, range, needed, derive)                       \
  out.push_back(plain_row(#field,                                                                                     \
                          key(path,                                                                                   \
                              plain_access<type>(                                                                     \
                                  path, [](auto& c) -> auto& { return c.plain.field; }, names_of(range)),             \
                              plain_type<type>(!names_of(range).empty()), plain_value<type>(value),                   \
                              LineEffect(effect).status, doc, range_of(range), plain_allowed<type>(names_of(range))), \
                          LineEffect(effect), marks, needed));
  IPUTRAIN_PLAIN_KEYS(IPUTRAIN_PLAIN_ROW)
#undef IPUTRAIN_PLAIN_ROW
  return out;
}

}  // namespace iputrain::config
