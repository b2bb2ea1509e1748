// `loop (h = h0, c) over t in 0..T while COND { … collect hs = h }`: a loop lowered once. The body
// is elaborated into the model like any block, with loop_arg placeholders for the carried values and
// the counter, then moved out into a graph of its own (Node::body): the values of the model it reads
// become its captured operands, and the parameters and constants it declares move in front of the
// loop. The loop node packs its results; loop_part nodes give them back to the model's names.
#include <fmt/format.h>

#include "core/ops/loop_util.hpp"
#include "frontend/elaborator_impl.hpp"

namespace iputrain::frontend::elab {

namespace {

void check_packable(const TensorType& t, SourceSpan where, const std::string& what) {
  if (!ir::loop_packable(t)) {
    fail(where, fmt::format("{} is {}: a loop carries and collects f32, i32 and bool tensors", what, t.str()),
         "cast it to f32 (and back after the loop)");
  }
}

ir::ValueId scalar_condition(const Value& v, const ir::Graph& g, SourceSpan where) {
  if (v.kind != K::Tensor || g.type(v.tensor).numel() != 1) {
    fail(where, fmt::format("a loop's `while` condition must be a tensor of one element, got {}", describe(v, g)),
         v.kind == K::Bool ? "a compile-time bool decides nothing at run time; drop `while` or compare tensors"
                           : "reduce it, e.g. `while not all(done)` or `while max(active) > 0`");
  }
  const DType d = g.type(v.tensor).dtype;
  if (d != DType::Bool && d != DType::I32 && d != DType::F32) {
    fail(where, fmt::format("a loop's `while` condition is {}", g.type(v.tensor).str()), "make it bool, i32 or f32");
  }
  return v.tensor;
}

}  // namespace

void Elaborator::exec_collect(const Stmt& s, Scope& scope) {
  const Value v = eval(*s.value, scope);
  if (v.kind != K::Tensor) {
    fail(s.value->span, fmt::format("collect takes a tensor, got {}", describe(v, g_)),
         "collect stacks a tensor computed in each iteration");
  }
  check_packable(g_.type(v.tensor), s.value->span, fmt::format("'{}'", s.name));
  for (const auto& c : loop_->collected) {
    if (c.name == s.name) {
      fail(s.name_span, fmt::format("'{}' is collected twice in one iteration", s.name),
           fmt::format("it was first collected on line {}; collect each name once", c.span.line));
    }
  }
  loop_->collected.push_back({s.name, v.tensor, s.name_span});
}

std::vector<ir::ValueId> Elaborator::loop_initial_values(const Stmt& s, Scope& scope) {
  std::vector<ir::ValueId> out;
  for (size_t k = 0; k < s.options.size(); ++k) {
    const ast::ParamOption& o = s.options[k];
    for (size_t i = 0; i < k; ++i) {
      if (s.options[i].name == o.name) {
        fail(o.name_span, fmt::format("'{}' is carried twice", o.name), "name each carried value once");
      }
    }
    if (o.name == s.name) {
      fail(o.name_span, fmt::format("'{}' is the loop's counter and cannot also be carried", o.name),
           "rename the counter or the value");
    }
    const Value v = o.value ? eval(*o.value, scope) : lookup(o.name, o.name_span, scope);
    if (v.kind != K::Tensor) {
      fail(o.value ? o.value->span : o.name_span,
           fmt::format("a loop carries tensors; '{}' is {}", o.name, describe(v, g_)),
           "start it from a tensor, e.g. `loop (h = zeros([b, n])) over …`");
    }
    check_packable(g_.type(v.tensor), o.name_span, fmt::format("carried '{}'", o.name));
    out.push_back(v.tensor);
  }
  return out;
}

void Elaborator::exec_loop(const Stmt& s, Scope& scope, Frame& frame) {
  const int64_t from = expect_int(eval(*s.value, scope), g_, s.value->span, "the start of a loop's range");
  const int64_t to = expect_int(eval(*s.value2, scope), g_, s.value2->span, "the end of a loop's range");
  if (to <= from || to > INT32_MAX || from < INT32_MIN) {
    fail(s.value2->span, fmt::format("a loop's range {}..{} must hold at least one i32 counter value", from, to),
         "the end bounds the iterations; `while` may stop the loop earlier");
  }
  const std::vector<ir::ValueId> init = loop_initial_values(s, scope);
  const auto carried = static_cast<int64_t>(init.size());
  auto bind_carried = [&](Scope& where, const std::vector<ir::ValueId>& values) {
    for (size_t k = 0; k < values.size(); ++k) {
      where.set(s.options[k].name, Value::of_tensor(values[k]), s.options[k].name_span);
    }
  };
  ir::ValueId cond0 = ir::kNoValue;
  if (s.value3) {
    Scope at_start(&scope);
    bind_carried(at_start, init);
    cond0 = scalar_condition(eval(*s.value3, at_start), g_, s.value3->span);
  }
  // The body, elaborated into the model after placeholders for the carried values and the counter.
  const ir::ValueId begin = g_.size();
  const size_t params = g_.params.size();
  const std::vector<ir::ValueId> model_inputs = g_.inputs;
  const std::vector<ir::Output> named = g_.named;  // the body's own names are not visible after it
  std::vector<ir::ValueId> args;
  for (int64_t k = 0; k < carried; ++k) {
    args.push_back(
        g_.add_loop_arg(k, g_.type(init[static_cast<size_t>(k)]), s.options[static_cast<size_t>(k)].name_span));
  }
  const ir::ValueId counter = g_.add_loop_arg(carried, TensorType{DType::I32, {}}, s.name_span);
  g_.inputs = model_inputs;
  Scope inner(&scope);
  bind_carried(inner, args);
  inner.set(s.name, Value::of_tensor(counter), s.name_span);
  LoopFrame lf;
  LoopFrame* outer_loop = loop_;
  loop_ = &lf;
  exec(s.body, inner, frame);
  loop_ = outer_loop;
  std::vector<ir::ValueId> results;
  std::vector<ir::ValueId> next;
  for (int64_t k = 0; k < carried; ++k) {
    const ast::ParamOption& o = s.options[static_cast<size_t>(k)];
    const Value v = *inner.find(o.name);
    const TensorType& want = g_.type(init[static_cast<size_t>(k)]);
    if (v.kind != K::Tensor || !(g_.type(v.tensor) == want)) {
      fail(o.name_span,
           fmt::format("carried '{}' is {} when the loop starts but {} after an iteration", o.name, want.str(),
                       v.kind == K::Tensor ? g_.type(v.tensor).str() : describe(v, g_)),
           "a carried value keeps its dtype and shape from one iteration to the next");
    }
    results.push_back(v.tensor);
    next.push_back(v.tensor);
  }
  for (const auto& c : lf.collected) {
    results.push_back(c.value);
  }
  if (s.value3) {
    Scope after(&scope);
    bind_carried(after, next);
    results.push_back(scalar_condition(eval(*s.value3, after), g_, s.value3->span));
  }
  std::vector<Captured> captured;
  std::shared_ptr<ir::Graph> body = extract_body(begin, carried, results, captured);
  drop_body_from_model(begin, params);
  g_.named = named;
  std::vector<ir::ValueId> operands = init;
  if (cond0 != ir::kNoValue) {
    operands.push_back(cond0);
  }
  for (Captured& c : captured) {
    if (c.hoisted) {
      const ir::Node& n = *c.hoisted;
      c.outer = n.op == ir::OpKind::Param ? g_.add_param(n.name, n.type, n.attrs, n.span)
                                          : g_.add_constant(n.attrs.get_float("value"), n.type, n.span);
    }
    operands.push_back(c.outer);
  }
  emit_loop(s, from, to, std::move(body), operands, lf, scope, frame);
}

// The loop node after its body is extracted, and its results bound to the carried and collected
// names.
void Elaborator::emit_loop(const Stmt& s, int64_t from, int64_t to, std::shared_ptr<ir::Graph> body,
                           const std::vector<ir::ValueId>& operands, const LoopFrame& lf, Scope& scope, Frame& frame) {
  const auto carried = static_cast<int64_t>(s.options.size());
  const bool cond = s.value3 != nullptr;
  ir::LoopShape shape;
  shape.carried = carried;
  shape.collected = static_cast<int64_t>(lf.collected.size());
  shape.captured = static_cast<int64_t>(operands.size()) - carried - (cond ? 1 : 0);
  shape.cond = cond;
  shape.begin = from;
  shape.trips = to - from;
  const ir::Packing packing = ir::loop_packing(*body, shape);
  ir::Attrs attrs{{"begin", from},
                  {"end", to},
                  {"carried", shape.carried},
                  {"collected", shape.collected},
                  {"captured", shape.captured},
                  {"cond", int64_t{shape.cond ? 1 : 0}},
                  {"elements", packing.elements}};
  const ir::ValueId loop = g_.add(ir::OpKind::Loop, operands, std::move(attrs), s.span);
  g_.node(loop).body = std::move(body);
  auto part = [&](size_t i, const std::string& name, SourceSpan where) {
    const ir::PackedPart& p = packing.parts[i];
    const ir::ValueId v = g_.add(
        ir::OpKind::LoopPart, {loop},
        ir::Attrs{{"offset", p.offset}, {"dtype", std::string(dtype_name(p.type.dtype))}, {"shape", p.type.shape}},
        where);
    if (frame.kind == ast::FunctionKind::Model) {
      name_model_value(name, v, where);
    }
    scope.set(name, Value::of_tensor(v), where);
  };
  for (int64_t k = 0; k < carried; ++k) {
    part(ir::final_part(shape, k), s.options[static_cast<size_t>(k)].name, s.options[static_cast<size_t>(k)].name_span);
  }
  for (int64_t j = 0; j < shape.collected; ++j) {
    const auto& c = lf.collected[static_cast<size_t>(j)];
    part(ir::collected_part(shape, j), c.name, c.span);
  }
}

std::shared_ptr<ir::Graph> Elaborator::extract_body(ir::ValueId begin, int64_t carried,
                                                    const std::vector<ir::ValueId>& results,
                                                    std::vector<Captured>& captured) {
  auto body = std::make_shared<ir::Graph>();
  std::map<ir::ValueId, ir::ValueId> moved;  // model id -> body id
  auto capture = [&](ir::ValueId outer, std::optional<ir::Node> hoisted) {
    const auto index = carried + 1 + static_cast<int64_t>(captured.size());
    const TensorType type = hoisted ? hoisted->type : g_.type(outer);
    const ir::ValueId arg = body->add_loop_arg(index, type, hoisted ? hoisted->span : g_.node(outer).span);
    captured.push_back({outer, std::move(hoisted)});
    return arg;
  };
  auto resolve = [&](ir::ValueId v) {
    if (auto it = moved.find(v); it != moved.end()) {
      return it->second;
    }
    return moved[v] = capture(v, std::nullopt);  // a value of the model, read by the body
  };
  for (ir::ValueId id = begin; id < g_.size(); ++id) {
    const ir::Node& n = g_.node(id);
    if (n.op == ir::OpKind::LoopArg) {
      moved[id] = body->add_loop_arg(n.attrs.get_int("index"), n.type, n.span);
      continue;
    }
    if (n.op == ir::OpKind::Param || n.op == ir::OpKind::Constant) {
      moved[id] = capture(ir::kNoValue, n);
      continue;
    }
    if (ir::op_has(n.op, ir::op_flags::per_replica) || ir::op_has(n.op, ir::op_flags::state_update) ||
        ir::op_has(n.op, ir::op_flags::stateful)) {
      const char* what = ir::op_has(n.op, ir::op_flags::per_replica)    ? "a collective across replicas"
                         : ir::op_has(n.op, ir::op_flags::state_update) ? "an op that updates state (moving statistics)"
                                                                        : "a stateful layer's state";
      fail(n.span, fmt::format("{} cannot run in a loop body", what), "compute it before or after the loop");
    }
    std::vector<ir::ValueId> inputs;
    for (ir::ValueId in : n.inputs) {
      inputs.push_back(resolve(in));
    }
    const ir::ValueId b = body->add(n.op, std::move(inputs), n.attrs, n.span);
    body->node(b).name = n.name;
    body->node(b).body = n.body;
    moved[id] = b;
  }
  for (size_t i = 0; i < results.size(); ++i) {
    body->outputs.push_back({i < static_cast<size_t>(carried) ? "next" : "result", resolve(results[i]), {}});
  }
  return body;
}

// Takes the body's nodes out of the model again, with every list that named them.
void Elaborator::drop_body_from_model(ir::ValueId begin, size_t params) {
  g_.truncate(begin);
  g_.params.resize(params);
  std::erase_if(g_.named, [&](const ir::Output& o) { return o.value >= begin; });
  std::erase_if(value_names_, [&](const auto& kv) { return kv.first >= begin; });
  std::erase_if(library_calls_, [&](const LibraryCall& c) { return c.first >= begin; });
}

}  // namespace iputrain::frontend::elab
