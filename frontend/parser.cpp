#include "frontend/parser.hpp"
#include "frontend/source_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "IpuLangLexer.h"
#include "IpuLangParser.h"
#include "antlr4-runtime.h"

namespace iputrain::frontend {

namespace {

using P = grammar::IpuLangParser;

// ANTLR's default listener prints to the console and keeps going; we keep only the first error
// (later ones are usually consequences of it) and turn it into an iputrain::Error after parsing.
class FirstErrorListener : public antlr4::BaseErrorListener {
 public:
  explicit FirstErrorListener(int32_t file) : file_(file) {}

  void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending, size_t line, size_t col,
                   const std::string& msg, std::exception_ptr) override {
    if (error_) {
      return;
    }
    SourceSpan span{file_, static_cast<int32_t>(line), static_cast<int32_t>(col) + 1, 1};
    auto* parser = dynamic_cast<antlr4::Parser*>(recognizer);
    if (parser == nullptr) {
      // The lexer reports characters that start no token: msg is "token recognition error at: 'x'".
      std::string bad = msg.substr(std::min(msg.size(), msg.find(": '") + 3));
      if (!bad.empty() && bad.back() == '\'') {
        bad.pop_back();
      }
      std::string hint = bad.starts_with("\"") || bad.starts_with("'")
                             ? "strings must end on the line they start"
                             : "comments start with '#'";
      error_.emplace(ErrorKind::Syntax, fmt::format("unexpected character '{}'", bad.substr(0, 1)), span,
                     hint);
      return;
    }
    std::string what;
    if (offending == nullptr || offending->getType() == antlr4::Token::EOF) {
      what = "unexpected end of file";
      // Point just after the last real token: that is where something is missing.
      antlr4::Token* last = parser->getTokenStream()->size() > 1 ? parser->getTokenStream()->LT(-1) : nullptr;
      if (last != nullptr && last->getType() != antlr4::Token::EOF) {
        span.line = static_cast<int32_t>(last->getLine());
        span.col = static_cast<int32_t>(last->getCharPositionInLine() + last->getText().size()) + 1;
      }
    } else {
      what = fmt::format("unexpected '{}'", offending->getText());
      span.length = static_cast<int32_t>(std::max<size_t>(1, offending->getText().size()));
    }
    error_.emplace(ErrorKind::Syntax, what, span, expected_hint(*parser, offending));
  }

  std::optional<Error>& error() { return error_; }

 private:
  static std::string expected_hint(antlr4::Parser& parser, antlr4::Token* offending) {
    std::vector<std::string> names;
    try {
      for (ssize_t t : parser.getExpectedTokens().toList()) {
        if (t < 0) {
          names.push_back("end of file");
          continue;
        }
        if (t == static_cast<ssize_t>(P::COMMENT) || t == static_cast<ssize_t>(P::WS)) {
          continue;
        }
        names.push_back(parser.getVocabulary().getDisplayName(static_cast<size_t>(t)));
      }
    } catch (const std::exception&) {
      names.clear();  // the expected set is a courtesy; never let it mask the real error
    }
    for (auto& n : names) {
      if (n == "NAME") {
        n = "a name";
      } else if (n == "INT" || n == "FLOAT") {
        n = "a number";
      } else if (n == "STRING") {
        n = "a string";
      }
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    if (names.empty()) {
      return {};
    }
    if (names.size() > 6) {
      // Long lists (every expression start) are noise; say what usually went wrong instead.
      if (offending != nullptr && offending->getType() == antlr4::Token::EOF) {
        return "is a closing '}' or ')' missing?";
      }
      return "an expression or statement is incomplete here";
    }
    if (names.size() == 1 && names[0] == "'='") {
      return "expected '='; a statement cannot be a bare expression: assign it (y = f(x))";
    }
    std::string list;
    for (size_t i = 0; i < names.size(); ++i) {
      list += (i == 0 ? "" : (i + 1 == names.size() ? " or " : ", ")) + names[i];
    }
    return "expected " + list;
  }

  int32_t file_;
  std::optional<Error> error_;
};

// Converts parse-tree contexts to the AST and checks where statements may appear.
class Builder {
 public:
  explicit Builder(int32_t file) : file_(file) {}

