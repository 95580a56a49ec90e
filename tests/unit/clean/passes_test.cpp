// The clean-up passes on graphs written in ONNX text syntax: what each removes, folds or merges,
// and what it must leave alone (dynamic dims, subgraph reads, scope outputs, other instances).
#include <doctest/doctest.h>
#include <onnx/checker.h>
#include <onnx/defs/parser.h>

#include <cmath>
#include <cstring>
#include <map>
#include <sstream>
#include <variant>

#include "clean/const_tensor.h"
#include "clean/clean.h"
#include "clean/passes_internal.h"

namespace pt2onnx::clean {
namespace {

onnx::ModelProto parse(const std::string& graph) {
  onnx::ModelProto model;
  const std::string text = "<ir_version: 8, opset_import: [\"\" : 18]>\n" + graph;
  const onnx::Status status = onnx::OnnxParser::Parse(model, text.c_str());
  REQUIRE_MESSAGE(status.IsOK(), status.ErrorMessage());
  return model;
}

std::map<std::string, int> op_counts(const onnx::GraphProto& graph) {
  std::map<std::string, int> counts;
  for (const auto& n : graph.node()) ++counts[n.op_type()];
  return counts;
}

const onnx::NodeProto* producer(const onnx::GraphProto& graph, const std::string& value) {
  for (const auto& n : graph.node())
    for (const auto& o : n.output())
      if (o == value) return &n;
  return nullptr;
}

const onnx::TensorProto* initializer(const onnx::GraphProto& graph, const std::string& name) {
  for (const auto& t : graph.initializer())
    if (t.name() == name) return &t;
  return nullptr;
}

std::vector<int64_t> constant_ints(const onnx::GraphProto& graph, const std::string& value) {
  for (const auto& t : graph.initializer())
    if (t.name() == value) {  // a Constant moved to the initializers (constants_to_initializers)
      std::optional<ConstTensor> c = read_const(t);
      REQUIRE(c.has_value());
      return c->ints;
    }
  const onnx::NodeProto* n = producer(graph, value);
  REQUIRE(n != nullptr);
  REQUIRE(n->op_type() == "Constant");
  std::optional<ConstTensor> c = constant_node_value(*n);
  REQUIRE(c.has_value());
  return c->ints;
}

// Binds every initializer of the graph to an archive weight of its name, as translate binds its
// weights (those with data in the graph read it from there first).
void bind_all(model::OnnxModel& t) {
  for (const onnx::TensorProto& i : t.proto.graph().initializer()) t.weights.push_back({i.name(), i.name(), false});
}

// clean_model on `t` in place; the weights it derived go to `derived` when given.
CleanReport clean_in_place(model::OnnxModel& t, const CleanOptions& options,
                           std::vector<model::DerivedWeight>* derived = nullptr) {
  Cleaned cleaned = clean_model(std::move(t), options);
  t = std::move(cleaned.model);
  if (derived) *derived = std::move(cleaned.derived);
  return cleaned.report;
}

// The checker runs unless folded BatchNorm weights are declared (their data comes at emit).
CleanReport clean(onnx::ModelProto& model, CleanOptions options = {}, std::vector<model::DerivedWeight>* derived = nullptr) {
  model::OnnxModel t;
  t.proto = model;
  bind_all(t);
  const CleanReport report = clean_in_place(t, options, derived);
  model = t.proto;
  if (report.batch_norms_folded == 0) CHECK_NOTHROW(onnx::checker::check_model(model));
  return report;
}

TEST_CASE("dead nodes and unused initializers go; what a subgraph reads stays") {
  onnx::ModelProto m = parse(R"(
g (float[2,3] x, bool c) => (float[2,3] y) <float[2] unused = {1.0, 2.0}, float[3] kept = {1.0, 2.0, 3.0}> {
  t = Add(x, kept)
  s = Shape(t)
  r = Relu(x)
  y = If(c) <then_branch = g1 () => (float[2,3] o1) { o1 = Neg(t) },
              else_branch = g2 () => (float[2,3] o2) { o2 = Abs(x) }>
})");
  const CleanReport report = clean(m);
  CHECK(report.dead_nodes == 2);  // Shape and Relu
  CHECK(report.dead_initializers == 1);
  CHECK(op_counts(m.graph()) == std::map<std::string, int>{{"Add", 1}, {"If", 1}});
  REQUIRE(m.graph().initializer_size() == 1);
  CHECK(m.graph().initializer(0).name() == "kept");
}

TEST_CASE("dead initializers: the dead-node sweep's reads and a walk of their own agree") {
  // Read by a node, by a subgraph only, as a graph output only, and by nothing; no dead node.
  const onnx::ModelProto m = parse(R"(
g (float[2,3] x, bool c) => (float[2,3] y, float[3] out_only)
    <float[2] unused = {1.0, 2.0}, float[3] kept = {1.0, 2.0, 3.0}, float[3] inner = {4.0, 5.0, 6.0},
     float[3] out_only = {7.0, 8.0, 9.0}> {
  t = Add(x, kept)
  y = If(c) <then_branch = g1 () => (float[2,3] o1) { o1 = Add(t, inner) },
              else_branch = g2 () => (float[2,3] o2) { o2 = Abs(x) }>
})");
  auto initializer_names = [](const onnx::GraphProto& g) {
    std::vector<std::string> names;
    for (const auto& t : g.initializer()) names.push_back(t.name());
    return names;
  };
  onnx::ModelProto swept = m;
  Body body = main_body(*swept.mutable_graph(), nullptr, {}, {});
  ReadValues reads;
  REQUIRE(eliminate_dead_nodes(body, &reads) == 0);
  CHECK(eliminate_dead_initializers(body, &reads) == 1);
  onnx::ModelProto walked = m;
  Body own = main_body(*walked.mutable_graph(), nullptr, {}, {});
  CHECK(eliminate_dead_initializers(own) == 1);
  CHECK(initializer_names(swept.graph()) == std::vector<std::string>{"kept", "inner", "out_only"});
  CHECK(initializer_names(walked.graph()) == initializer_names(swept.graph()));
}

TEST_CASE("shape arithmetic on static dims folds to one Constant") {
  onnx::ModelProto m = parse(R"(
g (float[2,3,4] x) => (float[6,4] y) {
  s = Shape(x)
  i0 = Constant <value = int64[1] {0}> ()
  i1 = Constant <value = int64[1] {1}> ()
  d0 = Gather <axis = 0> (s, i0)
  d1 = Gather <axis = 0> (s, i1)
  p = Mul(d0, d1)
  last = Shape <start = -1> (x)
  shape = Concat <axis = 0> (p, last)
  y = Reshape(x, shape)
})");
  clean(m);
  // The folded Constant then becomes an initializer (the last step).
  CHECK(op_counts(m.graph()) == std::map<std::string, int>{{"Reshape", 1}});
  CHECK(m.graph().initializer_size() == 1);
  CHECK(constant_ints(m.graph(), m.graph().node(0).input(1)) == std::vector<int64_t>{6, 4});
}

TEST_CASE("nothing that depends on a dynamic dim becomes a constant") {
  onnx::ModelProto m = parse(R"(
g (float[N,3] x) => (int64[1] total) {
  s = Shape(x)
  i0 = Constant <value = int64 {0}> ()
  n = Gather <axis = 0> (s, i0)
  one = Constant <value = int64[1] {1}> ()
  u = Unsqueeze(n, one)
  k = Constant <value = int64[1] {3}> ()
  total = Mul(u, k)
})");
  clean(m);
  const auto counts = op_counts(m.graph());
  CHECK(counts.at("Shape") == 1);
  CHECK(counts.at("Gather") == 1);
  CHECK(counts.at("Mul") == 1);
}

TEST_CASE("the export's static types fold Shape of values the ONNX does not annotate, dim by dim") {
  onnx::ModelProto m = parse(R"(
g (float[N,3] x) => (int64[1] tail, int64[2] all) {
  t = Relu(x)
  tail = Shape <start = 1> (t)
  all = Shape(t)
})");
  CleanOptions options;
  options.types = [](const std::string& name) -> std::optional<ValueType> {
    if (name != "t") return std::nullopt;
    return ValueType{onnx::TensorProto_DataType_FLOAT, {std::nullopt, 3}, {"N", ""}, true};
  };
  clean(m, options);
  CHECK(constant_ints(m.graph(), "tail") == std::vector<int64_t>{3});
  CHECK(producer(m.graph(), "all")->op_type() == "Shape");  // dim 0 of t is dynamic
}

TEST_CASE("a Reshape/Expand operand made of the data's own dims becomes a Constant of 0s and 1s") {
  // x: [N, S, 8]; view(x, [N, S, 2, 4]) spelled with Shape(ids) pieces, ids: [N, S].
  onnx::ModelProto m = parse(R"(
g (float[N,S,8] x, int64[N,S] ids, float[N,S,1] e, float[N,1,4] f)
  => (float[N,S,2,4] y, float[N,S,4] z, float[M,S,4] w, float[N,S,4] v, float[M,2,4] u, float[S,N,8] t) {
  s = Shape(ids)
  i0 = Constant <value = int64 {0}> ()
  i1 = Constant <value = int64 {1}> ()
  zero = Constant <value = int64[1] {0}> ()
  n = Gather <axis = 0> (s, i0)
  q = Gather <axis = 0> (s, i1)
  nu = Unsqueeze(n, zero)
  qu = Unsqueeze(q, zero)
  rest = Constant <value = int64[2] {2, 4}> ()
  shape = Concat <axis = 0> (nu, qu, rest)
  y = Reshape(x, shape)
  four = Constant <value = int64[1] {4}> ()
  eshape = Concat <axis = 0> (nu, qu, four)
  z = Expand(e, eshape)
  v = Expand(f, eshape)
  mm = Constant <value = int64[1] {-1}> ()
  wshape = Concat <axis = 0> (mm, qu, four)
  w = Reshape(x, wshape)
  ushape = Concat <axis = 0> (qu, rest)
  u = Reshape(x, ushape)
  eight = Constant <value = int64[1] {8}> ()
  tshape = Concat <axis = 0> (qu, nu, eight)
  t = Reshape(x, tshape)
})");
  clean(m);
  CHECK(constant_ints(m.graph(), producer(m.graph(), "y")->input(1)) == std::vector<int64_t>{0, 0, 2, 4});
  CHECK(constant_ints(m.graph(), producer(m.graph(), "z")->input(1)) == std::vector<int64_t>{1, 1, 4});
  // f's dim 1 is 1, not S: that Expand keeps its computed shape.
  CHECK(producer(m.graph(), producer(m.graph(), "v")->input(1))->op_type() == "Concat");
  CHECK(constant_ints(m.graph(), producer(m.graph(), "w")->input(1)) == std::vector<int64_t>{-1, 0, 4});
  // [S, 2, 4]: S is not x's dim 0, so it is the one -1. [S, N, 8]: two such dims: kept.
  CHECK(constant_ints(m.graph(), producer(m.graph(), "u")->input(1)) == std::vector<int64_t>{-1, 2, 4});
  CHECK(producer(m.graph(), producer(m.graph(), "t")->input(1))->op_type() == "Concat");
}

TEST_CASE("a Reshape shape piece computed from dims (batch * 4) is the -1 the element count leaves") {
  onnx::ModelProto m = parse(R"(
g (float[N,4,3] x) => (float[M,3] y, float[N,12] z) {
  s = Shape(x)
  zero = Constant <value = int64 {0}> ()
  four = Constant <value = int64 {4}> ()
  axes = Constant <value = int64[1] {0}> ()
  n = Gather <axis = 0> (s, zero)
  p = Mul(n, four)
  pu = Unsqueeze(p, axes)
  three = Constant <value = int64[1] {3}> ()
  shape = Concat <axis = 0> (pu, three)
  y = Reshape(x, shape)
  twice = Concat <axis = 0> (pu, pu)
  z = Reshape(x, twice)
})");
  clean(m);
  CHECK(constant_ints(m.graph(), producer(m.graph(), "y")->input(1)) == std::vector<int64_t>{-1, 3});
  // Two computed pieces cannot both be -1; z's type [N, 12] gives its operand instead.
  CHECK(constant_ints(m.graph(), producer(m.graph(), "z")->input(1)) == std::vector<int64_t>{0, 12});
  CHECK(op_counts(m.graph()).count("Concat") == 0);
}

TEST_CASE("a Reshape whose result type is known takes its operand from it, whatever computes the operand") {
  onnx::ModelProto m = parse(R"(
g (float[N,S,8] x, int64[3] user) => (float[N,S,2,4] y, float[N,S,8] z, float[N,0,8] e) {
  s = Shape(x)
  zero = Constant <value = int64[1] {0}> ()
  two = Constant <value = int64[1] {2}> ()
  neg = Constant <value = int64[1] {-1}> ()
  head = Slice(s, zero, two)
  shape = Concat <axis = 0> (head, two, neg)
  y = Reshape(x, shape)
  z = Reshape(y, s)
  e = Reshape(x, user)
})");
  clean(m);
  CHECK(constant_ints(m.graph(), producer(m.graph(), "y")->input(1)) == std::vector<int64_t>{0, 0, 2, 4});
  CHECK(constant_ints(m.graph(), producer(m.graph(), "z")->input(1)) == std::vector<int64_t>{0, 0, 8});
  CHECK(producer(m.graph(), "e")->input(1) == "user");  // a static 0 is no operand's 0 (that copies)
  CHECK(op_counts(m.graph()).count("Shape") == 0);
}

TEST_CASE("folding covers Slice, Squeeze, Range, Cast, Sub, Div and ConstantOfShape") {
  onnx::ModelProto m = parse(R"(
g (float[2] x) => (int64[3] a, int32[2] b, int64[2] c, float[2,3] d) {
  v = Constant <value = int64[5] {10, 20, 30, 40, 50}> ()
  st = Constant <value = int64[1] {-1}> ()
  en = Constant <value = int64[1] {-6}> ()
  sp = Constant <value = int64[1] {-2}> ()
  a = Slice(v, st, en, st, sp)
  ax = Constant <value = int64[1] {0}> ()
  lo = Constant <value = int64 {1}> ()
  hi = Constant <value = int64 {7}> ()
  dl = Constant <value = int64 {3}> ()
  r = Range(lo, hi, dl)
  b = Cast <to = 6> (r)
  q = Constant <value = int64[2] {9, 8}> ()
  two = Constant <value = int64 {2}> ()
  e = Div(q, two)
  f = Sub(e, r)
  g1 = Unsqueeze(two, ax)
  g2 = Squeeze(g1, ax)
  c = Mul(f, g2)
  ds = Constant <value = int64[2] {2, 3}> ()
  d = ConstantOfShape <value = float[1] {1.5}> (ds)
})");
  clean(m);
  CHECK(op_counts(m.graph()) == std::map<std::string, int>{{"Constant", 4}});
  CHECK(constant_ints(m.graph(), "a") == std::vector<int64_t>{50, 30, 10});
  CHECK(constant_ints(m.graph(), "b") == std::vector<int64_t>{1, 4});
  CHECK(constant_ints(m.graph(), "c") == std::vector<int64_t>{6, 0});  // (4 - 1) * 2, (4 - 4) * 2
  std::optional<ConstTensor> d = constant_node_value(*producer(m.graph(), "d"));
  REQUIRE(d.has_value());
  CHECK(d->dims == std::vector<int64_t>{2, 3});
  CHECK(d->floats == std::vector<double>(6, 1.5));
}

TEST_CASE("a static mask built by Expand, Concat, Transpose, comparisons, Where, Mod and Clip folds") {
  onnx::ModelProto m = parse(R"(
g (float[N,2] x) => (float[2,3] w, bool[2,3] k, int64[3] mo, int64[3] cl, float[N,2] y) {
  zero = Constant <value = float {0}> ()
  shp = Constant <value = int64[2] {3, 2}> ()
  z = Expand(zero, shp)
  col = Constant <value = float[3,1] {1, 2, 3}> ()
  zc = Concat <axis = 1> (z, col)
  t = Transpose <perm = [1, 0]> (zc)
  st = Constant <value = int64[1] {1}> ()
  en = Constant <value = int64[1] {3}> ()
  s = Slice(t, st, en)
  lim = Constant <value = float {2}> ()
  less = Less(s, lim)
  neg = Constant <value = float {-100}> ()
  w = Where(less, zero, neg)
  eq = Equal(s, zero)
  k = Not(eq)
  iv = Constant <value = int64[3] {-7, 4, 8}> ()
  three = Constant <value = int64 {3}> ()
  mo = Mod(iv, three)
  cm = Mod <fmod = 1> (iv, three)
  lo = Constant <value = int64 {0}> ()
  hi = Constant <value = int64 {1}> ()
  cl = Clip(cm, lo, hi)
  xl = Less(x, lim)
  y = Where(xl, x, zero)
})");
  clean(m);
  const auto counts = op_counts(m.graph());
  CHECK(counts.at("Constant") == 4);
  CHECK(counts.at("Less") == 1);  // of x: dynamic, kept
  CHECK(counts.at("Where") == 1);
  std::optional<ConstTensor> w = constant_node_value(*producer(m.graph(), "w"));
  REQUIRE(w.has_value());
  CHECK(w->dims == std::vector<int64_t>{2, 3});
  CHECK(w->floats == std::vector<double>{0, 0, 0, 0, -100, -100});  // rows 1, 2 of t: 0 0 0 / 1 2 3
  std::optional<ConstTensor> k = constant_node_value(*producer(m.graph(), "k"));
  REQUIRE(k.has_value());
  CHECK(k->ints == std::vector<int64_t>{0, 0, 0, 1, 1, 1});
  CHECK(constant_ints(m.graph(), "mo") == std::vector<int64_t>{2, 1, 2});  // Python's %
  CHECK(constant_ints(m.graph(), "cl") == std::vector<int64_t>{0, 1, 1});  // C's % is -1, 1, 2
}

TEST_CASE("float Range, Add, Sub and Mul fold only on whole numbers, where nothing rounds") {
  onnx::ModelProto m = parse(R"(
g (float[2] x) => (float[4] lin, float[2] half, float[2] negzero, float[1] big) {
  zero = Constant <value = float {0.0}> ()
  four = Constant <value = float {4.0}> ()
  one = Constant <value = float {1.0}> ()
  r = Range(zero, four, one)
  shift = Constant <value = float {-1.5}> ()
  lin = Sub(four, r)
  two = Constant <value = float[2] {1.0, 2.0}> ()
  half = Add(two, shift)
  minus = Constant <value = float[2] {-3.0, 0.0}> ()
  zeros = Constant <value = float[2] {0.0, 5.0}> ()
  negzero = Mul(minus, zeros)
  huge = Constant <value = float[1] {16777216.0}> ()
  big = Add(huge, one)
})");
  clean(m);
  const auto counts = op_counts(m.graph());
  CHECK(counts.count("Range") == 0);
  CHECK(counts.at("Add") == 2);                  // -1.5 is no whole number; 2^24 + 1 is past float's
  CHECK(counts.at("Mul") == 1);                  // -3 * 0 is -0.0
  const onnx::NodeProto* lin = producer(m.graph(), "lin");  // a graph output stays a Constant
  REQUIRE(lin != nullptr);
  REQUIRE(lin->op_type() == "Constant");
  std::optional<ConstTensor> v = constant_node_value(*lin);
  REQUIRE(v.has_value());
  CHECK(v->floats == std::vector<double>{4, 3, 2, 1});
}

TEST_CASE("a Div that would round differently from torch's floor is not folded") {
  onnx::ModelProto m = parse(R"(
g (float[2] x) => (int64[1] y) {
  a = Constant <value = int64[1] {-7}> ()
  b = Constant <value = int64[1] {2}> ()
  y = Div(a, b)
})");
  clean(m);
  CHECK(op_counts(m.graph()).at("Div") == 1);
}

// WavLM's relative-position buckets (32 buckets, max distance 64) of the positions in `positions`,
// as translate writes them.
std::string wavlm_buckets(const std::vector<int64_t>& positions) {
  std::ostringstream list, fifteens;
  for (size_t i = 0; i < positions.size(); ++i) {
    list << (i ? ", " : "") << positions[i];
    fifteens << (i ? ", " : "") << 15;
  }
  std::ostringstream text;
  text << "g (float[2] x) => (int64[" << positions.size() << "] y) {\n"
       << "  rel = Constant <value = int64[" << positions.size() << "] {" << list.str() << "}> ()\n"
       << "  fifteen = Constant <value = int64[" << positions.size() << "] {" << fifteens.str() << "}> ()\n"
       << R"(  zero = Constant <value = int64 {0}> ()
  sixteen = Constant <value = int64 {16}> ()
  eight = Constant <value = int64 {8}> ()
  eight_f = Constant <value = float {8.0}> ()
  log8 = Constant <value = float {2.0794415}> ()
  gt = Greater(rel, zero)
  gt_int = Cast <to = 7> (gt)
  base = Mul(gt_int, sixteen)
  a = Abs(rel)
  small = Less(a, eight)
  af = Cast <to = 1> (a)
  d = Div(af, eight_f)
  l = Log(d)
  d2 = Div(l, log8)
  m = Mul(d2, eight_f)
  s = Add(eight_f, m)
  large = Cast <to = 7> (s)
  clamped = Min(large, fifteen)
  picked = Where(small, a, clamped)
  y = Add(base, picked)
})";
  return text.str();
}

