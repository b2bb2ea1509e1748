// The REPL commands' handlers, by area (inspect.cpp, change.cpp, train.cpp); the table that names
// them and holds their help text is commands.cpp.
#pragma once

#include <cstdint>
#include <string>

#include "cli/repl/commands.hpp"

namespace iputrain::repl {

// inspect.cpp: looking at the model, config and plan.
bool cmd_show(State& state, const Args& args);
bool cmd_memory(State& state, const Args& args);
bool cmd_schedule(State& state, const Args& args);
bool cmd_explain(State& state, const Args& args);

// change.cpp: changing the config and comparing plans.
bool cmd_set(State& state, const Args& args);
bool cmd_unset(State& state, const Args& args);
bool cmd_diff(State& state, const Args& args);
bool cmd_sweep(State& state, const Args& args);
bool cmd_tune(State& state, const Args& args);
bool cmd_save_config(State& state, const Args& args);

// train.cpp: running steps and looking inside.
bool cmd_step(State& state, const Args& args);
bool cmd_weights(State& state, const Args& args);
bool cmd_trace(State& state, const Args& args);

//! Throws Error(Usage) "usage: USAGE" unless `args` has between `min` and `max` words.
void expect_words(const Args& args, size_t min, size_t max, const std::string& usage);
//! `text` as a whole number in [lo, hi]; Error(Usage) naming `what` otherwise.
int64_t parse_int(const std::string& text, int64_t lo, int64_t hi, const std::string& what);
//! Error(Usage) "unknown WHAT `name`" with a did-you-mean among `known` (or the list of them).
[[noreturn]] void fail_unknown(const std::string& what, const std::string& name, const std::vector<std::string>& known);

}  // namespace iputrain::repl