  SourceSpan span(antlr4::ParserRuleContext* ctx) const {
    antlr4::Token* start = ctx->getStart();
    antlr4::Token* stop = ctx->getStop();
    SourceSpan s{file_, static_cast<int32_t>(start->getLine()),
                 static_cast<int32_t>(start->getCharPositionInLine()) + 1, 1};
    if (stop != nullptr && stop->getStopIndex() != INVALID_INDEX &&
        stop->getStopIndex() >= start->getStartIndex()) {
      // Multi-line nodes underline to the end of the first line (render() clamps).
      s.length = static_cast<int32_t>(stop->getStopIndex() - start->getStartIndex() + 1);
    }
    return s;
  }
  SourceSpan span(antlr4::tree::TerminalNode* node) const {
    antlr4::Token* t = node->getSymbol();
    return SourceSpan{file_, static_cast<int32_t>(t->getLine()),
                      static_cast<int32_t>(t->getCharPositionInLine()) + 1,
                      static_cast<int32_t>(std::max<size_t>(1, t->getText().size()))};
  }

  ast::Module module(P::FileContext* ctx, const std::string& path) {
    ast::Module m;
    m.path = path;
    m.file = file_;
    for (auto* item : ctx->topItem()) {
      if (auto* imp = item->importDecl()) {
        m.imports.push_back(ast::Import{imp->NAME()->getText(), {}, {}, span(imp)});
      } else if (auto* from = item->fromImportDecl()) {
        ast::Import im{from->NAME(0)->getText(), {}, {}, span(from)};
        for (size_t i = 1; i < from->NAME().size(); ++i) {
          im.names.push_back(from->NAME(i)->getText());
          im.name_spans.push_back(span(from->NAME(i)));
        }
        m.imports.push_back(std::move(im));
      } else if (auto* model = item->modelDecl()) {
        m.functions.push_back(function(ast::FunctionKind::Model, model->NAME(), model->paramList(),
                                       model->block(), nullptr, model));
      } else if (auto* def = item->defDecl()) {
        m.functions.push_back(
            function(ast::FunctionKind::Def, def->NAME(), def->paramList(), def->block(), def->expr(), def));
      } else if (auto* layer = item->layerDecl()) {
        m.functions.push_back(function(ast::FunctionKind::Layer, layer->NAME(), layer->paramList(),
                                       layer->block(), nullptr, layer));
      }
    }
    return m;
  }

 private:
  std::unique_ptr<ast::Function> function(ast::FunctionKind kind, antlr4::tree::TerminalNode* name,
                                          P::ParamListContext* params, P::BlockContext* body,
                                          P::ExprContext* expr, antlr4::ParserRuleContext* whole) {
    auto f = std::make_unique<ast::Function>();
    f->kind = kind;
    f->name = name->getText();
    f->span = span(whole);
    f->name_span = span(name);
    if (params != nullptr) {
      for (auto* p : params->paramDecl()) {
        ast::ParamDecl d;
        d.name = p->NAME()->getText();
        d.span = span(p);
        if (p->typeExpr() != nullptr) {
          d.type = type(p->typeExpr(), /*pattern=*/kind != ast::FunctionKind::Model);
        }
        if (p->expr() != nullptr) {
          d.default_value = this->expr(p->expr());
        }
        f->params.push_back(std::move(d));
      }
    }
    kind_ = kind;
    if (expr != nullptr) {
      f->expr = this->expr(expr);
    } else {
      f->body = block(body, /*top=*/true);
    }
    return f;
  }

  ast::TypeExpr type(P::TypeExprContext* ctx, bool pattern) {
    ast::TypeExpr t;
    t.name = ctx->NAME()->getText();
    t.span = span(ctx);
    t.has_dims = ctx->getText().find('[') != std::string::npos;
    for (auto* d : ctx->dim()) {
      if (d->expr() != nullptr) {
        t.dims.push_back(expr(d->expr()));
        continue;
      }
      if (!pattern) {
        throw Error(ErrorKind::Semantic, "'...' is only allowed in the parameter types of a def or layer",
                    span(d), "write every dimension of an input or param");
      }
      auto e = std::make_unique<ast::Expr>();
      e->kind = ast::ExprKind::Ellipsis;
      e->span = span(d);
      t.dims.push_back(std::move(e));
    }
    return t;
  }

  [[noreturn]] void misplaced(antlr4::ParserRuleContext* ctx, const std::string& what,
                              const std::string& hint) const {
    throw Error(ErrorKind::Semantic, what, span(ctx), hint);
  }