TEST_CASE("integer buckets of float Log arithmetic on constants fold where every runtime's rounding agrees") {
  std::vector<int64_t> positions;
  for (int64_t p = -70; p <= 70; ++p) positions.push_back(p);  // 0: log(0), 64: exactly bucket 16
  onnx::ModelProto m = parse(wavlm_buckets(positions));
  clean(m);
  CHECK(op_counts(m.graph()) == std::map<std::string, int>{{"Constant", 1}});
  const std::vector<int64_t> y = constant_ints(m.graph(), "y");
  REQUIRE(y.size() == positions.size());
  for (size_t i = 0; i < positions.size(); ++i) {  // transformers' formula in float32
    const int64_t p = positions[i], a = p < 0 ? -p : p;
    const float large = 8.0f + std::log(static_cast<float>(a) / 8.0f) / 2.0794415f * 8.0f;
    const int64_t bucket = a < 8 ? a : std::min<int64_t>(static_cast<int64_t>(large), 15);
    CHECK_MESSAGE(y[i] == (p > 0 ? 16 : 0) + bucket, "position " << p);
  }
}

TEST_CASE("a float cast to int near an integer edge, and float results that round, are not folded") {
  onnx::ModelProto m = parse(R"(
g (float[2] x) => (int64[1] y, float[1] third, float[1] eighth) {
  eight = Constant <value = float[1] {8.0}> ()
  ln2 = Constant <value = float {0.6931472}> ()
  l = Log(eight)
  q = Div(l, ln2)
  y = Cast <to = 7> (q)
  one = Constant <value = float[1] {1.0}> ()
  three = Constant <value = float {3.0}> ()
  third = Div(one, three)
  eighth = Div(one, eight)
})");
  clean(m);
  const auto counts = op_counts(m.graph());
  CHECK(counts.at("Log") == 1);   // log(8) / log(2) is 3 give or take an ulp: truncates to 2 or 3
  CHECK(counts.at("Cast") == 1);
  CHECK(counts.at("Div") == 3);   // float results stay nodes here
}

