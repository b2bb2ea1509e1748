// Regular expressions for the tests, compiled in one unit (tests/regex_util.cpp): a unit that
// instantiates <regex> at -O0 takes about 2 s more to compile, and six test files did, in each of
// the plain and sanitizer trees. Patterns are ECMAScript, as std::regex's default; each is compiled
// once per process.
#pragma once

#include <string>
#include <vector>

namespace test_regex {

//! The first match of `pattern` in `text`: the whole match, then each group; empty when none.
std::vector<std::string> search(const std::string& text, const std::string& pattern);
//! `pattern` matches somewhere in `text`.
bool found(const std::string& text, const std::string& pattern);
//! `pattern` matches the whole of `text`.
bool matches(const std::string& text, const std::string& pattern);
//! `text` with every match of `pattern` replaced by `with` ($1 and the like name groups).
std::string replace(const std::string& text, const std::string& pattern, const std::string& with);

}  // namespace test_regex
