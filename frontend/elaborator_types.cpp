// Types in signatures: scalar types, and tensor patterns like f32[..., n] that bind shape symbols.
#include "frontend/elaborator_impl.hpp"

#include <fmt/format.h>

namespace iputrain::frontend::elab {

void Elaborator::check_scalar_type(const std::string& declared, Value& v, SourceSpan span, const std::string& what) {
  if (declared.empty()) {
    return;
  }
  bool ok = false;
  if (declared == "int") {
    ok = v.kind == K::Int;
  } else if (declared == "float") {
    ok = v.is_number();
    if (ok) {
      v = Value::of_float(v.as_double());
    }
  } else if (declared == "bool") {
    ok = v.kind == K::Bool;
  } else if (declared == "str") {
    ok = v.kind == K::String;
  }
  if (!ok) {
    fail(span, fmt::format("{} must be {}, got {}", what, declared, describe(v, g_)));
  }
}

// Checks an argument against a signature type (`units: int`, `x: f32[..., n]`), binding shape
// symbols that are not bound yet in the callee's scope.
void Elaborator::check_pattern(const ast::TypeExpr& t, Value& v, Scope& local, SourceSpan where,
                               const std::string& what) {
  if (t.name == "int" || t.name == "float" || t.name == "bool" || t.name == "str") {
    check_scalar_type(t.name, v, where, what);
    return;
  }
  if (t.name == "tensor" || t.name == "fn" || t.name == "list") {
    const K want = t.name == "tensor" ? K::Tensor : t.name == "fn" ? K::Function : K::List;
    if (v.kind != want) {
      fail(where, fmt::format("{} must be a {}, got {}", what, t.name, describe(v, g_)));
    }
    return;
  }
  auto dtype = parse_dtype(t.name);
  if (!dtype) {
    const std::string near = nearest_name(
        t.name, {"int", "float", "bool", "str", "tensor", "fn", "list", "f32", "f16", "bf16", "i32", "u8"});
    fail(t.span, fmt::format("unknown type '{}'", t.name),
         near.empty() ? "types are int, float, bool, str, tensor, fn, list or a dtype pattern like f32[..., n]"
                      : fmt::format("did you mean '{}'?", near));
  }
  const std::string pattern = snippet(t.span);
  if (v.kind != K::Tensor) {
    fail(where, fmt::format("{} must be a tensor {}, got {}", what, pattern, describe(v, g_)));
  }
  const TensorType actual = g_.type(v.tensor);
  auto mismatch = [&](const std::string& detail) {
    fail(where, fmt::format("{} must be {}, got {}", what, pattern, actual.str()), detail);
  };
  if (actual.dtype != *dtype) {
    mismatch(fmt::format("the dtype is {}, {} expected; use cast(x, dtype = \"{}\")", dtype_name(actual.dtype),
                         dtype_name(*dtype), dtype_name(*dtype)));
  }
  if (!t.has_dims) {
    return;
  }
  const size_t ellipsis = find_ellipsis(t.dims, 0, "a shape pattern");
  const auto rank = static_cast<size_t>(actual.rank());
  const bool has_ellipsis = ellipsis != t.dims.size();
  const size_t fixed = t.dims.size() - (has_ellipsis ? 1 : 0);
  if (has_ellipsis ? rank < fixed : rank != fixed) {
    mismatch(fmt::format("rank {} expected, got rank {}",
                         has_ellipsis ? fmt::format("{} or more", fixed) : std::to_string(fixed), rank));
  }
  for (size_t k = 0; k < t.dims.size(); ++k) {
    if (k == ellipsis) {
      continue;
    }
    const size_t axis = k < ellipsis ? k : rank - (t.dims.size() - k);
    const int64_t size = actual.shape[axis];
    const Expr& d = *t.dims[k];
    if (d.kind == ExprKind::Name && local.find_local(d.text) == nullptr) {
      local.set(d.text, Value::of_int(size), d.span);
      continue;
    }
    const int64_t want = expect_int(eval(d, local), g_, d.span, "a shape pattern dimension");
    if (want != size) {
      mismatch(fmt::format("dimension {} must be {} ('{}'), but it is {}", axis, want, snippet(d.span), size));
    }
  }
}

}  // namespace iputrain::frontend::elab
