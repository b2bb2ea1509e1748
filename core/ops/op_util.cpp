#include "core/ops/op_util.hpp"

#include <fmt/format.h>

namespace iputrain::ir {

TensorType infer_broadcast(std::span<const TensorType* const> in, std::optional<DType> out) {
  const TensorType& a = *in[0];
  const TensorType& b = *in[1];
  if (a.dtype != b.dtype) {
    throw OpError{fmt::format("element types differ: {} and {}", a.str(), b.str()),
                  "convert one side with cast(x, dtype = \"...\")"};
  }
  auto shape = broadcast_shapes(a.shape, b.shape);
  if (!shape) {
    throw OpError{fmt::format("shapes cannot be broadcast together: {} and {}", a.str(), b.str()),
                  "trailing dimensions must be equal or 1"};
  }
  TensorType t{out.value_or(a.dtype), *shape};
  check_rank(t);
  return t;
}

void check_rank(const TensorType& t) {
  if (t.shape.size() > kMaxRank) {
    throw OpError{
        fmt::format("rank {} is above the supported maximum of {}: {}", t.shape.size(), kMaxRank, t.str()),
        "reshape to fewer dimensions"};
  }
}

TensorType infer_arithmetic(std::span<const TensorType* const> in, std::string_view verb) {
  TensorType t = infer_broadcast(in);
  if (t.dtype != DType::F32 && t.dtype != DType::I32) {
    throw OpError{fmt::format("cannot {} {} tensors", verb, dtype_name(t.dtype)),
                  "cast them to i32 or f32 first"};
  }
  return t;
}

bool is_suffix_of(const Shape& s, const Shape& out) {
  if (s.size() > out.size()) {
    return false;
  }
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[s.size() - 1 - i] != out[out.size() - 1 - i]) {
      return false;
    }
  }
  return true;
}

void require_f32(const TensorType& t, std::string_view what) {
  if (t.dtype != DType::F32) {
    throw OpError{fmt::format("{} must be f32, got {}", what, t.str()), "cast it to f32 first"};
  }
}

int64_t int_attr(const Attrs& attrs, std::string_view key, int64_t def) {
  const AttrValue* v = attrs.find(key);
  if (v == nullptr) {
    return def;
  }
  if (const auto* p = std::get_if<int64_t>(v)) {
    return *p;
  }
  throw OpError{fmt::format("attribute '{}' must be an integer", key), ""};
}

double float_attr(const Attrs& attrs, std::string_view key, double def) {
  const AttrValue* v = attrs.find(key);
  if (v == nullptr) {
    return def;
  }
  if (const auto* p = std::get_if<double>(v)) {
    return *p;
  }
  if (const auto* p = std::get_if<int64_t>(v)) {
    return static_cast<double>(*p);
  }
  throw OpError{fmt::format("attribute '{}' must be a number", key), ""};
}

std::string_view str_attr(const Attrs& attrs, std::string_view key, std::string_view def) {
  const AttrValue* v = attrs.find(key);
  if (v == nullptr) {
    return def;
  }
  if (const auto* p = std::get_if<std::string>(v)) {
    return *p;
  }
  throw OpError{fmt::format("attribute '{}' must be a string", key), ""};
}

ValueId reduce_to_shape(Graph& g, ValueId grad, const Shape& target) {
  const Shape gs = g.type(grad).shape;
  if (gs == target) {
    return grad;
  }
  std::vector<int64_t> axes;
  const size_t offset = gs.size() - target.size();
  for (size_t i = 0; i < gs.size(); ++i) {
    if (i < offset || (target[i - offset] == 1 && gs[i] != 1)) {
      axes.push_back(static_cast<int64_t>(i));
    }
  }
  ValueId summed = g.add(OpKind::Sum, {grad}, Attrs{{"axes", axes}, {"keepdims", int64_t{0}}});
  if (g.type(summed).shape == target) {
    return summed;
  }
  return g.add(OpKind::Reshape, {summed}, Attrs{{"shape", target}});
}

Cost elementwise_cost(const Graph& g, const Node& node, double flops_per_element) {
  Cost c;
  c.flops = flops_per_element * static_cast<double>(node.type.numel());
  for (ValueId in : node.inputs) {
    c.bytes_in += static_cast<double>(g.type(in).bytes());
  }
  c.bytes_out = static_cast<double>(node.type.bytes());
  return c;
}

}  // namespace iputrain::ir