  const char* kind_name() const {
    switch (kind_) {
      case ast::FunctionKind::Def:
        return "a def";
      case ast::FunctionKind::Layer:
        return "a layer";
      case ast::FunctionKind::Model:
        return "a model";
    }
    return "";
  }

  ast::Block block(P::BlockContext* ctx, bool top) {
    ast::Block out;
    for (auto* s : ctx->stmt()) {
      stmts(s, top, out);
    }
    return out;
  }

  // Statements a loop body may not hold: it computes its carried and collected values only.
  void check_in_loop(P::StmtContext* ctx) {
    if (loop_depth_ > 0 &&
        (dynamic_cast<P::InputStmtContext*>(ctx) != nullptr || dynamic_cast<P::ReturnStmtContext*>(ctx) != nullptr ||
         dynamic_cast<P::MinimizeStmtContext*>(ctx) != nullptr ||
         dynamic_cast<P::OutputStmtContext*>(ctx) != nullptr)) {
      misplaced(ctx, fmt::format("'{}' is not allowed in a loop body", ctx->getStart()->getText()),
                "a loop body computes its carried and collected values; use them after the loop");
    }
  }

  void loop_stmt(P::LoopStmtContext* c, ast::Stmt& s) {
    s.kind = ast::StmtKind::Loop;
    s.name = c->NAME()->getText();
    s.name_span = span(c->NAME());
    s.value = expr(c->expr(0));
    s.value2 = expr(c->expr(1));
    if (c->expr().size() > 2) {
      s.value3 = expr(c->expr(2));
    }
    for (auto* v : c->loopVar()) {
      s.options.push_back({v->NAME()->getText(), span(v->NAME()), v->expr() ? expr(v->expr()) : nullptr});
    }
    ++loop_depth_;
    s.body = block(c->block(), false);
    --loop_depth_;
  }

  void collect_stmt(P::CollectStmtContext* c, ast::Stmt& s) {
    if (loop_depth_ == 0) {
      misplaced(c, "'collect' is only allowed in a loop body",
                "collect stacks a value over a loop's iterations: `loop (h) over t in 0..T { ...; collect hs = h }`");
    }
    s.kind = ast::StmtKind::Collect;
    s.name = c->NAME()->getText();
    s.name_span = span(c->NAME());
    s.value = expr(c->expr());
  }

