// iputrain — the config schema: one declarative table of every config key.
//
// The loader validates TOML files and `--set` overrides against this table, and the docs
// (docs/config.md) and CLI help are generated from it. A key is added by adding one row to
// `schema()` in schema.cpp (plus its field in include/iputrain/config.hpp).
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "iputrain/config.hpp"

namespace iputrain::config {

//! The type of a config value as the user writes it.
enum class KeyType {
  Int,        //!< TOML integer
  Float,      //!< TOML float (an integer is accepted, a boolean never)
  Bool,       //!< TOML boolean
  String,     //!< TOML string
  Enum,       //!< TOML string, one of KeySpec::allowed (matched case-insensitively)
  FreeTable,  //!< table of scalar values with user-chosen names (e.g. `[model]`)
};

//! "integer", "float", "boolean", "string", "string" (enum) or "table".
std::string_view key_type_name(KeyType t);

//! Numeric bounds of an Int or Float key. Defaults are unbounded.
struct Range {
  double min = -std::numeric_limits<double>::infinity();
  bool min_open = false;  //!< true: value must be > min (else >= min)
  double max = std::numeric_limits<double>::infinity();
  bool max_open = false;  //!< true: value must be < max (else <= max)

  //! v >= 1 (or > 1 if open)
  static Range at_least(double v, bool open = false) { return {v, open}; }
  //! [lo, hi]
  static Range between(double lo, double hi) { return {lo, false, hi, false}; }
  bool bounded() const;
  //! False for NaN and for values outside the bounds.
  bool contains(double v) const;
  //! ">= 1", "> 0", "between 0 and 1"; "" if unbounded.
  std::string str() const;
};

//! Reads and writes one typed field of a Config. Values are ParamValue of the key's type
//! (Int -> int64_t, Float -> double, Bool -> bool, String/Enum -> std::string).
struct Accessor {
  std::function<void(Config&, const ParamValue&)> set;
  std::function<ParamValue(const Config&)> get;
};

//! One config key.
struct KeySpec {
  std::string path;  //!< dotted key path, e.g. "data.batch_size"
  KeyType type = KeyType::Int;
  ParamValue default_value = {};            //!< value when unset (may be a sentinel outside `range`)
  Range range = {};                         //!< accepted values of Int/Float keys
  std::vector<std::string> allowed = {};    //!< values of an Enum key (canonical spelling)
  std::string doc = {};                     //!< one line, for docs and help
  Accessor access = {};                     //!< the Config field (empty for FreeTable)
  std::vector<std::string> conflicts = {};  //!< keys that must not be set together with this one

  //! "integer >= 1", "one of \"sgd\"", "table of scalars", …: the expected value, for messages.
  std::string expected() const;
};

//! Describes a table that groups keys (`[data]`), for docs.
struct SectionSpec {
  std::string path;  //!< "data"
  std::string doc;
};

//! Every key, in documentation order.
const std::vector<KeySpec>& schema();
//! Every table that groups keys (all proper prefixes of key paths), in documentation order.
const std::vector<SectionSpec>& sections();

//! The key at `path`, or nullptr.
const KeySpec* find_key(std::string_view path);
//! True if `path` names a table that groups keys ("ipu", "data", …).
bool is_section(std::string_view path);
//! The key or table an unknown `path` was most likely meant to be ("" if none is plausible): a
//! key with the same last component in another table, else the nearest path by edit distance.
std::string suggest_key(std::string_view path);
//! The keys directly inside table `section` ("batch_size", …), for hints.
std::vector<std::string> keys_in(std::string_view section);

//! The effective configuration as TOML text (every key, defaults filled in), for `config show`.
std::string effective_toml(const Config& cfg);

}  // namespace iputrain::config
