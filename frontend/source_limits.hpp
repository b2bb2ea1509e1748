// Checks a model or module text must pass before the parser sees it: UTF-8, a bounded size, and
// bracket nesting and operator chains short enough for the recursive-descent parser and the tree
// walks after it (their depth grows with both).
// Each failure is a located Error(Syntax) with a hint, never a crash or minutes of work.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/read_limits.hpp"

namespace iputrain::frontend {

//! Largest model or module text read (bytes).
inline constexpr size_t kMaxSourceBytes = kMaxTextBytes;
//! Deepest nesting of ( [ { accepted.
inline constexpr int32_t kMaxNesting = 200;
//! Most operators (+ - * / @ % < > = ! & | ^ ~ and, or, not) in one statement.
inline constexpr int32_t kMaxOperators = 256;

//! Throws Error(Syntax) located in `file` at the first problem: a byte sequence that is not UTF-8,
//! a NUL byte, a text over kMaxSourceBytes, brackets nested deeper than kMaxNesting, or a
//! statement with more than kMaxOperators operators.
void check_source_text(const std::string& text, int32_t file);

}  // namespace iputrain::frontend
