#include "core/ops/softmax_util.hpp"

#include <fmt/format.h>

namespace iputrain::ir {

void check_logits_labels(const TensorType& logits, const TensorType& labels) {
  if (logits.dtype != DType::F32 || logits.rank() < 1 || logits.shape.back() < 1) {
    throw OpError{fmt::format("logits must be f32[..., classes] with classes >= 1, got {}", logits.str()),
                  ""};
  }
  const Shape expect(logits.shape.begin(), logits.shape.end() - 1);
  if (labels.dtype != DType::I32 || labels.shape != expect) {
    throw OpError{fmt::format("labels must be i32{} for logits {}, got {}", shape_str(expect), logits.str(),
                              labels.str()),
                  "labels hold one class index per row of logits"};
  }
}

void throw_bad_label(const Node& node, int32_t label, int64_t c) {
  throw Error(ErrorKind::Data, fmt::format("label {} out of range [0, {})", label, c), node.span,
              "labels must be class indices; check the dataset's label field and the number of classes");
}

}  // namespace iputrain::ir
