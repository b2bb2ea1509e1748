// Op cases for slicing at offsets computed at run time: dynamic_slice and dynamic_update_slice
// (offsets clamped as XLA clamps), sequence_slice and its gradient (overlaps, zero_unused, a slice
// out of range), against references written from the definitions.
#include <algorithm>

#include "tests/core/ref_util.hpp"

namespace iputrain::test {

namespace {

// x[3, 4] at rows 1.., columns 2.. with offsets clamped into [0, dim - size].
Values ref_window(const Values& x, int64_t cols, int64_t r0, int64_t c0, int64_t rows, int64_t width) {
  Values out;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < width; ++c) {
      out.push_back(x[static_cast<size_t>((r0 + r) * cols + c0 + c)]);
    }
  }
  return out;
}

// dst [6, 2] with the slices (rows, src row, dst row) of src [5, 2] copied in order.
Values ref_sequence_slice(const Values& dst, const Values& src, const std::vector<std::array<int64_t, 3>>& slices,
                          bool zero_unused) {
  Values out = dst;
  std::vector<bool> written(dst.size() / 2, false);
  for (const auto& [n, s, d] : slices) {
    for (int64_t k = 0; k < n; ++k) {
      written[static_cast<size_t>(d + k)] = true;
      for (int64_t j = 0; j < 2; ++j) {
        out[static_cast<size_t>((d + k) * 2 + j)] = src[static_cast<size_t>((s + k) * 2 + j)];
      }
    }
  }
  for (size_t r = 0; zero_unused && r < written.size(); ++r) {
    if (!written[r]) {
      out[2 * r] = out[2 * r + 1] = 0;
    }
  }
  return out;
}

}  // namespace

void add_dynamic_cases(std::vector<OpCase>& cases) {
  const Values x12 = {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23};
  cases.push_back({.name = "dynamic_slice in range",
                   .op = OpKind::DynamicSlice,
                   .inputs = {f32({3, 4}), i32({2})},
                   .attrs = {{"sizes", Shape{2, 2}}},
                   .values = {x12, {1, 2}},
                   .expected = ref_window(x12, 4, 1, 2, 2, 2)});
  cases.push_back({.name = "dynamic_slice clamps its offsets",
                   .op = OpKind::DynamicSlice,
                   .inputs = {f32({3, 4}), i32({2})},
                   .attrs = {{"sizes", Shape{2, 3}}},
                   .values = {x12, {5, -7}},
                   .expected = ref_window(x12, 4, 1, 0, 2, 3)});
  cases.push_back({.name = "dynamic_slice gradient",
                   .op = OpKind::DynamicSlice,
                   .inputs = {f32({3, 4}), i32({2})},
                   .attrs = {{"sizes", Shape{2, 2}}},
                   .values = {{}, {0, 1}},
                   .reference = [](const std::vector<Values>& in, const std::vector<TensorType>&, const TensorType&,
                                   const Attrs&) { return ref_window(in[0], 4, 0, 1, 2, 2); }});
  cases.push_back({.name = "dynamic_slice with f32 offsets",
                   .op = OpKind::DynamicSlice,
                   .inputs = {f32({3, 4}), f32({2})},
                   .attrs = {{"sizes", Shape{2, 2}}},
                   .infer_error = "offsets must be i32[2]"});
  Values updated = x12;
  updated[9] = -1;
  updated[10] = -2;
  updated[11] = -3;
  cases.push_back({.name = "dynamic_update_slice clamps its offsets",
                   .op = OpKind::DynamicUpdateSlice,
                   .inputs = {f32({3, 4}), f32({1, 3}), i32({2})},
                   .values = {x12, {-1, -2, -3}, {9, 3}},
                   .expected = updated});
  cases.push_back(
      {.name = "dynamic_update_slice gradient",
       .op = OpKind::DynamicUpdateSlice,
       .inputs = {f32({3, 4}), f32({2, 2}), i32({2})},
       .values = {{}, {}, {1, 1}},
       .reference = [](const std::vector<Values>& in, const std::vector<TensorType>&, const TensorType&, const Attrs&) {
         Values out = in[0];
         for (size_t r = 0; r < 2; ++r) {
           for (size_t c = 0; c < 2; ++c) {
             out[(1 + r) * 4 + 1 + c] = in[1][r * 2 + c];
           }
         }
         return out;
       }});
  cases.push_back({.name = "dynamic_update_slice too large",
                   .op = OpKind::DynamicUpdateSlice,
                   .inputs = {f32({3, 4}), f32({4, 1}), i32({2})},
                   .infer_error = "does not fit"});
  const std::vector<std::array<int64_t, 3>> slices = {{2, 0, 1}, {2, 3, 2}, {1, 4, 5}};  // the second overlaps
  const Values lists[3] = {{2, 2, 1}, {0, 3, 4}, {1, 2, 5}};
  for (const bool zero : {false, true}) {
    cases.push_back(
        {.name = fmt::format("sequence_slice overlapping, zero_unused {}", zero),
         .op = OpKind::SequenceSlice,
         .inputs = {f32({6, 2}), f32({5, 2}), i32({3}), i32({3}), i32({3})},
         .attrs = {{"zero_unused", int64_t{zero}}},
         .values = {{}, {}, lists[0], lists[1], lists[2]},
         .reference = [slices, zero](const std::vector<Values>& in, const std::vector<TensorType>&, const TensorType&,
                                     const Attrs&) { return ref_sequence_slice(in[0], in[1], slices, zero); }});
  }
  cases.push_back({.name = "sequence_slice out of range",
                   .op = OpKind::SequenceSlice,
                   .inputs = {f32({6, 2}), f32({5, 2}), i32({1}), i32({1}), i32({1})},
                   .values = {{}, {}, {3}, {3}, {0}},
                   .run_error = "slice 0 copies 3 rows from src row 3 to dst row 0"});
  cases.push_back({.name = "sequence_slice rows that differ",
                   .op = OpKind::SequenceSlice,
                   .inputs = {f32({6, 2}), f32({5, 3}), i32({1}), i32({1}), i32({1})},
                   .infer_error = "every dimension but the first"});
  // The gradient op alone: dst keeps dy where nothing wrote; src gets each final writer's dy.
  cases.push_back({.name = "sequence_slice_grad to src",
                   .op = OpKind::SequenceSliceGrad,
                   .inputs = {f32({6, 2}), i32({3}), i32({3}), i32({3})},
                   .attrs = {{"side", std::string("src")}, {"shape", Shape{5, 2}}},
                   .values = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, lists[0], lists[1], lists[2]},
                   // src row 0 -> dst 1; row 1 -> dst 2, overwritten by the second slice; rows 3, 4 ->
                   // dst 2, 3; row 4 also -> dst 5 (both add).
                   .expected = {2, 3, 0, 0, 0, 0, 4, 5, 16, 18},
                   .grad = false});
  cases.push_back({.name = "sequence_slice_grad of a vector",
                   .op = OpKind::SequenceSliceGrad,
                   .inputs = {f32({}), i32({3}), i32({3}), i32({3})},
                   .attrs = {{"side", std::string("dst")}, {"shape", Shape{}}},
                   .infer_error = "rank 1 or more"});
}

}  // namespace iputrain::test
