// Writing an output file (a plan report, a trace): to a temporary file next to the target, then
// renamed over it, so an interrupted run never leaves a half-written file under the target name.
// Declared in the public API (core/public/iputrain/files.hpp); implemented in core/write_file.cpp.
#pragma once

#include "iputrain/files.hpp"

namespace iputrain {

//! Fault injection for tests, read from IPUTRAIN_FAULT_WRITE_ERROR: with ENOSPC or EIO the file
//! writers (write_file_atomically, the safetensors writer) fail their first data write with that
//! errno, as on a full disk; with EROFS or EACCES the creation of their temporary file fails, as in
//! a read-only folder (which root, who runs CI, cannot otherwise be shown). 0: no fault there.
//! With IPUTRAIN_FAULT_WRITE_PATH set, only paths that contain its text fail.
int injected_create_error(std::string_view path);
int injected_write_error(std::string_view path);

}  // namespace iputrain
