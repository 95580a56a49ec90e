// Complex tensors as real pairs (complex_values.h): the ops torch.export leaves around complex
// math, e.g. the Llama rotary embedding view_as_real(view_as_complex(x.reshape(..., -1, 2)) * freqs_cis).
// view_as_real/view_as_complex are the identity on pairs; arithmetic is written out on the real
// and imaginary parts; shape ops carry the pair axis along. Real rules that are right on pairs as
// they are (they address axes [0, rank) by non-negative index only) are registered for complex
// nodes too (kPairTransparent). Every other op on a complex value has no complex rule and is
// refused by name ("aten.exp.default on complex values" ...).
#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "translate/complex_values.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = i;
  return out;
}

// Real and imaginary parts of a pair value, and a pair of two equal-shaped parts.
std::string real_part(EmitContext& ctx, const std::string& p) {
  return ctx.emit("Gather", {p, ctx.const_i64(0)}, {Attr("axis", int64_t{-1})});
}
std::string imag_part(EmitContext& ctx, const std::string& p) {
  return ctx.emit("Gather", {p, ctx.const_i64(1)}, {Attr("axis", int64_t{-1})});
}
std::string pack(EmitContext& ctx, const std::string& re, const std::string& im) {
  return ctx.concat({ctx.unsqueeze(re, {-1}), ctx.unsqueeze(im, {-1})}, -1);
}

// The component type of the node's complex result.
DType result_component(const ArgReader& args) { return complex_component(args.out_dtype()); }

const ir::ComplexArg* complex_scalar(const ir::Node& node, const std::string& name) {
  const ir::Argument* arg = node.input(name);
  return arg ? std::get_if<ir::ComplexArg>(arg) : nullptr;
}

bool is_complex_operand(const ArgReader& args, const ir::Node& node, const std::string& name) {
  if (complex_scalar(node, name)) return true;
  return args.is_tensor(name) && is_complex(args.dtype_of(name));
}

// A real tensor as a pair with imaginary part 0 (Pad, so inf and NaN real parts stay as they are).
std::string real_tensor_as_pair(EmitContext& ctx, const std::string& x, int64_t rank) {
  std::vector<int64_t> pads(static_cast<size_t>(2 * (rank + 1)), 0);
  pads.back() = 1;
  return ctx.emit("Pad", {ctx.unsqueeze(x, {-1}), ctx.const_i64s(pads)});
}

// A tensor or Scalar argument as a pair of `component`: complex tensors cast part-wise, real
// tensors and numbers with imaginary part 0, complex Scalars as constants.
std::string operand_pair(EmitContext& ctx, const ArgReader& args, const ir::Node& node, const std::string& name,
                         DType component) {
  if (const ir::ComplexArg* c = complex_scalar(node, name))
    return pack(ctx, ctx.const_scalar(c->real, component), ctx.const_scalar(c->imag, component));
  if (!args.is_tensor(name))
    return pack(ctx, ctx.const_scalar(args.scalar_number(name), component), ctx.const_scalar(0, component));
  const DType type = args.dtype_of(name);
  if (is_complex(type)) return cast_if_needed(ctx, args.tensor(name), complex_component(type), component);
  return real_tensor_as_pair(ctx, cast_if_needed(ctx, args.tensor(name), type, component), args.rank_of(name));
}

// A real tensor or number as a factor of pairs: x[..., None] (broadcasts over the pair axis).
std::string real_factor(EmitContext& ctx, const ArgReader& args, const std::string& name, DType component) {
  if (!args.is_tensor(name)) return ctx.const_scalar(args.scalar_number(name), component);
  return ctx.unsqueeze(cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), component), {-1});
}

// (a + bi)(c + di) = (ac - bd) + (ad + bc)i
std::string pair_mul(EmitContext& ctx, const std::string& x, const std::string& y) {
  const std::string a = real_part(ctx, x), b = imag_part(ctx, x), c = real_part(ctx, y), d = imag_part(ctx, y);
  return pack(ctx, ctx.emit("Sub", {ctx.emit("Mul", {a, c}), ctx.emit("Mul", {b, d})}),
              ctx.emit("Add", {ctx.emit("Mul", {a, d}), ctx.emit("Mul", {b, c})}));
}

