// Integers that float arithmetic on constants computes, as WavLM's relative-position buckets do
// (Cast(int64, 8 + Log(Cast(float, |i - j|) / 8) / log(8) * 8), clamped by Min and picked by
// Where from static positions). Each float element is computed here in double precision with a
// bound on how far any runtime's result can be from it: every rounding step, Log included, is
// taken to be off by up to kSlackUlps units in the last place of its type (libm and vectorised
// logs are within 1-2), while Add/Sub/Mul of exact operands that round nowhere, a division by a
// power of two that rounds nowhere, and Log(1) are exact. A float-to-int Cast gives each element
// the range of integers its bound truncates to, and integer arithmetic carries ranges on (Min
// clamps one); an element folds when its range is one integer. Non-finite elements are unknown,
// and a node reading them folds only where it never selects them (Where picks the other
// branch). Only integer results become constants (the float nodes before them go dead), so no
// float value moves: the integers are those every runtime computes. Small tensors only.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "clean/const_tensor.h"
#include "clean/passes_internal.h"
#include "common/view_map.h"

namespace pt2onnx::clean {

namespace {

constexpr double kSlackUlps = 4;

// A value the sweep knows, element by element: its floats, or the least of the ints it may be
// (0 where unknown), and how far a runtime's element may be above that.
struct Value {
  ConstTensor t;
  std::vector<double> error;  // floats: the bound either side; empty: all exact
  std::vector<int64_t> span;  // ints: the element lies in [t.ints[i], t.ints[i] + span[i]]; empty: all 0
  std::vector<char> unknown;  // empty: none

