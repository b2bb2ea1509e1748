#include "cli/repl/line_editor.hpp"

// libedit's readline interface (editline/readline.h) declares FILE-based functions without
// including stdio.h itself.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <unistd.h>

#include <editline/readline.h>

namespace iputrain::repl {

namespace {

// The readline interface is a C API with global callbacks; the one live editor's completer.
Completer* active_completer = nullptr;
std::vector<std::string> candidates;
size_t next_candidate = 0;

char* generate(const char* word, int state) {
  if (state == 0) {
    next_candidate = 0;
  }
  const size_t n = std::strlen(word);
  while (next_candidate < candidates.size()) {
    const std::string& c = candidates[next_candidate++];
    if (c.compare(0, n, word) == 0) {
      return strdup(c.c_str());  // readline frees the returned strings
    }
  }
  return nullptr;
}

char** complete(const char* word, int start, int /*end*/) {
  rl_attempted_completion_over = 1;  // never fall back to file names
  candidates.clear();
  if (active_completer != nullptr) {
    Completion c = (*active_completer)(std::string(rl_line_buffer, static_cast<size_t>(start)), word);
    candidates = std::move(c.words);
    rl_completion_append_character = c.append;
  }
  return rl_completion_matches(word, generate);
}

}  // namespace

std::string default_history_path() {
  if (const char* p = std::getenv("IPUTRAIN_HISTORY"); p != nullptr && *p != '\0') {
    return p;
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return (std::filesystem::path(home) / ".iputrain_history").string();
  }
  return {};
}

LineEditor::LineEditor(std::string prompt, std::string history_path, Completer completer)
    : prompt_(std::move(prompt)), history_path_(std::move(history_path)) {
  static Completer holder;
  holder = std::move(completer);
  active_completer = &holder;
  rl_readline_name = "iputrain";
  rl_attempted_completion_function = complete;
  // Config keys hold dots and `set` splits at `=`: only blanks and `=` end a word.
  rl_basic_word_break_characters = " \t\n=";
  rl_initialize();
  using_history();
  stifle_history(1000);
  if (!history_path_.empty()) {
    read_history(history_path_.c_str());  // a missing file is an empty history
  }
}

LineEditor::~LineEditor() {
  active_completer = nullptr;
  rl_attempted_completion_function = nullptr;
}

std::optional<std::string> LineEditor::read() {
  char* raw = readline(prompt_.c_str());
  if (raw == nullptr) {
    return std::nullopt;
  }
  std::string line(raw);
  std::free(raw);
  if (line.find_first_not_of(" \t") != std::string::npos) {
    add_history(line.c_str());
    save_history();
  }
  return line;
}

void LineEditor::save_history() const {
  if (history_path_.empty()) {
    return;
  }
  // Written next to the file and renamed over it, so two sessions never leave a torn history.
  const std::string tmp = history_path_ + ".tmp" + std::to_string(::getpid());
  if (write_history(tmp.c_str()) == 0) {
    std::error_code ec;
    std::filesystem::rename(tmp, history_path_, ec);
  }
  std::remove(tmp.c_str());
}

}  // namespace iputrain::repl