// (a + bi) / (c + di) with both parts of the divisor scaled by s = max(|c|, |d|) first, so that
// c^2 + d^2 neither overflows nor underflows where the quotient itself is representable.
std::string pair_div(EmitContext& ctx, const std::string& x, const std::string& y) {
  const std::string a = real_part(ctx, x), b = imag_part(ctx, x), c = real_part(ctx, y), d = imag_part(ctx, y);
  const std::string s = ctx.emit("Max", {ctx.emit("Abs", {c}), ctx.emit("Abs", {d})});
  const std::string cs = ctx.emit("Div", {c, s}), ds = ctx.emit("Div", {d, s});
  const std::string den = ctx.emit("Mul", {ctx.emit("Add", {ctx.emit("Mul", {cs, cs}), ctx.emit("Mul", {ds, ds})}), s});
  const std::string re = ctx.emit("Add", {ctx.emit("Mul", {a, cs}), ctx.emit("Mul", {b, ds})});
  const std::string im = ctx.emit("Sub", {ctx.emit("Mul", {b, cs}), ctx.emit("Mul", {a, ds})});
  return pack(ctx, ctx.emit("Div", {re, den}), ctx.emit("Div", {im, den}));
}

// ---- views between complex and real pairs ---------------------------------------------------

// view_as_real(Tensor(a) self) -> Tensor(a); view_as_complex(Tensor(a) self) -> Tensor(a); and
// their _copy forms: the pair is the representation of both sides.
RuleResult aten_view_as_real(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, args.tensor("self"));
}

// real(Tensor(a) self) -> Tensor(a)
RuleResult aten_real(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, real_part(ctx, args.tensor("self")));
}

// imag(Tensor(a) self) -> Tensor(a)
RuleResult aten_imag(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, imag_part(ctx, args.tensor("self")));
}

// complex(Tensor real, Tensor imag) -> Tensor   (the two broadcast against each other)
RuleResult aten_complex(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType component = result_component(args);
  std::string re = cast_if_needed(ctx, args.tensor("real"), args.dtype_of("real"), component);
  std::string im = cast_if_needed(ctx, args.tensor("imag"), args.dtype_of("imag"), component);
  const ir::TensorMeta& mr = args.meta("real");
  const ir::TensorMeta& mi = args.meta("imag");
  bool same = mr.sizes.size() == mi.sizes.size();
  for (size_t i = 0; same && i < mr.sizes.size(); ++i)
    same = mr.sizes[i].is_static() && mi.sizes[i].is_static() && mr.sizes[i].as_int() == mi.sizes[i].as_int();
  if (!same) {  // Expand(a, Shape(b)) is a broadcast to the shape of both
    const std::string re_in = re;
    re = ctx.emit("Expand", {re_in, ctx.shape_of(im)});
    im = ctx.emit("Expand", {im, ctx.shape_of(re_in)});
  }
  return emitted(ctx, pack(ctx, re, im));
}

// polar(Tensor abs, Tensor angle) -> Tensor   (abs * (cos angle + i sin angle))
RuleResult aten_polar(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType component = result_component(args);
  const std::string r = cast_if_needed(ctx, args.tensor("abs"), args.dtype_of("abs"), component);
  const std::string t = cast_if_needed(ctx, args.tensor("angle"), args.dtype_of("angle"), component);
  return emitted(ctx, pack(ctx, ctx.emit("Mul", {r, ctx.emit("Cos", {t})}), ctx.emit("Mul", {r, ctx.emit("Sin", {t})})));
}

// abs(Tensor self) -> Tensor on complex: hypot(re, im), scaled by max(|re|, |im|) as hypot is so
// that the squares cannot overflow.
RuleResult aten_abs(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType component = complex_component(args.dtype_of("self"));
  const std::string p = ctx.emit("Abs", {args.tensor("self")});
  const std::string m = ctx.reduce("ReduceMax", p, std::vector<int64_t>{-1}, /*keepdims=*/true);
  const std::string zero = ctx.const_scalar(0, component);
  const std::string safe = ctx.emit("Where", {ctx.emit("Equal", {m, zero}), ctx.const_scalar(1, component), m});
  const std::string q = ctx.emit("Div", {p, safe});
  const std::string n = ctx.emit("Sqrt", {ctx.reduce("ReduceSum", ctx.emit("Mul", {q, q}), std::vector<int64_t>{-1}, true)});
  return emitted(ctx, ctx.squeeze(ctx.emit("Mul", {n, m}), {-1}));
}

// angle(Tensor self) -> Tensor on complex: atan2(im, re)
RuleResult aten_angle(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType component = complex_component(args.dtype_of("self"));
  const std::string p = args.tensor("self");
  return emitted(ctx, atan2_values(ctx, imag_part(ctx, p), real_part(ctx, p), component));
}

// ---- arithmetic ------------------------------------------------------------------------------

