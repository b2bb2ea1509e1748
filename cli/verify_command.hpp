// `iputrain verify MODEL CONFIG`: the config's plan against the one-IPU run, bit for bit.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <utility>
#include <vector>

namespace iputrain::cli {

//! Registers `verify` on `app` and what runs it in `table` (main.cpp's command table).
void add_verify_command(CLI::App& app, std::vector<std::pair<const CLI::App*, std::function<int()>>>& table);

}  // namespace iputrain::cli
