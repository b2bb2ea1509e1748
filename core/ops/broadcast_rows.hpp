// Broadcasting as rows: the output's dimensions are merged wherever every operand stays
// contiguous across them, which leaves rows of `inner` elements in which each operand either
// advances one element at a time (step 1) or repeats one element (step 0). [b, s, d] against
// [b, s, 1] is b*s rows of d with the second operand fixed per row; a [s, s] mask against
// [b, h, s, s] scores is b*h rows of s*s with both advancing. The inner loops then run with the
// steps as compile-time constants (vectorised), and the rows are split on the shared arena.
// Elementwise, so any split gives the same bits. Never allocates.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>

#include "core/types.hpp"
#include "core/parallel.hpp"

namespace iputrain::ir {

//! Highest rank the broadcasting kernels handle; their index lives on the stack, so infer rejects more.
inline constexpr size_t kMaxRank = 8;
//! Per-dimension strides (in elements), right-aligned to an output of rank <= kMaxRank.
using Strides = std::array<int64_t, kMaxRank>;

//! The strides with which a tensor of `shape` is read when broadcast to `out`: 0 along broadcast
//! dimensions and the dimensions it lacks. Entries [0, out.size()) are filled.
inline Strides broadcast_strides(const Shape& shape, const Shape& out) {
  Strides strides{};
  int64_t stride = 1;
  const size_t offset = out.size() - shape.size();
  for (size_t i = shape.size(); i-- > 0;) {
    strides[offset + i] = shape[i] == 1 ? 0 : stride;
    stride *= shape[i];
  }
  return strides;
}

template <size_t N>
struct RowLoop {
  int64_t rows = 1;
  int64_t inner = 1;
  size_t outer_rank = 0;
  Strides size{};                   //!< outer dimensions, outermost first
  std::array<Strides, N> stride{};  //!< per operand, per outer dimension
  std::array<int64_t, N> step{};    //!< per operand within a row: 0 or 1
};

//! The rows of broadcasting the operands of `shapes` (each right-aligned, rank <= kMaxRank) to `out`.
template <size_t N>
RowLoop<N> row_loop(const std::array<const Shape*, N>& shapes, const Shape& out) {
  const size_t rank = out.size();
  std::array<Strides, N> st{};
  for (size_t k = 0; k < N; ++k) {
    st[k] = broadcast_strides(*shapes[k], out);
  }
  // Merge outermost-first: a dimension joins the one before it when every operand's stride
  // there is its own stride times the dimension's size. Dimensions of size 1 are dropped.
  Strides size{};
  std::array<Strides, N> stride{};
  size_t merged = 0;
  for (size_t d = 0; d < rank; ++d) {
    if (out[d] == 1) {
      continue;
    }
    bool joins = merged > 0;
    for (size_t k = 0; k < N && joins; ++k) {
      joins = stride[k][merged - 1] == st[k][d] * out[d];
    }
    if (joins) {
      size[merged - 1] *= out[d];
      for (size_t k = 0; k < N; ++k) {
        stride[k][merged - 1] = st[k][d];
      }
    } else {
      size[merged] = out[d];
      for (size_t k = 0; k < N; ++k) {
        stride[k][merged] = st[k][d];
      }
      ++merged;
    }
  }
  RowLoop<N> loop;
  bool unit = merged > 0;
  for (size_t k = 0; k < N && unit; ++k) {
    unit = stride[k][merged - 1] == 0 || stride[k][merged - 1] == 1;
  }
  // The innermost merged dimension is the row when every operand steps by 0 or 1 along it (always
  // so for row-major operands); otherwise rows of one element.
  const size_t outer = unit ? merged - 1 : merged;
  loop.inner = unit ? size[merged - 1] : 1;
  for (size_t k = 0; k < N; ++k) {
    loop.step[k] = unit ? stride[k][merged - 1] : 0;
  }
  loop.outer_rank = outer;
  for (size_t d = 0; d < outer; ++d) {
    loop.size[d] = size[d];
    loop.rows *= size[d];
    for (size_t k = 0; k < N; ++k) {
      loop.stride[k][d] = stride[k][d];
    }
  }
  return loop;
}

//! Calls row(out_offset, offsets) for every row, offsets[k] being operand k's first element of
//! the row; rows are split in blocks of about 16384 elements on the shared arena. `per_element`
//! estimates an element's cost for the serial threshold.
template <size_t N, typename Row>
void for_rows(const RowLoop<N>& loop, int64_t per_element, Row&& row) {
  const int64_t grain = loop.inner >= 16384 ? 1 : 16384 / loop.inner;
  par::for_blocks(loop.rows, grain, loop.rows * loop.inner * per_element, [&](int64_t r0, int64_t r1) {
    Strides idx{};
    std::array<int64_t, N> off{};
    int64_t rest = r0;
    for (size_t d = loop.outer_rank; d-- > 0;) {
      idx[d] = rest % loop.size[d];
      rest /= loop.size[d];
      for (size_t k = 0; k < N; ++k) {
        off[k] += idx[d] * loop.stride[k][d];
      }
    }
    for (int64_t r = r0; r < r1; ++r) {
      row(r * loop.inner, off);
      for (size_t d = loop.outer_rank; d-- > 0;) {
        ++idx[d];
        for (size_t k = 0; k < N; ++k) {
          off[k] += loop.stride[k][d];
        }
        if (idx[d] < loop.size[d]) {
          break;
        }
        for (size_t k = 0; k < N; ++k) {
          off[k] -= loop.stride[k][d] * loop.size[d];
        }
        idx[d] = 0;
      }
    }
  });
}

//! Calls f(std::integral_constant<int64_t, s>...) with each operand's row step as a constant.
template <typename F>
void with_steps(const std::array<int64_t, 1>& s, F&& f) {
  using Z = std::integral_constant<int64_t, 0>;
  using O = std::integral_constant<int64_t, 1>;
  s[0] != 0 ? f(O{}) : f(Z{});
}
template <typename F>
void with_steps(const std::array<int64_t, 2>& s, F&& f) {
  with_steps(std::array<int64_t, 1>{s[0]}, [&](auto a) {
    with_steps(std::array<int64_t, 1>{s[1]}, [&](auto b) { f(a, b); });
  });
}
template <typename F>
void with_steps(const std::array<int64_t, 3>& s, F&& f) {
  with_steps(std::array<int64_t, 2>{s[0], s[1]}, [&](auto a, auto b) {
    with_steps(std::array<int64_t, 1>{s[2]}, [&](auto c) { f(a, b, c); });
  });
}

}  // namespace iputrain::ir
