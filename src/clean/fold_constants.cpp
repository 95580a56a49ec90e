// Constant folding of shape arithmetic: a node of a rule below whose inputs are all constants
// (or, for Shape/Size, whose input's dims are all static) becomes one Constant node with the same
// output name. Integer arithmetic only (on whole numbers held as floats too, where nothing rounds;
// plus casts, comparisons, selections, data movement of any folded type, and the correctly
// rounded Sqrt in the element's precision), so no float rounding moves; nothing whose value
// depends on a dynamic dim is ever folded.
#include <cmath>
#include <functional>
#include <map>
#include <string_view>

#include "common/view_map.h"
#include "clean/const_tensor.h"
#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

// The node's inputs' constant values (null: not a constant), pointing into the pass's table.
using Inputs = std::vector<const ConstTensor*>;

struct FoldContext {
  const onnx::NodeProto& node;
  const Inputs& in;
  const ValueType* shape_of_input0;  // for Shape/Size: what is known of input 0
};

using Rule = std::optional<ConstTensor> (*)(const FoldContext&);

bool all_present(const Inputs& in, size_t n) {
  if (in.size() < n) return false;
  for (size_t i = 0; i < n; ++i)
    if (!in[i]) return false;
  return true;
}

int64_t product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t i = from; i < to; ++i) n *= dims[i];
  return n;
}

// Normalises an axis of a tensor of `rank`; nullopt when out of range.
std::optional<size_t> axis_of(int64_t axis, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) return std::nullopt;
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

// Element `i` of `t`, as the ints or floats it holds, copied into `out`.
void copy_element(const ConstTensor& t, int64_t i, ConstTensor& out) {
  if (t.is_integer()) out.ints.push_back(t.ints[static_cast<size_t>(i)]);
  else out.floats.push_back(t.floats[static_cast<size_t>(i)]);
}

ConstTensor like(const ConstTensor& t, std::vector<int64_t> dims) {
  ConstTensor out;
  out.elem_type = t.elem_type;
  out.dims = std::move(dims);
  return out;
}

std::optional<ConstTensor> within_limit(ConstTensor t) {
  if (t.numel() > kMaxFoldElements) return std::nullopt;
  return t;
}

// ---- data movement -----------------------------------------------------------------------------

std::optional<ConstTensor> fold_identity(const FoldContext& c) {
  if (!all_present(c.in, 1)) return std::nullopt;
  return *c.in[0];
}

// Only the dims in [start, end) need to be static.
std::optional<ConstTensor> fold_shape(const FoldContext& c) {
  std::vector<std::optional<int64_t>> dims;
  if (!c.in.empty() && c.in[0]) {
    dims.assign(c.in[0]->dims.begin(), c.in[0]->dims.end());
  } else {
    if (!c.shape_of_input0 || !c.shape_of_input0->shape_known) return std::nullopt;
    dims = c.shape_of_input0->dims;
  }
  const auto rank = static_cast<int64_t>(dims.size());
  auto clamp = [rank](int64_t v) { return std::min(std::max(v < 0 ? v + rank : v, int64_t{0}), rank); };
  const int64_t start = clamp(int_attribute(c.node, "start", 0));
  const int64_t end = clamp(int_attribute(c.node, "end", rank));
  ConstTensor out;
  out.elem_type = onnx::TensorProto_DataType_INT64;
  for (int64_t i = start; i < end; ++i) {
    const std::optional<int64_t>& d = dims[static_cast<size_t>(i)];
    if (!d) return std::nullopt;
    out.ints.push_back(*d);
  }
  out.dims = {static_cast<int64_t>(out.ints.size())};
  return out;
}

std::optional<ConstTensor> fold_size(const FoldContext& c) {
  std::vector<int64_t> dims;
  if (!c.in.empty() && c.in[0]) {
    dims = c.in[0]->dims;
  } else {
    if (!c.shape_of_input0 || !c.shape_of_input0->static_shape()) return std::nullopt;
    for (const auto& d : c.shape_of_input0->dims) dims.push_back(*d);
  }
  ConstTensor out;
  out.elem_type = onnx::TensorProto_DataType_INT64;
  out.ints = {product(dims, 0, dims.size())};
  return out;
}

std::optional<ConstTensor> fold_unsqueeze(const FoldContext& c) {
  if (!all_present(c.in, 2) || !c.in[1]->is_integer()) return std::nullopt;
  const ConstTensor& x = *c.in[0];
  const size_t rank = x.dims.size() + c.in[1]->ints.size();
  std::vector<bool> is_new(rank, false);
  for (int64_t a : c.in[1]->ints) {
    const std::optional<size_t> axis = axis_of(a, rank);
    if (!axis || is_new[*axis]) return std::nullopt;
    is_new[*axis] = true;
  }
  ConstTensor out = x;
  out.dims.clear();
  size_t next = 0;
  for (size_t i = 0; i < rank; ++i) out.dims.push_back(is_new[i] ? 1 : x.dims[next++]);
  return out;
}

