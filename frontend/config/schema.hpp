// iputrain — the config schema: one declarative table of every config key.
//
// The loader validates TOML files and `--set` overrides against this table, and the docs
// (docs/config.md), `iputrain config explain` and the CLI help are generated from it. A key is added
// by adding one row to a keys_*.cpp file (plus its field in include/iputrain/config.hpp, at the
// same path). What the commands know of a key beyond its value is a field of its row too: whether it
// defines the run (`--resume`), is layout (`verify`'s one-IPU reference) or is tunable (`tune`).
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "iputrain/config_loader.hpp"

namespace iputrain::config {

struct Value;
using ValueList = std::vector<Value>;
using ValueTable = std::map<std::string, Value>;

//! A config value of any key type: a TOML scalar, array or table.
struct Value : std::variant<int64_t, double, bool, std::string, ValueList, ValueTable> {
  using variant::variant;
  Value() : variant(int64_t{0}) {}
  Value(int v) : variant(int64_t{v}) {}
  Value(const char* s) : variant(std::string(s)) {}
  const variant& base() const { return *this; }
};
bool operator==(const Value& a, const Value& b);

//! The value as TOML text: `3`, `0.5`, `"a"`, `[0, [1, 2]]`, `{ a = "b" }`.
std::string toml_text(const Value& v);

//! The type of a config value as the user writes it.
enum class KeyType {
  Int,               //!< TOML integer
  Float,             //!< TOML float (an integer is accepted, a boolean never)
  Bool,              //!< TOML boolean
  String,            //!< TOML string
  Enum,              //!< TOML string, one of KeySpec::allowed (case, `_` and `-` ignored)
  AutoBool,          //!< true, false or "auto"
  IntList,           //!< array of integers (each within `range`)
  FloatList,         //!< array of floats (each within `range`; an integer is accepted)
  NestedIntList,     //!< array of integers or non-empty arrays of integers (device_mapping)
  BoolList,          //!< array of booleans
  StringList,        //!< array of strings
  OptionMap,         //!< table of string values (Poplar options)
  StageOptions,      //!< table { convolution_options = {…}, matmul_options = {…} }
  StageOptionsList,  //!< array of StageOptions tables, one per pipeline stage
  FreeTable,         //!< table of scalar values with user-chosen names (`[model]`)
};

//! "integer", "float", "list of integers", … for messages and docs.
std::string_view key_type_name(KeyType t);

//! What a key does on virtual IPUs: its status, declared on its row and printed by `config
//! explain` and docs/config.md. The loader enforces the last two (config/status.cpp), so `check`,
//! `plan` and `train` treat a key alike.
enum class Effect {
  Runs,     //!< acts: changes what the engine computes, how it runs or what it writes
  Models,   //!< modelled: changes the plan's memory, cycles or topology (`plan --format json`)
  Refused,  //!< a value other than the default is refused, with KeySpec::reason
  None,     //!< accepted for compatibility: a value other than the default warns, with KeySpec::reason
};
//! One line for `config explain`.
std::string_view effect_text(Effect e);
//! One word for the docs' status column: "acts", "modelled", "refused", "no effect".
std::string_view effect_word(Effect e);

//! Numeric bounds of an Int or Float key (or of the elements of an integer list).
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

//! Reads and writes one typed field of a Config as a Value of the key's type (Int -> int64_t,
//! Float -> double, Bool -> bool, String/Enum -> std::string, AutoBool -> bool or "auto", lists ->
//! ValueList, tables -> ValueTable).
struct Accessor {
  std::function<void(Config&, const Value&)> set;
  std::function<Value(const Config&)> get;
};

//! One config key.
struct KeySpec {
  std::string path;  //!< dotted key path, e.g. "data.batch_size"
  KeyType type = KeyType::Int;
  Value default_value = {};                 //!< value when unset (may be a sentinel outside `range`)
  Range range = {};                         //!< accepted values of Int/Float keys and integer lists
  std::vector<std::string> allowed = {};    //!< values of an Enum key (canonical spelling)
  std::string doc = {};                     //!< one line, for docs and help
  Effect effect = Effect::Runs;             //!< what it changes on a virtual IPU
  Accessor access = {};                     //!< the Config field (empty for FreeTable and `extends`)
  std::vector<std::string> conflicts = {};  //!< keys that must not be set together with this one
  //! A key this one has no effect without, `KEY` (set to a value other than its default) or
  //! `KEY = VALUE` (set to that value, as TOML writes it): setting this one otherwise is refused
  //! (check_needs, rules.cpp).
  std::string needs = {};
  bool unique = false;                      //!< list elements must be distinct
  std::string reason = {};                  //!< why Refused or None (required for those)
  std::string hint = {};                    //!< what to do instead, for Refused
  bool is_path = false;  //!< a file or folder that follows the path rule (a data source: after its `format:`)
  //! It defines what a run computes: checkpoints record it and a resumed run must agree on it.
  bool defines_run = false;
  //! Checkpoints record the value the key's line settles it to (only with defines_run).
  bool record_settled = false;
  //! It lays the model out (IPUs, mapping, accumulation, schedule, recomputation, sharding,
  //! offloading): `verify` sets it back to its default for its one-IPU reference.
  bool layout = false;
  //! `iputrain tune` may vary it: one of its knobs, or (for a key tune has no knob for) every value
  //! of key_choices() (api/tune_candidates.cpp).
  bool tunable = false;

