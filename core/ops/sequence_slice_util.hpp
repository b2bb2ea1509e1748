// What sequence_slice and its gradient share: the three i32[n] lists of a sequence slice (rows,
// source offsets, destination offsets), checked against the tensors' rows when the kernel runs.
#pragma once

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/ops/op_util.hpp"
#include "iputrain/error.hpp"

namespace iputrain::ir {

//! Types of num_elems, src_offsets and dst_offsets: i32 vectors of one length.
inline void check_slice_lists(std::span<const TensorType* const> lists, std::string_view op) {
  for (const TensorType* t : lists) {
    if (t->dtype != DType::I32 || t->rank() != 1 || t->shape != lists[0]->shape) {
      throw OpError{
          fmt::format("{}: num_elems, src_offsets and dst_offsets must be i32[n] of one length, got {}", op, t->str()),
          "one entry per slice"};
    }
  }
}

struct SliceLists {
  const int32_t* rows;
  const int32_t* src;
  const int32_t* dst;
  int64_t count;
};

//! The lists at operands first .. first + 2, each slice checked to lie within `dst_rows` and
//! `src_rows`; a slice that does not stops the run (Error(Data)) naming it.
inline SliceLists slice_lists(const KernelArgs& args, size_t first, int64_t dst_rows, int64_t src_rows) {
  const SliceLists s{args.inputs[first].i32(), args.inputs[first + 1].i32(), args.inputs[first + 2].i32(),
                     args.inputs[first].numel()};
  for (int64_t i = 0; i < s.count; ++i) {
    const int64_t n = s.rows[i];
    if (n < 0 || s.src[i] < 0 || s.dst[i] < 0 || s.src[i] + n > src_rows || s.dst[i] + n > dst_rows) {
      throw Error(ErrorKind::Data,
                  fmt::format("{}: slice {} copies {} rows from src row {} to dst row {}, outside src's {} rows or "
                              "dst's {}",
                              op_name(args.node.op), i, n, s.src[i], s.dst[i], src_rows, dst_rows),
                  args.node.span, "num_elems, src_offsets and dst_offsets must keep every slice inside both tensors");
    }
  }
  return s;
}

//! Bytes of one row (everything but the first dimension).
inline size_t row_bytes(const Tensor& t) {
  return t.shape().empty() || t.shape()[0] == 0 ? 0 : t.type->bytes() / static_cast<size_t>(t.shape()[0]);
}

}  // namespace iputrain::ir
