// Gradients summed as the reverse pass brings their contributions (planner/autodiff.cpp for the
// model, core/ir/vjp.cpp for a loop's body).
#pragma once

#include <cstdint>
#include <map>

#include "core/ir/graph.hpp"

namespace iputrain::ir {

// A gradient being summed. Contributions that are slice_grads of one axis (a value read in
// slices: a serialized matmul's weight, an embedding table read slice by slice, a sequence cut
// into pieces) are kept as slice-sized sums, one per window, while the windows are identical or
// disjoint; the sum becomes one tensor (the windows joined, or zero-padded and added) when another
// kind of contribution arrives or the gradient is read. Each element still adds its contributions
// in the order they came (the padding zeros add exactly), without a full-size tensor per slice.
struct Sum {
  ValueId total = kNoValue;
  int64_t axis = -1;
  struct Window {
    int64_t size = 0;
    ValueId sum = kNoValue;
    ValueId first = kNoValue;  // the first slice_grad of this window, to pad the sum like it
  };
  std::map<int64_t, Window> windows;  // by begin along `axis`
};

//! Adds the contribution `dx` to `s`; new nodes go to the graph's cursor.
void add_to(Graph& g, Sum& s, ValueId dx);
//! The finished sum of `s` (kNoValue if nothing was added).
ValueId total_of(Graph& g, Sum& s);

}  // namespace iputrain::ir