std::optional<ConstTensor> fold_squeeze(const FoldContext& c) {
  if (!all_present(c.in, 1)) return std::nullopt;
  const ConstTensor& x = *c.in[0];
  std::vector<bool> drop(x.dims.size(), false);
  if (c.in.size() > 1) {
    if (!c.in[1] || !c.in[1]->is_integer()) return std::nullopt;
    for (int64_t a : c.in[1]->ints) {
      const std::optional<size_t> axis = axis_of(a, x.dims.size());
      if (!axis || x.dims[*axis] != 1) return std::nullopt;
      drop[*axis] = true;
    }
  } else {
    for (size_t i = 0; i < x.dims.size(); ++i) drop[i] = x.dims[i] == 1;
  }
  ConstTensor out = x;
  out.dims.clear();
  for (size_t i = 0; i < x.dims.size(); ++i)
    if (!drop[i]) out.dims.push_back(x.dims[i]);
  return out;
}

std::optional<ConstTensor> fold_reshape(const FoldContext& c) {
  if (!all_present(c.in, 2) || !c.in[1]->is_integer()) return std::nullopt;
  const ConstTensor& x = *c.in[0];
  const bool allow_zero = int_attribute(c.node, "allowzero", 0) != 0;
  const std::optional<std::vector<int64_t>> target = reshape_target(x.dims, *c.in[1], allow_zero);
  if (!target) return std::nullopt;
  const std::vector<int64_t>& dims = *target;
  if (product(dims, 0, dims.size()) != x.numel()) return std::nullopt;
  ConstTensor out = x;
  out.dims = dims;
  return out;
}

std::optional<ConstTensor> fold_concat(const FoldContext& c) {
  if (c.in.empty() || !all_present(c.in, c.in.size())) return std::nullopt;
  const ConstTensor& first = *c.in[0];
  const std::optional<size_t> axis = axis_of(int_attribute(c.node, "axis", 0), first.dims.size());
  if (!axis) return std::nullopt;
  std::vector<int64_t> dims = first.dims;
  dims[*axis] = 0;
  for (const auto& t : c.in) {
    if (t->elem_type != first.elem_type || t->dims.size() != first.dims.size()) return std::nullopt;
    for (size_t i = 0; i < dims.size(); ++i)
      if (i != *axis && t->dims[i] != first.dims[i]) return std::nullopt;
    dims[*axis] += t->dims[*axis];
  }
  ConstTensor out = like(first, dims);
  const int64_t outer = product(first.dims, 0, *axis);
  for (int64_t o = 0; o < outer; ++o)
    for (const auto& t : c.in) {
      const int64_t chunk = product(t->dims, *axis, t->dims.size());
      for (int64_t i = 0; i < chunk; ++i) copy_element(*t, o * chunk + i, out);
    }
  return within_limit(std::move(out));
}

std::optional<ConstTensor> fold_gather(const FoldContext& c) {
  if (!all_present(c.in, 2) || !c.in[1]->is_integer()) return std::nullopt;
  const ConstTensor& data = *c.in[0];
  const ConstTensor& indices = *c.in[1];
  const std::optional<size_t> axis = axis_of(int_attribute(c.node, "axis", 0), data.dims.size());
  if (!axis) return std::nullopt;
  std::vector<int64_t> dims(data.dims.begin(), data.dims.begin() + static_cast<std::ptrdiff_t>(*axis));
  dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
  dims.insert(dims.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(*axis) + 1, data.dims.end());
  const int64_t outer = product(data.dims, 0, *axis);
  const int64_t n = data.dims[*axis];
  const int64_t inner = product(data.dims, *axis + 1, data.dims.size());
  ConstTensor out = like(data, dims);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t index : indices.ints) {
      if (index < -n || index >= n) return std::nullopt;
      if (index < 0) index += n;
      for (int64_t i = 0; i < inner; ++i) copy_element(data, (o * n + index) * inner + i, out);
    }
  return within_limit(std::move(out));
}