// mul.Tensor(Tensor self, Tensor other) -> Tensor; mul.Scalar(Tensor self, Scalar other)
RuleResult aten_mul(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType component = result_component(args);
  const bool a = is_complex_operand(args, node, "self"), b = is_complex_operand(args, node, "other");
  if (a && b)
    return emitted(ctx, pair_mul(ctx, operand_pair(ctx, args, node, "self", component),
                                 operand_pair(ctx, args, node, "other", component)));
  const std::string& pair_arg = a ? "self" : "other";
  const std::string& real_arg = a ? "other" : "self";
  return emitted(ctx, ctx.emit("Mul", {operand_pair(ctx, args, node, pair_arg, component),
                                       real_factor(ctx, args, real_arg, component)}));
}

// div.Tensor(Tensor self, Tensor other) -> Tensor; div.Scalar(Tensor self, Scalar other)
RuleResult aten_div(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(!args.has("rounding_mode"), ErrorCode::kUnsupported, "div with a rounding_mode on complex values");
  const DType component = result_component(args);
  const std::string x = operand_pair(ctx, args, node, "self", component);
  if (!is_complex_operand(args, node, "other"))
    return emitted(ctx, ctx.emit("Div", {x, real_factor(ctx, args, "other", component)}));
  return emitted(ctx, pair_div(ctx, x, operand_pair(ctx, args, node, "other", component)));
}

// add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1); add.Scalar; sub likewise: self ± alpha * other
RuleResult add_or_sub(EmitContext& ctx, const ir::Node& node, const char* op_type) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(!complex_scalar(node, "alpha"), ErrorCode::kUnsupported, "a complex alpha");
  const DType component = result_component(args);
  std::string other = operand_pair(ctx, args, node, "other", component);
  const double alpha = args.has("alpha") ? args.scalar_number("alpha") : 1.0;
  if (alpha != 1.0) other = ctx.emit("Mul", {other, ctx.const_scalar(alpha, component)});
  return emitted(ctx, ctx.emit(op_type, {operand_pair(ctx, args, node, "self", component), other}));
}
RuleResult aten_add(EmitContext& ctx, const ir::Node& node) { return add_or_sub(ctx, node, "Add"); }
RuleResult aten_sub(EmitContext& ctx, const ir::Node& node) { return add_or_sub(ctx, node, "Sub"); }

// neg(Tensor self) -> Tensor
RuleResult aten_neg(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, ctx.emit("Neg", {args.tensor("self")}));
}

// _conj(Tensor(a) self) -> Tensor(a); conj, conj_physical: the imaginary part negated
RuleResult aten_conj(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType component = complex_component(args.dtype_of("self"));
  const std::string signs = pack(ctx, ctx.const_scalar(1, component), ctx.const_scalar(-1, component));
  return emitted(ctx, ctx.emit("Mul", {args.tensor("self"), signs}));
}

// exp(Tensor self) -> Tensor on complex: e^re (cos im + i sin im)
RuleResult aten_exp(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string p = args.tensor("self");
  const std::string m = ctx.emit("Exp", {real_part(ctx, p)}), t = imag_part(ctx, p);
  return emitted(ctx, pack(ctx, ctx.emit("Mul", {m, ctx.emit("Cos", {t})}), ctx.emit("Mul", {m, ctx.emit("Sin", {t})})));
}

// _to_copy(Tensor self, *, ScalarType? dtype=None, ...) -> Tensor; to.dtype(Tensor self, ScalarType dtype, ...)
// to complex from complex or real, or from complex to real (torch keeps the real part).
RuleResult aten_to_copy(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType from = args.dtype_of("self");
  const DType to = args.out_dtype();
  if (is_complex(to)) return emitted(ctx, operand_pair(ctx, args, node, "self", complex_component(to)));
  PT2ONNX_CHECK(to != DType::kBool, ErrorCode::kUnsupported, "a complex tensor converted to bool");
  return emitted(ctx, cast_if_needed(ctx, real_part(ctx, args.tensor("self")), complex_component(from), to));
}

// ---- shapes ---------------------------------------------------------------------------------

// A logical shape value with the pair axis appended.
std::string with_pair_axis(EmitContext& ctx, const std::string& shape) {
  return ctx.concat({shape, ctx.const_i64s({2})}, 0);
}

// view(Tensor(a) self, SymInt[] size) -> Tensor(a); reshape, _unsafe_view
RuleResult aten_view(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string name = args.has("size") ? "size" : "shape";
  for (const auto& item : args.sym_ints(name))
    if (const auto* v = std::get_if<int64_t>(&item.v); v && *v == 0)
      fail(ErrorCode::kUnsupported, "a complex view with an empty dim");
  return emitted(ctx, ctx.reshape(args.tensor("self"), with_pair_axis(ctx, args.ints_value(name))));
}

// flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)
RuleResult aten_flatten(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  if (rank == 0) return emitted(ctx, ctx.unsqueeze(args.tensor("self"), {0}));
  const int64_t start = normalize_dim(args.int_or("start_dim", 0), rank);
  const int64_t end = normalize_dim(args.int_or("end_dim", -1), rank);
  if (start == end) return emitted(ctx, args.tensor("self"));
  const std::string& fx = args.tensor_fx("self");
  std::vector<int64_t> before = iota(start), after;
  for (int64_t d = end + 1; d < rank; ++d) after.push_back(d);
  std::vector<std::string> pieces;
  if (!before.empty()) pieces.push_back(sizes_value(ctx, fx, before));
  pieces.push_back(ctx.const_i64s({-1}));
  if (!after.empty()) pieces.push_back(sizes_value(ctx, fx, after));
  pieces.push_back(ctx.const_i64s({2}));
  return emitted(ctx, ctx.reshape(args.tensor("self"), ctx.concat(pieces, 0)));
}

// permute(Tensor(a) self, int[] dims) -> Tensor(a)
RuleResult aten_permute(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  std::vector<int64_t> perm = normalize_dims(args.ints("dims"), rank);
  perm.push_back(rank);
  if (perm == iota(rank + 1)) return emitted(ctx, args.tensor("self"));
  return emitted(ctx, ctx.transpose(args.tensor("self"), perm));
}

// transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
RuleResult aten_transpose(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  const int64_t a = normalize_dim(args.get_int("dim0"), rank), b = normalize_dim(args.get_int("dim1"), rank);
  if (a == b) return emitted(ctx, args.tensor("self"));
  std::vector<int64_t> perm = iota(rank + 1);
  std::swap(perm[static_cast<size_t>(a)], perm[static_cast<size_t>(b)]);
  return emitted(ctx, ctx.transpose(args.tensor("self"), perm));
}

// t(Tensor(a) self) -> Tensor(a)
RuleResult aten_t(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (args.rank_of("self") < 2) return emitted(ctx, args.tensor("self"));
  return emitted(ctx, ctx.transpose(args.tensor("self"), {1, 0, 2}));
}

// constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor   (pad: (begin, end) pairs
// from the last dim backwards; negative crops; the pair axis gets none)
RuleResult aten_constant_pad_nd(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(!complex_scalar(node, "value") && (!args.has("value") || args.scalar_number("value") == 0),
                ErrorCode::kUnsupported, "a complex pad with a value other than 0");
  const int64_t rank = args.rank_of("self");
  const std::vector<int64_t> pad = args.ints("pad");
  PT2ONNX_CHECK(pad.size() % 2 == 0 && static_cast<int64_t>(pad.size()) <= 2 * rank, ErrorCode::kUnsupported,
                "constant_pad_nd with " + std::to_string(pad.size()) + " pads on a rank-" + std::to_string(rank) + " tensor");
  std::vector<int64_t> pads(static_cast<size_t>(2 * (rank + 1)), 0);
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const auto d = static_cast<size_t>(rank - 1 - static_cast<int64_t>(i));
    pads[d] = pad[2 * i];
    pads[static_cast<size_t>(rank + 1) + d] = pad[2 * i + 1];
  }
  return emitted(ctx, ctx.emit("Pad", {args.tensor("self"), ctx.const_i64s(pads)}));
}

// expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)   (-1 keeps a dim)
RuleResult aten_expand(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::vector<ir::SymIntArg> sizes = args.sym_ints("size");
  for (const ir::SymIntArg& s : sizes)
    if (const auto* v = std::get_if<int64_t>(&s.v); v && *v == -1)
      fail(ErrorCode::kUnsupported, "a complex expand with -1 sizes");  // core IR writes the sizes out
  return emitted(ctx, ctx.emit("Expand", {args.tensor("self"), with_pair_axis(ctx, args.ints_value("size"))}));
}

