// cast: converts between f32, i32 and bool (attribute dtype = "f32" | "i32" | "bool"), and from the
// u8 of 8-bit inputs to any of them or to f16 / bf16 (exact: 0..255 fit every one; a half result is
// stored as the half type, for an output: no op computes on f16 or bf16 tensors). f32 -> i32
// truncates toward zero, saturating at the i32 range (nan -> 0) so no input is undefined
// behaviour; anything -> bool is "!= 0"; bool -> number is 0 or 1.
#include <cmath>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>
#include <Eigen/Core>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_cast {

bool numeric(DType t) { return t == DType::F32 || t == DType::I32 || t == DType::Bool; }
bool half(DType t) { return t == DType::F16 || t == DType::BF16; }

// f32, i32 and bool convert among themselves; u8 converts to each of them and to the half types.
// Nothing converts to u8: it comes from the host.
bool castable(DType from, DType to) {
  if (from == to) {
    return to != DType::U8;
  }
  if (from == DType::U8) {
    return numeric(to) || half(to);
  }
  return numeric(from) && numeric(to);
}

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  const std::string& name = attrs.get_str("dtype");
  const auto to = parse_dtype(name);
  if (!to || *to == DType::U8) {
    throw OpError{fmt::format("cannot cast to '{}'", name),
                  "dtype must be \"f32\", \"i32\" or \"bool\" (or \"f16\" / \"bf16\" from u8); u8 comes "
                  "only from the host"};
  }
  if (!castable(x.dtype, *to)) {
    throw OpError{fmt::format("cannot cast {} to {}", x.str(), dtype_name(*to)),
                  half(*to) ? "only u8 tensors are cast to f16 or bf16; the engine computes in f32 (set "
                              "training.precision for half precision)"
                            : "f32, i32 and bool convert among themselves, and u8 to any of them"};
  }
  return TensorType{*to, x.shape};
}

int32_t to_i32(float v) {
  if (std::isnan(v)) {
    return 0;
  }
  if (v >= 2147483648.0f) {
    return INT32_MAX;
  }
  if (v <= -2147483648.0f) {
    return INT32_MIN;
  }
  return static_cast<int32_t>(v);
}

template <typename From, typename To, typename F>
void convert(const Tensor& x, const Tensor& y, F f) {
  const From* px = static_cast<const From*>(x.data);
  To* py = static_cast<To*>(y.data);
  const int64_t n = x.numel();
  for (int64_t i = 0; i < n; ++i) {
    py[i] = f(px[i]);
  }
}

// From u8 (the 8-bit input's values 0..255, exact in every target).
void from_u8(const Tensor& x, const Tensor& y) {
  switch (y.type->dtype) {
    case DType::F32:
      convert<uint8_t, float>(x, y, [](uint8_t v) { return static_cast<float>(v); });
      break;
    case DType::F16:
      convert<uint8_t, Eigen::half>(x, y, [](uint8_t v) { return Eigen::half(static_cast<float>(v)); });
      break;
    case DType::BF16:
      convert<uint8_t, Eigen::bfloat16>(x, y, [](uint8_t v) { return Eigen::bfloat16(static_cast<float>(v)); });
      break;
    case DType::I32:
      convert<uint8_t, int32_t>(x, y, [](uint8_t v) { return static_cast<int32_t>(v); });
      break;
    case DType::Bool:
      convert<uint8_t, uint8_t>(x, y, [](uint8_t v) { return static_cast<uint8_t>(v != 0); });
      break;
    case DType::U8:
      break;  // refused by infer
  }
}

void forward(const KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const Tensor& y = args.output;
  const DType from = x.type->dtype;
  const DType to = y.type->dtype;
  if (from == to) {
    std::memcpy(y.data, x.data, x.type->bytes());
    return;
  }
  switch (from) {
    case DType::F32:
      if (to == DType::I32) {
        convert<float, int32_t>(x, y, to_i32);
      } else {
        convert<float, uint8_t>(x, y, [](float v) { return static_cast<uint8_t>(v != 0.0f); });
      }
      break;
    case DType::I32:
      if (to == DType::F32) {
        convert<int32_t, float>(x, y, [](int32_t v) { return static_cast<float>(v); });
      } else {
        convert<int32_t, uint8_t>(x, y, [](int32_t v) { return static_cast<uint8_t>(v != 0); });
      }
      break;
    case DType::U8:
      from_u8(x, y);
      break;
    case DType::F16:
    case DType::BF16:
      break;  // refused by infer
    case DType::Bool:
      if (to == DType::F32) {
        convert<uint8_t, float>(x, y, [](uint8_t v) { return v != 0 ? 1.0f : 0.0f; });
      } else {
        convert<uint8_t, int32_t>(x, y, [](uint8_t v) { return v != 0 ? 1 : 0; });
      }
      break;
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const ValueId x = g.node(id).inputs[0];
  const DType from = g.type(x).dtype;
  const DType to = g.type(id).dtype;
  if (from != DType::F32 || to != DType::F32) {  // the only float cast (u8 and the half types get none)
    return {kNoValue};
  }
  return {g.add(OpKind::Cast, {dy}, Attrs{{"dtype", std::string(dtype_name(from))}})};
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node);
}

}  // namespace impl_cast
}  // namespace

const OpDef kCastOp{
    .kind = OpKind::Cast,
    .name = "cast",
    .arity = 1,
    .infer = impl_cast::infer,
    .forward = impl_cast::forward,
    .backward = impl_cast::backward,
    .cost = impl_cast::cost,
    .doc =
        "cast(x; dtype = \"f32\" | \"i32\" | \"bool\" | \"f16\" | \"bf16\") converts elements: f32, i32 and "
        "bool among themselves, u8 (8-bit inputs) to any of them or to f16 / bf16 (stored as such; no op computes on "
        "them); "
        "f32 -> i32 truncates toward zero and saturates; no gradient into an integer input.",
    .edges =
        "f32 -> i32 truncates toward zero and saturates at [-2^31, 2^31 - 1]; nan gives 0 (C leaves "
        "it undefined; NumPy and PyTorch give -2^31 on x86, which would turn a nan into a "
        "valid-looking index). i32 -> f32 rounds to nearest even (16777217 -> 16777216). To bool: x "
        "!= 0, so nan is true. u8 -> any type is exact (0..255 fit f16 and bf16).",
};

}  // namespace iputrain::ir