  //! This row with status Refused: a non-default value fails with `why` and `instead`.
  KeySpec refused(std::string why, std::string instead) &&;
  //! This row with status None: a non-default value warns with `why`.
  KeySpec no_effect(std::string why) &&;
  //! This row's value is a path (docs/config.md, "Paths"): written configs rebase it.
  KeySpec as_path() &&;
  //! This row defines the run (`defines_run`).
  KeySpec defining() &&;
  //! This row is layout (`layout`).
  KeySpec as_layout() &&;
  //! This row is tunable (`tunable`).
  KeySpec as_tunable() &&;

  //! "integer >= 1", "one of \"sgd\", …", "list of integers >= 0", …: the expected value.
  std::string expected() const;
};

//! Describes a table that groups keys (`[data]`), for docs.
struct SectionSpec {
  std::string path;  //!< "data"
  std::string doc;
};

//! Every key, in documentation order (a table's own keys before its sub-tables).
const std::vector<KeySpec>& schema();
//! Every table that groups keys (all proper prefixes of key paths), in documentation order.
const std::vector<SectionSpec>& sections();
//! Alternative spellings of tables: {"training.checkpoint", "checkpoint"} (the design's example
//! writes the checkpoint table inline under [training]).
const std::vector<std::pair<std::string, std::string>>& aliases();

// The rows: `extends` and `[model]`, and the optimizer's hyper-parameters (keys_run.cpp), and the
// plain lines' (keys_plain.cpp).
std::vector<KeySpec> run_keys();
std::vector<KeySpec> hyper_keys();
//! The plain keys' rows, made from IPUTRAIN_PLAIN_KEYS (core/public/iputrain/plain_keys.hpp).
std::vector<KeySpec> plain_keys();

//! Test hook (tests/config/throwaway_key_test.cpp): adds `row` to the schema in documentation order, as
//! one more row of a keys_*.cpp file would be, for a test that sees a key through its row alone.
//! Call it before anything keeps a pointer into the schema; product code never calls it.
void add_key_for_tests(KeySpec row);

//! The key at `path`, or nullptr.
const KeySpec* find_key(std::string_view path);
//! The section at `path`, or nullptr.
const SectionSpec* find_section(std::string_view path);
//! True if `path` names a table that groups keys ("ipu", "data", …).
bool is_section(std::string_view path);
//! The keys and sub-tables directly inside table `section` ("batch_size", …), for hints.
std::vector<std::string> keys_in(std::string_view section);
//! Lower case without `_`, `-` and spaces: how enum values are compared.
std::string enum_folded(std::string_view s);
//! The index in `allowed` of the spelling `text` folds to (enum_folded), if any.
std::optional<size_t> spelling_index(const std::vector<std::string>& allowed, std::string_view text);

//! Enforces the statuses of the keys set in `cfg` to a value other than their default: a Refused
//! key fails (located, with the row's reason and hint); a None key adds a located warning.
std::vector<Diagnostic> check_statuses(const Config& cfg);
//! True when `cfg` holds the default value of `key`.
bool holds_default(const Config& cfg, const KeySpec& key);

}  // namespace iputrain::config
