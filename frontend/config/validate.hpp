// iputrain — checks one TOML value against its schema row (internal to frontend/config).
#pragma once

#include <toml++/toml.h>

#include <memory>
#include <string>

#include "frontend/config/schema.hpp"

namespace iputrain::config {

//! Maps toml++ source regions to spans of one registered file. A `--set` value is parsed as the
//! document `v = TEXT`, so its line is replaced and its columns shifted onto the `--set` line.
struct Locator {
  int32_t file = -1;
  int32_t line = 0;       //!< 0: the region's own line
  int32_t col_shift = 0;  //!< added to the region's columns
  SourceSpan span(const toml::source_region& r) const;
};

//! "integer", "array", "table", … as the user wrote it.
std::string_view toml_type_name(toml::node_type t);

//! How a person reads an untyped `--set` value: integer, else float, else true/false, else text
//! (quotes removed).
ParamValue parse_scalar(const std::string& text);

//! Converts `node` to `k`'s Value, checking type, range, allowed values and list elements. Errors
//! are Error(Config) located at the offending element (or `fallback` for nodes without a source
//! position) and carry `sources`. `origin` is appended to the key in messages (" (from `--set …`)").
Value validate_node(const KeySpec& k, const toml::node& node, const Locator& loc, SourceSpan fallback,
                    const std::string& origin, const std::shared_ptr<const SourceManager>& sources);

}  // namespace iputrain::config
