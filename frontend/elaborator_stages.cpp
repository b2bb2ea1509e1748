// Stages: declared up front, then checked on the finished graph (values flow forward only);
// warnings for model parameters, inputs and parameters that nothing uses.
#include "frontend/elaborator_impl.hpp"

#include <fmt/format.h>

namespace iputrain::frontend::elab {

void Elaborator::declare_stages(const ast::Function& model) {
  std::vector<ir::Stage> stages;
  for (const auto& s : model.body) {
    if (s->kind != StmtKind::Stage) {
      continue;
    }
    for (size_t k = 0; k < stages.size(); ++k) {
      if (stages[k].name == s->name) {
        fail(s->name_span, fmt::format("duplicate stage '{}'", s->name),
             fmt::format("stage '{}' is already declared on line {}", s->name, stages[k].span.line));
      }
    }
    stages.push_back(ir::Stage{s->name, s->name_span, s->group});
  }
  if (!stages.empty()) {
    g_.stages = std::move(stages);
    explicit_stages_ = true;
  }
}

// A value may flow from a stage to itself or to a later stage, but not to an earlier one (the
// pipeline runs stages in declaration order) nor between stages of one `parallel` group (they
// run at the same time). Checked on the finished graph, so every path into a stage is covered.
void Elaborator::check_stage_order() const {
  for (ir::ValueId id = 0; id < g_.size(); ++id) {
    const ir::Node& n = g_.node(id);
    for (ir::ValueId in : n.inputs) {
      const int32_t from = g_.node(in).stage;
      if (from == n.stage) {
        continue;
      }
      const ir::Stage& src = g_.stages[static_cast<size_t>(from)];
      const ir::Stage& dst = g_.stages[static_cast<size_t>(n.stage)];
      const bool siblings = src.group >= 0 && src.group == dst.group;
      if (from < n.stage && !siblings) {
        continue;
      }
      const std::string what = value_label(in);
      const SourceSpan where = user_span(id);
      if (siblings) {
        fail(where,
             fmt::format("stage '{}' uses {} from stage '{}', which runs concurrently with it", dst.name, what,
                         src.name),
             fmt::format("stages in one 'parallel' block cannot feed each other; compute {} in a stage "
                         "before the block, or use it in a stage after the block",
                         what));
      }
      fail(where, fmt::format("stage '{}' uses {} from the later stage '{}'", dst.name, what, src.name),
           fmt::format("stages run in the order they are declared ('{}' on line {} comes after '{}' on "
                       "line {}); values flow forward only",
                       src.name, src.span.line, dst.name, dst.span.line));
    }
  }
}

// "'p'" for a named value, "parameter 'b1/dense/kernel'", or "a value" for a temporary.
std::string Elaborator::value_label(ir::ValueId id) const {
  const ir::Node& n = g_.node(id);
  if (ir::is_weight(n)) {
    return fmt::format("parameter '{}'", n.name);
  }
  if (op_has(n.op, ir::op_flags::fed)) {
    return fmt::format("input '{}'", n.name);
  }
  auto it = value_names_.find(id);
  return it == value_names_.end() ? std::string("a value") : fmt::format("'{}'", it->second);
}

// Where to report a problem with node `id`: its own span in the model file, or the model
// file's call into the library that created it.
SourceSpan Elaborator::user_span(ir::ValueId id) const {
  const ir::Node& n = g_.node(id);
  if (n.span.file == main_.ast.file) {
    return n.span;
  }
  for (const LibraryCall& c : library_calls_) {
    if (id >= c.first && id < c.end) {
      return c.span;
    }
  }
  return n.span;
}

int32_t Elaborator::stage_index(const std::string& name) const {
  for (size_t k = 0; k < g_.stages.size(); ++k) {
    if (g_.stages[k].name == name) {
      return static_cast<int32_t>(k);
    }
  }
  return 0;
}

namespace {

bool mentions(const Expr& e, const std::string& name) {
  if (e.kind == ExprKind::Name && e.text == name) {
    return true;
  }
  for (const auto& item : e.items) {
    if (item && mentions(*item, name)) {
      return true;
    }
  }
  return false;
}

bool mentions(const Stmt& st, const std::string& name);

// Whether `name` is read anywhere in `block` (model parameters are only visible in the model
// body, so a syntactic search is exact enough for an unused-parameter warning).
bool mentions(const ast::Block& block, const std::string& name) {
  for (const auto& st : block) {
    if (mentions(*st, name)) {
      return true;
    }
  }
  return false;
}

bool mentions(const Stmt& st, const std::string& name) {
  if (st.type) {
    for (const auto& d : st.type->dims) {
      if (mentions(*d, name)) {
        return true;
      }
    }
  }
  if ((st.value && mentions(*st.value, name)) || (st.value2 && mentions(*st.value2, name))) {
    return true;
  }
  if (st.kind == StmtKind::Output && !st.value && st.name == name) {
    return true;
  }
  return mentions(st.body, name) || mentions(st.else_body, name);
}

}  // namespace

void Elaborator::collect_warnings(const ast::Function& model, std::vector<Diagnostic>& out) const {
  std::vector<bool> used(static_cast<size_t>(g_.size()), false);
  for (const ir::Node& n : g_.nodes()) {
    for (ir::ValueId in : n.inputs) {
      used[static_cast<size_t>(in)] = true;
    }
  }
  for (const ir::Output& o : g_.outputs) {
    used[static_cast<size_t>(o.value)] = true;
  }
  if (g_.loss != ir::kNoValue) {
    used[static_cast<size_t>(g_.loss)] = true;
  }
  for (const auto& p : model.params) {
    if (!mentions(model.body, p.name)) {
      out.push_back(Diagnostic{"warning", fmt::format("model parameter '{}' is never used", p.name), p.span,
                               "remove it, or use it in the model body"});
    }
  }
  for (ir::ValueId id : g_.inputs) {
    if (!used[static_cast<size_t>(id)]) {
      const ir::Node& n = g_.node(id);
      out.push_back(Diagnostic{"warning", fmt::format("input '{}' is never used", n.name), n.span,
                               "remove it, or use it in the model"});
    }
  }
  for (ir::ValueId id : g_.params) {
    if (!used[static_cast<size_t>(id)]) {
      const ir::Node& n = g_.node(id);
      out.push_back(Diagnostic{"warning", fmt::format("parameter '{}' is never used", n.name), n.span,
                               "it would never be trained; remove it or use it"});
    }
  }
}

}  // namespace iputrain::frontend::elab
