// `iputrain tune MODEL CONFIG`'s printing of the fastest layouts that fit, which the REPL's `tune`
// shares (the command's row is kTuneCommand, cli/tune_command.cpp).
#pragma once

#include <string>

#include "iputrain/tune.hpp"

namespace iputrain::cli {

//! The ranked table, the Pareto front and the search's figures, for people.
std::string tune_text(const TuneResult& result, int32_t top);

//! The same for tools (docs/cli.md, section `tune`).
std::string tune_json(const TuneResult& result);

}  // namespace iputrain::cli
