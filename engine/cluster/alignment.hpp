// The alignment of every buffer the virtual IPUs hold: a cache line, for aligned vector loads and no
// false sharing between buffers that different threads write.
#pragma once

#include <cstddef>

namespace iputrain::engine {

inline constexpr size_t kBufferAlign = 64;

//! `bytes` rounded up to the alignment: where the next buffer carved out of a block starts.
constexpr size_t buffer_aligned(size_t bytes) { return (bytes + kBufferAlign - 1) / kBufferAlign * kBufferAlign; }

}  // namespace iputrain::engine
