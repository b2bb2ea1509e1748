// Interactive line input for the REPL on top of libedit's readline interface: editing keys, a
// history kept in a file across sessions, and tab completion from a callback.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace iputrain::repl {

//! What may follow: full words (the editor keeps those that start with the typed part) and the
//! character to put after a unique match (`=` after a key of `set`, else a blank).
struct Completion {
  std::vector<std::string> words;
  char append = ' ';
};

//! Completes the word being typed: `line` is the text before that word, `word` the part of it
//! typed so far.
using Completer = std::function<Completion(const std::string& line, const std::string& word)>;

class LineEditor {
 public:
  //! Reads the history from `history_path` ("" = keep none). Only one LineEditor may exist at a
  //! time: libedit's readline interface is global.
  LineEditor(std::string prompt, std::string history_path, Completer completer);
  ~LineEditor();
  LineEditor(const LineEditor&) = delete;
  LineEditor& operator=(const LineEditor&) = delete;

  //! The next line, without the newline; nullopt at end of input (Ctrl-D). Non-blank lines are
  //! added to the history, which is saved at once so a killed session keeps it.
  std::optional<std::string> read();

 private:
  void save_history() const;

  std::string prompt_;
  std::string history_path_;
};

//! Where the history is kept: $IPUTRAIN_HISTORY if set, else ~/.iputrain_history ("" if neither
//! is known).
std::string default_history_path();

}  // namespace iputrain::repl