TEST_CASE("identical constants and Shape/Gather nodes merge; graph outputs keep their names") {
  onnx::ModelProto m = parse(R"(
g (float[N,3] x) => (int64 y, int64 z) {
  s1 = Shape(x)
  s2 = Shape(x)
  i1 = Constant <value = int64 {0}> ()
  i2 = Constant <value = int64 {0}> ()
  y = Gather <axis = 0> (s1, i1)
  z = Gather <axis = 0> (s2, i2)
})");
  const CleanReport report = clean(m);
  CHECK(report.merged_nodes == 2);  // s2 and i2; the Gather z is a graph output and stays
  const auto counts = op_counts(m.graph());
  CHECK(counts.at("Shape") == 1);
  CHECK(counts.count("Constant") == 0);
  CHECK(m.graph().initializer_size() == 1);  // the one merged constant, as an initializer
  CHECK(counts.at("Gather") == 2);
}

TEST_CASE("identical DequantizeLinear and QuantizeLinear nodes stay apart: each reader keeps its own") {
  onnx::ModelProto m = parse(R"(
g (float[2,3] x) => (float[2,3] y, float[2,3] z) {
  s = Constant <value = float {0.5}> ()
  zp = Constant <value = int8 {0}> ()
  q1 = QuantizeLinear(x, s, zp)
  q2 = QuantizeLinear(x, s, zp)
  d1 = DequantizeLinear(q1, s, zp)
  d2 = DequantizeLinear(q1, s, zp)
  d3 = DequantizeLinear(q2, s, zp)
  r = Relu(d1)
  t = Add(d2, d3)
  y = Neg(r)
  z = Neg(t)
})");
  const CleanReport report = clean(m);
  CHECK(report.merged_nodes == 0);
  const auto counts = op_counts(m.graph());
  CHECK(counts.at("QuantizeLinear") == 2);
  CHECK(counts.at("DequantizeLinear") == 3);
}

TEST_CASE("Constant nodes of the main graph become initializers of the same name, last") {
  onnx::ModelProto m = parse(R"(
g (float[2,3] x) => (float[3,2] y, int64[2] k) {
  shape = Constant <value_ints = [3, 2]> ()
  one = Constant <value_float = 1.0> ()
  k = Constant <value = int64[2] {3, 2}> ()
  r = Reshape(x, shape)
  y = Add(r, one)
})");
  const CleanReport report = clean(m);
  CHECK(report.constants_moved == 2);
  // k is a graph output: it stays a node (and the identical `shape` merged into it).
  CHECK(op_counts(m.graph()) == std::map<std::string, int>{{"Add", 1}, {"Constant", 1}, {"Reshape", 1}});
  REQUIRE(initializer(m.graph(), "one") != nullptr);
  CHECK(initializer(m.graph(), "one")->dims_size() == 0);  // a scalar, as value_float is
  CHECK(constant_ints(m.graph(), producer(m.graph(), "r")->input(1)) == std::vector<int64_t>{3, 2});
}

TEST_CASE("with --hiera types pending, Constants wait for clean_functions, which moves the main graph's only") {
  onnx::ModelProto m = parse(R"(
g (float[2] x) => (float[2] y) {
  c = Constant <value_float = 2.0> ()
  m1 = Mul(x, c)
  y = local.F(m1)
}
<domain: "local", opset_import: ["" : 18]>
F (a) => (b) {
  k = Constant <value_float = 3.0> ()
  b = Mul(a, k)
})");
  m.add_opset_import()->set_domain("local");
  m.mutable_opset_import(1)->set_version(1);
  {
    model::OnnxModel t;
    t.proto = m;
    CleanOptions options;
    options.hiera_types = {"Block"};
    CHECK(clean_in_place(t, options).constants_moved == 0);
    CHECK(op_counts(t.proto.graph()).at("Constant") == 1);
  }
  CHECK(clean_functions(m).constants_moved == 1);
  CHECK(op_counts(m.graph()).count("Constant") == 0);
  CHECK(initializer(m.graph(), "c") != nullptr);
  CHECK(m.functions(0).node(0).op_type() == "Constant");  // a function has no initializers
  CHECK_NOTHROW(onnx::checker::check_model(m));
}

TEST_CASE("before --hiera, values never start crossing instances of a hiera type") {
  onnx::ModelProto m = parse(R"(
g (float[N,3] x) => (float[N,3] y) {
  a = Relu(x)
  b = Relu(x)
  y = Add(a, b)
})");
  model::OnnxModel t;
  t.proto = m;
  const ir::ModuleFrame root{"L__self__", "", "Net"};
  t.node_modules = {{root, {"L__self__b0", "b0", "mod.Block"}}, {root, {"L__self__b1", "b1", "mod.Block"}}, {root}};
  CleanOptions options;
  options.hiera_types = {"Block"};
  clean_in_place(t, options);
  CHECK(t.proto.graph().node_size() == 3);
  options.hiera_types = {};
  clean_in_place(t, options);
  CHECK(t.proto.graph().node_size() == 2);
  CHECK(t.node_modules.size() == 2);
}

