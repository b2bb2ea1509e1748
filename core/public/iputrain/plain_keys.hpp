// Keys that are one row each (issue 48). A line of IPUTRAIN_PLAIN_KEYS is everything such a key
// needs but its consumer: its typed field in Config and in Settings (PlainKeys, which resolving a
// config copies whole, the value as written), and its row in the config schema, made from the line
// (docs/config.md, `iputrain config explain`, the range check, `config show` and the key walk's
// probe). A key the planner or the engine reads as it is written is added so: its line here and
// the code that reads `settings.plain.SECTION_NAME`.
//
// X(SECTION, NAME, TYPE, DEFAULT, DOC, RANGE, NEEDS): TYPE is double, int64_t or bool; RANGE the
// accepted values, as the schema's Range writes them (Range::at_least(0)), or {}; NEEDS the key it
// has no effect without ("" for none): setting it without that key is refused, located, with a hint.
#pragma once

#include <cstdint>

#define IPUTRAIN_PLAIN_KEYS(X)                                                                         \
  X(checkpoint, keep_best_min_delta, double, 0.0,                                                      \
    "An improvement of the `keep_best` metric by no more than this does not replace best.safetensors " \
    "(as the min_delta of Keras' EarlyStopping): noise does not rewrite the best checkpoint.",         \
    Range::at_least(0), "checkpoint.keep_best")

namespace iputrain {

//! The plain keys' values (see above), named SECTION_NAME.
struct PlainKeys {
#define IPUTRAIN_PLAIN_FIELD(section, name, type, value, ...) type section##_##name = value;
  IPUTRAIN_PLAIN_KEYS(IPUTRAIN_PLAIN_FIELD)
#undef IPUTRAIN_PLAIN_FIELD
};

}  // namespace iputrain