std::optional<ConstTensor> fold_slice(const FoldContext& c) {
  if (!all_present(c.in, 3)) return std::nullopt;
  for (size_t i = 1; i < c.in.size(); ++i)
    if (!c.in[i] || !c.in[i]->is_integer()) return std::nullopt;
  const ConstTensor& x = *c.in[0];
  const std::vector<int64_t>& starts = c.in[1]->ints;
  const std::vector<int64_t>& ends = c.in[2]->ints;
  const size_t rank = x.dims.size();
  std::vector<int64_t> begin(rank, 0), step(rank, 1), count = x.dims;
  std::vector<bool> seen(rank, false);
  for (size_t k = 0; k < starts.size(); ++k) {
    if (ends.size() != starts.size()) return std::nullopt;
    int64_t a = static_cast<int64_t>(k);
    if (c.in.size() > 3) {
      if (c.in[3]->ints.size() != starts.size()) return std::nullopt;
      a = c.in[3]->ints[k];
    }
    const std::optional<size_t> axis = axis_of(a, rank);
    if (!axis || seen[*axis]) return std::nullopt;
    seen[*axis] = true;
    int64_t s = 1;
    if (c.in.size() > 4) {
      if (c.in[4]->ints.size() != starts.size()) return std::nullopt;
      s = c.in[4]->ints[k];
    }
    if (s == 0) return std::nullopt;
    const int64_t n = x.dims[*axis];
    auto norm = [n](int64_t v) { return v < 0 ? v + n : v; };
    int64_t lo = norm(starts[k]), hi = norm(ends[k]);
    if (s > 0) {
      lo = std::clamp<int64_t>(lo, 0, n);
      hi = std::clamp<int64_t>(hi, 0, n);
      count[*axis] = hi > lo ? (hi - lo + s - 1) / s : 0;
    } else {
      lo = std::clamp<int64_t>(lo, -1, n - 1);
      hi = std::clamp<int64_t>(hi, -1, n - 1);
      count[*axis] = lo > hi ? (lo - hi - s - 1) / -s : 0;
    }
    begin[*axis] = lo;
    step[*axis] = s;
  }
  ConstTensor out = like(x, count);
  const int64_t total = out.numel();
  std::vector<int64_t> index(rank, 0);
  for (int64_t e = 0; e < total; ++e) {
    int64_t flat = 0;
    for (size_t d = 0; d < rank; ++d) flat = flat * x.dims[d] + begin[d] + index[d] * step[d];
    copy_element(x, flat, out);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < count[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

std::optional<ConstTensor> fold_cast(const FoldContext& c) {
  if (!all_present(c.in, 1)) return std::nullopt;
  const ConstTensor& x = *c.in[0];
  const auto to = static_cast<int32_t>(int_attribute(c.node, "to", 0));
  ConstTensor out = like(x, x.dims);
  out.elem_type = to;
  if (is_integer_type(to)) {
    if (!x.is_integer()) return std::nullopt;  // float -> int rounding is left to the runtime
    for (int64_t v : x.ints) {
      if (to == onnx::TensorProto_DataType_BOOL) v = v != 0;
      if (to == onnx::TensorProto_DataType_INT32 && static_cast<int32_t>(v) != v) return std::nullopt;
      out.ints.push_back(v);
    }
    return out;
  }
  if (!is_float_type(to)) return std::nullopt;
  for (int64_t v : x.ints) out.floats.push_back(static_cast<double>(v));
  for (double v : x.floats) out.floats.push_back(to == onnx::TensorProto_DataType_FLOAT ? static_cast<float>(v) : v);
  return out;
}

std::optional<ConstTensor> fold_constant_of_shape(const FoldContext& c) {
  if (!all_present(c.in, 1) || !c.in[0]->is_integer()) return std::nullopt;
  ConstTensor fill;
  fill.elem_type = onnx::TensorProto_DataType_FLOAT;
  fill.floats = {0.0};
  if (const onnx::AttributeProto* value = find_attribute(c.node, "value")) {
    std::optional<ConstTensor> v = read_const(value->t());
    if (!v || v->numel() != 1) return std::nullopt;
    fill = *v;
  }
  for (int64_t d : c.in[0]->ints)
    if (d < 0) return std::nullopt;
  ConstTensor out = like(fill, c.in[0]->ints);
  if (out.numel() > kMaxFoldElements) return std::nullopt;
  for (int64_t i = 0; i < out.numel(); ++i) copy_element(fill, 0, out);
  return out;
}

std::optional<ConstTensor> fold_range(const FoldContext& c) {
  if (!all_present(c.in, 3)) return std::nullopt;
  for (const auto& t : c.in)
    if (!t->is_integer() || t->ints.size() != 1 || t->elem_type != c.in[0]->elem_type) return std::nullopt;
  const int64_t start = c.in[0]->ints[0], limit = c.in[1]->ints[0], delta = c.in[2]->ints[0];
  int64_t span;
  if (delta == 0 || __builtin_sub_overflow(limit, start, &span)) return std::nullopt;
  const int64_t n = std::max<int64_t>(0, span / delta + ((span % delta != 0 && (span > 0) == (delta > 0)) ? 1 : 0));
  if (n > kMaxFoldElements) return std::nullopt;
  ConstTensor out = like(*c.in[0], {n});
  for (int64_t i = 0; i < n; ++i) out.ints.push_back(start + i * delta);
  return out;
}

// ---- integer arithmetic with numpy broadcasting ------------------------------------------------

std::optional<std::vector<int64_t>> broadcast_dims(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    const int64_t db = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Flat index into `t` of the element that broadcasts to output index `index`.
int64_t broadcast_index(const std::vector<int64_t>& dims, const std::vector<int64_t>& index) {
  const size_t offset = index.size() - dims.size();
  int64_t flat = 0;
  for (size_t i = 0; i < dims.size(); ++i) flat = flat * dims[i] + (dims[i] == 1 ? 0 : index[offset + i]);
  return flat;
}

template <typename Op>
std::optional<ConstTensor> fold_binary(const FoldContext& c, Op op) {
  if (!all_present(c.in, 2)) return std::nullopt;
  const ConstTensor& a = *c.in[0];
  const ConstTensor& b = *c.in[1];
  if (!a.is_integer() || a.elem_type != b.elem_type || a.elem_type == onnx::TensorProto_DataType_BOOL)
    return std::nullopt;
  const std::optional<std::vector<int64_t>> dims = broadcast_dims(a.dims, b.dims);
  if (!dims) return std::nullopt;
  ConstTensor out = like(a, *dims);
  const int64_t total = out.numel();
  if (total > kMaxFoldElements) return std::nullopt;
  std::vector<int64_t> index(dims->size(), 0);
  for (int64_t e = 0; e < total; ++e) {
    const std::optional<int64_t> v =
        op(a.ints[static_cast<size_t>(broadcast_index(a.dims, index))], b.ints[static_cast<size_t>(broadcast_index(b.dims, index))]);
    if (!v) return std::nullopt;
    if (a.elem_type == onnx::TensorProto_DataType_INT32 && static_cast<int32_t>(*v) != *v) return std::nullopt;
    out.ints.push_back(*v);
    for (size_t d = dims->size(); d-- > 0;) {
      if (++index[d] < (*dims)[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

std::optional<ConstTensor> fold_add(const FoldContext& c) {
  return fold_binary(c, [](int64_t a, int64_t b) -> std::optional<int64_t> {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
    return r;
  });
}
std::optional<ConstTensor> fold_sub(const FoldContext& c) {
  return fold_binary(c, [](int64_t a, int64_t b) -> std::optional<int64_t> {
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
    return r;
  });
}
std::optional<ConstTensor> fold_mul(const FoldContext& c) {
  return fold_binary(c, [](int64_t a, int64_t b) -> std::optional<int64_t> {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
    return r;
  });
}

// Sqrt is one of IEEE 754's correctly rounded operations: computed in the element's own precision
// it gives the bits every conforming runtime gives (torch.onnx folds RAFT's sqrt(128) too).
// Negative inputs (NaN) are left to run time.
std::optional<ConstTensor> fold_sqrt(const FoldContext& c) {
  if (!all_present(c.in, 1) || !is_float_type(c.in[0]->elem_type)) return std::nullopt;
  ConstTensor out = *c.in[0];
  const bool single = out.elem_type == onnx::TensorProto_DataType_FLOAT;
  for (double& v : out.floats) {
    if (!(v >= 0)) return std::nullopt;
    v = single ? static_cast<double>(std::sqrt(static_cast<float>(v))) : std::sqrt(v);
  }
  return out;
}

// ---- whole numbers held as floats --------------------------------------------------------------
// Add, Sub, Mul and Range of floats whose operands and results are all whole numbers within the
// type's exact integer range (2^24 for float, 2^53 for double) round nowhere, in torch, in
// onnxruntime or here, so they fold through the integer rules (torchvision's linspace of static
// ends and its meshgrid become one constant). Negative zero is declined: an integer has no sign
// of zero (and -3 * 0 is -0.0 in floats).

double exact_integer_limit(int32_t elem_type) {
  return elem_type == onnx::TensorProto_DataType_FLOAT ? 16777216.0 : 9007199254740992.0;
}

std::optional<ConstTensor> as_whole_numbers(const ConstTensor& t) {
  if (!is_float_type(t.elem_type)) return std::nullopt;
  const double limit = exact_integer_limit(t.elem_type);
  ConstTensor out = like(t, t.dims);
  out.elem_type = onnx::TensorProto_DataType_INT64;
  for (double v : t.floats) {
    if (!(std::fabs(v) <= limit) || v != std::trunc(v) || (v == 0 && std::signbit(v))) return std::nullopt;
    out.ints.push_back(static_cast<int64_t>(v));
  }
  return out;
}

// `rule` on the inputs as int64 (all float, of one type, whole numbers), its result as that type.
std::optional<ConstTensor> on_whole_numbers(const FoldContext& c, Rule rule) {
  if (c.in.empty() || !c.in[0]) return std::nullopt;
  const int32_t type = c.in[0]->elem_type;
  std::vector<ConstTensor> whole;
  whole.reserve(c.in.size());
  for (const ConstTensor* t : c.in) {
    if (!t || t->elem_type != type) return std::nullopt;
    std::optional<ConstTensor> w = as_whole_numbers(*t);
    if (!w) return std::nullopt;
    whole.push_back(std::move(*w));
  }
  Inputs view;
  for (const ConstTensor& w : whole) view.push_back(&w);
  std::optional<ConstTensor> r = rule(FoldContext{c.node, view, nullptr});
  if (!r) return std::nullopt;
  ConstTensor out = like(*r, r->dims);
  out.elem_type = type;
  for (int64_t v : r->ints) {
    if (std::fabs(static_cast<double>(v)) > exact_integer_limit(type)) return std::nullopt;
    out.floats.push_back(static_cast<double>(v));
  }
  return out;
}

bool float_inputs(const FoldContext& c) { return !c.in.empty() && c.in[0] && is_float_type(c.in[0]->elem_type); }

std::optional<ConstTensor> fold_add_any(const FoldContext& c) {
  return float_inputs(c) ? on_whole_numbers(c, fold_add) : fold_add(c);
}
std::optional<ConstTensor> fold_sub_any(const FoldContext& c) {
  return float_inputs(c) ? on_whole_numbers(c, fold_sub) : fold_sub(c);
}
// A zero product with a negative factor is -0.0 in floats.
std::optional<ConstTensor> fold_mul_unsigned_zero(const FoldContext& c) {
  return fold_binary(c, [](int64_t a, int64_t b) -> std::optional<int64_t> {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r) || (r == 0 && (a < 0 || b < 0))) return std::nullopt;
    return r;
  });
}
std::optional<ConstTensor> fold_mul_any(const FoldContext& c) {
  return float_inputs(c) ? on_whole_numbers(c, fold_mul_unsigned_zero) : fold_mul(c);
}
// onnxruntime computes start + i * delta: i * delta stays within the range too when the span does.
std::optional<ConstTensor> fold_range_any(const FoldContext& c) {
  if (!float_inputs(c)) return fold_range(c);
  if (!all_present(c.in, 3) || c.in[0]->floats.size() != 1 || c.in[1]->floats.size() != 1) return std::nullopt;
  if (!(std::fabs(c.in[1]->floats[0] - c.in[0]->floats[0]) <= exact_integer_limit(c.in[0]->elem_type)))
    return std::nullopt;
  return on_whole_numbers(c, fold_range);
}
// Only where truncating and flooring division agree (exact, or both operands non-negative).
std::optional<ConstTensor> fold_div(const FoldContext& c) {
  return fold_binary(c, [](int64_t a, int64_t b) -> std::optional<int64_t> {
    if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
    if (a % b != 0 && (a < 0 || b < 0)) return std::nullopt;
    return a / b;
  });
}

std::optional<ConstTensor> fold_neg(const FoldContext& c) {
  if (!all_present(c.in, 1) || !c.in[0]->is_integer() || c.in[0]->elem_type == onnx::TensorProto_DataType_BOOL)
    return std::nullopt;
  ConstTensor out = *c.in[0];
  for (int64_t& v : out.ints) {
    if (v == INT64_MIN) return std::nullopt;
    v = -v;
  }
  return out;
}

std::optional<ConstTensor> fold_abs(const FoldContext& c) {
  if (!all_present(c.in, 1) || !c.in[0]->is_integer()) return std::nullopt;
  ConstTensor out = *c.in[0];
  const int64_t lowest = out.elem_type == onnx::TensorProto_DataType_INT32 ? INT32_MIN : INT64_MIN;
  for (int64_t& v : out.ints) {
    if (v == lowest) return std::nullopt;  // no positive counterpart in its type
    v = v < 0 ? -v : v;
  }
  return out;
}

// ---- selection, comparison and data movement of small static tensors ---------------------------
// (the static masks models build at run time, e.g. Swin's shifted-window mask: no rounding, since
// these only compare, select and move elements)

// The elements of `ins` broadcast together (numpy rules); `emit` gets each output index's flat
// index into every input.
template <typename Emit>
std::optional<ConstTensor> broadcast_map(const std::vector<const ConstTensor*>& ins, ConstTensor out, Emit emit) {
  std::vector<int64_t> dims;
  for (const ConstTensor* t : ins) {
    const std::optional<std::vector<int64_t>> d = broadcast_dims(dims, t->dims);
    if (!d) return std::nullopt;
    dims = *d;
  }
  out.dims = dims;
  const int64_t total = out.numel();
  if (total > kMaxFoldElements) return std::nullopt;
  std::vector<int64_t> index(dims.size(), 0), flat(ins.size());
  for (int64_t e = 0; e < total; ++e) {
    for (size_t k = 0; k < ins.size(); ++k) flat[k] = broadcast_index(ins[k]->dims, index);
    if (!emit(flat, out)) return std::nullopt;
    for (size_t d = dims.size(); d-- > 0;) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

double element(const ConstTensor& t, int64_t i) {
  return t.is_integer() ? static_cast<double>(t.ints[static_cast<size_t>(i)]) : t.floats[static_cast<size_t>(i)];
}

std::optional<ConstTensor> fold_expand(const FoldContext& c) {
  if (!all_present(c.in, 2) || !c.in[1]->is_integer()) return std::nullopt;
  for (int64_t d : c.in[1]->ints)
    if (d < 0) return std::nullopt;
  ConstTensor shape = like(*c.in[0], c.in[1]->ints);  // only its dims take part
  return broadcast_map({&*c.in[0], &shape}, like(*c.in[0], {}), [&](const std::vector<int64_t>& i, ConstTensor& out) {
    copy_element(*c.in[0], i[0], out);
    return true;
  });
}

// Equal, Less, ...: exact on integers and on floats alike.
template <typename Cmp>
std::optional<ConstTensor> fold_compare(const FoldContext& c, Cmp cmp) {
  if (!all_present(c.in, 2) || c.in[0]->elem_type != c.in[1]->elem_type) return std::nullopt;
  ConstTensor out;
  out.elem_type = onnx::TensorProto_DataType_BOOL;
  const ConstTensor &a = *c.in[0], &b = *c.in[1];
  return broadcast_map({&a, &b}, out, [&](const std::vector<int64_t>& i, ConstTensor& o) {
    const bool v = a.is_integer() ? cmp(a.ints[static_cast<size_t>(i[0])], b.ints[static_cast<size_t>(i[1])])
                                  : cmp(a.floats[static_cast<size_t>(i[0])], b.floats[static_cast<size_t>(i[1])]);
    o.ints.push_back(v ? 1 : 0);
    return true;
  });
}
std::optional<ConstTensor> fold_equal(const FoldContext& c) { return fold_compare(c, std::equal_to<>()); }
std::optional<ConstTensor> fold_less(const FoldContext& c) { return fold_compare(c, std::less<>()); }
std::optional<ConstTensor> fold_less_equal(const FoldContext& c) { return fold_compare(c, std::less_equal<>()); }
std::optional<ConstTensor> fold_greater(const FoldContext& c) { return fold_compare(c, std::greater<>()); }
std::optional<ConstTensor> fold_greater_equal(const FoldContext& c) { return fold_compare(c, std::greater_equal<>()); }

template <typename Op>
std::optional<ConstTensor> fold_logical(const FoldContext& c, Op op) {
  if (!all_present(c.in, 2) || c.in[0]->elem_type != onnx::TensorProto_DataType_BOOL ||
      c.in[1]->elem_type != onnx::TensorProto_DataType_BOOL)
    return std::nullopt;
  const ConstTensor &a = *c.in[0], &b = *c.in[1];
  return broadcast_map({&a, &b}, like(a, {}), [&](const std::vector<int64_t>& i, ConstTensor& o) {
    o.ints.push_back(op(a.ints[static_cast<size_t>(i[0])] != 0, b.ints[static_cast<size_t>(i[1])] != 0) ? 1 : 0);
    return true;
  });
}
std::optional<ConstTensor> fold_and(const FoldContext& c) { return fold_logical(c, std::logical_and<>()); }
std::optional<ConstTensor> fold_or(const FoldContext& c) { return fold_logical(c, std::logical_or<>()); }

std::optional<ConstTensor> fold_not(const FoldContext& c) {
  if (!all_present(c.in, 1) || c.in[0]->elem_type != onnx::TensorProto_DataType_BOOL) return std::nullopt;
  ConstTensor out = *c.in[0];
  for (int64_t& v : out.ints) v = v == 0 ? 1 : 0;
  return out;
}

std::optional<ConstTensor> fold_where(const FoldContext& c) {
  if (!all_present(c.in, 3) || c.in[0]->elem_type != onnx::TensorProto_DataType_BOOL ||
      c.in[1]->elem_type != c.in[2]->elem_type)
    return std::nullopt;
  const ConstTensor &cond = *c.in[0], &x = *c.in[1], &y = *c.in[2];
  return broadcast_map({&cond, &x, &y}, like(x, {}), [&](const std::vector<int64_t>& i, ConstTensor& o) {
    if (cond.ints[static_cast<size_t>(i[0])] != 0) copy_element(x, i[1], o);
    else copy_element(y, i[2], o);
    return true;
  });
}

// Min/Max (variadic) and Clip select one of their inputs' elements; NaN is left to the runtime.
std::optional<ConstTensor> fold_select(const FoldContext& c, bool max) {
  if (c.in.empty() || !all_present(c.in, c.in.size())) return std::nullopt;
  std::vector<const ConstTensor*> ins;
  for (const auto& t : c.in) {
    if (t->elem_type != c.in[0]->elem_type || t->elem_type == onnx::TensorProto_DataType_BOOL) return std::nullopt;
    for (double v : t->floats)
      if (v != v) return std::nullopt;
    ins.push_back(&*t);
  }
  return broadcast_map(ins, like(*ins[0], {}), [&](const std::vector<int64_t>& i, ConstTensor& o) {
    size_t best = 0;
    for (size_t k = 1; k < ins.size(); ++k) {
      const double v = element(*ins[k], i[k]), b = element(*ins[best], i[best]);
      if (max ? v > b : v < b) best = k;
    }
    copy_element(*ins[best], i[best], o);
    return true;
  });
}
std::optional<ConstTensor> fold_min(const FoldContext& c) { return fold_select(c, false); }
std::optional<ConstTensor> fold_max(const FoldContext& c) { return fold_select(c, true); }

std::optional<ConstTensor> fold_clip(const FoldContext& c) {
  if (!all_present(c.in, 1)) return std::nullopt;
  std::optional<ConstTensor> v = *c.in[0];
  for (size_t k = 1; k < c.in.size() && k < 3; ++k) {
    if (c.node.input(static_cast<int>(k)).empty()) continue;  // an omitted bound
    if (!c.in[k] || c.in[k]->numel() != 1) return std::nullopt;
    const Inputs pair = {&*v, c.in[k]};
    v = fold_select(FoldContext{c.node, pair, nullptr}, /*max=*/k == 1);
    if (!v) return std::nullopt;
  }
  return v;
}

// Integer Mod: fmod = 0 takes the divisor's sign (Python's %), fmod = 1 the dividend's (C's %).
std::optional<ConstTensor> fold_mod(const FoldContext& c) {
  const bool c_style = int_attribute(c.node, "fmod", 0) != 0;
  return fold_binary(c, [c_style](int64_t a, int64_t b) -> std::optional<int64_t> {
    if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
    int64_t r = a % b;
    if (!c_style && r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  });
}

std::optional<ConstTensor> fold_transpose(const FoldContext& c) {
  if (!all_present(c.in, 1)) return std::nullopt;
  const ConstTensor& x = *c.in[0];
  const size_t rank = x.dims.size();
  std::vector<int64_t> perm;
  if (const onnx::AttributeProto* a = find_attribute(c.node, "perm")) perm.assign(a->ints().begin(), a->ints().end());
  else
    for (size_t d = rank; d-- > 0;) perm.push_back(static_cast<int64_t>(d));
  if (perm.size() != rank) return std::nullopt;
  std::vector<bool> seen(rank, false);
  std::vector<int64_t> dims, strides(rank, 1);
  for (size_t d = rank; d-- > 1;) strides[d - 1] = strides[d] * x.dims[d];
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(p)]) return std::nullopt;
    seen[static_cast<size_t>(p)] = true;
    dims.push_back(x.dims[static_cast<size_t>(p)]);
  }
  ConstTensor out = like(x, dims);
  const int64_t total = out.numel();
  std::vector<int64_t> index(rank, 0);
  for (int64_t e = 0; e < total; ++e) {
    int64_t flat = 0;
    for (size_t d = 0; d < rank; ++d) flat += index[d] * strides[static_cast<size_t>(perm[d])];
    copy_element(x, flat, out);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

const std::map<std::string_view, Rule>& rules() {
  static const std::map<std::string_view, Rule> table = {
      {"Identity", fold_identity}, {"Shape", fold_shape},     {"Size", fold_size},
      {"Unsqueeze", fold_unsqueeze}, {"Squeeze", fold_squeeze}, {"Reshape", fold_reshape},
      {"Concat", fold_concat},     {"Gather", fold_gather},   {"Slice", fold_slice},
      {"Cast", fold_cast},         {"Range", fold_range_any},     {"ConstantOfShape", fold_constant_of_shape},
      {"Add", fold_add_any},       {"Sub", fold_sub_any},     {"Mul", fold_mul_any},
      {"Div", fold_div},           {"Neg", fold_neg},         {"Abs", fold_abs},         {"Mod", fold_mod},
      {"Expand", fold_expand},     {"Transpose", fold_transpose}, {"Where", fold_where},
      {"Equal", fold_equal},       {"Less", fold_less},       {"LessOrEqual", fold_less_equal},
      {"Greater", fold_greater},   {"GreaterOrEqual", fold_greater_equal},
      {"And", fold_and},           {"Or", fold_or},           {"Not", fold_not},
      {"Min", fold_min},           {"Max", fold_max},         {"Clip", fold_clip},
      {"Sqrt", fold_sqrt},
  };
  return table;
}

void make_constant(onnx::NodeProto& node, const ConstTensor& value) {
  node.clear_input();
  node.clear_attribute();
  node.set_op_type("Constant");
  node.clear_domain();
  onnx::AttributeProto* a = node.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto_AttributeType_TENSOR);
  *a->mutable_t() = to_tensor_proto(value);
}

}  // namespace

std::optional<ConstTensor> fold_node_value(const onnx::NodeProto& node, const std::vector<const ConstTensor*>& inputs) {
  if (!node.domain().empty() || node.output_size() != 1 || has_subgraph(node)) return std::nullopt;
  const auto rule = rules().find(node.op_type());
  if (rule == rules().end()) return std::nullopt;
  return rule->second(FoldContext{node, inputs, nullptr});
}

void replace_with_constant(onnx::NodeProto& node, const ConstTensor& value) { make_constant(node, value); }

int fold_constants(Body& body) {
  std::optional<KnownTypes> known;
  // Constant values by name (views of the scope's names, which this pass never changes):
  // Constant nodes as the sweep meets them (a later one replaces an earlier value), initializers
  // read on the first ask (most are weights that no rule reads).
  struct Slot {
    const onnx::TensorProto* initializer = nullptr;
    bool read = false;  // the initializer's value was asked for (or an input may override it)
    std::optional<ConstTensor> value;
  };
  // Values handed out by lookup stay valid until the next define (which may move the slots).
  ViewMap<Slot> constants(body.nodes->size() / 4 + static_cast<size_t>(body.graph ? body.graph->initializer_size() : 0));
  if (body.graph) {
    for (const auto& t : body.graph->initializer()) constants.insert(t.name(), Slot{&t, false, std::nullopt});
    for (const auto& v : body.graph->input())  // an initializer that is also an input can be overridden
      if (Slot* slot = constants.find(v.name())) slot->read = true;
  }
  auto lookup = [&](const std::string& name) -> const ConstTensor* {
    Slot* slot = constants.find(name);
    if (!slot) return nullptr;
    if (!slot->read && slot->initializer) {
      slot->read = true;
      slot->value = read_const(*slot->initializer);
    }
    return slot->value ? &*slot->value : nullptr;
  };
  auto is_weight = [&](const std::string& name) {
    const Slot* slot = constants.find(name);
    return slot && slot->initializer;
  };
  auto define = [&](const std::string& name, ConstTensor value) {
    Slot& slot = *constants.try_emplace(name, Slot{}).first;
    slot.read = true;
    slot.value = std::move(value);
  };
  int folded = 0;
  Inputs in;  // reused node by node
  for (onnx::NodeProto& node : *body.nodes) {
    if (std::optional<ConstTensor> c = constant_node_value(node)) {
      if (node.output_size() == 1) define(node.output(0), std::move(*c));
      continue;
    }
    if (!node.domain().empty() || node.output_size() != 1 || has_subgraph(node)) continue;
    const auto rule = rules().find(node.op_type());
    if (rule == rules().end()) continue;
    // A transposed or broadcast copy of a weight would hold it twice in the file (weight
    // Transposes are fold_weight_transposes' job, as views of the archive's storage).
    if ((node.op_type() == "Transpose" || node.op_type() == "Expand") && node.input_size() > 0 &&
        is_weight(node.input(0)))
      continue;
    in.clear();
    for (const std::string& name : node.input()) in.push_back(lookup(name));
    // Only Shape and Size read what is known of input 0 (the types are gathered on first need).
    std::optional<ValueType> shape0;
    if (node.input_size() > 0 && (node.op_type() == "Shape" || node.op_type() == "Size")) {
      if (!known) known = known_types(body);
      shape0 = known->lookup(node.input(0));
    }
    const FoldContext context{node, in, shape0 ? &*shape0 : nullptr};
    std::optional<ConstTensor> value = rule->second(context);
    if (!value) continue;
    make_constant(node, *value);
    define(node.output(0), std::move(*value));
    ++folded;
  }
  return folded;
}

}  // namespace pt2onnx::clean
