#include "frontend/source_limits.hpp"

#include <fmt/format.h>

#include <cctype>
#include <string_view>
#include <vector>

#include "iputrain/error.hpp"

namespace iputrain::frontend {

namespace {

// Length of the UTF-8 sequence starting at text[i] (1..4), or 0 if it is not valid UTF-8
// (overlong forms, surrogates and code points above U+10FFFF included).
size_t utf8_length(const std::string& text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) {
    return 1;
  }
  size_t n = 0;
  uint32_t cp = 0;
  if ((b & 0xE0) == 0xC0) {
    n = 2;
    cp = b & 0x1F;
  } else if ((b & 0xF0) == 0xE0) {
    n = 3;
    cp = b & 0x0F;
  } else if ((b & 0xF8) == 0xF0) {
    n = 4;
    cp = b & 0x07;
  } else {
    return 0;
  }
  if (i + n > text.size()) {
    return 0;
  }
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) {
      return 0;
    }
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    return 0;
  }
  return n;
}

// A comment runs to the end of the line; its brackets do not nest. Advances i and col past it,
// stopping early at a byte that is not UTF-8 (reported by the caller's next turn).
void skip_comment(const std::string& text, size_t& i, int32_t& col) {
  while (i < text.size() && text[i] != '\n') {
    const size_t m = utf8_length(text, i);
    if (m == 0 || text[i] == '\0') {
      return;
    }
    i += m;
    ++col;
  }
}

// A string ends on its line; its brackets do not nest. Advances i and col past a closed string
// (validating and counting its characters on the way) and returns true; false if it is not closed.
bool skip_string(const std::string& text, size_t& i, int32_t& col) {
  const char quote = text[i];
  size_t j = i + 1;
  while (j < text.size() && text[j] != quote && text[j] != '\n') {
    j += text[j] == '\\' && j + 1 < text.size() && text[j + 1] != '\n' ? 2 : 1;
  }
  if (j >= text.size() || text[j] != quote) {
    return false;
  }
  for (++i, ++col; i <= j;) {
    const size_t m = utf8_length(text, i);
    if (m == 0 || text[i] == '\0') {
      break;
    }
    i += m;
    ++col;
  }
  return true;
}

}  // namespace

void check_source_text(const std::string& text, int32_t file) {
  if (text.size() > kMaxSourceBytes) {
    throw Error(ErrorKind::Syntax,
                fmt::format("the file is {} bytes, more than the {} a model or module may have", text.size(),
                            kMaxSourceBytes),
                SourceSpan{file, 1, 1, 1}, "is this the right file? Model files are text; split a very large model into modules");
  }
  int32_t line = 1;
  int32_t col = 1;  // in characters (code points), as the parser counts
  int32_t depth = 0;
  // Operators of the statement being read: a chain `x + x + …` or `- - … x` nests as deep as it is
  // long in the parse tree. A statement ends at a newline or ';' outside ( and [.
  std::vector<char> open;
  int32_t operators = 0;
  const auto count_operator = [&](int32_t at_col) {
    if (++operators > kMaxOperators) {
      throw Error(ErrorKind::Syntax, fmt::format("more than {} operators in one statement", kMaxOperators),
                  SourceSpan{file, line, at_col, 1}, "split the expression into named parts, or use a `for` loop");
    }
  };
  const auto in_statement_list = [&] { return open.empty() || open.back() == '{'; };
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_length(text, i);
    if (n == 0 || text[i] == '\0') {
      throw Error(ErrorKind::Syntax,
                  fmt::format("byte 0x{:02x} is not {}", static_cast<unsigned char>(text[i]),
                              text[i] == '\0' ? "allowed in a model file" : "UTF-8 text"),
                  SourceSpan{file, line, col, 1}, "is this the right file? Model files are UTF-8 text");
    }
    const char c = text[i];
    if (c == '#') {
      skip_comment(text, i, col);
      continue;
    }
    if ((c == '"' || c == '\'') && skip_string(text, i, col)) {
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      if (++depth > kMaxNesting) {
        throw Error(ErrorKind::Syntax, fmt::format("brackets nested more than {} deep", kMaxNesting),
                    SourceSpan{file, line, col, 1}, "give the inner expression a name of its own");
      }
      open.push_back(c);
      operators = c == '{' ? 0 : operators;
    } else if (c == ')' || c == ']' || c == '}') {
      depth = depth > 0 ? depth - 1 : 0;
      if (!open.empty()) {
        open.pop_back();
      }
      operators = c == '}' ? 0 : operators;
    } else if ((c == '\n' || c == ';') && in_statement_list()) {
      operators = 0;
    } else if (std::string_view("+-*/@%<>=!&|^~").find(c) != std::string_view::npos) {
      count_operator(col);
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      // A word: `and`, `or` and `not` are operators too.
      size_t j = i;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) {
        ++j;
      }
      const std::string_view word(text.data() + i, j - i);
      if (word == "and" || word == "or" || word == "not") {
        count_operator(col);
      }
      col += static_cast<int32_t>(j - i);
      i = j;
      continue;
    }
    if (c == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
    i += n;
  }
}

}  // namespace iputrain::frontend