  void stmts(P::StmtContext* ctx, bool top, ast::Block& out) {
    auto s = std::make_unique<ast::Stmt>();
    s->span = span(ctx);
    const bool in_model = kind_ == ast::FunctionKind::Model;
    if (loop_depth_ > 0 &&
        (dynamic_cast<P::InputStmtContext*>(ctx) != nullptr || dynamic_cast<P::ReturnStmtContext*>(ctx) != nullptr ||
         dynamic_cast<P::MinimizeStmtContext*>(ctx) != nullptr ||
         dynamic_cast<P::OutputStmtContext*>(ctx) != nullptr)) {
      misplaced(ctx, fmt::format("'{}' is not allowed in a loop body", ctx->getStart()->getText()),
                "a loop body computes its carried and collected values; use them after the loop");
    }
    if (auto* c = dynamic_cast<P::InputStmtContext*>(ctx)) {
      if (!in_model) {
        misplaced(ctx, fmt::format("'input' is not allowed in {}", kind_name()),
                  "inputs are declared in the model body; pass tensors to functions as arguments");
      }
      s->kind = ast::StmtKind::Input;
      s->name = c->NAME()->getText();
      s->name_span = span(c->NAME());
      s->type = type(c->typeExpr(), false);
    } else if (auto* c = dynamic_cast<P::StageStmtContext*>(ctx)) {
      out.push_back(stage(c->stageDecl(), top, -1));
      return;
    } else if (auto* c = dynamic_cast<P::ParallelStmtContext*>(ctx)) {
      if (!in_model || !top) {
        misplaced(ctx, "'parallel' is only allowed at the top level of a model body",
                  "group the stages that run concurrently directly in the model");
      }
      const int32_t group = next_group_++;
      for (auto* st : c->stageDecl()) {
        out.push_back(stage(st, top, group));
      }
      return;
    } else if (auto* c = dynamic_cast<P::ParamStmtContext*>(ctx)) {
      if (kind_ == ast::FunctionKind::Def) {
        misplaced(ctx, "'param' is not allowed in a def",
                  "a def is a pure function; declare trainable parameters in a layer");
      }
      s->kind = ast::StmtKind::Param;
      s->name = c->NAME()->getText();
      s->name_span = span(c->NAME());
      s->type = type(c->typeExpr(), false);
      if (c->expr() != nullptr) {
        s->value = expr(c->expr());
      }
      for (auto* o : c->paramOption()) {
        s->options.push_back({o->NAME()->getText(), span(o->NAME()), expr(o->expr())});
      }
    } else if (auto* c = dynamic_cast<P::ReturnStmtContext*>(ctx)) {
      if (in_model) {
        misplaced(ctx, "'return' outside a function",
                  "a model has no return value; use 'output NAME = EXPR' or 'minimize EXPR'");
      }
      s->kind = ast::StmtKind::Return;
      s->value = expr(c->expr());
    } else if (auto* c = dynamic_cast<P::IfStmtAltContext*>(ctx)) {
      out.push_back(if_stmt(c->ifStmt()));
      return;
    } else if (auto* c = dynamic_cast<P::ForStmtContext*>(ctx)) {
      s->kind = ast::StmtKind::For;
      s->name = c->NAME()->getText();
      s->name_span = span(c->NAME());
      s->value = expr(c->expr(0));
      s->value2 = expr(c->expr(1));
      s->body = block(c->block(), false);
    } else if (auto* c = dynamic_cast<P::LoopStmtContext*>(ctx)) {
      loop_stmt(c, *s);
    } else if (auto* c = dynamic_cast<P::CollectStmtContext*>(ctx)) {
      collect_stmt(c, *s);
    } else if (auto* c = dynamic_cast<P::AssertStmtContext*>(ctx)) {
      s->kind = ast::StmtKind::Assert;
      s->value = expr(c->expr(0));
      s->value2 = expr(c->expr(1));
    } else if (auto* c = dynamic_cast<P::MinimizeStmtContext*>(ctx)) {
      if (!in_model) {
        misplaced(ctx, fmt::format("'minimize' is not allowed in {}", kind_name()),
                  "return the value and minimize it in the model body");
      }
      s->kind = ast::StmtKind::Minimize;
      s->value = expr(c->expr());
    } else if (auto* c = dynamic_cast<P::OutputStmtContext*>(ctx)) {
      if (!in_model) {
        misplaced(ctx, fmt::format("'output' is not allowed in {}", kind_name()),
                  "return the value and output it in the model body");
      }
      s->kind = ast::StmtKind::Output;
      s->per_sample = c->perSample != nullptr;
      s->name = c->NAME()->getText();
      s->name_span = span(c->NAME());
      if (c->expr() != nullptr) {
        s->value = expr(c->expr());
      }
    } else if (auto* c = dynamic_cast<P::AssignStmtContext*>(ctx)) {
      s->kind = ast::StmtKind::Assign;
      s->name = c->NAME()->getText();
      s->name_span = span(c->NAME());
      s->value = expr(c->expr());
    } else {
      throw Error(ErrorKind::Internal, "parser: unknown statement form", span(ctx));
    }
    out.push_back(std::move(s));
  }

  std::unique_ptr<ast::Stmt> stage(P::StageDeclContext* ctx, bool top, int32_t group) {
    if (kind_ != ast::FunctionKind::Model || !top) {
      misplaced(ctx, "'stage' is only allowed at the top level of a model body",
                "stages cannot nest or appear in functions, 'if' or 'for'");
    }
    auto s = std::make_unique<ast::Stmt>();
    s->kind = ast::StmtKind::Stage;
    s->span = span(ctx);
    s->name = ctx->NAME()->getText();
    s->name_span = span(ctx->NAME());
    s->group = group;
    s->body = block(ctx->block(), false);
    return s;
  }

  std::unique_ptr<ast::Stmt> if_stmt(P::IfStmtContext* ctx) {
    auto s = std::make_unique<ast::Stmt>();
    s->kind = ast::StmtKind::If;
    s->span = span(ctx);
    s->value = expr(ctx->expr());
    s->body = block(ctx->block(0), false);
    if (ctx->ifStmt() != nullptr) {
      s->else_body.push_back(if_stmt(ctx->ifStmt()));
    } else if (ctx->block().size() > 1) {
      s->else_body = block(ctx->block(1), false);
    }
    return s;
  }