  bool known(size_t i) const { return unknown.empty() || !unknown[i]; }
  double error_at(size_t i) const { return error.empty() ? 0.0 : error[i]; }
  int64_t high(size_t i) const { return t.ints[i] + (span.empty() ? 0 : span[i]); }
  bool all_known() const { return std::none_of(unknown.begin(), unknown.end(), [](char u) { return u != 0; }); }
  bool all_exact() const {
    return std::all_of(error.begin(), error.end(), [](double e) { return e == 0; }) &&
           std::all_of(span.begin(), span.end(), [](int64_t s) { return s == 0; });
  }
};

Value exactly(ConstTensor t) {
  Value v;
  v.t = std::move(t);
  return v;
}

// One element of a result: a float and its bound, or a range of ints [i, hi].
struct Elem {
  double f = 0;
  int64_t i = 0, hi = 0;
  double error = 0;
  bool unknown = false;
};
const Elem kUnknown{0, 0, 0, 0, true};

Elem int_range(int64_t lo, int64_t hi) {
  Elem r;
  r.i = lo;
  r.hi = hi;
  return r;
}

double ulp(double x, int32_t type) {
  if (type == onnx::TensorProto_DataType_FLOAT) {
    const float f = std::fabs(static_cast<float>(x));
    return static_cast<double>(std::nextafter(f, std::numeric_limits<float>::infinity())) - static_cast<double>(f);
  }
  const double d = std::fabs(x);
  return std::nextafter(d, std::numeric_limits<double>::infinity()) - d;
}

bool representable(double x, int32_t type) {
  return type != onnx::TensorProto_DataType_FLOAT || static_cast<double>(static_cast<float>(x)) == x;
}

bool power_of_two(double x) {
  int exponent;
  return std::isfinite(x) && x != 0 && std::fabs(std::frexp(x, &exponent)) == 0.5;
}

// The elements of `ins` broadcast together (numpy rules), each made by `make` from its flat
// index into every input; nullopt when the shapes do not broadcast or the result is large.
template <typename Make>
std::optional<Value> elementwise(const std::vector<const Value*>& ins, int32_t type, Make make) {
  std::vector<int64_t> dims;
  for (const Value* v : ins) {
    const std::vector<int64_t>& d = v->t.dims;
    if (d.size() > dims.size()) dims.insert(dims.begin(), d.size() - dims.size(), 1);
    for (size_t k = 0; k < d.size(); ++k) {
      int64_t& out = dims[dims.size() - d.size() + k];
      if (out == 1) out = d[k];
      else if (d[k] != 1 && d[k] != out) return std::nullopt;
    }
  }
  Value out;
  out.t.elem_type = type;
  out.t.dims = dims;
  const int64_t total = out.t.numel();
  if (total > kMaxFoldElements) return std::nullopt;
  // Each input's stride per output dim (0 where it broadcasts).
  std::vector<std::vector<int64_t>> strides(ins.size(), std::vector<int64_t>(dims.size(), 0));
  for (size_t k = 0; k < ins.size(); ++k) {
    const std::vector<int64_t>& d = ins[k]->t.dims;
    int64_t stride = 1;
    for (size_t j = d.size(); j-- > 0;) {
      if (d[j] != 1) strides[k][dims.size() - d.size() + j] = stride;
      stride *= d[j];
    }
  }
  std::vector<int64_t> index(dims.size(), 0), flat(ins.size(), 0);
  const bool floats = is_float_type(type);
  for (int64_t e = 0; e < total; ++e) {
    const Elem r = make(flat);
    if (floats) out.t.floats.push_back(r.unknown ? 0.0 : r.f);
    else out.t.ints.push_back(r.unknown ? 0 : r.i);
    if (floats) out.error.push_back(r.unknown ? 0.0 : r.error);
    else out.span.push_back(r.unknown ? 0 : r.hi - r.i);
    out.unknown.push_back(r.unknown ? 1 : 0);
    for (size_t d = dims.size(); d-- > 0;) {
      for (size_t k = 0; k < ins.size(); ++k) flat[k] += strides[k][d];
      if (++index[d] < dims[d]) break;
      for (size_t k = 0; k < ins.size(); ++k) flat[k] -= strides[k][d] * dims[d];
      index[d] = 0;
    }
  }
  return out;
}

// Float Add/Sub/Mul/Div with error bounds.
std::optional<Value> float_binary(const std::string& op, const Value& a, const Value& b) {
  const int32_t type = a.t.elem_type;
  return elementwise({&a, &b}, type, [&](const std::vector<int64_t>& at) {
    const auto i = static_cast<size_t>(at[0]), j = static_cast<size_t>(at[1]);
    if (!a.known(i) || !b.known(j)) return kUnknown;
    const double x = a.t.floats[i], y = b.t.floats[j], ex = a.error_at(i), ey = b.error_at(j);
    Elem r;
    bool exact;  // the double result is the exact one, and a runtime's is too
    if (op == "Add" || op == "Sub") {
      const double yy = op == "Add" ? y : -y;
      r.f = x + yy;
      const double back = r.f - x;
      exact = (x - (r.f - back)) + (yy - back) == 0;  // TwoSum's error term
      r.error = ex + ey;
    } else if (op == "Mul") {
      r.f = x * y;
      exact = std::fma(x, y, -r.f) == 0;
      r.error = std::fabs(x) * ey + std::fabs(y) * ex + ex * ey;
    } else {  // Div
      if (!(std::fabs(y) > ey)) return kUnknown;
      r.f = x / y;
      exact = x == 0 || (power_of_two(y) && std::fma(r.f, y, -x) == 0);
      r.error = (std::fabs(x) * ey + std::fabs(y) * ex) / (std::fabs(y) * (std::fabs(y) - ey));
    }
    if (!std::isfinite(r.f) || !std::isfinite(r.error)) return kUnknown;
    if (!(exact && representable(r.f, type) && ex == 0 && ey == 0)) r.error += kSlackUlps * ulp(r.f, type);
    return r;
  });
}

std::optional<Value> float_log(const Value& a) {
  const int32_t type = a.t.elem_type;
  return elementwise({&a}, type, [&](const std::vector<int64_t>& at) {
    const auto i = static_cast<size_t>(at[0]);
    const double x = a.t.floats[i], ex = a.error_at(i);
    if (!a.known(i) || !(x - ex > 0)) return kUnknown;
    Elem r;
    r.f = std::log(x);
    if (!std::isfinite(r.f)) return kUnknown;
    if (x != 1 || ex != 0) r.error = ex / (x - ex) + kSlackUlps * ulp(r.f, type);
    return r;
  });
}

std::optional<Value> cast(const Value& a, int32_t to) {
  const int32_t from = a.t.elem_type;
  const bool to_int = to == onnx::TensorProto_DataType_INT64 || to == onnx::TensorProto_DataType_INT32;
  const double int_limit = to == onnx::TensorProto_DataType_INT32 ? 2147483647.0 : 9.2e18;
  if (is_float_type(from) && to_int) {
    return elementwise({&a}, to, [&](const std::vector<int64_t>& at) {
      const auto i = static_cast<size_t>(at[0]);
      const double x = a.t.floats[i], e = a.error_at(i);
      // Truncation toward zero is monotonic: [x - e, x + e] goes to the ints between the ends'.
      if (!a.known(i) || !(std::fabs(x) + e < int_limit)) return kUnknown;
      return int_range(static_cast<int64_t>(std::trunc(x - e)), static_cast<int64_t>(std::trunc(x + e)));
    });
  }
  if ((from == onnx::TensorProto_DataType_INT64 || from == onnx::TensorProto_DataType_INT32) && is_float_type(to)) {
    const double exact_limit = to == onnx::TensorProto_DataType_FLOAT ? 16777216.0 : 9007199254740992.0;
    return elementwise({&a}, to, [&](const std::vector<int64_t>& at) {
      const auto i = static_cast<size_t>(at[0]);
      if (!a.known(i)) return kUnknown;
      const auto lo = static_cast<double>(a.t.ints[i]), hi = static_cast<double>(a.high(i));
      Elem r;
      r.f = (lo + hi) / 2;
      r.error = (hi - lo) / 2;
      if (std::fabs(lo) > exact_limit || std::fabs(hi) > exact_limit || r.f + r.error != hi) return kUnknown;
      return r;
    });
  }
  return std::nullopt;
}

// Integer Add/Sub/Mul/Min/Max on ranges, an overflow unknown.
std::optional<Value> int_binary(const std::string& op, const Value& a, const Value& b) {
  const bool int32 = a.t.elem_type == onnx::TensorProto_DataType_INT32;
  return elementwise({&a, &b}, a.t.elem_type, [&](const std::vector<int64_t>& at) {
    const auto i = static_cast<size_t>(at[0]), j = static_cast<size_t>(at[1]);
    if (!a.known(i) || !b.known(j)) return kUnknown;
    const int64_t xl = a.t.ints[i], xh = a.high(i), yl = b.t.ints[j], yh = b.high(j);
    Elem r;
    bool overflow = false;
    if (op == "Add") {
      overflow = __builtin_add_overflow(xl, yl, &r.i) || __builtin_add_overflow(xh, yh, &r.hi);
    } else if (op == "Sub") {
      overflow = __builtin_sub_overflow(xl, yh, &r.i) || __builtin_sub_overflow(xh, yl, &r.hi);
    } else if (op == "Mul") {
      int64_t p[4] = {0, 0, 0, 0};
      overflow = __builtin_mul_overflow(xl, yl, &p[0]) || __builtin_mul_overflow(xl, yh, &p[1]) ||
                 __builtin_mul_overflow(xh, yl, &p[2]) || __builtin_mul_overflow(xh, yh, &p[3]);
      r.i = *std::min_element(p, p + 4);
      r.hi = *std::max_element(p, p + 4);
    } else {
      r = op == "Min" ? int_range(std::min(xl, yl), std::min(xh, yh)) : int_range(std::max(xl, yl), std::max(xh, yh));
    }
    if (int32 && (static_cast<int32_t>(r.i) != r.i || static_cast<int32_t>(r.hi) != r.hi)) overflow = true;
    return overflow ? kUnknown : r;
  });
}

std::optional<Value> where(const Value& cond, const Value& x, const Value& y) {
  return elementwise({&cond, &x, &y}, x.t.elem_type, [&](const std::vector<int64_t>& at) {
    const auto c = static_cast<size_t>(at[0]);
    if (!cond.known(c) || cond.high(c) != cond.t.ints[c]) return kUnknown;
    const Value& v = cond.t.ints[c] != 0 ? x : y;
    const auto k = static_cast<size_t>(cond.t.ints[c] != 0 ? at[1] : at[2]);
    if (!v.known(k)) return kUnknown;
    if (v.t.is_integer()) return int_range(v.t.ints[k], v.high(k));
    Elem r;
    r.f = v.t.floats[k];
    r.error = v.error_at(k);
    return r;
  });
}

// What `node` makes of its inputs' values, or nullopt when it is none of the ops above.
std::optional<Value> evaluate(const onnx::NodeProto& node, const std::vector<const Value*>& in) {
  const std::string& op = node.op_type();
  const int32_t type = in[0]->t.elem_type;
  const bool floats = is_float_type(type);
  const bool ints = type == onnx::TensorProto_DataType_INT64 || type == onnx::TensorProto_DataType_INT32;
  if (in.size() == 3 && op == "Where" && type == onnx::TensorProto_DataType_BOOL &&
      in[1]->t.elem_type == in[2]->t.elem_type)
    return where(*in[0], *in[1], *in[2]);
  if (in.size() == 1 && op == "Log" && floats) return float_log(*in[0]);
  if (in.size() == 1 && op == "Cast") return cast(*in[0], static_cast<int32_t>(int_attribute(node, "to", 0)));
  if (in.size() != 2 || in[1]->t.elem_type != type) return std::nullopt;
  const bool arithmetic = op == "Add" || op == "Sub" || op == "Mul";
  if (floats && (arithmetic || op == "Div")) return float_binary(op, *in[0], *in[1]);
  if (ints && (arithmetic || op == "Min" || op == "Max")) return int_binary(op, *in[0], *in[1]);
  return std::nullopt;
}

bool evaluated_op(const std::string& op) {
  return op == "Log" || op == "Cast" || op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Min" ||
         op == "Max" || op == "Where";
}

}  // namespace

int fold_truncated_floats(Body& body) {
  // Where constants come from, read on the first ask (most are never asked about): Constant
  // nodes and initializers that no graph input overrides.
  struct Source {
    const onnx::NodeProto* node = nullptr;
    const onnx::TensorProto* initializer = nullptr;
  };
  ViewMap<Source> sources(body.nodes->size() / 4 + static_cast<size_t>(body.graph ? body.graph->initializer_size() : 0));
  if (body.graph) {
    for (const onnx::TensorProto& t : body.graph->initializer()) sources.insert(t.name(), Source{nullptr, &t});
    for (const auto& v : body.graph->input())
      if (Source* s = sources.find(v.name())) s->initializer = nullptr;
  }
  std::map<std::string, Value, std::less<>> values;  // read or found by the sweep (stable addresses)
  auto lookup = [&](const std::string& name) -> const Value* {
    if (auto found = values.find(name); found != values.end()) return &found->second;
    const Source* source = sources.find(name);
    if (!source) return nullptr;
    std::optional<ConstTensor> t = source->node          ? constant_node_value(*source->node)
                                   : source->initializer ? read_const(*source->initializer)
                                                         : std::nullopt;
    if (!t) return nullptr;
    return &values.emplace(name, exactly(std::move(*t))).first->second;
  };
  int folded = 0;
  std::vector<const Value*> in;
  for (onnx::NodeProto& node : *body.nodes) {
    if (node.op_type() == "Constant" && node.domain().empty() && node.output_size() == 1) {
      Source* s = sources.try_emplace(node.output(0), Source{}).first;
      *s = Source{&node, nullptr};  // a later one replaces an earlier value
      values.erase(node.output(0));
      continue;
    }
    if (!node.domain().empty() || node.output_size() != 1 || node.input_size() == 0 || !evaluated_op(node.op_type()))
      continue;
    in.clear();
    for (const std::string& name : node.input()) {
      const Value* v = name.empty() ? nullptr : lookup(name);
      if (!v) break;
      in.push_back(v);
    }
    if (static_cast<int>(in.size()) != node.input_size()) continue;
    std::optional<Value> value = evaluate(node, in);
    if (!value) continue;
    if (value->t.is_integer() && value->all_known() && value->all_exact()) {
      replace_with_constant(node, value->t);
      value->error.clear();
      value->span.clear();
      value->unknown.clear();
      ++folded;
    }
    values.insert_or_assign(node.output(0), std::move(*value));
  }
  return folded;
}

}  // namespace pt2onnx::clean
