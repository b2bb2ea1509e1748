// iputrain — errors carried with their source location.
//
// Every user-facing failure is an iputrain::Error: a kind (which stage found it), a message,
// an optional source span (model file or config file position) and an optional hint.
// `render()` turns it into the `file:line:col: error: …` form with the source line and a caret.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace iputrain {

//! Which stage of the pipeline raised an error. Decides the CLI exit status.
enum class ErrorKind {
  Syntax,    //!< model file does not parse
  Semantic,  //!< model file parses but is wrong (names, arity, shapes, dtypes, …)
  Config,    //!< config file or --set value is wrong
  Data,      //!< a data source cannot be read or does not match the model
  Plan,      //!< the plan cannot be made (placement, memory)
  Usage,     //!< bad command-line arguments
  Io,        //!< a file cannot be read or written
  Runtime,   //!< failure while running
  Internal,  //!< a bug in iputrain
};

//! The message of the Error(Plan) a plan past PlanRequest::deadline (iputrain/plan.hpp) stops with.
inline constexpr const char* kPlanAbandoned = "planning abandoned: its deadline passed";

//! The name used in messages ("error" for most kinds).
const char* error_kind_name(ErrorKind kind);

//! A half-open range in one source file. Lines and columns are 1-based; `file` indexes
//! SourceManager::files(). A default-constructed span means "no location".
struct SourceSpan {
  int32_t file = -1;
  int32_t line = 0;
  int32_t col = 0;
  int32_t length = 1;  //!< characters underlined on the line (at least 1)

  bool valid() const { return file >= 0 && line > 0; }
};

//! Owns the text of every file read (model files, stdlib modules, configs) so diagnostics can quote
//! the offending line. Thread-compatible; one per Model/Config load chain.
class SourceManager {
 public:
  //! Registers a file's text; returns its index for SourceSpan::file.
  int32_t add(std::string path, std::string text);
  const std::string& path(int32_t file) const;
  const std::string& text(int32_t file) const;
  //! The text of line `line` (1-based) of `file`, without the newline.
  std::string line_text(int32_t file, int32_t line) const;
  int32_t size() const { return static_cast<int32_t>(files_.size()); }

 private:
  struct File {
    std::string path;
    std::string text;
  };
  std::vector<File> files_;
};

//! One located message, used for errors and warnings alike.
struct Diagnostic {
  std::string severity = "error";  //!< "error", "warning" or "note"
  std::string message;
  SourceSpan span;
  std::string hint;  //!< rendered as "hint: …" after the caret, if not empty
};

//! Renders a diagnostic as `file:line:col: severity: message`, the source line, a caret line
//! (`^~~~`) and the hint. Without a valid span only the message and hint are printed.
std::string render(const Diagnostic& d, const SourceManager* sources);

//! The exception type of every stage. Holds a Diagnostic and, when known, the sources needed to
//! render it (shared so the error outlives the Model or Config being built).
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message, SourceSpan span = {}, std::string hint = {});

  ErrorKind kind() const { return kind_; }
  const Diagnostic& diagnostic() const { return diag_; }
  const SourceSpan& span() const { return diag_.span; }
  const std::string& hint() const { return diag_.hint; }

  //! Attaches the sources the span refers to (done by the stage that owns them).
  Error& with_sources(std::shared_ptr<const SourceManager> sources);

  //! The full located text; what the CLI prints.
  std::string render() const;

 private:
  ErrorKind kind_;
  Diagnostic diag_;
  std::shared_ptr<const SourceManager> sources_;
};

//! Returns the candidate closest to `name` by edit distance, or "" if none is close enough to be a
//! plausible typo. Used for "unknown name/key … did you mean …" hints.
std::string nearest_name(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace iputrain