  ast::ExprPtr make(ast::ExprKind kind, antlr4::ParserRuleContext* ctx) const {
    auto e = std::make_unique<ast::Expr>();
    e->kind = kind;
    e->span = span(ctx);
    return e;
  }

  // The grammar admits only the operators of ast::Operator; anything else is a parser bug.
  ast::Operator known_operator(std::optional<ast::Operator> op, const std::string& text,
                               antlr4::ParserRuleContext* ctx) const {
    if (!op) {
      throw Error(ErrorKind::Internal, fmt::format("parser: unknown operator '{}'", text), span(ctx));
    }
    return *op;
  }

  ast::ExprPtr binary(antlr4::ParserRuleContext* ctx, std::string op, P::ExprContext* a, P::ExprContext* b) {
    auto e = make(ast::ExprKind::Binary, ctx);
    e->op = known_operator(ast::binary_operator(op), op, ctx);
    e->text = std::move(op);
    e->items.push_back(expr(a));
    e->items.push_back(expr(b));
    return e;
  }

  static std::string digits(std::string text) {
    text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
    return text;
  }

  ast::ExprPtr expr(P::ExprContext* ctx) {
    if (auto e = literal(ctx)) {
      return e;
    }
    if (auto e = compound(ctx)) {
      return e;
    }
    if (auto e = operation(ctx)) {
      return e;
    }
    throw Error(ErrorKind::Internal, "parser: unknown expression form", span(ctx));
  }

  // Numbers, booleans, strings and names; null for any other form.
  ast::ExprPtr literal(P::ExprContext* ctx) {
    using K = ast::ExprKind;
    if (auto* c = dynamic_cast<P::IntExprContext*>(ctx)) {
      auto e = make(K::Int, ctx);
      const std::string d = digits(c->getText());
      auto [ptr, ec] = std::from_chars(d.data(), d.data() + d.size(), e->int_value);
      if (ec != std::errc() || ptr != d.data() + d.size()) {
        throw Error(ErrorKind::Syntax, "integer literal out of range", e->span,
                    "integers are 64-bit; write a float (1e20) for larger values");
      }
      return e;
    }
    if (auto* c = dynamic_cast<P::FloatExprContext*>(ctx)) {
      auto e = make(K::Float, ctx);
      e->float_value = std::strtod(digits(c->getText()).c_str(), nullptr);
      return e;
    }
    if (auto* c = dynamic_cast<P::BoolExprContext*>(ctx)) {
      auto e = make(K::Bool, ctx);
      e->bool_value = c->getText() == "true";
      return e;
    }
    if (auto* c = dynamic_cast<P::StringExprContext*>(ctx)) {
      auto e = make(K::String, ctx);
      e->text = unquote(c->getText());
      return e;
    }
    if (auto* c = dynamic_cast<P::NameExprContext*>(ctx)) {
      auto e = make(K::Name, ctx);
      e->text = c->getText();
      return e;
    }
    return nullptr;
  }

  // Lists, parentheses, calls, attributes and subscripts; null for any other form.
  ast::ExprPtr compound(P::ExprContext* ctx) {
    using K = ast::ExprKind;
    if (auto* c = dynamic_cast<P::ListExprContext*>(ctx)) {
      auto e = make(K::List, ctx);
      for (auto* item : c->expr()) {
        e->items.push_back(expr(item));
      }
      return e;
    }
    if (auto* c = dynamic_cast<P::ParenExprContext*>(ctx)) {
      // Keep the parentheses in the span: errors then underline what the user grouped.
      auto e = expr(c->expr());
      e->span = span(ctx);
      return e;
    }
    if (auto* c = dynamic_cast<P::CallExprContext*>(ctx)) {
      auto e = make(K::Call, ctx);
      e->items.push_back(expr(c->expr()));
      if (c->argList() != nullptr) {
        for (auto* a : c->argList()->arg()) {
          e->items.push_back(expr(a->expr()));
          e->keywords.push_back(a->NAME() != nullptr ? a->NAME()->getText() : std::string());
          if (a->NAME() != nullptr) {
            // A keyword argument's span covers `name = value`, which is what a message refers to.
            e->items.back()->span = span(a);
          }
        }
      }
      return e;
    }
    if (auto* c = dynamic_cast<P::AttrExprContext*>(ctx)) {
      auto e = make(K::Attr, ctx);
      e->items.push_back(expr(c->expr()));
      e->text = c->NAME()->getText();
      return e;
    }
    if (auto* c = dynamic_cast<P::IndexExprContext*>(ctx)) {
      return index(c);
    }
    return nullptr;
  }

