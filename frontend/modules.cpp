#include "core/read_limits.hpp"
#include "frontend/modules.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/builtins.hpp"
#include "frontend/parser.hpp"
#include "frontend/stdlib.hpp"

namespace iputrain::frontend {

namespace fs = std::filesystem;

Program::Program(std::shared_ptr<SourceManager> sources) : sources_(std::move(sources)) {
  install_builtins(builtins_);
}

const ModuleScope& Program::load_main(const std::string& path, const std::string& text) {
  return load("main", path, text);
}

ModuleScope& Program::load(const std::string& name, const std::string& path, const std::string& text) {
  const int32_t file = sources_->add(path, text);
  auto module = std::make_unique<ModuleScope>(&builtins_);
  module->name = name;
  module->path = path;
  module->ast = parse_module(text, file, path);
  ModuleScope& m = *module;
  modules_.push_back(std::move(module));

  loading_.push_back(path);
  for (const ast::Import& imp : m.ast.imports) {
    const ModuleScope& dep = import(imp, m);
    if (imp.names.empty()) {
      Value v;
      v.kind = Value::Kind::Module;
      v.module = &dep;
      m.scope.set(imp.module, std::move(v), imp.span);
      continue;
    }
    for (size_t k = 0; k < imp.names.size(); ++k) {
      const Value* member = dep.scope.find_local(imp.names[k]);
      if (member == nullptr) {
        const std::string near = nearest_name(imp.names[k], dep.scope.local_names());
        throw Error(ErrorKind::Semantic,
                    fmt::format("module '{}' has no member '{}'", imp.module, imp.names[k]),
                    imp.name_spans[k], near.empty() ? "" : fmt::format("did you mean '{}'?", near));
      }
      m.scope.set(imp.names[k], *member, imp.name_spans[k]);
    }
  }
  loading_.pop_back();

  for (const auto& fn : m.ast.functions) {
    if (fn->kind == ast::FunctionKind::Model) {
      continue;
    }
    if (m.scope.find_local(fn->name) != nullptr) {
      const SourceSpan first = m.scope.defined_at(fn->name);
      throw Error(ErrorKind::Semantic, fmt::format("'{}' is already defined", fn->name), fn->name_span,
                  first.valid()
                      ? fmt::format("the first definition is on line {}; rename one of them", first.line)
                      : "rename one of them");
    }
    auto callable = std::make_shared<Callable>();
    callable->name = fn->name;
    callable->decl = fn.get();
    callable->module = &m;
    m.scope.set(fn->name, Value::of_function(std::move(callable)), fn->name_span);
  }
  return m;
}

const ModuleScope& Program::import(const ast::Import& imp, const ModuleScope& from) {
  std::string path;
  std::string text;
  // A module next to the importing file wins over the standard library, so users can shadow it.
  // Pseudo paths such as "<model>" have no directory to look in.
  if (!from.path.empty() && from.path.front() != '<' && !from.path.starts_with("stdlib/")) {
    const fs::path local = fs::path(from.path).parent_path() / (imp.module + ".ipu");
    std::error_code ec;
    if (fs::is_regular_file(local, ec)) {
      check_text_file_size(local.string(), "module file", ErrorKind::Io);
      std::ifstream in(local, std::ios::binary);
      std::stringstream buf;
      buf << in.rdbuf();
      if (!in) {
        throw Error(ErrorKind::Io, fmt::format("cannot read module file {}", local.string()), imp.span);
      }
      path = local.string();
      text = buf.str();
    }
  }
  if (path.empty()) {
    auto std_text = stdlib_module(imp.module);
    if (!std_text) {
      std::vector<std::string> names = stdlib_module_names();
      const std::string near = nearest_name(imp.module, names);
      std::string list;
      for (const auto& n : names) {
        list += (list.empty() ? "" : ", ") + n;
      }
      throw Error(ErrorKind::Semantic, fmt::format("unknown module '{}'", imp.module), imp.span,
                  near.empty()
                      ? fmt::format("no {}.ipu next to this file; standard modules: {}", imp.module, list)
                      : fmt::format("did you mean '{}'?", near));
    }
    path = "stdlib/" + imp.module + ".ipu";
    text = std::string(*std_text);
  }
  for (size_t k = 0; k < loading_.size(); ++k) {
    if (loading_[k] == path) {
      std::string cycle;
      for (size_t j = k; j < loading_.size(); ++j) {
        cycle += loading_[j] + " -> ";
      }
      throw Error(ErrorKind::Semantic, fmt::format("import cycle: {}{}", cycle, path), imp.span,
                  "move what both modules need into a third one");
    }
  }
  for (const auto& m : modules_) {
    if (m->path == path) {
      return *m;
    }
  }
  return load(imp.module, path, text);
}

}  // namespace iputrain::frontend
