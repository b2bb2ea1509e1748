// matmul: a[..., m, k] @ b[k, n] -> [..., m, n], or batched a[B..., m, k] @ b[B..., k, n].
// Attributes transpose_a / transpose_b (0 or 1) read the last two dimensions of an operand
// transposed; the backward pass uses them instead of materialising transposes.
// The product itself is core/ops/gemm.cpp (tiled, parallel, deterministic).
#include <algorithm>

#include <fmt/format.h>

#include "core/ops/gemm.hpp"
#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_matmul {

// The GEMM an instance performs: `batch` products of op(A)[m, k] by op(B)[k, n]. A 2-D b with a
// higher-rank a folds a's leading dimensions into m (one large product instead of many small).
struct Dims {
  int64_t batch, m, k, n;
  bool b_shared;  // b is 2-D and used by every batch entry
};

Dims dims_of(const TensorType& a, const TensorType& b, bool ta, bool tb) {
  if (a.rank() < 2 || b.rank() < 2) {
    throw OpError{fmt::format("operands must have rank >= 2: {} @ {}", a.str(), b.str()),
                  "use reshape to add a dimension of size 1"};
  }
  const int64_t ak0 = a.shape[a.shape.size() - 2];
  const int64_t ak1 = a.shape.back();
  const int64_t bk0 = b.shape[b.shape.size() - 2];
  const int64_t bk1 = b.shape.back();
  Dims d{};
  d.k = ta ? ak0 : ak1;
  const int64_t kb = tb ? bk1 : bk0;
  d.n = tb ? bk0 : bk1;
  if (d.k != kb) {
    throw OpError{fmt::format("inner dimensions differ: {} @ {}", a.str(), b.str()),
                  fmt::format("the last dimension of the left operand ({}) must equal the first of the "
                              "right one ({})",
                              d.k, kb)};
  }
  d.b_shared = b.rank() == 2;
  if (d.b_shared && !ta) {
    d.batch = 1;
    // Every row of a, however many leading dimensions hold them (k may be 0: no division by it).
    d.m = 1;
    for (size_t i = 0; i + 1 < a.shape.size(); ++i) {
      d.m *= a.shape[i];
    }
    return d;
  }
  // Compared in place: the forward kernel calls this too and must not allocate.
  if (!d.b_shared && !std::equal(a.shape.begin(), a.shape.end() - 2, b.shape.begin(), b.shape.end() - 2)) {
    throw OpError{fmt::format("batch dimensions differ: {} @ {}", a.str(), b.str()), ""};
  }
  d.batch = 1;
  for (size_t i = 0; i + 2 < a.shape.size(); ++i) {
    d.batch *= a.shape[i];
  }
  d.m = ta ? ak1 : ak0;
  return d;
}

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& a = *in[0];
  const TensorType& b = *in[1];
  if (a.dtype != DType::F32 || b.dtype != DType::F32) {
    throw OpError{fmt::format("operands must be float: {} @ {}", a.str(), b.str()), ""};
  }
  const bool ta = attrs.get_int("transpose_a") != 0;
  const bool tb = attrs.get_int("transpose_b") != 0;
  const Dims d = dims_of(a, b, ta, tb);
  if (ta && d.b_shared && a.rank() > 2) {
    // The forward would run one product per leading index of a against the single b, which is
    // not what a transposed operand means; gradients reshape a to 2-D before transposing it.
    throw OpError{fmt::format("transpose_a with a 2-D right operand needs a 2-D left operand: {}^T @ {}",
                              a.str(), b.str()),
                  "reshape the left operand to 2-D first"};
  }
  // a's leading dimensions are kept; d.m may have folded them into rows, so take the row count
  // from a's own shape.
  Shape out(a.shape.begin(), a.shape.end() - 2);
  out.push_back(ta ? a.shape.back() : a.shape[a.shape.size() - 2]);
  out.push_back(d.n);
  return TensorType{DType::F32, out};
}