TEST_CASE("identity Casts, Reshapes and Identity nodes are bypassed, only when provably identity") {
  onnx::ModelProto m = parse(R"(
g (float[2,3] x, float[N,3] n) => (float[2,3] y, float[N,3] z) {
  c = Cast <to = 1> (x)
  s = Constant <value = int64[2] {2, -1}> ()
  r = Reshape(c, s)
  i = Identity(r)
  y = Relu(i)
  sn = Constant <value = int64[2] {-1, 3}> ()
  rn = Reshape(n, sn)
  cn = Cast <to = 7> (rn)
  z = Cast <to = 1> (cn)
})");
  const CleanReport report = clean(m);
  CHECK(report.identities == 3);
  const auto counts = op_counts(m.graph());
  CHECK(counts.at("Reshape") == 1);  // of the dynamic [N,3]: not provably identity
  CHECK(counts.at("Cast") == 2);
  CHECK(producer(m.graph(), "y")->input(0) == "x");
}

TEST_CASE("arithmetic with the neutral element is bypassed, unless the constant would broadcast") {
  onnx::ModelProto m = parse(R"(
g (float[N,3] x, int64[N] i) => (float[N,3] y, float[N,3] z, int64[N] j, float[N,3] w) {
  zero = Constant <value = float {0}> ()
  one = Constant <value = float {1}> ()
  izero = Constant <value = int64[1] {0}> ()
  ones3 = Constant <value = float[1,1,1] {1}> ()
  a = Add(x, zero)
  b = Mul(one, a)
  c = Div(b, one)
  d = Sub(c, zero)
  y = Neg(d)
  i0 = Add(i, izero)
  j = Neg(i0)
  z = Sub(zero, x)
  w = Mul(x, ones3)
})");
  const CleanReport report = clean(m);
  CHECK(report.identities == 5);  // a, b, c, d, i0
  const auto counts = op_counts(m.graph());
  CHECK(producer(m.graph(), "y")->input(0) == "x");
  CHECK(counts.at("Sub") == 1);  // 0 - x is not x
  CHECK(counts.at("Mul") == 1);  // x * ones[1,1,1] has rank 3: not x
  CHECK(counts.count("Add") == 0);
  CHECK(counts.count("Div") == 0);
}

TEST_CASE("a negative-index wrap on an index that cannot be negative goes; on one that can, stays") {
  onnx::ModelProto m = parse(R"(
g (float[N,4] x, int64[N] user) => (float[N,4] y, float[N,4] z) {
  zero = Constant <value = int64 {0}> ()
  one = Constant <value = int64 {1}> ()
  shape = Shape(x)
  n = Gather <axis = 0> (shape, zero)
  r = Range(zero, n, one)
  ri = Unsqueeze(r, one)
  less = Less(ri, zero)
  wrapped = Add(ri, n)
  i = Where(less, wrapped, ri)
  y = GatherElements(x, i)
  less2 = Less(user, zero)
  wrapped2 = Add(user, n)
  j = Where(less2, wrapped2, user)
  z = Gather(x, j)
})");
  clean(m);
  const auto counts = op_counts(m.graph());
  CHECK(counts.at("Where") == 1);  // the graph input `user` may be negative
  CHECK(counts.at("Less") == 1);
  CHECK(producer(m.graph(), "y")->input(1) == "ri");
}

TEST_CASE("a floor division of a dim by a positive constant is one Div; of a possibly negative value it stays") {
  onnx::ModelProto m = parse(R"(
g (float[N,4] x, int64 user) => (int64 y, int64 z, int64 w) {
  zero = Constant <value = int64 {0}> ()
  four = Constant <value = int64 {4}> ()
  shape = Shape(x)
  n = Gather <axis = 0> (shape, zero)
  r = Mod <fmod = 0> (n, four)
  s = Sub(n, r)
  y = Div(s, four)
  r2 = Mod <fmod = 0> (user, four)
  s2 = Sub(user, r2)
  z = Div(s2, four)
  minus = Constant <value = int64 {-4}> ()
  r3 = Mod <fmod = 0> (n, minus)
  s3 = Sub(n, r3)
  w = Div(s3, minus)
})");
  clean(m);
  const auto counts = op_counts(m.graph());
  CHECK(producer(m.graph(), "y")->input(0) == "n");
  CHECK(counts.at("Mod") == 2);  // `user` may be negative; a negative divisor floors the other way
  CHECK(counts.at("Sub") == 2);
  CHECK(producer(m.graph(), "z")->input(0) == "s2");
  CHECK(producer(m.graph(), "w")->input(0) == "s3");
}

TEST_CASE("an unsqueezed dim of a Shape is a Shape slice; a negative index stays a Gather") {
  onnx::ModelProto m = parse(R"(
g (float[N,S,4] x, float[M,2] w) => (float[N,S,4] y, float[M,2] z) {
  s = Shape(x)
  one = Constant <value = int64 {1}> ()
  axes = Constant <value = int64[1] {0}> ()
  d = Gather <axis = 0> (s, one)
  u = Unsqueeze(d, axes)
  head = Constant <value = int64[1] {-1}> ()
  four = Constant <value = int64[1] {4}> ()
  shape = Concat <axis = 0> (head, u, four)
  y = Expand(x, shape)
  t = Shape(w)
  last = Constant <value = int64 {-1}> ()
  e = Gather <axis = 0> (t, last)
  v = Unsqueeze(e, axes)
  wshape = Concat <axis = 0> (head, v)
  z = Reshape(w, wshape)
})");
  model::OnnxModel t;
  t.proto = m;
  Body body = main_body(*t.proto.mutable_graph(), nullptr, {}, {});
  CHECK(slice_shape_dims(body) == 1);
  const onnx::NodeProto* u = producer(t.proto.graph(), "u");
  REQUIRE(u != nullptr);
  CHECK(u->op_type() == "Shape");
  CHECK(u->input(0) == "x");
  CHECK(int_attribute(*u, "start", -1) == 1);
  CHECK(int_attribute(*u, "end", -1) == 2);
  CHECK(producer(t.proto.graph(), "v")->op_type() == "Unsqueeze");  // k = -1 needs w's rank
}

TEST_CASE("shape pieces as Shape slices: a Slice of a Shape, a dim beside its slice, the length of an arange") {
  onnx::ModelProto m = parse(R"(
g (float[N,S,4] x) => (int64[2] head, int64 d, int64[1] u, int64[1] len, float[2] r) {
  s = Shape(x)
  zero = Constant <value = int64[1] {0}> ()
  two = Constant <value = int64[1] {2}> ()
  head = Slice(s, zero, two)
  k = Constant <value = int64 {1}> ()
  d = Gather <axis = 0> (s, k)
  e = Gather <axis = 0> (s, k)
  axes = Constant <value = int64[1] {0}> ()
  u = Unsqueeze(e, axes)
  start = Constant <value = int64 {0}> ()
  step = Constant <value = int64 {1}> ()
  a = Range(start, d, step)
  len = Shape(a)
  root = Constant <value = float[2] {4.0, 2.0}> ()
  r = Sqrt(root)
})");
  clean(m);
  const auto counts = op_counts(m.graph());
  CHECK(counts.count("Gather") == 0);
  CHECK(counts.count("Slice") == 0);
  CHECK(counts.count("Range") == 0);  // its length is d; nothing else reads it
  CHECK(counts.count("Sqrt") == 0);
  // Only slices: head's [0, 2) and [1, 2) for d, u and len (graph outputs keep their own nodes).
  for (const auto& n : m.graph().node())
    if (n.op_type() == "Shape") CHECK(find_attribute(n, "end") != nullptr);
  CHECK(producer(m.graph(), "len")->op_type() == "Shape");
  CHECK(int_attribute(*producer(m.graph(), "len"), "start", -1) == 1);
  const onnx::NodeProto* head = producer(m.graph(), "head");
  CHECK(int_attribute(*head, "start", -1) == 0);
  CHECK(int_attribute(*head, "end", -1) == 2);
  CHECK(producer(m.graph(), "d")->op_type() == "Squeeze");
  std::optional<ConstTensor> r = constant_node_value(*producer(m.graph(), "r"));
  REQUIRE(r.has_value());
  CHECK(r->floats == std::vector<double>{2.0, std::sqrt(2.0f)});
}

TEST_CASE("a Split that undoes a Concat gives the Concat's inputs back; other lengths keep it") {
  onnx::ModelProto m = parse(R"(
g (float[N,2] x, float[N,3] y) => (float[N,2] a, float[N,3] b, float[N,1] c, float[N,4] d) {
  cat = Concat <axis = 1> (x, y)
  sizes = Constant <value = int64[2] {2, 3}> ()
  p, q = Split <axis = 1> (cat, sizes)
  a = Relu(p)
  b = Relu(q)
  other = Constant <value = int64[2] {1, 4}> ()
  c, d = Split <axis = 1> (cat, other)
})");
  clean(m);
  CHECK(producer(m.graph(), "a")->input(0) == "x");
  CHECK(producer(m.graph(), "b")->input(0) == "y");
  CHECK(op_counts(m.graph()).at("Split") == 1);  // c and d cut the Concat elsewhere
}

TEST_CASE("a clamp as Max then Min (or Min then Max) with scalar bounds becomes one Clip") {
  onnx::ModelProto m = parse(R"(
g (float[N,4] x) => (float[N,4] y, float[N,4] z, float[N,4] w, float[N,4] v) {
  lo = Constant <value = float {0}> ()
  hi = Constant <value = float {6}> ()
  a = Max(x, lo)
  y = Min(a, hi)
  b = Min(hi, x)
  z = Max(b, lo)
  c = Max(x, hi)
  w = Min(c, lo)
  d = Max(x, lo)
  v = Min(d, d)
})");
  clean(m);
  const auto counts = op_counts(m.graph());
  CHECK(counts.at("Clip") == 2);  // y and z
  const onnx::NodeProto* clip = producer(m.graph(), "z");
  REQUIRE(clip->op_type() == "Clip");
  CHECK(std::vector<std::string>(clip->input().begin(), clip->input().end()) == std::vector<std::string>{"x", "lo", "hi"});
  CHECK(producer(m.graph(), "w")->op_type() == "Min");  // lo > hi: not a clamp
  CHECK(producer(m.graph(), "v")->op_type() == "Min");  // no constant bound
}

