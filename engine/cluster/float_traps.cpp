#include "engine/cluster/float_traps.hpp"

#include <fmt/format.h>

#include <cfenv>
#include <cmath>

namespace iputrain::engine {

namespace {

enum class NonFinite { None, Nan, Inf };

NonFinite scan(const ir::Tensor& t) {
  if (!is_float(t.type->dtype)) {
    return NonFinite::None;
  }
  const float* v = t.f32();
  NonFinite found = NonFinite::None;
  for (int64_t i = 0, n = t.numel(); i < n; ++i) {
    if (std::isnan(v[i])) {
      return NonFinite::Nan;
    }
    if (std::isinf(v[i])) {
      found = NonFinite::Inf;
    }
  }
  return found;
}

}  // namespace

void FloatTraps::before() const { std::feclearexcept(FE_ALL_EXCEPT); }

void FloatTraps::after(const ir::Graph& graph, const ir::Node& node, const ir::Tensor& out, const ir::Tensor* in,
                       uint32_t inputs, int64_t micro_batch) const {
  const NonFinite result = scan(out);
  if (result == NonFinite::None) {
    return;
  }
  for (uint32_t k = 0; k < inputs; ++k) {
    if (scan(in[k]) != NonFinite::None) {
      return;  // passed along, not produced here
    }
  }
  const bool divided = std::fetestexcept(FE_DIVBYZERO) != 0;
  const char* flag = result == NonFinite::Nan ? "inv" : divided ? "div0" : "oflo";
  const bool trapped = result == NonFinite::Nan ? inv_ : divided ? div0_ : oflo_;
  if (!trapped) {
    return;
  }
  const char* what = result == NonFinite::Nan ? "NaN (an invalid operation)"
                     : divided                ? "an infinity (a division by zero)"
                                              : "an infinity (an overflow)";
  const std::string op(ir::op_def(node.op).name);
  const std::string stage = node.stage >= 0 && static_cast<size_t>(node.stage) < graph.stages.size()
                                ? graph.stages[static_cast<size_t>(node.stage)].name
                                : std::to_string(node.stage);
  throw Error(ErrorKind::Runtime,
              fmt::format("`{}` in stage `{}` ({} pass) produced {} at micro-batch {}", op, stage,
                          node.phase == ir::Phase::Forward ? "forward" : "backward", what, micro_batch),
              node.span,
              fmt::format("`ipu.floating_point_behaviour.{}` stops at the first one; set it to false to let the value "
                          "propagate",
                          flag));
}

}  // namespace iputrain::engine
