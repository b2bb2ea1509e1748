// Bounds on the text files iputrain reads whole (model, module and config files): checked on the
// file's size before a byte is read, so a 2 GB file is an error at once, not minutes of reading
// and parsing or an allocation failure.
#pragma once

#include <cstddef>
#include <string>

#include "iputrain/error.hpp"

namespace iputrain {

//! Largest model, module or config text accepted (bytes): far beyond any real one.
inline constexpr size_t kMaxTextBytes = size_t{16} << 20;

//! Throws Error(`kind`) naming `path` and its size if the file is larger than kMaxTextBytes;
//! `what` says what the file is ("model file", "config file"). Missing files pass (the caller's
//! open reports them).
void check_text_file_size(const std::string& path, const std::string& what, ErrorKind kind);

}  // namespace iputrain
