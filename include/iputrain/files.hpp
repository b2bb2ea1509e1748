// iputrain — writing output files the way the engine does: to a temporary file next to the
// target, flushed, then renamed over it, so an interrupted run never leaves a half-written file.
#pragma once

#include <string>
#include <string_view>

namespace iputrain {

//! Writes `text` to `path` atomically. Throws iputrain::Error(Io) naming the path on failure.
void write_file_atomically(const std::string& path, std::string_view text);

}  // namespace iputrain
