// Which config keys this engine acts on. The schema accepts every IPUConfig and pipeline() option;
// a key that would change what runs but that the engine does not implement yet is refused with a
// located error rather than silently ignored.
#pragma once

#include "iputrain/config.hpp"

namespace iputrain::engine {

//! Throws Error(Config) at the first key set in `config` that changes what runs (schema effect
//! "runs") but is not implemented by this engine.
void check_supported(const Config& config);

}  // namespace iputrain::engine
