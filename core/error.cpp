#include "iputrain/error.hpp"

#include <fmt/format.h>

#include <algorithm>

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

std::string render(const Diagnostic& d, const SourceManager* sources) {
  std::string out;
  const bool located = sources != nullptr && d.span.valid() && d.span.file < sources->size();
  if (located) {
    out = fmt::format("{}:{}:{}: {}: {}\n", sources->path(d.span.file), d.span.line, d.span.col,
                      d.severity, d.message);
    std::string line = sources->line_text(d.span.file, d.span.line);
    // Tabs are expanded to one space so the caret lines up with what the terminal shows.
    std::replace(line.begin(), line.end(), '\t', ' ');
    out += "    " + line + "\n";
    int32_t col = std::max(1, d.span.col);
    int32_t room = std::max<int32_t>(1, static_cast<int32_t>(line.size()) - col + 1);
    int32_t len = std::clamp(d.span.length, 1, room);
    out += "    " + std::string(static_cast<size_t>(col - 1), ' ') + "^" +
           std::string(static_cast<size_t>(len - 1), '~') + "\n";
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

Error& Error::with_hint(std::string hint) {
  if (diag_.hint.empty()) {
    diag_.hint = std::move(hint);
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