  ast::ExprPtr index(P::IndexExprContext* c) {
    using K = ast::ExprKind;
    auto e = make(K::Index, c);
    e->items.push_back(expr(c->expr()));
    for (auto* sub : c->subscript()) {
      if (sub->getText() == "...") {
        e->items.push_back(make(K::Ellipsis, sub));
        continue;
      }
      const bool is_slice = sub->getText().find(':') != std::string::npos;
      if (!is_slice) {
        e->items.push_back(expr(sub->expr(0)));
        continue;
      }
      auto sl = make(K::Slice, sub);
      for (P::ExprContext* part : {sub->lo, sub->hi, sub->step}) {
        sl->items.push_back(part != nullptr ? expr(part) : nullptr);
      }
      e->items.push_back(std::move(sl));
    }
    return e;
  }

  // Unary and binary operators; null for any other form.
  ast::ExprPtr operation(P::ExprContext* ctx) {
    using K = ast::ExprKind;
    if (auto* c = dynamic_cast<P::PowExprContext*>(ctx)) {
      return binary(ctx, "**", c->expr(0), c->expr(1));
    }
    if (auto* c = dynamic_cast<P::UnaryExprContext*>(ctx)) {
      auto e = make(K::Unary, ctx);
      e->text = c->op->getText();
      e->op = known_operator(ast::unary_operator(e->text), e->text, ctx);
      e->items.push_back(expr(c->expr()));
      return e;
    }
    if (auto* c = dynamic_cast<P::NotExprContext*>(ctx)) {
      auto e = make(K::Unary, ctx);
      e->text = "not";
      e->op = ast::Operator::Not;
      e->items.push_back(expr(c->expr()));
      return e;
    }
    if (auto* c = dynamic_cast<P::MulExprContext*>(ctx)) {
      return binary(ctx, c->op->getText(), c->expr(0), c->expr(1));
    }
    if (auto* c = dynamic_cast<P::AddExprContext*>(ctx)) {
      return binary(ctx, c->op->getText(), c->expr(0), c->expr(1));
    }
    if (auto* c = dynamic_cast<P::CompareExprContext*>(ctx)) {
      return binary(ctx, c->op->getText(), c->expr(0), c->expr(1));
    }
    if (auto* c = dynamic_cast<P::AndExprContext*>(ctx)) {
      return binary(ctx, "and", c->expr(0), c->expr(1));
    }
    if (auto* c = dynamic_cast<P::OrExprContext*>(ctx)) {
      return binary(ctx, "or", c->expr(0), c->expr(1));
    }
    return nullptr;
  }

  static std::string unquote(const std::string& quoted) {
    std::string out;
    for (size_t i = 1; i + 1 < quoted.size(); ++i) {
      char ch = quoted[i];
      if (ch == '\\' && i + 2 < quoted.size()) {
        char n = quoted[++i];
        out += n == 'n' ? '\n' : n == 't' ? '\t' : n;
        continue;
      }
      out += ch;
    }
    return out;
  }

  int32_t file_;
  ast::FunctionKind kind_ = ast::FunctionKind::Model;
  int32_t next_group_ = 0;
  int32_t loop_depth_ = 0;  // statements inside `loop` bodies: no input, return, minimize or output
};

}  // namespace

ast::Module parse_module(const std::string& text, int32_t file, const std::string& path) {
  check_source_text(text, file);
  antlr4::ANTLRInputStream input(text);
  grammar::IpuLangLexer lexer(&input);
  FirstErrorListener listener(file);
  lexer.removeErrorListeners();
  lexer.addErrorListener(&listener);
  antlr4::CommonTokenStream tokens(&lexer);
  grammar::IpuLangParser parser(&tokens);
  parser.removeErrorListeners();
  parser.addErrorListener(&listener);
  P::FileContext* tree = parser.file();
  if (listener.error()) {
    throw *listener.error();
  }
  return Builder(file).module(tree, path);
}

}  // namespace iputrain::frontend