TEST_CASE("two Transposes in a row compose into one, or none when they cancel") {
  onnx::ModelProto m = parse(R"(
g (float[2,3,4,5] x) => (float[2,3,4,5] y, float[2,4,5,3] z, float[3,2,4,5] w, float[3,2,4,5] u) {
  a = Transpose <perm = [2, 0, 1, 3]> (x)
  b = Transpose <perm = [1, 2, 0, 3]> (a)
  y = Neg(b)
  c = Transpose <perm = [0, 2, 1, 3]> (x)
  z = Transpose <perm = [0, 1, 3, 2]> (c)
  t = Transpose <perm = [1, 0, 2, 3]> (x)
  w = Transpose <perm = [0, 1, 2, 3]> (t)
  u = Neg(t)
})");
  clean(m);
  CHECK(producer(m.graph(), "y")->input(0) == "x");  // [2,0,1,3] then [1,2,0,3]: the identity
  const onnx::NodeProto* z = producer(m.graph(), "z");
  REQUIRE(z->op_type() == "Transpose");
  CHECK(z->input(0) == "x");
  CHECK(std::vector<int64_t>(find_attribute(*z, "perm")->ints().begin(), find_attribute(*z, "perm")->ints().end()) ==
        std::vector<int64_t>{0, 2, 3, 1});
  CHECK(producer(m.graph(), "w")->input(0) == "t");  // t has another reader: kept
}

TEST_CASE("two Unsqueezes in a row compose into one; an inner one read elsewhere stays") {
  onnx::ModelProto m = parse(R"(
g (float[4] x, float[2,3] v) => (float[1,4,1] y, float[2,1,1,3,1] z, float[1,4,1,1] w, float[1,4] u) {
  a0 = Constant <value = int64[1] {0}> ()
  a2 = Constant <value = int64[1] {2}> ()
  a = Unsqueeze(x, a0)
  y = Unsqueeze(a, a2)
  n1 = Constant <value = int64[2] {1, -1}> ()
  n2 = Constant <value = int64[1] {2}> ()
  b = Unsqueeze(v, n1)
  z = Unsqueeze(b, n2)
  t = Unsqueeze(x, a0)
  w3 = Constant <value = int64[2] {2, 3}> ()
  w = Unsqueeze(t, w3)
  u = Identity(t)
})");
  clean(m);
  const onnx::NodeProto* y = producer(m.graph(), "y");
  REQUIRE(y->op_type() == "Unsqueeze");
  CHECK(y->input(0) == "x");
  CHECK(constant_ints(m.graph(), y->input(1)) == std::vector<int64_t>{0, 2});
  // [2, 3] -> axes 1 and -1 of rank 4 -> [2, 1, 3, 1]; then axis 2 of rank 5 -> [2, 1, 1, 3, 1].
  const onnx::NodeProto* z = producer(m.graph(), "z");
  REQUIRE(z->op_type() == "Unsqueeze");
  CHECK(z->input(0) == "v");
  CHECK(constant_ints(m.graph(), z->input(1)) == std::vector<int64_t>{1, 2, 4});
  CHECK(producer(m.graph(), "w")->input(0) != "x");  // t is read twice: kept
}

TEST_CASE("an identity whose output is a graph output renames its input's producer") {
  onnx::ModelProto m = parse(R"(
g (float[2,3] x) => (float[2,3] y) {
  r = Relu(x)
  y = Identity(r)
})");
  clean(m);
  REQUIRE(m.graph().node_size() == 1);
  CHECK(m.graph().node(0).op_type() == "Relu");
  CHECK(m.graph().node(0).output(0) == "y");
}

TEST_CASE("after --hiera: function bodies are cleaned, uncalled functions dropped") {
  onnx::ModelProto m = parse(R"(
g (float[2] x) => (float[2] y) {
  y = local.F(x)
}
<domain: "local", opset_import: ["" : 18]>
F (a) => (b) {
  dead = Neg(a)
  s1 = Shape(a)
  s2 = Shape(a)
  b = Reshape(a, s2)
}
<domain: "local", opset_import: ["" : 18]>
Unused (a) => (b) {
  b = Neg(a)
})");
  m.add_opset_import()->set_domain("local");
  m.mutable_opset_import(1)->set_version(1);
  const CleanReport report = clean_functions(m);
  CHECK(report.dead_functions == 1);
  REQUIRE(m.functions_size() == 1);
  CHECK(m.functions(0).node_size() == 2);  // one Shape, the Reshape
}

// Archive weights held in memory, by FQN: any of them can be derived from.
class FakeWeights final : public WeightReader {
 public:
  std::map<std::string, std::vector<float>> values;
  std::map<std::string, std::vector<int64_t>> int64s;
  std::optional<std::vector<float>> read_floats(const model::WeightBinding& weight) override {
    auto found = values.find(weight.fqn);
    if (found == values.end()) return std::nullopt;
    return found->second;
  }
  std::optional<std::vector<int64_t>> read_int64s(const model::WeightBinding& weight) override {
    auto found = int64s.find(weight.fqn);
    if (found == int64s.end()) return std::nullopt;
    return found->second;
  }
  bool derivable(const model::DerivedWeight& weight, const std::vector<model::DerivedWeight>& /*earlier*/) override {
    return values.count(weight.source.fqn) > 0;
  }
};

// Options that read `weights` and fold (or, with --no-fold, keep) the weights they can.
CleanOptions with_weights(FakeWeights& weights, bool fold) {
  CleanOptions options;
  options.weights = &weights;
  options.fold_weights = fold;
  return options;
}

// The derived weight named `name`, or null.
const model::DerivedWeight* find_derived(const std::vector<model::DerivedWeight>& derived, const std::string& name) {
  for (const model::DerivedWeight& d : derived)
    if (d.name == name) return &d;
  return nullptr;
}

std::vector<float> raw_floats(const onnx::TensorProto& t) {
  std::vector<float> v(t.raw_data().size() / sizeof(float));
  std::memcpy(v.data(), t.raw_data().data(), t.raw_data().size());
  return v;
}

constexpr const char* kConvBn = R"(
g (float[1,2,4,4] x) => (float[1,2,4,4] y)
  <float[2,2,1,1] w = {1, 2, 3, 4}, float[2] b = {1, -1}, float[2] gamma = {2, 3}, float[2] beta = {0.5, 1},
   float[2] mean = {3, -2}, float[2] var = {3.5, 8.5}> {
  c = Conv(x, w, b)
  y = BatchNormalization <epsilon = 0.5> (c, gamma, beta, mean, var)
})";

TEST_CASE("inference BatchNorm after a Conv folds into its weight and bias") {
  onnx::ModelProto m = parse(kConvBn);
  FakeWeights weights;
  weights.values = {{"w", {1, 2, 3, 4}}, {"b", {1, -1}},     {"gamma", {2, 3}},
                    {"beta", {0.5, 1}},  {"mean", {3, -2}}, {"var", {3.5, 8.5}}};
  CleanOptions options = with_weights(weights, true);
  std::vector<model::DerivedWeight> derived;
  const CleanReport report = clean(m, options, &derived);
  CHECK(report.batch_norms_folded == 1);
  REQUIRE(m.graph().node_size() == 1);
  const onnx::NodeProto& conv = m.graph().node(0);
  CHECK(conv.op_type() == "Conv");
  CHECK(conv.output(0) == "y");
  REQUIRE(derived.size() == 1);
  CHECK(derived[0].name == conv.input(1));
  CHECK(derived[0].source.initializer == "w");
  CHECK(derived[0].source.fqn == "w");
  const auto* scaled = std::get_if<model::DerivedWeight::Scaled>(&derived[0].how);
  REQUIRE(scaled != nullptr);
  CHECK(scaled->factors == std::vector<double>{1.0, 1.0});  // 2 / sqrt(4), 3 / sqrt(9)
  CHECK(scaled->inner == 2);
  const onnx::TensorProto* bias = initializer(m.graph(), conv.input(2));
  REQUIRE(bias != nullptr);
  CHECK(raw_floats(*bias) == std::vector<float>{-1.5f, 2.0f});  // (1 - 3) * 1 + 0.5, (-1 + 2) * 1 + 1
  // The originals are gone with the BatchNorm.
  CHECK(initializer(m.graph(), "w") == nullptr);
  CHECK(initializer(m.graph(), "gamma") == nullptr);
}

TEST_CASE("BatchNorm stays when folding is off, the Conv output has other readers, or weights are unknown") {
  {
    onnx::ModelProto m = parse(kConvBn);
    FakeWeights weights;
    weights.values = {{"w", {1, 2, 3, 4}}};
    CleanOptions options;
    options.weights = &weights;  // fold_weights unset: --no-fold
    clean(m, options);
    CHECK(op_counts(m.graph()).at("BatchNormalization") == 1);
  }
  {
    onnx::ModelProto m = parse(R"(
g (float[1,2,4,4] x) => (float[1,2,4,4] y, float[1,2,4,4] c)
  <float[2,2,1,1] w = {1, 2, 3, 4}, float[2] gamma = {1, 1}, float[2] beta = {0, 0}, float[2] mean = {0, 0},
   float[2] var = {1, 1}> {
  c = Conv(x, w)
  y = BatchNormalization(c, gamma, beta, mean, var)
})");
    FakeWeights weights;
    weights.values = {{"w", {1, 2, 3, 4}}, {"gamma", {1, 1}}, {"beta", {0, 0}}, {"mean", {0, 0}}, {"var", {1, 1}}};
    CleanOptions options = with_weights(weights, true);
    clean(m, options);
    CHECK(op_counts(m.graph()).at("BatchNormalization") == 1);
  }
  {
    onnx::ModelProto m = parse(kConvBn);
    FakeWeights weights;  // nothing derivable
    CleanOptions options = with_weights(weights, true);
    clean(m, options);
    CHECK(op_counts(m.graph()).at("BatchNormalization") == 1);
  }
}