void forward(const KernelArgs& args) {
  const Tensor& a = args.inputs[0];
  const Tensor& b = args.inputs[1];
  const bool ta = args.node.attrs.get_int("transpose_a") != 0;
  const bool tb = args.node.attrs.get_int("transpose_b") != 0;
  const Dims d = dims_of(*a.type, *b.type, ta, tb);
  gemm_batched(d.batch, a.f32(), d.m * d.k, ta, b.f32(), d.b_shared ? 0 : d.k * d.n, tb, args.output.f32(),
               d.m * d.n, d.m, d.n, d.k);
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  const ValueId a = n.inputs[0];
  const ValueId b = n.inputs[1];
  const bool ta = n.attrs.get_int("transpose_a") != 0;
  const bool tb = n.attrs.get_int("transpose_b") != 0;
  auto mm = [&](ValueId x, ValueId y, bool tx, bool ty) {
    Attrs attrs;
    if (tx) {
      attrs.set("transpose_a", int64_t{1});
    }
    if (ty) {
      attrs.set("transpose_b", int64_t{1});
    }
    return g.add(OpKind::MatMul, {x, y}, std::move(attrs));
  };
  // With A = op(a), B = op(b) and C = A B: dA = dC B^T and dB = A^T dC, transposed back where the
  // operand was read transposed. Without transposes: da = dy @ b^T, db = a^T @ dy.
  const ValueId da = ta ? mm(b, dy, tb, true) : mm(dy, b, false, !tb);
  ValueId db;
  if (g.type(b).rank() == 2 && g.type(a).rank() > 2) {
    // A 2-D b serves every row of a (never transposed then): contract over all of a's leading
    // dimensions at once.
    const int64_t k = g.type(a).shape.back();
    const int64_t nn = g.type(dy).shape.back();
    const ValueId a2 = g.add(OpKind::Reshape, {a}, Attrs{{"shape", Shape{-1, k}}});
    const ValueId dy2 = g.add(OpKind::Reshape, {dy}, Attrs{{"shape", Shape{-1, nn}}});
    db = tb ? mm(dy2, a2, true, false) : mm(a2, dy2, true, false);
  } else {
    db = tb ? mm(dy, a, true, ta) : mm(a, dy, !ta, false);
  }
  return {da, db};
}

Cost cost(const Graph& g, const Node& node) {
  const bool ta = node.attrs.get_int("transpose_a") != 0;
  const bool tb = node.attrs.get_int("transpose_b") != 0;
  const Dims d = dims_of(g.type(node.inputs[0]), g.type(node.inputs[1]), ta, tb);
  Cost c = elementwise_cost(g, node, 0.0);
  c.flops = 2.0 * static_cast<double>(d.batch * d.m * d.k * d.n);
  c.contraction = {.groups = static_cast<double>(d.batch),
                   .field = static_cast<double>(d.m),
                   .in_channels = static_cast<double>(d.k),
                   .out_channels = static_cast<double>(d.n),
                   .row = static_cast<double>(d.m),
                   .matmul = true};
  return c;
}

constexpr std::string_view kInputs[] = {"a", "b"};

}  // namespace impl_matmul
}  // namespace

const OpDef kMatMulOp{
    .kind = OpKind::MatMul,
    .name = "matmul",
    .arity = 2,
    .infer = impl_matmul::infer,
    .forward = impl_matmul::forward,
    .backward = impl_matmul::backward,
    .cost = impl_matmul::cost,
    .doc =
        "a[..., m, k] @ b[k, n] or batched a[B..., m, k] @ b[B..., k, n]; attrs transpose_a, transpose_b "
        "(0/1).",
    .inputs = impl_matmul::kInputs,
    .edges =
        "IEEE sums: inf * 0 = nan and nan propagates; each sum's order depends on the shape only, so "
        "every plan and thread count gives the same bits.",
    .cost_class = CostClass::MatMul,
};

}  // namespace iputrain::ir
