#include "core/ops/triangle_util.hpp"
#include "core/ops/element_bits.hpp"

#include <cstring>

#include <fmt/format.h>

#include "core/parallel.hpp"

namespace iputrain::ir {

namespace {

template <typename T>
void keep(const KernelArgs& args, bool lower) {
  const Shape& s = args.output.shape();
  const int64_t rows = s[s.size() - 2];
  const int64_t cols = s.back();
  const int64_t k = args.node.attrs.get_int("k", 0);
  const T* x = static_cast<const T*>(args.inputs[0].data);
  T* y = static_cast<T*>(args.output.data);
  const int64_t all_rows = rows == 0 ? 0 : args.output.numel() / cols;
  par::for_blocks(all_rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(cols, 1)), args.output.numel(),
                  [&](int64_t r0, int64_t r1) {
                    for (int64_t r = r0; r < r1; ++r) {
                      const int64_t i = r % rows;
                      for (int64_t j = 0; j < cols; ++j) {
                        const bool kept = lower ? j - i <= k : j - i >= k;
                        y[r * cols + j] = kept ? x[r * cols + j] : T{0};
                      }
                    }
                  });
}

}  // namespace

template <bool kLower>
TensorType infer_triangle(std::span<const TensorType* const> in, const Attrs&) {
  const TensorType& x = *in[0];
  const std::string_view name = kLower ? "tril" : "triu";
  if (x.rank() < 2) {
    throw OpError{
        fmt::format("{} needs a tensor of rank 2 or more (matrices in its last two dimensions), got {}", name, x.str()),
        "reshape a vector to [1, n] first"};
  }
  return x;
}

template <bool kLower>
void triangle_forward(const KernelArgs& args) {
  with_element_bits(args.output.type->dtype, [&](auto bits) { keep<decltype(bits)>(args, kLower); });
}

template TensorType infer_triangle<true>(std::span<const TensorType* const>, const Attrs&);
template TensorType infer_triangle<false>(std::span<const TensorType* const>, const Attrs&);
template void triangle_forward<true>(const KernelArgs&);
template void triangle_forward<false>(const KernelArgs&);

std::vector<ValueId> triangle_backward(Graph& g, ValueId id, ValueId dy) {
  const Node& n = g.node(id);
  return {g.add(n.op, {dy}, Attrs{{"k", n.attrs.get_int("k", 0)}})};
}

}  // namespace iputrain::ir