// _weight_norm(v, g, dim=2) of a Conv1d weight, as translate writes it.
constexpr const char* kWeightNorm = R"(
g (float[1,2,5] x) => (float[1,3,4] y) <float[3,2,2] v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, float[1,1,2] gain = {2, 3}> {
  axes = Constant <value = int64[2] {0, 1}> ()
  r = ReduceL2 <keepdims = 1> (v, axes)
  q = Div(gain, r)
  w = Mul(v, q)
  y = Conv(x, w)
})";

TEST_CASE("a weight norm of two weights folds into one weight scaled per channel of its dim") {
  model::OnnxModel t;
  t.proto = parse(kWeightNorm);
  bind_all(t);
  FakeWeights weights;
  weights.values = {{"v", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}, {"gain", {2, 3}}};
  CleanOptions options = with_weights(weights, true);
  std::vector<model::DerivedWeight> derived;
  CHECK(clean_in_place(t, options, &derived).weight_norms_folded == 1);
  const onnx::GraphProto& graph = t.proto.graph();
  CHECK(op_counts(graph) == std::map<std::string, int>{{"Conv", 1}});
  const onnx::NodeProto& conv = graph.node(0);
  REQUIRE(derived.size() == 1);
  CHECK(derived[0].name == conv.input(1));
  CHECK(derived[0].source.fqn == "v");
  const auto* scaled = std::get_if<model::DerivedWeight::Scaled>(&derived[0].how);
  REQUIRE(scaled != nullptr);
  // Channel k of the last axis: gain[k] / sqrt(sum of v[:, :, k]^2).
  REQUIRE(scaled->factors.size() == 2);
  CHECK(scaled->factors[0] == doctest::Approx(2 / std::sqrt(1.0 + 9 + 25 + 49 + 81 + 121)).epsilon(1e-15));
  CHECK(scaled->factors[1] == doctest::Approx(3 / std::sqrt(4.0 + 16 + 36 + 64 + 100 + 144)).epsilon(1e-15));
  CHECK(scaled->inner == 1);
  const onnx::TensorProto* w = initializer(graph, conv.input(1));
  REQUIRE(w != nullptr);
  CHECK(std::vector<int64_t>(w->dims().begin(), w->dims().end()) == std::vector<int64_t>{3, 2, 2});
  CHECK(initializer(graph, "v") == nullptr);
  CHECK(initializer(graph, "gain") == nullptr);
}

TEST_CASE("a weight norm stays with --no-fold, when v has another reader, or when its norm keeps two axes") {
  auto folded = [](const std::string& text, bool fold) {
    model::OnnxModel t;
    t.proto = parse(text);
    bind_all(t);
    FakeWeights weights;
    weights.values = {{"v", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}, {"gain", {2, 3}}};
    CleanOptions options = with_weights(weights, fold);
    const int n = clean_in_place(t, options).weight_norms_folded;
    CHECK(op_counts(t.proto.graph()).count("ReduceL2") == static_cast<size_t>(n == 0));
    return n;
  };
  CHECK(folded(kWeightNorm, false) == 0);
  std::string read_twice = kWeightNorm;
  read_twice.replace(read_twice.find("=> (float[1,3,4] y)"), 19, "=> (float[1,3,4] y, float[3,2,2] v2)");
  read_twice.replace(read_twice.find("  y = Conv"), 0, "  v2 = Neg(v)\n");
  CHECK(folded(read_twice, true) == 0);
  std::string two_kept = kWeightNorm;
  two_kept.replace(two_kept.find("int64[2] {0, 1}"), 15, "int64[1] {0}");
  two_kept.replace(two_kept.find("float[1,1,2] gain"), 17, "float[1,2,1] gain");
  CHECK(folded(two_kept, true) == 0);
}

TEST_CASE("BatchNorm after a Gemm folds per column of B (transB = 0) with beta * C in the bias") {
  onnx::ModelProto m = parse(R"(
g (float[4,3] x) => (float[4,2] y)
  <float[3,2] w = {1, 2, 3, 4, 5, 6}, float[2] c = {1, 2}, float[2] gamma = {1, 4}, float[2] beta = {0, 1},
   float[2] mean = {1, 0}, float[2] var = {1, 4}> {
  g1 = Gemm <beta = 2.0> (x, w, c)
  y = BatchNormalization <epsilon = 0.0> (g1, gamma, beta, mean, var)
})");
  FakeWeights weights;
  weights.values = {{"w", {1, 2, 3, 4, 5, 6}}, {"c", {1, 2}}, {"gamma", {1, 4}},
                    {"beta", {0, 1}},          {"mean", {1, 0}}, {"var", {1, 4}}};
  CleanOptions options = with_weights(weights, true);
  std::vector<model::DerivedWeight> derived;
  clean(m, options, &derived);
  REQUIRE(m.graph().node_size() == 1);
  const onnx::NodeProto& gemm = m.graph().node(0);
  const model::DerivedWeight* w = find_derived(derived, gemm.input(1));
  REQUIRE(w != nullptr);
  const auto* scaled = std::get_if<model::DerivedWeight::Scaled>(&w->how);
  REQUIRE(scaled != nullptr);
  CHECK(scaled->factors == std::vector<double>{1.0, 2.0});
  CHECK(scaled->inner == 1);
  CHECK(raw_floats(*initializer(m.graph(), gemm.input(2))) == std::vector<float>{1.0f, 9.0f});  // (2-1)*1+0, 4*2+1
  CHECK(find_attribute(gemm, "beta")->f() == 1.0f);
}

// A declared (archive) weight, as the translator writes one: dims and type, no data.
void declare_weight(onnx::GraphProto& graph, const std::string& name, std::vector<int64_t> dims) {
  for (auto& t : *graph.mutable_initializer())
    if (t.name() == name) {
      t.clear_raw_data();
      t.clear_float_data();
      t.clear_int64_data();
      t.clear_dims();
      for (int64_t d : dims) t.add_dims(d);
    }
}

TEST_CASE("a relative position bias gathered from two small weights read nowhere else folds to one constant") {
  const char* text = R"(
g (float[2,3,3] x) => (float[2,3,3] y, float[2] z, float[2] n, float[1,2] s) <float[3,2] table = {0,0,0,0,0,0}, int64[3,3] index = {0,0,0,0,0,0,0,0,0}, float[2] other = {0,0}, float[2] single = {0,0}> {
  flat = Constant <value = int64[1] {-1}> ()
  i = Reshape(index, flat)
  rows = Gather <axis = 0> (table, i)
  shape = Constant <value = int64[3] {3, 3, 2}> ()
  bias = Reshape(rows, shape)
  biasT = Transpose <perm = [2, 0, 1]> (bias)
  y = Add(x, biasT)
  axes = Constant <value = int64[1] {0}> ()
  u = Unsqueeze(other, axes)
  z = Squeeze(u, axes)
  n = Neg(other)
  s = Unsqueeze(single, axes)
})";
  for (bool fold : {true, false}) {
    onnx::ModelProto m = parse(text);
    declare_weight(*m.mutable_graph(), "table", {3, 2});
    declare_weight(*m.mutable_graph(), "index", {3, 3});
    declare_weight(*m.mutable_graph(), "other", {2});
    declare_weight(*m.mutable_graph(), "single", {2});
    FakeWeights weights;
    weights.values = {{"table", {1, 2, 3, 4, 5, 6}}, {"other", {7, 8}}, {"single", {9, 10}}};
    weights.int64s = {{"index", {0, 1, 2, 2, 1, 0, 1, 1, 1}}};
    CleanOptions options = with_weights(weights, fold);  // false: --no-fold, weights as in the archive
    model::OnnxModel t;
    t.proto = m;
    bind_all(t);
    clean_in_place(t, options);
    const auto counts = op_counts(t.proto.graph());
    CHECK(counts.count("Gather") == (fold ? 0 : 1));
    CHECK(initializer(t.proto.graph(), "table") == (fold ? nullptr : initializer(t.proto.graph(), "table")));
    // `other` has two readers: folding its Unsqueeze would hold it twice.
    CHECK(initializer(t.proto.graph(), "other") != nullptr);
    // `single` is read once, but by no index buffer's chain: a float weight stays a weight.
    CHECK(initializer(t.proto.graph(), "single") != nullptr);
    CHECK(counts.at("Unsqueeze") == 2);
    if (!fold) continue;
    CHECK(counts.count("Reshape") == 0);
    const onnx::TensorProto* b = initializer(t.proto.graph(), "biasT");
    REQUIRE(b != nullptr);
    std::optional<ConstTensor> v = read_const(*b);
    REQUIRE(v.has_value());
    CHECK(v->dims == std::vector<int64_t>{2, 3, 3});
    // biasT[c, i, j] = table[index[i, j], c]
    CHECK(v->floats == std::vector<double>{1, 3, 5, 5, 3, 1, 3, 3, 3, 2, 4, 6, 6, 4, 2, 4, 4, 4});
  }
}

