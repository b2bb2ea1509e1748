// transpose: permutes dimensions (attribute perm, a permutation of 0..rank-1; absent = reversed),
// any dtype: out.shape[i] = x.shape[perm[i]]. Gradient: transpose by the inverse permutation.
#include <fmt/format.h>

#include "core/ops/element_bits.hpp"
#include "core/ops/reduce_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_transpose {

// perm with the default filled in, on the stack (the kernel calls this too).
std::array<int64_t, kMaxRank> perm_of(const Attrs& attrs, int64_t rank) {
  std::array<int64_t, kMaxRank> p{};
  const std::vector<int64_t>& perm = ints_attr(attrs, "perm");
  for (int64_t d = 0; d < rank; ++d) {
    p[static_cast<size_t>(d)] = perm.empty() ? rank - 1 - d : perm[static_cast<size_t>(d)];
  }
  return p;
}

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  check_rank(x);
  const std::vector<int64_t>& perm = ints_attr(attrs, "perm");
  const int64_t rank = x.rank();
  if (!perm.empty()) {
    bool ok = static_cast<int64_t>(perm.size()) == rank;
    std::array<bool, kMaxRank> seen{};
    for (size_t i = 0; ok && i < perm.size(); ++i) {
      ok = perm[i] >= 0 && perm[i] < rank && !seen[static_cast<size_t>(perm[i])];
      if (ok) {
        seen[static_cast<size_t>(perm[i])] = true;
      }
    }
    if (!ok) {
      throw OpError{fmt::format("perm [{}] is not a permutation of the {} dimensions of {}",
                                fmt::join(perm, ", "), rank, x.str()),
                    fmt::format("list each of 0..{} exactly once", rank - 1)};
    }
  }
  const auto p = perm_of(attrs, rank);
  TensorType out{x.dtype, x.shape};
  for (int64_t d = 0; d < rank; ++d) {
    out.shape[static_cast<size_t>(d)] = x.shape[static_cast<size_t>(p[static_cast<size_t>(d)])];
  }
  return out;
}

template <typename T>
void permute(const KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const Shape& xs = x.shape();
  const Shape& os = args.output.shape();
  const auto rank = static_cast<size_t>(x.type->rank());
  const int64_t n = args.output.numel();
  if (n == 0) {
    return;
  }
  const T* in = static_cast<const T*>(x.data);
  T* out = static_cast<T*>(args.output.data);
  if (rank == 0) {
    out[0] = in[0];
    return;
  }
  const auto p = perm_of(args.node.attrs, x.type->rank());
  // Input strides, reordered to the output's dimensions.
  std::array<int64_t, kMaxRank> in_stride{};
  std::array<int64_t, kMaxRank> s{};
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    in_stride[d] = stride;
    stride *= xs[d];
  }
  for (size_t d = 0; d < rank; ++d) {
    s[d] = in_stride[static_cast<size_t>(p[d])];
  }
  // Odometer over the output; the innermost dimension is a strided gather loop.
  const int64_t inner = os[rank - 1];
  const int64_t inner_stride = s[rank - 1];
  std::array<int64_t, kMaxRank> idx{};
  int64_t src = 0;
  for (int64_t o = 0; o < n; o += inner) {
    const T* row = in + src;
    T* dst = out + o;
    for (int64_t j = 0; j < inner; ++j) {
      dst[j] = row[j * inner_stride];
    }
    for (size_t d = rank - 1; d-- > 0;) {
      ++idx[d];
      src += s[d];
      if (idx[d] < os[d]) {
        break;
      }
      src -= s[d] * os[d];
      idx[d] = 0;
    }
  }
}

void forward(const KernelArgs& args) {
  with_element_bits(args.output.type->dtype, [&](auto bits) { permute<decltype(bits)>(args); });
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node& n = g.node(id);
  const int64_t rank = g.type(id).rank();
  const auto p = perm_of(n.attrs, rank);
  std::vector<int64_t> inverse(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) {
    inverse[static_cast<size_t>(p[static_cast<size_t>(d)])] = d;
  }
  return {g.add(OpKind::Transpose, {dy}, Attrs{{"perm", inverse}})};
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 0.0);
}

}  // namespace impl_transpose
}  // namespace

const OpDef kTransposeOp{
    .kind = OpKind::Transpose,
    .name = "transpose",
    .arity = 1,
    .infer = impl_transpose::infer,
    .forward = impl_transpose::forward,
    .backward = impl_transpose::backward,
    .cost = impl_transpose::cost,
    .doc = "transpose(x; perm = reversed): out.shape[i] = x.shape[perm[i]] (any dtype).",
    .edges = "moves values unchanged.",
    .cost_class = CostClass::Rearrange,
};

}  // namespace iputrain::ir
