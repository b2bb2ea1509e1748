// iputrain — writing output files the way the engine does: to a temporary file next to the
// target, flushed, then renamed over it, so an interrupted run never leaves a half-written file.
#pragma once

#include <string>
#include <string_view>

namespace iputrain {

//! Writes `text` to `path` atomically. Throws iputrain::Error(Io) naming the path on failure.
void write_file_atomically(const std::string& path, std::string_view text);

//! Makes `path` ready to be written when a long run ends, before the run starts: creates its
//! missing parent folders and checks that a file can be created there (a probe file, removed at
//! once). With `is_dir` the path is a folder to write files into, created if missing. `flag`
//! names where the path came from ("--save"). Throws iputrain::Error(Io) naming both on failure.
void prepare_output(const std::string& path, std::string_view flag, bool is_dir = false);

}  // namespace iputrain