TEST_CASE("a Transpose of a weight folds into a transposed weight, streamed from the archive") {
  onnx::ModelProto m = parse(R"(
g (float[2,5,3] x) => (float[2,5,4] y) <float[4,3] w = {0,0,0,0,0,0,0,0,0,0,0,0}> {
  wt = Transpose <perm = [1, 0]> (w)
  wt2 = Transpose <perm = [1, 0]> (w)
  a = MatMul(x, wt)
  t1 = Transpose <perm = [0, 2, 1]> (a)
  t2 = Transpose <perm = [0, 2, 1]> (t1)
  b = MatMul(x, wt2)
  y = Add(t2, b)
})");
  declare_weight(*m.mutable_graph(), "w", {4, 3});
  FakeWeights weights;
  weights.values = {{"w", std::vector<float>(12, 0.0f)}};
  CleanOptions options = with_weights(weights, true);
  model::OnnxModel t;
  t.proto = m;
  bind_all(t);
  std::vector<model::DerivedWeight> derived;
  const CleanReport report = clean_in_place(t, options, &derived);
  CHECK(report.transposes_folded == 1);  // the two identical Transposes merged first
  const auto counts = op_counts(t.proto.graph());
  CHECK(counts.at("MatMul") == 1);      // x @ w.T twice: merged
  CHECK(counts.count("Transpose") == 0);  // the weight's folded; t1 then t2 cancel (fuse_transposes)
  REQUIRE(derived.size() == 1);
  CHECK(derived[0].name == "w.T");
  CHECK(derived[0].source.initializer == "w");
  const auto* permuted = std::get_if<model::DerivedWeight::Permuted>(&derived[0].how);
  REQUIRE(permuted != nullptr);
  CHECK(permuted->perm == std::vector<int64_t>{1, 0});
  CHECK(t.weights.empty());  // w's binding went with w
  const onnx::TensorProto* wt = initializer(t.proto.graph(), "w.T");
  REQUIRE(wt != nullptr);
  CHECK(std::vector<int64_t>(wt->dims().begin(), wt->dims().end()) == std::vector<int64_t>{3, 4});
  CHECK(initializer(t.proto.graph(), "w") == nullptr);  // nothing reads the original any more
  CHECK(producer(t.proto.graph(), "a")->input(1) == "w.T");
}

TEST_CASE("a weight Transpose stays when the weight has other readers, data in the proto, or --no-fold") {
  constexpr const char* kTied = R"(
g (int64[5] ids, float[2,3] x) => (float[5,3] e, float[2,4] y) <float[4,3] w = {0,0,0,0,0,0,0,0,0,0,0,0}> {
  e = Gather(w, ids)
  wt = Transpose <perm = [1, 0]> (w)
  y = MatMul(x, wt)
})";
  for (int variant = 0; variant < 3; ++variant) {
    onnx::ModelProto m = parse(variant == 0 ? kTied : R"(
g (float[2,3] x) => (float[2,4] y) <float[4,3] w = {0,0,0,0,0,0,0,0,0,0,0,0}> {
  wt = Transpose <perm = [1, 0]> (w)
  y = MatMul(x, wt)
})");
    if (variant != 1) declare_weight(*m.mutable_graph(), "w", {4, 3});  // variant 1: data in the proto
    FakeWeights weights;
    weights.values = {{"w", std::vector<float>(12, 0.0f)}};
    CleanOptions options = with_weights(weights, variant != 2);  // variant 2: --no-fold
    model::OnnxModel t;
    t.proto = m;
    bind_all(t);
    std::vector<model::DerivedWeight> derived;
    CHECK(clean_in_place(t, options, &derived).transposes_folded == 0);
    CHECK(op_counts(t.proto.graph()).at("Transpose") == 1);
    CHECK(derived.empty());
  }
}

TEST_CASE("an Add or Sub of a weight and a scalar folds into a shifted weight, streamed from the archive") {
  // Gemma's RMSNorm: x * (1 + w); v is read by two identical shifts (c - v), n by a shift and a Mul.
  onnx::ModelProto m = parse(R"(
g (float[2,3] x) => (float[2,3] y, float[2,3] z, float[2,3] q) <float[3] w = {0,0,0}, float[3] v = {0,0,0},
   float[3] n = {0,0,0}> {
  one = Constant <value = float {1.0}> ()
  two = Constant <value = float[1] {2.0}> ()
  s = Add(w, one)
  y = Mul(x, s)
  d1 = Sub(two, v)
  d2 = Sub(two, v)
  e = Add(d1, d2)
  z = Mul(x, e)
  ns = Add(n, one)
  nm = Mul(n, x)
  q = Add(ns, nm)
})");
  for (const char* name : {"w", "v", "n"}) declare_weight(*m.mutable_graph(), name, {3});
  FakeWeights weights;
  weights.values = {{"w", {1, 2, 3}}, {"v", {1, 2, 3}}, {"n", {1, 2, 3}}};
  CleanOptions options = with_weights(weights, true);
  model::OnnxModel t;
  t.proto = m;
  bind_all(t);
  std::vector<model::DerivedWeight> derived;
  const CleanReport report = clean_in_place(t, options, &derived);
  CHECK(report.shifts_folded == 2);
  REQUIRE(derived.size() == 2);
  const model::DerivedWeight* w = find_derived(derived, "w.shifted");
  REQUIRE(w != nullptr);
  CHECK(w->source.initializer == "w");
  const auto* shifted = std::get_if<model::DerivedWeight::Scaled>(&w->how);
  REQUIRE(shifted != nullptr);
  CHECK(shifted->factors == std::vector<double>{1.0});
  CHECK(shifted->offset == 1.0);
  const model::DerivedWeight* v = find_derived(derived, "v.shifted");
  REQUIRE(v != nullptr);
  const auto* negated = std::get_if<model::DerivedWeight::Scaled>(&v->how);
  REQUIRE(negated != nullptr);
  CHECK(negated->factors == std::vector<double>{-1.0});  // 2 - v
  CHECK(negated->offset == 2.0);
  CHECK(producer(t.proto.graph(), "y")->input(1) == "w.shifted");
  CHECK(initializer(t.proto.graph(), "w") == nullptr);
  CHECK(initializer(t.proto.graph(), "v") == nullptr);
  // n has another reader: the file would hold it twice.
  CHECK(initializer(t.proto.graph(), "n") != nullptr);
  CHECK(find_derived(derived, "n.shifted") == nullptr);
  CHECK(op_counts(t.proto.graph()).at("Add") == 3);  // d1 + d2, n + 1, ns + nm
  CHECK(op_counts(t.proto.graph()).count("Sub") == 0);
}

TEST_CASE("a weight shift stays with --no-fold, a non-scalar or zero constant, or two different shifts") {
  const char* texts[] = {
      R"(g (float[2,3] x) => (float[2,3] y) <float[3] w = {0,0,0}> {
  one = Constant <value = float {1.0}> ()
  s = Add(w, one)
  y = Mul(x, s)
})",
      R"(g (float[2,3] x) => (float[2,3] y) <float[3] w = {0,0,0}> {
  c = Constant <value = float[3] {1.0, 2.0, 3.0}> ()
  s = Add(w, c)
  y = Mul(x, s)
})",
      R"(g (float[2,3] x) => (float[2,3] y) <float[3] w = {0,0,0}> {
  zero = Constant <value = float {0.0}> ()
  s = Sub(zero, w)
  y = Mul(x, s)
})",
      R"(g (float[2,3] x) => (float[2,3] y) <float[3] w = {0,0,0}> {
  one = Constant <value = float {1.0}> ()
  two = Constant <value = float {2.0}> ()
  s = Add(w, one)
  r = Add(w, two)
  p = Mul(s, r)
  y = Mul(x, p)
})"};
  for (int variant = 0; variant < 4; ++variant) {
    CAPTURE(variant);
    onnx::ModelProto m = parse(texts[variant]);
    declare_weight(*m.mutable_graph(), "w", {3});
    FakeWeights weights;
    weights.values = {{"w", {1, 2, 3}}};
    CleanOptions options = with_weights(weights, variant != 0);  // variant 0: --no-fold
    model::OnnxModel t;
    t.proto = m;
    bind_all(t);
    std::vector<model::DerivedWeight> derived;
    CHECK(clean_in_place(t, options, &derived).shifts_folded == 0);
    CHECK(derived.empty());
    CHECK(initializer(t.proto.graph(), "w") != nullptr);
  }
}

// An int8 weight declared as translate leaves it: dims and type, no data.
onnx::ModelProto int4_cast_model(const char* extra_reader) {
  onnx::ModelProto m = parse(std::string(R"(
g (float[2,8] x) => (float[2,4] y, float[4,8] e) <int8[4,8] w = {0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0},
   float[4,2] s = {1,1,1,1,1,1,1,1}> {
  c = Cast <to = 22> (w)
  d = DequantizeLinear <axis = 1, block_size = 4> (c, s)
  dt = Transpose <perm = [1, 0]> (d)
  y = MatMul(x, dt)
  )") + extra_reader + "\n}");
  for (auto& t : *m.mutable_graph()->mutable_initializer())
    if (t.name() == "w") t.clear_int32_data();
  return m;
}

TEST_CASE("a Cast of an int8 weight to INT4 becomes an INT4 weight packed from the archive, even with --no-fold") {
  FakeWeights weights;
  weights.values = {{"w", std::vector<float>(32, 0.0f)}};
  CleanOptions options;
  options.weights = &weights;
  options.pack_weights = true;  // fold_weights unset: --no-fold
  model::OnnxModel t;
  t.proto = int4_cast_model("e = Cast <to = 1> (d)");
  bind_all(t);
  std::vector<model::DerivedWeight> derived;
  CHECK(clean_in_place(t, options, &derived).weights_packed == 1);
  CHECK(op_counts(t.proto.graph()).count("Cast") == 1);  // only e's
  REQUIRE(derived.size() == 1);
  CHECK(derived[0].name == "w.int4");
  CHECK(derived[0].source.initializer == "w");
  const auto* packed = std::get_if<model::DerivedWeight::Packed4Bit>(&derived[0].how);
  REQUIRE(packed != nullptr);
  CHECK(packed->is_signed);
  CHECK(packed->dims.empty());
  const onnx::TensorProto* w4 = initializer(t.proto.graph(), "w.int4");
  REQUIRE(w4 != nullptr);
  CHECK(w4->data_type() == 22);
  CHECK(std::vector<int64_t>(w4->dims().begin(), w4->dims().end()) == std::vector<int64_t>{4, 8});
  CHECK(initializer(t.proto.graph(), "w") == nullptr);
  CHECK(producer(t.proto.graph(), "d")->input(0) == "w.int4");
}

TEST_CASE("the Cast to INT4 stays when the weight has another reader or cannot be packed") {
  for (int variant = 0; variant < 2; ++variant) {
    FakeWeights weights;
    if (variant == 0) weights.values = {{"w", std::vector<float>(32, 0.0f)}};  // variant 1: not packable
    CleanOptions options;
    options.weights = &weights;
    options.pack_weights = true;
    model::OnnxModel t;
    t.proto = int4_cast_model(variant == 0 ? "e = Cast <to = 1> (w)" : "e = Cast <to = 1> (d)");
    bind_all(t);
    std::vector<model::DerivedWeight> derived;
    CHECK(clean_in_place(t, options, &derived).weights_packed == 0);
    CHECK(derived.empty());
    CHECK(initializer(t.proto.graph(), "w") != nullptr);
  }
}

}  // namespace
}  // namespace pt2onnx::clean

