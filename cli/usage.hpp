// Command lines that CLI11 refuses, or that it accepts with the files in the wrong places, turned
// into errors located on the command line that name what was most likely meant.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "iputrain/error.hpp"

// CLI11's App, declared: only the files that build the command line include CLI/CLI.hpp, whose
// inline code costs every unit that includes it seconds of compiling (bench/build_time.py).
namespace CLI {
class App;
}  // namespace CLI

namespace iputrain::cli {

//! The words of a command line as the user typed them (argv[0] shown as `iputrain`).
struct CommandLine {
  std::vector<std::string> words;

  CommandLine(int argc, const char* const* argv);
  //! An Error(Usage) located on word `index`, the whole line quoted with a caret under it.
  Error error_at(size_t index, std::string message, std::string hint) const;
  //! The index of the first word equal to `text`, after the command's name (0 if none).
  size_t find(const std::string& text) const;
  //! The index of the word that gives an option the value `value`: the value alone (`--weights W`)
  //! or joined to its option (`--weights=W`); 0 if none.
  size_t find_value(const std::string& value) const;
};

//! Why CLI11 refused `line` when the reason is a word it does not know: an unknown command (with
//! the nearest one), an unknown option (with the nearest option of that command, or the command
//! that has it), or a config key tried as an option (`--steps 10`: `--set training.steps=10`).
//! nullopt when every word is known (CLI11's own message then says what is wrong).
std::optional<Error> explain_refusal(const CLI::App& app, const CommandLine& line);

//! CLI11's refusal of a path that does not exist (`model: File does not exist: X`, from an
//! ExistingFile or ExistingPath check), located on the command line, with the nearest name in that
//! folder or, when none is near, the folder the path was read from. nullopt for other messages.
std::optional<Error> explain_missing_path(const std::string& cli11_message, const CommandLine& line);

//! Refuses a MODEL or CONFIG argument of `command` that holds the other kind of file, told by its
//! content (a model's first statement, a TOML key or table) and else by its extension: swapped
//! arguments are named as such. Throws Error(Usage).
void check_file_roles(const CLI::App& command, const CommandLine& line);

//! The note printed after an error that tells the user to launch with mpirun, when this process
//! runs as root: Open MPI's mpirun refuses root without --allow-run-as-root ("" otherwise).
std::string mpirun_root_note(const Error& error);

}  // namespace iputrain::cli