// cat(Tensor[] tensors, int dim=0) -> Tensor   (real members become pairs)
RuleResult aten_cat(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const auto* list = std::get_if<ir::TensorListArg>(&args.arg("tensors"));
  PT2ONNX_CHECK(list != nullptr && !list->names.empty(), ErrorCode::kUnsupported, "cat of something other than a tensor list");
  const DType component = result_component(args);
  std::vector<std::string> pairs;
  int64_t rank = -1;
  for (const std::string& fx : list->names) {
    const ir::TensorMeta* meta = ctx.meta(fx);
    PT2ONNX_CHECK(meta != nullptr, ErrorCode::kUnsupported, "cat input '" + fx + "' has no tensor_values entry");
    const auto r = static_cast<int64_t>(meta->sizes.size());
    PT2ONNX_CHECK(r > 0, ErrorCode::kUnsupported, "cat of a 0-D tensor");
    rank = std::max(rank, r);
    pairs.push_back(is_complex(meta->dtype)
                        ? cast_if_needed(ctx, ctx.value_of(fx), complex_component(meta->dtype), component)
                        : real_tensor_as_pair(ctx, cast_if_needed(ctx, ctx.value_of(fx), meta->dtype, component), r));
  }
  return emitted(ctx, ctx.concat(pairs, normalize_dim(args.int_or("dim", 0), rank)));
}

// Real rules that are right on pairs unchanged: they normalise dims against the logical rank,
// address axes [0, rank) by non-negative index and never the last axis by position, so the pair
// axis rides along (squeeze without dims drops size-1 dims only, and the pair axis has size 2).
constexpr std::string_view kPairTransparent[] = {
    "aten.clone.default",     "aten.contiguous.default",      "aten.alias.default",    "aten.detach.default",
    "aten.lift_fresh_copy.default", "aten.unsqueeze.default", "aten.squeeze.dim",      "aten.squeeze.dims",
    "aten.squeeze.default",   "aten.slice.Tensor",            "aten.select.int",       "aten.narrow.default",
    "aten.split.Tensor",      "aten.split_with_sizes.default", "aten.chunk.default",   "aten.unbind.int",
    "aten.flip.default",      "aten.index_select.default",
};

}  // namespace

void register_complex_rules(RuleTable& t) {
  for (std::string_view target : kPairTransparent) {
    const std::vector<Rule>* list = t.find(target);
    PT2ONNX_CHECK(list != nullptr, ErrorCode::kInternal, "complex rules: no real rule for " + std::string(target));
    const std::vector<Rule> real = *list;  // add_complex changes the list
    for (Rule r : real)
      if (!r.complex) {
        r.complex = true;
        t.add(target, r);
      }
  }
  t.add_complex("aten.view_as_real.default", aten_view_as_real);
  t.add_complex("aten.view_as_real_copy.default", aten_view_as_real);
  t.add_complex("aten.view_as_complex.default", aten_view_as_real);
  t.add_complex("aten.view_as_complex_copy.default", aten_view_as_real);
  t.add_complex("aten.real.default", aten_real);
  t.add_complex("aten.imag.default", aten_imag);
  t.add_complex("aten.complex.default", aten_complex);
  t.add_complex("aten.polar.default", aten_polar);
  t.add_complex("aten.abs.default", aten_abs);
  t.add_complex("aten.angle.default", aten_angle);
  t.add_complex("aten.mul.Tensor", aten_mul);
  t.add_complex("aten.mul.Scalar", aten_mul);
  t.add_complex("aten.div.Tensor", aten_div);
  t.add_complex("aten.div.Scalar", aten_div);
  t.add_complex("aten.add.Tensor", aten_add);
  t.add_complex("aten.add.Scalar", aten_add);
  t.add_complex("aten.sub.Tensor", aten_sub);
  t.add_complex("aten.sub.Scalar", aten_sub);
  t.add_complex("aten.neg.default", aten_neg);
  t.add_complex("aten._conj.default", aten_conj);
  t.add_complex("aten.conj.default", aten_conj);
  t.add_complex("aten.conj_physical.default", aten_conj);
  t.add_complex("aten.exp.default", aten_exp);
  t.add_complex("aten._to_copy.default", aten_to_copy);
  t.add_complex("aten.to.dtype", aten_to_copy);
  t.add_complex("aten.to.dtype_layout", aten_to_copy);  // .to(device) of a complex table (Llama 4 rotary)
  t.add_complex("aten.to.device", aten_to_copy);
  t.add_complex("aten.view.default", aten_view);
  t.add_complex("aten.reshape.default", aten_view);
  t.add_complex("aten._unsafe_view.default", aten_view);
  t.add_complex("aten.flatten.using_ints", aten_flatten);
  t.add_complex("aten.permute.default", aten_permute);
  t.add_complex("aten.transpose.int", aten_transpose);
  t.add_complex("aten.expand.default", aten_expand);
  t.add_complex("aten.t.default", aten_t);
  t.add_complex("aten.constant_pad_nd.default", aten_constant_pad_nd);
  t.add_complex("aten.cat.default", aten_cat);
}

}  // namespace pt2onnx::translate