namespace pt2onnx::clean {
namespace {

// An oracle of float types written as "N,4,3": numbers are static dims, anything else a symbol.
TypeOracle float_types(std::map<std::string, std::string> specs) {
  return [specs = std::move(specs)](const std::string& name) -> std::optional<ValueType> {
    auto found = specs.find(name);
    if (found == specs.end()) return std::nullopt;
    ValueType t{onnx::TensorProto_DataType_FLOAT, {}, {}, true};
    std::string rest = found->second;
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      const std::string d = rest.substr(0, comma);
      rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
      const bool number = !d.empty() && d.find_first_not_of("0123456789") == std::string::npos;
      t.dims.push_back(number ? std::optional<int64_t>(std::stoll(d)) : std::nullopt);
      t.symbols.push_back(number ? "" : d);
    }
    return t;
  };
}

// view(a, [4N, 3, 2]) and view(b, [4N, 2, 5]) -> bmm -> view [N, 4, 3, 5], shapes computed from N.
const char* kBatchedChain = R"(
g (float[N,4,3,2] a, float[N,4,2,5] b) => (float[N,4,3,5] c, float[4,N,3,5] e) {
  s = Shape(a)
  i0 = Constant <value = int64 {0}> ()
  four = Constant <value = int64 {4}> ()
  n = Gather <axis = 0> (s, i0)
  n4 = Mul(n, four)
  axes = Constant <value = int64[1] {0}> ()
  n4u = Unsqueeze(n4, axes)
  nu = Unsqueeze(n, axes)
  mk = Constant <value = int64[2] {3, 2}> ()
  kn = Constant <value = int64[2] {2, 5}> ()
  sa = Concat <axis = 0> (n4u, mk)
  sb = Concat <axis = 0> (n4u, kn)
  a2 = Reshape(a, sa)
  b2 = Reshape(b, sb)
  c2 = MatMul(a2, b2)
  four1 = Constant <value = int64[1] {4}> ()
  mn = Constant <value = int64[2] {3, 5}> ()
  sc = Concat <axis = 0> (nu, four1, mn)
  c = Reshape(c2, sc)
  e2 = MatMul(a2, b2)
  se = Concat <axis = 0> (four1, nu, mn)
  e = Reshape(e2, se)
})";

}  // namespace

TEST_CASE("Reshape -> MatMul -> Reshape over merged batch dims is one broadcasting MatMul") {
  onnx::ModelProto m = parse(kBatchedChain);
  CleanOptions options;
  // e's view splits 4N as [4, N], not as a's [N, 4]: its chain must stay.
  options.types = float_types({{"a2", "4*N,3,2"}, {"b2", "4*N,2,5"}, {"c2", "4*N,3,5"}, {"e2", "4*N,3,5"}});
  clean(m, options);
  const onnx::NodeProto* c = producer(m.graph(), "c");
  REQUIRE(c != nullptr);
  CHECK(c->op_type() == "MatMul");
  CHECK(c->input(0) == "a");
  CHECK(c->input(1) == "b");
  CHECK(producer(m.graph(), "e")->op_type() == "Reshape");
  const auto counts = op_counts(m.graph());
  CHECK(counts.at("MatMul") == 2);
  CHECK(counts.at("Reshape") == 3);  // a2, b2 (read by e's chain) and e
}

TEST_CASE("a batched chain stays where the types do not prove the batch dims the same") {
  onnx::ModelProto m = parse(kBatchedChain);
  CleanOptions options;
  options.types = float_types({{"b2", "4*N,2,5"}, {"c2", "4*N,3,5"}});  // a2's dims unknown
  clean(m, options);
  CHECK(producer(m.graph(), "c")->op_type() == "Reshape");
  CHECK(producer(m.graph(), "e")->op_type() == "Reshape");
}

TEST_CASE("view -> addmm -> view of a linear is MatMul + Add on the unreshaped input") {
  onnx::ModelProto m = parse(R"(
g (float[N,S,8] x, float[8,6] w, float[6] bias, float[6,8] wt) => (float[N,S,6] y, float[N,S,6] z) {
  flat = Constant <value = int64[2] {-1, 8}> ()
  x2 = Reshape(x, flat)
  y2 = Gemm(x2, w, bias)
  z2 = Gemm <transB = 1> (x2, wt, bias)
  back = Constant <value = int64[3] {0, 0, 6}> ()
  s = Shape(x)
  i1 = Constant <value = int64[2] {0, 1}> ()
  ns = Gather <axis = 0> (s, i1)
  six = Constant <value = int64[1] {6}> ()
  sy = Concat <axis = 0> (ns, six)
  y = Reshape(y2, sy)
  z = Reshape(z2, sy)
})");
  CleanOptions options;
  options.types = float_types({{"x2", "N*S,8"}, {"y2", "N*S,6"}, {"z2", "N*S,6"}});
  clean(m, options);
  const onnx::NodeProto* y = producer(m.graph(), "y");
  REQUIRE(y != nullptr);
  CHECK(y->op_type() == "Add");
  CHECK(y->input(1) == "bias");
  const onnx::NodeProto* mm = producer(m.graph(), y->input(0));
  REQUIRE(mm != nullptr);
  CHECK(mm->op_type() == "MatMul");
  CHECK(mm->input(0) == "x");
  CHECK(mm->input(1) == "w");
  CHECK(producer(m.graph(), "z")->op_type() == "Reshape");  // transB: kept
}

TEST_CASE("a Reshape or Expand to the input's own symbolic dims is bypassed; to other dims it stays") {
  onnx::ModelProto m = parse(R"(
g (float[N,S,8] x, int64[S,N] ids) => (float[N,S,8] y, float[N,S,8] z, float[S,N,8] w) {
  s = Shape(ids)
  i0 = Constant <value = int64 {0}> ()
  i1 = Constant <value = int64 {1}> ()
  axes = Constant <value = int64[1] {0}> ()
  sd = Gather <axis = 0> (s, i0)
  nd = Gather <axis = 0> (s, i1)
  su = Unsqueeze(sd, axes)
  nu = Unsqueeze(nd, axes)
  eight = Constant <value = int64[1] {8}> ()
  nse = Concat <axis = 0> (nu, su, eight)
  r = Reshape(x, nse)
  y = Relu(r)
  e = Expand(x, nse)
  z = Relu(e)
  sne = Concat <axis = 0> (su, nu, eight)
  w = Reshape(x, sne)
})");
  CleanOptions options;
  options.types = float_types({{"r", "N,S,8"}, {"e", "N,S,8"}});
  clean(m, options);
  CHECK(producer(m.graph(), "y")->input(0) == "x");
  CHECK(producer(m.graph(), "z")->input(0) == "x");
  CHECK(op_counts(m.graph()).count("Expand") == 0);
  CHECK(producer(m.graph(), "w")->op_type() == "Reshape");  // [S, N, 8] is not x's [N, S, 8]
}

TEST_CASE("Reshape of a Reshape is one Reshape, its shape written from the types") {
  onnx::ModelProto m = parse(R"(
g (float[K,8] x, float[M,8] u) => (float[N,6,2,4] z, float[N,S,2,4] v) {
  s1 = Constant <value = int64[3] {-1, 6, 8}> ()
  y = Reshape(x, s1)
  s2 = Constant <value = int64[4] {0, 6, 2, 4}> ()
  z = Reshape(y, s2)
  t = Reshape(u, s1)
  v = Reshape(t, s2)
})");
  CleanOptions options;
  // x is [6N, 8]; u is [N*S, 8], where two dims of v are neither static nor u's: v's pair stays.
  options.types = float_types({{"x", "6*N,8"}, {"y", "N,6,8"}, {"z", "N,6,2,4"},
                               {"u", "N*S,8"}, {"t", "N,S,8"}, {"v", "N,S,2,4"}});
  clean(m, options);
  const onnx::NodeProto* z = producer(m.graph(), "z");
  REQUIRE(z != nullptr);
  CHECK(z->input(0) == "x");
  CHECK(constant_ints(m.graph(), z->input(1)) == std::vector<int64_t>{-1, 6, 2, 4});
  CHECK(producer(m.graph(), "y") == nullptr);
  CHECK(producer(m.graph(), "v")->input(0) == "t");
}

}  // namespace pt2onnx::clean
