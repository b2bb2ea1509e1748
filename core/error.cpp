#include "iputrain/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace iputrain {

const char* error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Syntax: return "syntax error";
    case ErrorKind::Internal: return "internal error";
    default: return "error";
  }
}

int32_t SourceManager::add(std::string path, std::string text) {
  files_.push_back({std::move(path), std::move(text)});
  return static_cast<int32_t>(files_.size() - 1);
}

const std::string& SourceManager::path(int32_t file) const { return files_.at(file).path; }
const std::string& SourceManager::text(int32_t file) const { return files_.at(file).text; }

std::string SourceManager::line_text(int32_t file, int32_t line) const {
  const std::string& t = text(file);
  size_t pos = 0;
  for (int32_t l = 1; l < line; ++l) {
    pos = t.find('\n', pos);
    if (pos == std::string::npos) {
      return {};
    }
    ++pos;
  }
  size_t end = t.find('\n', pos);
  std::string out = t.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
  if (!out.empty() && out.back() == '\r') {
    out.pop_back();
  }
  return out;
}

namespace {

// Columns of a quoted source line at most.
constexpr size_t kMaxQuoted = 160;

// The line as what a terminal shows, one column each: a character (a whole UTF-8 sequence), a tab
// as one space, and '?' for a control character or a byte that is not UTF-8.
std::vector<std::string> display_units(const std::string& line) {
  std::vector<std::string> out;
  for (size_t i = 0; i < line.size();) {
    const auto b = static_cast<unsigned char>(line[i]);
    size_t n = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
    for (size_t k = 1; n > 0 && k < n; ++k) {
      if (i + k >= line.size() || (static_cast<unsigned char>(line[i + k]) & 0xC0) != 0x80) {
        n = 0;
      }
    }
    if (n == 0) {
      out.emplace_back("?");
      ++i;
    } else if (n == 1) {
      out.emplace_back(b == '\t' ? " " : (b < 0x20 || b == 0x7F) ? "?" : std::string(1, line[i]));
      ++i;
    } else {
      out.push_back(line.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace

std::string render(const Diagnostic& d, const SourceManager* sources) {
  std::string out;
  const bool located = sources != nullptr && d.span.valid() && d.span.file < sources->size();
  if (located) {
    out = fmt::format("{}:{}:{}: {}: {}\n", sources->path(d.span.file), d.span.line, d.span.col,
                      d.severity, d.message);
    const std::vector<std::string> units = display_units(sources->line_text(d.span.file, d.span.line));
    // A long line is shown as a window around the column, so the caret stays on screen.
    const size_t col = static_cast<size_t>(std::max(1, d.span.col));
    size_t first = 0;
    size_t last = units.size();
    if (units.size() > kMaxQuoted) {
      first = col > kMaxQuoted / 2 ? std::min(col - 1 - kMaxQuoted / 2, units.size() - kMaxQuoted) : 0;
      last = first + kMaxQuoted;
    }
    std::string shown = first > 0 ? "\u2026" : "";
    for (size_t i = first; i < last; ++i) {
      shown += units[i];
    }
    shown += last < units.size() ? "\u2026" : "";
    out += "    " + shown + "\n";
    const size_t at = std::clamp(col - 1, first, std::max(first, last)) - first + (first > 0 ? 1 : 0);
    const size_t room = std::max<size_t>(1, last > col - 1 ? last - (col - 1) : 1);
    const size_t len = std::clamp<size_t>(static_cast<size_t>(std::max(1, d.span.length)), 1, room);
    out += "    " + std::string(at, ' ') + "^" + std::string(len - 1, '~') + "\n";
  } else {
    out = fmt::format("{}: {}\n", d.severity, d.message);
  }
  if (!d.hint.empty()) {
    out += fmt::format("hint: {}\n", d.hint);
  }
  return out;
}

Error::Error(ErrorKind kind, std::string message, SourceSpan span, std::string hint)
    : std::runtime_error(message), kind_(kind) {
  diag_.severity = kind == ErrorKind::Syntax ? "error" : "error";
  diag_.message = std::move(message);
  diag_.span = span;
  diag_.hint = std::move(hint);
}

Error& Error::with_sources(std::shared_ptr<const SourceManager> sources) {
  if (!sources_) {
    sources_ = std::move(sources);
  }
  return *this;
}

std::string Error::render() const { return iputrain::render(diag_, sources_.get()); }

namespace {
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) {
    prev[j] = j;
  }
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

std::string nearest_name(const std::string& name, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::string::npos;
  for (const auto& c : candidates) {
    size_t d = edit_distance(name, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  // A suggestion must be closer than rewriting most of the word.
  size_t limit = std::max<size_t>(2, name.size() / 3 + 1);
  return best_d <= limit ? best : std::string{};
}

}  // namespace iputrain
