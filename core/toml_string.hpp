// A string written as a TOML basic string, for every file iputrain writes in TOML (configs written
// back, a checkpoint's metadata), so that it reads back as the same bytes.
#pragma once

#include <string>
#include <string_view>

namespace iputrain {

//! `s` quoted, `"` and `\` escaped, tab, newline and carriage return as \t, \n, \r and the other
//! control characters as \uXXXX.
std::string toml_string(std::string_view s);

}  // namespace iputrain
