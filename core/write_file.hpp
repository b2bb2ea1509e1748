// Writing an output file (a plan report, a trace): to a temporary file next to the target, then
// renamed over it, so an interrupted run never leaves a half-written file under the target name.
// Declared in the public API (include/iputrain/files.hpp); implemented in core/write_file.cpp.
#pragma once

#include "iputrain/files.hpp"
