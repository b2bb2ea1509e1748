// A test hook of config::resolve (frontend/config/resolve.cpp): the test that one run resolves its
// config once (tests/engine/resolve_once_test.cpp) counts the resolutions around it.
#pragma once

#include <cstdint>

namespace iputrain::config {

//! How many configs this process has resolved so far (config::resolve, from any thread).
int64_t resolutions();

}  // namespace iputrain::config
