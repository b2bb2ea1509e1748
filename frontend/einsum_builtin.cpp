// einsum(equation, a, b): a labelled contraction of two tensors, lowered to the ops a user would
// write by hand, so it costs, shards and differentiates like them: each operand's labels that
// appear nowhere else are summed out; size-1 dimensions broadcast against the other operand's;
// then both are transposed to [batch, free, contracted] / [batch, contracted, free], reshaped to
// three dimensions, multiplied by one batched matmul, reshaped back and transposed to the output's
// order. "..." stands for the dimensions not labelled (aligned from the right, broadcasting as in
// NumPy). Without "->" the output is NumPy's: "..." first, then the labels that appear once, in
// alphabetical order. A label repeated within one operand (a diagonal) is refused.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>

#include "frontend/builtins.hpp"

namespace iputrain::frontend {

namespace {

using builtin_args::add;
using ir::OpKind;

struct Parsed {
  std::string a, b, out;  // one char per dimension; '0' + k for the k-th dimension of "..."
};

[[noreturn]] void fail(const CallArgs& c, const std::string& message, const std::string& hint = {}) {
  throw Error(ErrorKind::Semantic, "einsum: " + message, c.spans[0], hint);
}

// One operand's subscripts with "..." expanded to `rank` dimensions in total.
std::string expand(const CallArgs& c, const std::string& spec, int64_t rank, int64_t* ellipsis_dims) {
  const size_t dots = spec.find("...");
  std::string labels = spec;
  if (dots != std::string::npos) {
    labels.erase(dots, 3);
  }
  for (char ch : labels) {
    if (!std::isalpha(static_cast<unsigned char>(ch))) {
      fail(c, fmt::format("'{}' is not a label", ch), "labels are letters; \"...\" stands for unlabelled dimensions");
    }
  }
  const auto named = static_cast<int64_t>(labels.size());
  if (dots == std::string::npos ? named != rank : named > rank) {
    fail(c, fmt::format("\"{}\" labels {} dimensions of a tensor of rank {}", spec, named, rank),
         "give one label per dimension, or \"...\" for the rest");
  }
  if (dots == std::string::npos) {
    *ellipsis_dims = 0;
    return labels;
  }
  *ellipsis_dims = rank - named;
  std::string mid;
  for (int64_t k = 0; k < *ellipsis_dims; ++k) {
    mid += static_cast<char>('0' + k);  // renumbered from the right below
  }
  return labels.substr(0, dots) + mid + labels.substr(dots);
}

// Ellipsis dimensions are aligned from the right: the last one of every operand is the same.
void align_ellipsis(std::string& labels, int64_t dims, int64_t most) {
  for (char& ch : labels) {
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      ch = static_cast<char>('0' + (most - dims) + (ch - '0'));
    }
  }
}

Parsed parse(const CallArgs& c, const std::string& eq, int64_t rank_a, int64_t rank_b) {
  std::string text;
  for (char ch : eq) {
    if (ch != ' ') {
      text += ch;
    }
  }
  const size_t arrow = text.find("->");
  const std::string inputs = text.substr(0, arrow);
  const size_t comma = inputs.find(',');
  if (comma == std::string::npos || inputs.find(',', comma + 1) != std::string::npos) {
    fail(c, fmt::format("\"{}\" must name two operands", eq), "e.g. \"bij,bjk->bik\"");
  }
  int64_t ea = 0;
  int64_t eb = 0;
  Parsed p{expand(c, inputs.substr(0, comma), rank_a, &ea), expand(c, inputs.substr(comma + 1), rank_b, &eb), {}};
  const int64_t most = std::max(ea, eb);
  align_ellipsis(p.a, ea, most);
  align_ellipsis(p.b, eb, most);
  for (const std::string* s : {&p.a, &p.b}) {
    for (char ch : *s) {
      if (std::count(s->begin(), s->end(), ch) > 1) {
        fail(c, fmt::format("label '{}' repeats within one operand (a diagonal)", ch), "take the diagonal otherwise");
      }
    }
  }
  std::string dims;
  for (int64_t k = 0; k < most; ++k) {
    dims += static_cast<char>('0' + k);
  }
  if (arrow == std::string::npos) {
    std::string once;
    for (char ch : p.a + p.b) {
      if (std::isalpha(static_cast<unsigned char>(ch)) &&
          std::count(p.a.begin(), p.a.end(), ch) + std::count(p.b.begin(), p.b.end(), ch) == 1) {
        once += ch;
      }
    }
    std::sort(once.begin(), once.end());
    p.out = dims + once;
    return p;
  }
  std::string out = text.substr(arrow + 2);
  const size_t dots = out.find("...");
  if (dots != std::string::npos) {
    out.replace(dots, 3, dims);
  } else if (most > 0) {
    fail(c, "the operands have \"...\" dimensions the output leaves out", "write \"...\" in the output too");
  }
  for (char ch : out) {
    if (p.a.find(ch) == std::string::npos && p.b.find(ch) == std::string::npos) {
      fail(c, fmt::format("output label '{}' labels no operand dimension", ch));
    }
    if (std::count(out.begin(), out.end(), ch) > 1) {
      fail(c, fmt::format("output label '{}' repeats", ch));
    }
  }
  p.out = out;
  return p;
}

struct Operand {
  ir::ValueId v;
  std::string labels;
};

// Sums out the labels of `x` that appear in neither `other` nor `out`.
void sum_private(CallArgs& c, Operand& x, const std::string& other, const std::string& out) {
  std::vector<int64_t> axes;
  std::string kept;
  for (size_t d = 0; d < x.labels.size(); ++d) {
    const char ch = x.labels[d];
    if (other.find(ch) == std::string::npos && out.find(ch) == std::string::npos) {
      axes.push_back(static_cast<int64_t>(d));
    } else {
      kept += ch;
    }
  }
  if (!axes.empty()) {
    x.v = add(c, OpKind::Sum, {x.v}, ir::Attrs{{"axes", axes}, {"keepdims", int64_t{0}}});
    x.labels = kept;
  }
}

// Transposes x so its labels read `order` (a permutation of them).
void permute(CallArgs& c, Operand& x, const std::string& order) {
  if (order == x.labels) {
    return;
  }
  std::vector<int64_t> perm;
  for (char ch : order) {
    perm.push_back(static_cast<int64_t>(x.labels.find(ch)));
  }
  x.v = add(c, OpKind::Transpose, {x.v}, ir::Attrs{{"perm", perm}});
  x.labels = order;
}

Value b_einsum(CallArgs& c) {
  using namespace builtin_args;
  const std::string eq = expect_string(c.args[0], c.graph, c.spans[0], what(c, "equation"));
  Operand a{tensor(c, 1, "a"), {}};
  Operand b{tensor(c, 2, "b"), {}};
  const Parsed p = parse(c, eq, c.graph.type(a.v).rank(), c.graph.type(b.v).rank());
  a.labels = p.a;
  b.labels = p.b;
  // Sizes: equal, or 1 on one side (broadcast).
  std::map<char, int64_t> size;
  for (const Operand* x : {&a, &b}) {
    const Shape& s = c.graph.type(x->v).shape;
    for (size_t d = 0; d < s.size(); ++d) {
      auto [it, fresh] = size.emplace(x->labels[d], s[d]);
      if (!fresh && it->second != s[d] && it->second != 1 && s[d] != 1) {
        fail(c, fmt::format("label '{}' is {} in one operand and {} in the other", x->labels[d], it->second, s[d]),
             "sizes must be equal, or 1 to broadcast");
      }
      it->second = std::max(it->second, s[d]);
    }
  }
  sum_private(c, a, b.labels, p.out);
  sum_private(c, b, a.labels, p.out);
  std::string batch, a_free, b_free, contracted;
  for (char ch : a.labels) {
    const bool in_b = b.labels.find(ch) != std::string::npos;
    const bool in_out = p.out.find(ch) != std::string::npos;
    (in_b ? (in_out ? batch : contracted) : a_free) += ch;
  }
  for (char ch : b.labels) {
    if (a.labels.find(ch) == std::string::npos) {
      b_free += ch;
    }
  }
  // Broadcast size-1 dimensions of shared labels to the other operand's size.
  for (Operand* x : {&a, &b}) {
    Shape s = c.graph.type(x->v).shape;
    bool grow = false;
    for (size_t d = 0; d < s.size(); ++d) {
      const char ch = x->labels[d];
      if ((batch + contracted).find(ch) != std::string::npos && s[d] != size[ch]) {
        s[d] = size[ch];
        grow = true;
      }
    }
    if (grow) {
      x->v = add(c, OpKind::BroadcastTo, {x->v}, ir::Attrs{{"shape", s}});
    }
  }
  permute(c, a, batch + a_free + contracted);
  permute(c, b, batch + contracted + b_free);
  auto prod = [&](const std::string& labels) {
    return std::accumulate(labels.begin(), labels.end(), int64_t{1}, [&](int64_t n, char ch) { return n * size[ch]; });
  };
  const Shape a3{prod(batch), prod(a_free), prod(contracted)};
  const Shape b3{prod(batch), prod(contracted), prod(b_free)};
  const ir::ValueId a_r = add(c, OpKind::Reshape, {a.v}, ir::Attrs{{"shape", a3}});
  const ir::ValueId b_r = add(c, OpKind::Reshape, {b.v}, ir::Attrs{{"shape", b3}});
  Operand y{add(c, OpKind::MatMul, {a_r, b_r}, {}), batch + a_free + b_free};
  Shape full;
  for (char ch : y.labels) {
    full.push_back(size[ch]);
  }
  y.v = add(c, OpKind::Reshape, {y.v}, ir::Attrs{{"shape", full}});
  permute(c, y, p.out);
  return Value::of_tensor(y.v);
}

}  // namespace

void add_einsum_builtin(std::vector<Builtin>& table) {
  table.push_back({"einsum", {{"equation", true, {}}, {"a", true, {}}, {"b", true, {}}}, b_einsum});
}

}  // namespace iputrain::frontend
