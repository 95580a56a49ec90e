// unique and its forms: _unique2 and unique_dim as ONNX Unique (sorted; flattened, or slices along
// a dim; sorted=False too: torch leaves that order unspecified and its CPU and CUDA kernels sort
// anyway), unique_consecutive as runs of equal neighbours (a mask of run starts: Compress for the
// values, its running sum for the inverse, the distance between starts for the counts). Results
// torch leaves empty when not asked for (return_inverse / return_counts False) are empty here too.
#include <cstdint>
#include <optional>
#include <vector>
#include <string>

#include "common/error.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

// Binds (values, inverse, counts) to outputs 0-2; the ones not asked for become empty int64.
// ONNX Unique's four outputs; bool values, which onnxruntime's CPU Unique lacks, as int64 (the
// same order: false before true).
std::vector<std::string> unique_of(EmitContext& ctx, const std::string& x, ir::DType type, const std::vector<Attr>& attrs) {
  if (type != ir::DType::kBool) return ctx.emit("Unique", {x}, attrs, 4);
  std::vector<std::string> u = ctx.emit("Unique", {ctx.cast(x, ir::DType::kInt64)}, attrs, 4);
  u[0] = ctx.cast(u[0], ir::DType::kBool);
  return u;
}

RuleResult bind_unique(EmitContext& ctx, const ArgReader& args, const std::string& values, const std::string& inverse,
                       const std::string& counts) {
  ctx.set_output(0, values);
  const std::string empty = ctx.const_i64s({});
  if (ctx.output_count() > 1) ctx.set_output(1, args.bool_or("return_inverse", false) ? inverse : empty);
  if (ctx.output_count() > 2) ctx.set_output(2, args.bool_or("return_counts", false) ? counts : empty);
  return RuleResult::kEmitted;
}

// _unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False) -> (Tensor, Tensor, Tensor)
RuleResult aten_unique2(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string x = args.tensor("self");
  const std::vector<std::string> u = unique_of(ctx, x, args.dtype_of("self"), {Attr("sorted", int64_t{1})});
  // ONNX's inverse indexes the flattened input; torch's has the input's shape.
  return bind_unique(ctx, args, u[0], ctx.reshape(u[2], ctx.shape_of(x)), u[3]);
}

// _unique(Tensor self, bool sorted=True, bool return_inverse=False) -> (Tensor, Tensor)
RuleResult aten_unique(EmitContext& ctx, const ir::Node& node) { return aten_unique2(ctx, node); }

// unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, bool return_counts=False)
//   -> (Tensor, Tensor, Tensor)   (slices along dim compared whole, sorted lexicographically)
RuleResult aten_unique_dim(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t dim = normalize_dim(args.get_int("dim"), args.rank_of("self"));
  const std::vector<std::string> u =
      unique_of(ctx, args.tensor("self"), args.dtype_of("self"), {Attr("axis", dim), Attr("sorted", int64_t{1})});
  return bind_unique(ctx, args, u[0], u[2], u[3]);
}

// unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, int? dim=None)
// (with dim: runs of equal slices along it)
//   -> (Tensor, Tensor, Tensor)
RuleResult aten_unique_consecutive(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string x = args.tensor("self");
  const std::optional<int64_t> dim = args.optional_int("dim");
  const int64_t rank = args.rank_of("self");
  // The runs are of elements (no dim) or of slices along dim, compared as rows [n, -1].
  std::vector<int64_t> perm;
  std::string items = ctx.reshape(x, ctx.const_i64s({-1}));
  if (dim) {
    PT2ONNX_CHECK(rank > 0, ErrorCode::kUnsupported, "unique_consecutive with dim of a 0-d tensor");
    // torch 2.15's fake kernel gives a negative dim's result a wrong rank ([5, 5, u0, 5, 5, 5] for
    // [5, 5, 5] and dim -1): the declared output would contradict the values.
    const ir::TensorMeta* declared = args.out_meta(0);
    PT2ONNX_CHECK(!declared || static_cast<int64_t>(declared->sizes.size()) == rank, ErrorCode::kUnsupported,
                  "unique_consecutive with dim " + std::to_string(*dim) + ": the program declares a rank-" +
                      std::to_string(declared ? declared->sizes.size() : 0) + " result for a rank-" + std::to_string(rank) +
                      " input (torch's export records a wrong shape for a negative dim; pass dim + rank)");
    const int64_t d = normalize_dim(*dim, rank);
    perm.push_back(d);
    for (int64_t i = 0; i < rank; ++i)
      if (i != d) perm.push_back(i);
    items = d == 0 ? x : ctx.transpose(x, perm);
  }
  const std::string axes = ctx.const_i64s({0});
  const std::string n = ctx.unsqueeze(ctx.dim_of(items, 0), {0});
  const std::string rows = dim ? ctx.reshape(items, ctx.concat({n, ctx.const_i64s({-1})}, 0)) : items;
  const std::string rest = ctx.emit("Slice", {rows, ctx.const_i64s({1}), ctx.const_i64s({INT64_MAX}), axes});
  const std::string before = ctx.emit("Slice", {rows, ctx.const_i64s({0}), ctx.const_i64s({-1}), axes});
  std::string changed = ctx.emit("Not", {ctx.emit("Equal", {rest, before})});
  if (dim) changed = ctx.cast(ctx.reduce("ReduceMax", ctx.cast(changed, DType::kInt32), std::vector<int64_t>{1}, false), DType::kBool);
  // A run starts at 0 (when there is an element) and wherever a value differs from the one before.
  const std::string first = ctx.emit("Slice", {ctx.emit("Greater", {n, ctx.const_i64s({0})}), ctx.const_i64s({0}),
                                               n, axes});
  const std::string starts_mask = ctx.concat({first, changed}, 0);
  std::string values = ctx.emit("Compress", {items, starts_mask}, {Attr("axis", int64_t{0})});
  if (dim && perm[0] != 0) {
    std::vector<int64_t> back(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) back[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
    values = ctx.transpose(values, back);
  }
  const std::string run = ctx.emit("CumSum", {ctx.cast(starts_mask, DType::kInt64), ctx.const_i64(0)});
  std::string inverse = ctx.emit("Sub", {run, ctx.const_i64(1)});
  if (!dim) inverse = ctx.reshape(inverse, ctx.shape_of(x));
  const std::string starts = ctx.squeeze(ctx.emit("NonZero", {starts_mask}), {0});
  const std::string ends = ctx.concat({ctx.emit("Slice", {starts, ctx.const_i64s({1}), ctx.const_i64s({INT64_MAX}), axes}), n}, 0);
  return bind_unique(ctx, args, values, inverse, ctx.emit("Sub", {ends, starts}));
}

}  // namespace

void register_unique_rules(RuleTable& t) {
  t.add("aten._unique2.default", aten_unique2);
  t.add("aten._unique.default", aten_unique);
  t.add("aten.unique_dim.default", aten_unique_dim);
  t.add("aten.unique_consecutive.default", aten_unique_consecutive);
}

}  // namespace pt2onnx::translate
