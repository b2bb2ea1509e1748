// Emitters of the generated programs' ops along axes (softmax, reductions, scans, sorts,
// triangles), of shape ops (reshape, transpose, slices, concat, split, einsum, matmul,
// scatter_add) and of sequence layers (attention, transformer blocks, embeddings).
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <numeric>

#include "program_gen_impl.hpp"

namespace iputrain::fuzz {

namespace {

using Dims = std::vector<int64_t>;

//! An axis other than the batch's, as a positive or a negative index.
int64_t axis_of(ByteReader& in, size_t rank, int64_t* text) {
  const int64_t a = in.range(1, static_cast<int64_t>(rank) - 1);
  *text = in.coin() ? a : a - static_cast<int64_t>(rank);
  return a;
}

Dims without(Dims d, int64_t axis) {
  d.erase(d.begin() + axis);
  return d;
}

bool reduce(ProgramGen& g, const Value& v, int64_t a, int64_t at) {
  static const char* const kFns[] = {"sum", "mean", "max", "min"};
  const char* fn = kFns[g.in().pick(4)];
  const bool keep = g.in().coin();
  Dims shape = v.shape;
  keep ? void(shape[static_cast<size_t>(a)] = 1) : void(shape.erase(shape.begin() + a));
  g.emit(fmt::format("{}({}, axis = {}, keepdims = {})", fn, v.name, at, keep ? "true" : "false"), shape);
  g.note(fn);
  return true;
}

}  // namespace

bool axis_ops(ProgramGen& g) {
  const auto v = g.pick_f32(2, 4);
  ByteReader& in = g.in();
  int64_t at = 0;
  const int64_t a = axis_of(in, v->shape.size(), &at);
  const int64_t n = v->shape[static_cast<size_t>(a)];
  const int64_t last = v->shape.back();
  const int64_t rank = static_cast<int64_t>(v->shape.size());
  if (g.want_wrong()) {
    const size_t which = in.pick(3);
    const std::string forms[] = {fmt::format("softmax({}, axis = {})", v->name, rank),
                                 fmt::format("cumsum({}, axis = {})", v->name, -rank - 1),
                                 fmt::format("top_k({}, {})[0]", v->name, last + 1)};
    g.emit(forms[which], v->shape);
    g.mutated(which == 0 ? "softmax axis out of range" : which == 1 ? "cumsum axis out of range" : "top_k k too large");
    return true;
  }
  const bool flag = in.coin(), flag2 = in.coin();
  const int64_t k = in.range(1, last);
  Dims topk = v->shape;
  topk.back() = k;
  const std::string b1 = flag ? "true" : "false", b2 = flag2 ? "true" : "false";
  switch (in.pick(10)) {
    case 8: {
      // The collectives, with groups every replica count divides (a group of one is the identity).
      const std::string forms[] = {
          fmt::format("cross_replica_sum({})", v->name), fmt::format("cross_replica_mean({}, group = 1)", v->name),
          fmt::format("mean(all_gather({}, group = 1), axis = 0)", v->name),
          fmt::format("all_to_all({}, split_axis = {}, concat_axis = {}, group = 1)", v->name, at, at)};
      g.emit(forms[in.pick(4)], v->shape);
      g.note("collectives");
      return true;
    }
    case 0:
      g.emit(fmt::format("softmax({}, axis = {})", v->name, at), v->shape);
      g.note("softmax");
      return true;
    case 1:
      g.emit(fmt::format("log_softmax({}, axis = {})", v->name, at), v->shape);
      g.note("log_softmax");
      return true;
    case 2:
      return reduce(g, *v, a, at);
    case 3:
      g.emit(fmt::format("cumsum({}, axis = {}, exclusive = {}, reverse = {})", v->name, at, b1, b2), v->shape);
      g.note("cumsum");
      return true;
    case 4:
      g.emit(fmt::format("sort({}, axis = {}, descending = {})", v->name, at, b1), v->shape);
      g.note("sort");
      return true;
    case 5:
      g.emit(fmt::format("top_k({}, {})[0]", v->name, k), topk);
      g.note("top_k");
      return true;
    case 6:
      g.emit(fmt::format("take_along_axis({}, argsort({}, axis = {}, descending = {}), axis = {})", v->name, v->name,
                         at, b1, at),
             v->shape);
      g.note("argsort take_along_axis");
      return true;
    case 7:
      g.emit(fmt::format("{}({}, k = {})", flag ? "tril" : "triu", v->name, in.range(-2, 2)), v->shape);
      g.note("tril/triu");
      return true;
    default:
      g.emit(fmt::format("cast(arg{}({}, axis = {}), dtype = \"f32\")", flag ? "max" : "min", v->name, at),
             without(v->shape, a));
      g.note("argmax/argmin");
      (void)n;
      return true;
  }
}

namespace {

bool slicing(ProgramGen& g, const Value& v) {
  ByteReader& in = g.in();
  const int64_t n = v.shape[1];
  if (g.want_wrong()) {
    g.emit(fmt::format("{}[:, {}]", v.name, n), v.shape);
    g.mutated("index out of range");
    return true;
  }
  const int64_t a = in.range(0, n - 1), b = in.range(a + 1, n), s = in.range(1, 2);
  Dims shape = v.shape;
  switch (in.pick(4)) {
    case 0:
      shape[1] = (b - a + s - 1) / s;
      g.emit(fmt::format("{}[:, {}:{}:{}]", v.name, a, b, s), shape);
      break;
    case 1:
      g.emit(fmt::format("{}[..., ::-1]", v.name), shape);
      break;
    case 2:
      g.emit(fmt::format("{}[:, {}]", v.name, in.coin() ? a : a - n), without(shape, 1));
      break;
    default: {
      Dims begin(v.shape.size(), 0);
      Dims end = v.shape;
      begin[1] = a;
      end[1] = b;
      shape[1] = b - a;
      g.emit(fmt::format("slice({}, {}, {})", v.name, dims_text(begin), dims_text(end)), shape);
    }
  }
  g.note("slice");
  return true;
}

bool splitting(ProgramGen& g, const Value& v, int64_t a, int64_t at) {
  ByteReader& in = g.in();
  const int64_t n = v.shape[static_cast<size_t>(a)];
  Dims shape = v.shape;
  if (g.want_wrong()) {
    g.emit(fmt::format("split({}, [1, {}], axis = {})[0]", v.name, n, at), v.shape);
    g.mutated("split sections that do not add up");
    return true;
  }
  if (n >= 2 && in.coin()) {
    const int64_t p = in.range(1, n - 1);
    const bool second = in.coin();
    shape[static_cast<size_t>(a)] = second ? n - p : p;
    g.emit(fmt::format("split({}, [{}, {}], axis = {})[{}]", v.name, p, n - p, at, second ? 1 : 0), shape);
  } else {
    int64_t parts = 1;
    for (int64_t d = n; d >= 1; --d) {
      parts = n % d == 0 && in.coin() ? d : parts;
    }
    shape[static_cast<size_t>(a)] = n / parts;
    g.emit(fmt::format("split({}, {}, axis = {})[{}]", v.name, parts, at, in.range(0, parts - 1)), shape);
  }
  g.note("split");
  return true;
}

bool contraction(ProgramGen& g, const Value& v) {
  ByteReader& in = g.in();
  const size_t r = v.shape.size();
  const int64_t m = v.shape[r - 2], k = v.shape[r - 1];
  if (g.want_wrong()) {
    const bool eq = in.coin() && r == 3;
    g.emit(eq ? fmt::format("einsum(\"bt,bsc->bts\", {}, {})", v.name, v.name)
              : fmt::format("{} @ full([{}, 2], 0.5)", v.name, k + 1),
           v.shape);
    g.mutated(eq ? "einsum equation of the wrong rank" : "matmul inner dimensions differ");
    return true;
  }
  Dims shape = v.shape;
  switch (in.pick(3)) {
    case 0: {
      shape.back() = m;
      g.emit(fmt::format("matmul({}, {}, transpose_b = true)", v.name, v.name), shape);
      break;
    }
    case 1: {
      const int64_t j = in.range(1, 4);
      shape.back() = j;
      g.emit(fmt::format("{} @ full([{}, {}], 0.1)", v.name, k, j), shape);
      break;
    }
    default:
      if (r == 3) {
        g.emit(fmt::format("einsum(\"btc,bsc->bts\", {}, {})", v.name, v.name), {v.shape[0], m, m});
      } else {
        g.emit(fmt::format("einsum(\"...c,...c->...\", {}, {})", v.name, v.name),
               without(v.shape, static_cast<int64_t>(r) - 1));
      }
      g.note("einsum");
      return true;
  }
  g.note("matmul");
  return true;
}

}  // namespace

bool shape_ops(ProgramGen& g) {
  const auto v = g.pick_f32(2, 4);
  ByteReader& in = g.in();
  int64_t at = 0;
  const size_t r = v->shape.size();
  const int64_t a = axis_of(in, r, &at);
  const int64_t rest = numel(v->shape) / g.batch();
  switch (in.pick(8)) {
    case 0:
      g.emit(in.coin() ? fmt::format("flatten({})", v->name) : fmt::format("reshape({}, [batch, -1])", v->name),
             {g.batch(), rest});
      g.note("reshape");
      return true;
    case 1: {
      if (r < 3) {
        return slicing(g, *v);
      }
      Dims perm(r - 1);
      std::iota(perm.begin(), perm.end(), 1);
      std::rotate(perm.begin(), perm.begin() + static_cast<int64_t>(in.pick(r - 1)), perm.end());
      perm.insert(perm.begin(), 0);
      Dims shape;
      for (const int64_t p : perm) {
        shape.push_back(v->shape[static_cast<size_t>(p)]);
      }
      g.emit(fmt::format("transpose({}, {})", v->name, dims_text(perm)), shape);
      g.note("transpose");
      return true;
    }
    case 2: {
      Dims shape = v->shape;
      shape.insert(shape.begin() + a, 1);
      const auto e = g.emit(fmt::format("expand_dims({}, axis = {})", v->name, a), shape);
      g.emit(fmt::format("squeeze({}, axis = {})", e.name, a), v->shape);
      g.note("expand_dims squeeze");
      return true;
    }
    case 3:
      return slicing(g, *v);
    case 4: {
      Dims shape = v->shape;
      shape[static_cast<size_t>(a)] *= 2;
      g.emit(fmt::format("concat([{}, {} * 2], axis = {})", v->name, v->name, at), shape);
      g.note("concat");
      return true;
    }
    case 5:
      return splitting(g, *v, a, at);
    case 6:
      return contraction(g, *v);
    default: {
      const int64_t n = v->shape[1], k = in.range(1, n), j = in.range(0, n - 1);
      const bool wrong = g.want_wrong();
      g.emit(fmt::format("scatter_add({}, full([{}], {}, dtype = \"i32\"), {}[:, 0:{}], axis = 1)", v->name,
                         wrong ? k + 1 : k, j, v->name, k),
             v->shape);
      wrong ? g.mutated("scatter_add updates of the wrong shape") : g.note("scatter_add");
      return true;
    }
  }
}

bool sequence_ops(ProgramGen& g) {
  ByteReader& in = g.in();
  if (in.coin()) {
    if (const auto ids = g.pick_i32_index()) {
      const int64_t dim = in.range(1, 6);
      if (g.want_wrong()) {
        g.emit(fmt::format("nn.embedding(cast({}, dtype = \"f32\"), {}, {})", ids->name, ids->bound, dim), ids->shape);
        g.mutated("embedding of f32 ids");
        return true;
      }
      const bool table = in.coin();
      const bool host = table && in.coin();  // the table in host memory (planner/host_tables.hpp)
      Dims shape = ids->shape;
      shape.push_back(table ? dim : ids->bound);
      g.emit(host    ? fmt::format("nn.host_embedding({}, vocab = {}, dim = {})", ids->name, ids->bound, dim)
             : table ? fmt::format("nn.embedding({}, {}, {})", ids->name, ids->bound, dim)
                     : fmt::format("one_hot({}, {})", ids->name, ids->bound),
             shape);
      g.note(host ? "nn.host_embedding" : table ? "nn.embedding" : "one_hot");
      return true;
    }
  }
  const auto v = g.pick_f32(3, 3);
  if (!v) {
    return false;
  }
  const int64_t s = v->shape[1], d = v->shape[2];
  Dims heads_of;
  for (int64_t h = 1; h <= d; ++h) {
    if (d % h == 0) {
      heads_of.push_back(h);
    }
  }
  const int64_t heads = heads_of[in.pick(heads_of.size())];
  if (g.want_wrong()) {
    g.emit(fmt::format("nn.multi_head_attention({}, heads = {})", v->name, d + 1), v->shape);
    g.mutated("attention heads that do not divide the width");
    return true;
  }
  const std::string causal = in.coin() ? "true" : "false";
  switch (in.pick(3)) {
    case 0:
      g.emit(fmt::format("nn.multi_head_attention({}, heads = {}, causal = {})", v->name, heads, causal), v->shape);
      g.note("nn.multi_head_attention");
      return true;
    case 1:
      g.emit(fmt::format("nn.transformer_block({}, heads = {}, causal = {}, mlp_ratio = {}, dropout_rate = {})",
                         v->name, heads, causal, in.range(1, 2), in.coin() ? "0.1" : "0.0"),
             v->shape);
      g.note("nn.transformer_block");
      return true;
    default:
      g.emit(fmt::format("{} + nn.positional({}, {})", v->name, s, d), v->shape);
      g.note("nn.positional");
      return true;
  }
}

}  // namespace iputrain::fuzz
