// Inverses and linear solves ONNX has no op for, through one Gauss-Jordan elimination with partial
// pivoting in float64, unrolled over the static matrix size (at most 32): linalg_inv(_ex),
// linalg_solve(_ex), linalg_matrix_power (negative powers through the inverse), linalg_tensorinv,
// linalg_tensorsolve, cholesky_inverse/cholesky_solve (from the factor) and the triangular solves;
// and the Cholesky factorization, column by column. Results are cast back to the input's type.
#include <algorithm>
#include <string>
#include <vector>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

constexpr int64_t kMaxUnrolled = 32;  // the elimination emits about 15 nodes per column

// The static size n of the square matrices [..., n, n] of argument `name`.
int64_t square_size(const ArgReader& args, const std::string& name) {
  const ir::TensorMeta& meta = args.meta(name);
  const size_t rank = meta.sizes.size();
  PT2ONNX_CHECK(rank >= 2, ErrorCode::kUnsupported, "a matrix argument '" + name + "' of rank below 2");
  const ir::Dim& rows = meta.sizes[rank - 2];
  const ir::Dim& cols = meta.sizes[rank - 1];
  PT2ONNX_CHECK(rows.is_static() && cols.is_static() && rows.as_int() == cols.as_int(), ErrorCode::kUnsupported,
                "a matrix argument '" + name + "' that is not square of a static size");
  PT2ONNX_CHECK(rows.as_int() <= kMaxUnrolled, ErrorCode::kUnsupported,
                "an inverse or solve of matrices larger than " + std::to_string(kMaxUnrolled) + " (the elimination is unrolled)");
  return rows.as_int();
}

std::string f64_constant(EmitContext& ctx, const std::vector<double>& values, const std::vector<int64_t>& dims, const std::string& base) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto_DataType_DOUBLE);
  for (int64_t d : dims) t.add_dims(d);
  for (double v : values) t.add_double_data(v);
  return ctx.const_tensor(std::move(t), base);
}

std::string bool_constant(EmitContext& ctx, const std::vector<bool>& values, const std::vector<int64_t>& dims, const std::string& base) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto_DataType_BOOL);
  for (int64_t d : dims) t.add_dims(d);
  for (bool v : values) t.add_int32_data(v ? 1 : 0);
  return ctx.const_tensor(std::move(t), base);
}

// The n x n identity in float64.
std::string identity64(EmitContext& ctx, int64_t n) {
  std::vector<double> eye(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) eye[static_cast<size_t>(i * n + i)] = 1.0;
  return f64_constant(ctx, eye, {n, n}, "identity");
}

struct Inverse {
  std::string value;  // [..., n, n] float64
  std::string info;   // [..., 1, 1] int64: 0, or 1 + the column of the first zero pivot (LAPACK's info); "" unless asked
};

// The inverse of the float64 matrices `a` [..., n, n]: [a | I] reduced column by column, the
// pivot the largest magnitude at or below the diagonal (rows swapped by a gather), its row scaled
// to 1 and subtracted from every other row. A singular matrix gives inf/NaN (and info > 0).
Inverse inverse64(EmitContext& ctx, const std::string& a, int64_t n, bool with_info = false) {
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  std::string m = ctx.concat({a, ctx.emit("Expand", {identity64(ctx, n), ctx.shape_of(a)})}, -1);  // [..., n, 2n]
  std::vector<int64_t> row_ids;
  for (int64_t i = 0; i < n; ++i) row_ids.push_back(i);
  const std::string rows = ctx.const_i64s(row_ids);
  const std::string last = ctx.const_i64s({-1}), second_last = ctx.const_i64s({-2});
  auto slice = [&](const std::string& v, int64_t begin, const std::string& axis) {
    return ctx.emit("Slice", {v, ctx.const_i64s({begin}), ctx.const_i64s({begin + 1}), axis});
  };
  std::string info = with_info ? ctx.emit("Expand", {ctx.const_i64(0), ctx.shape_of(slice(slice(a, 0, last), 0, second_last))}) : "";
  for (int64_t k = 0; k < n; ++k) {
    std::vector<bool> below(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) below[static_cast<size_t>(i)] = i >= k;
    const std::string column = ctx.squeeze(slice(m, k, last), {-1});  // [..., n]
    const std::string candidates = ctx.emit("Where", {bool_constant(ctx, below, {n}, "rows_from"), ctx.emit("Abs", {column}), c(-1)});
    const std::string p = ctx.emit("ArgMax", {candidates}, {Attr("axis", -1), Attr("keepdims", 1)});  // [..., 1]
    const std::string kk = ctx.const_i64(k);
    const std::string order = ctx.emit("Where", {ctx.emit("Equal", {rows, kk}), p,
                                                 ctx.emit("Where", {ctx.emit("Equal", {rows, p}), kk, rows})});
    m = ctx.emit("GatherElements", {m, ctx.emit("Expand", {ctx.unsqueeze(order, {-1}), ctx.shape_of(m)})}, {Attr("axis", -2)});
    const std::string pivot_row = slice(m, k, second_last);  // [..., 1, 2n]
    const std::string pivot = slice(pivot_row, k, last);      // [..., 1, 1]
    if (with_info)
      info = ctx.emit("Where", {ctx.emit("And", {ctx.emit("Equal", {info, ctx.const_i64(0)}), ctx.emit("Equal", {pivot, c(0)})}),
                                ctx.const_i64(k + 1), info});
    const std::string scaled = ctx.emit("Div", {pivot_row, pivot});
    const std::string eliminated = ctx.emit("Sub", {m, ctx.emit("Mul", {slice(m, k, last), scaled})});
    std::vector<bool> is_k(static_cast<size_t>(n), false);
    is_k[static_cast<size_t>(k)] = true;
    m = ctx.emit("Where", {bool_constant(ctx, is_k, {n, 1}, "row_is"), scaled, eliminated});
  }
  return {ctx.emit("Slice", {m, ctx.const_i64s({n}), ctx.const_i64s({2 * n}), last}), info};
}

// Whether the node has an info output (output 1) that is used.
bool wants_info(EmitContext& ctx) { return ctx.output_count() > 1 && ctx.output_used(1); }

// inverse64 of argument `name` (an empty matrix is its own inverse).
Inverse inverse_of(EmitContext& ctx, const ArgReader& args, const std::string& name, bool with_info = false) {
  const int64_t n = square_size(args, name);
  const std::string a = cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), DType::kFloat64);
  if (n == 0) return {a, std::string()};
  return inverse64(ctx, a, n, with_info);
}

// Output 1 (info) where used: int32 of the batch shape.
void set_info(EmitContext& ctx, const ArgReader& args, const std::string& name, const Inverse& inv) {
  if (!wants_info(ctx)) return;
  const int64_t rank = args.rank_of(name);
  std::string info = inv.info.empty() ? ctx.emit("Expand", {ctx.const_i64(0), ctx.shape_slice(args.tensor(name), 0, rank - 2)})
                                      : ctx.squeeze(inv.info, {-2, -1});
  ctx.set_output(1, cast_if_needed(ctx, info, DType::kInt64, args.out_dtype(1)));
}

// linalg_inv(Tensor A) -> Tensor; linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor info)
RuleResult aten_linalg_inv(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const Inverse inv = inverse_of(ctx, args, "A", wants_info(ctx));
  ctx.set_output(0, cast_if_needed(ctx, inv.value, DType::kFloat64, args.out_dtype(0)));
  set_info(ctx, args, "A", inv);
  return RuleResult::kEmitted;
}

bool same_dim(const ir::Dim& a, const ir::Dim& b) {
  if (a.is_static() != b.is_static()) return false;
  return a.is_static() ? a.as_int() == b.as_int() : ir::to_string(a.as_expr()) == ir::to_string(b.as_expr());
}

// inv(A) B (left) or B inv(A); a vector B (1-D, or A's shape without its last dim) as a column or a row.
std::string solve_with(EmitContext& ctx, const ArgReader& args, const std::string& inverse, const std::string& b_name, bool left) {
  const ir::TensorMeta& a = args.meta("A");
  const ir::TensorMeta& b = args.meta(b_name);
  bool vector = b.sizes.size() == 1;
  if (b.sizes.size() + 1 == a.sizes.size()) {
    vector = true;
    for (size_t i = 0; i < b.sizes.size() && vector; ++i) vector = same_dim(a.sizes[i], b.sizes[i]);
  }
  std::string rhs = cast_if_needed(ctx, args.tensor(b_name), args.dtype_of(b_name), DType::kFloat64);
  const int64_t axis = left ? -1 : -2;
  if (vector) rhs = ctx.unsqueeze(rhs, {axis});
  std::string x = left ? ctx.emit("MatMul", {inverse, rhs}) : ctx.emit("MatMul", {rhs, inverse});
  if (vector) x = ctx.squeeze(x, {axis});
  return x;
}

// linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor: X with A X = B (X A = B when not
// left); linalg_solve_ex also returns info.
RuleResult aten_linalg_solve(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const Inverse inv = inverse_of(ctx, args, "A", wants_info(ctx));
  const std::string x = solve_with(ctx, args, inv.value, "B", args.bool_or("left", true));
  ctx.set_output(0, cast_if_needed(ctx, x, DType::kFloat64, args.out_dtype(0)));
  set_info(ctx, args, "A", inv);
  return RuleResult::kEmitted;
}

// linalg_matrix_power(Tensor self, int n) -> Tensor: the identity for n = 0, products by repeated
// squaring for |n|, of the inverse when n < 0 (in float64 then).
RuleResult aten_linalg_matrix_power(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  int64_t power = args.get_int("n");
  const DType type = args.dtype_of("self");
  std::string base = args.tensor("self");
  DType work = type;
  if (power < 0) {
    base = inverse_of(ctx, args, "self").value;
    work = DType::kFloat64;
    power = -power;
  }
  if (power == 0) {
    const int64_t n = square_size(args, "self");
    const std::string eye = cast_if_needed(ctx, identity64(ctx, n), DType::kFloat64, type);
    return emitted(ctx, ctx.emit("Expand", {eye, ctx.shape_of(args.tensor("self"))}));
  }
  std::string result;
  for (std::string square = base; power > 0; power >>= 1) {
    if (power & 1) result = result.empty() ? square : ctx.emit("MatMul", {result, square});
    if (power > 1) square = ctx.emit("MatMul", {square, square});
  }
  return emitted(ctx, cast_if_needed(ctx, result, work, type));
}

// The product of sizes[begin:end] of a static shape.
int64_t static_product(const ir::TensorMeta& meta, size_t begin, size_t end, const char* what) {
  int64_t product = 1;
  for (size_t i = begin; i < end; ++i) {
    PT2ONNX_CHECK(meta.sizes[i].is_static(), ErrorCode::kUnsupported, std::string(what) + " with symbolic sizes");
    product *= meta.sizes[i].as_int();
  }
  return product;
}

// linalg_tensorinv(Tensor self, int ind=2) -> Tensor: the inverse of self read as a
// [prod(shape[:ind]), prod(shape[ind:])] matrix, shaped shape[ind:] + shape[:ind].
RuleResult aten_linalg_tensorinv(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const ir::TensorMeta& meta = args.meta("self");
  const auto ind = static_cast<size_t>(args.int_or("ind", 2));
  PT2ONNX_CHECK(ind > 0 && ind <= meta.sizes.size(), ErrorCode::kUnsupported, "linalg_tensorinv with ind outside the rank");
  const int64_t rows = static_product(meta, 0, ind, "linalg_tensorinv"), cols = static_product(meta, ind, meta.sizes.size(), "linalg_tensorinv");
  PT2ONNX_CHECK(rows == cols && rows <= kMaxUnrolled, ErrorCode::kUnsupported, "linalg_tensorinv of a non-square or large product");
  std::vector<int64_t> out_shape;
  for (size_t i = ind; i < meta.sizes.size(); ++i) out_shape.push_back(meta.sizes[i].as_int());
  for (size_t i = 0; i < ind; ++i) out_shape.push_back(meta.sizes[i].as_int());
  const std::string a = ctx.reshape(cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), DType::kFloat64), ctx.const_i64s({rows, cols}));
  const std::string inv = rows == 0 ? a : inverse64(ctx, a, rows).value;
  return emitted(ctx, cast_if_needed(ctx, ctx.reshape(inv, ctx.const_i64s(out_shape)), DType::kFloat64, args.out_dtype()));
}

// linalg_tensorsolve(Tensor self, Tensor other, int[]? dims=None) -> Tensor: X with
// tensordot(self, X, X.ndim) = other; `dims` of self are moved to the end first.
RuleResult aten_linalg_tensorsolve(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const ir::TensorMeta& meta = args.meta("self");
  const int64_t rank = args.rank_of("self");
  std::vector<int64_t> perm;
  std::vector<int64_t> moved = args.has("dims") ? normalize_dims(args.ints("dims"), rank) : std::vector<int64_t>{};
  for (int64_t i = 0; i < rank; ++i)
    if (std::find(moved.begin(), moved.end(), i) == moved.end()) perm.push_back(i);
  perm.insert(perm.end(), moved.begin(), moved.end());
  std::vector<int64_t> sizes;
  for (int64_t i : perm) {
    PT2ONNX_CHECK(meta.sizes[static_cast<size_t>(i)].is_static(), ErrorCode::kUnsupported, "linalg_tensorsolve with symbolic sizes");
    sizes.push_back(meta.sizes[static_cast<size_t>(i)].as_int());
  }
  const auto lead = static_cast<size_t>(args.rank_of("other"));
  int64_t rows = 1, cols = 1;
  for (size_t i = 0; i < sizes.size(); ++i) (i < lead ? rows : cols) *= sizes[i];
  PT2ONNX_CHECK(rows == cols && rows <= kMaxUnrolled, ErrorCode::kUnsupported, "linalg_tensorsolve of a non-square or large product");
  std::string a = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), DType::kFloat64);
  if (!moved.empty()) a = ctx.transpose(a, perm);
  a = ctx.reshape(a, ctx.const_i64s({rows, cols}));
  const std::string b = ctx.reshape(cast_if_needed(ctx, args.tensor("other"), args.dtype_of("other"), DType::kFloat64), ctx.const_i64s({rows, 1}));
  const std::string x = rows == 0 ? b : ctx.emit("MatMul", {inverse64(ctx, a, rows).value, b});
  const std::vector<int64_t> out_shape(sizes.begin() + static_cast<std::ptrdiff_t>(lead), sizes.end());
  return emitted(ctx, cast_if_needed(ctx, ctx.reshape(x, ctx.const_i64s(out_shape)), DType::kFloat64, args.out_dtype()));
}

// The triangle of the float64 matrices `a` [..., n, n] (upper or lower, the rest zeros), with a
// unit diagonal when `unit`.
std::string triangle(EmitContext& ctx, const std::string& a, int64_t n, bool upper, bool unit) {
  std::vector<bool> keep(static_cast<size_t>(n * n));
  std::vector<double> diagonal(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      keep[static_cast<size_t>(i * n + j)] = unit ? (upper ? j > i : j < i) : (upper ? j >= i : j <= i);
      if (unit && i == j) diagonal[static_cast<size_t>(i * n + j)] = 1.0;
    }
  const std::string fill = unit ? f64_constant(ctx, diagonal, {n, n}, "unit_diagonal") : ctx.const_scalar(0, DType::kFloat64);
  return ctx.emit("Where", {bool_constant(ctx, keep, {n, n}, "triangle"), a, fill});
}

std::string transposed(EmitContext& ctx, const std::string& a, int64_t rank) {
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i) perm.push_back(i);
  std::swap(perm[static_cast<size_t>(rank - 1)], perm[static_cast<size_t>(rank - 2)]);
  return ctx.transpose(a, perm);
}

// The float64 matrix of argument `name` (square), its triangle taken when `upper` is set.
struct Square {
  std::string value;
  int64_t n = 0;
  int64_t rank = 0;
};
Square square64(EmitContext& ctx, const ArgReader& args, const std::string& name) {
  return {cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), DType::kFloat64), square_size(args, name), args.rank_of(name)};
}

// The inverse of A = L L^T (or U^T U when `upper`) from the factor's triangle.
std::string cholesky_inverse64(EmitContext& ctx, const Square& factor, bool upper) {
  const std::string t = triangle(ctx, factor.value, factor.n, upper, false);
  const std::string a = upper ? ctx.emit("MatMul", {transposed(ctx, t, factor.rank), t}) : ctx.emit("MatMul", {t, transposed(ctx, t, factor.rank)});
  return factor.n == 0 ? a : inverse64(ctx, a, factor.n).value;
}

// cholesky_inverse(Tensor self, bool upper=False) -> Tensor
RuleResult aten_cholesky_inverse(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string inv = cholesky_inverse64(ctx, square64(ctx, args, "self"), args.bool_or("upper", false));
  return emitted(ctx, cast_if_needed(ctx, inv, DType::kFloat64, args.out_dtype()));
}

// cholesky_solve(Tensor self, Tensor input2, bool upper=False) -> Tensor: X with A X = self, A
// given by its Cholesky factor input2.
RuleResult aten_cholesky_solve(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string inv = cholesky_inverse64(ctx, square64(ctx, args, "input2"), args.bool_or("upper", false));
  const std::string b = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), DType::kFloat64);
  return emitted(ctx, cast_if_needed(ctx, ctx.emit("MatMul", {inv, b}), DType::kFloat64, args.out_dtype()));
}

// The inverse of the triangle of argument `name`.
std::string triangle_inverse(EmitContext& ctx, const ArgReader& args, const std::string& name, bool upper, bool unit, bool transpose) {
  const Square a = square64(ctx, args, name);
  std::string t = triangle(ctx, a.value, a.n, upper, unit);
  if (transpose) t = transposed(ctx, t, a.rank);
  return a.n == 0 ? t : inverse64(ctx, t, a.n).value;
}

// triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False, bool unitriangular=False)
//   -> (Tensor solution, Tensor cloned_coefficient): X with op(T) X = self, T A's triangle; output 1 is A.
RuleResult aten_triangular_solve(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string inv = triangle_inverse(ctx, args, "A", args.bool_or("upper", true), args.bool_or("unitriangular", false),
                                           args.bool_or("transpose", false));
  const std::string b = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), DType::kFloat64);
  ctx.set_output(0, cast_if_needed(ctx, ctx.emit("MatMul", {inv, b}), DType::kFloat64, args.out_dtype(0)));
  if (ctx.output_used(1)) ctx.set_output(1, ctx.emit("Identity", {args.tensor("A")}));
  return RuleResult::kEmitted;
}

// linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True, bool unitriangular=False)
//   -> Tensor: X with T X = B (X T = B when not left), T the triangle of self.
RuleResult aten_linalg_solve_triangular(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string inv = triangle_inverse(ctx, args, "self", args.get_bool("upper"), args.bool_or("unitriangular", false), false);
  const std::string b = cast_if_needed(ctx, args.tensor("B"), args.dtype_of("B"), DType::kFloat64);
  const std::string x = args.bool_or("left", true) ? ctx.emit("MatMul", {inv, b}) : ctx.emit("MatMul", {b, inv});
  return emitted(ctx, cast_if_needed(ctx, x, DType::kFloat64, args.out_dtype()));
}

// The Cholesky factor L (lower, A = L L^T) of the float64 matrices `a` [..., n, n], column by
// column from a's lower triangle: c = a[:, j] - L L[j, :]^T, L[j, j] = sqrt(c[j]), L[i > j, j] =
// c[i] / L[j, j]. `info` (when asked): 0, or 1 + the first column whose c[j] is not positive.
Inverse cholesky64(EmitContext& ctx, const std::string& a, int64_t n, bool with_info) {
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  const std::string last = ctx.const_i64s({-1}), second_last = ctx.const_i64s({-2});
  auto slice = [&](const std::string& v, int64_t begin, const std::string& axis) {
    return ctx.emit("Slice", {v, ctx.const_i64s({begin}), ctx.const_i64s({begin + 1}), axis});
  };
  std::string l = ctx.emit("Expand", {c(0), ctx.shape_of(a)});
  std::string info = with_info ? ctx.emit("Expand", {ctx.const_i64(0), ctx.shape_of(slice(slice(a, 0, last), 0, second_last))}) : "";
  for (int64_t j = 0; j < n; ++j) {
    const std::string row = slice(l, j, second_last);                                   // [..., 1, n]
    const std::string dots = ctx.reduce("ReduceSum", ctx.emit("Mul", {l, row}), std::vector<int64_t>{-1}, true);  // [..., n, 1]
    const std::string column = ctx.emit("Sub", {slice(a, j, last), dots});
    const std::string diagonal = slice(column, j, second_last);                         // [..., 1, 1]
    if (with_info)
      info = ctx.emit("Where", {ctx.emit("And", {ctx.emit("Equal", {info, ctx.const_i64(0)}), ctx.emit("Not", {ctx.emit("Greater", {diagonal, c(0)})})}),
                                ctx.const_i64(j + 1), info});
    const std::string root = ctx.emit("Sqrt", {diagonal});
    std::vector<bool> below(static_cast<size_t>(n)), at(static_cast<size_t>(n)), column_j(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      below[static_cast<size_t>(i)] = i > j;
      at[static_cast<size_t>(i)] = i == j;
      column_j[static_cast<size_t>(i)] = i == j;
    }
    const std::string fresh = ctx.emit("Where", {bool_constant(ctx, below, {n, 1}, "rows_below"), ctx.emit("Div", {column, root}),
                                                 ctx.emit("Where", {bool_constant(ctx, at, {n, 1}, "row_is"), root, c(0)})});
    l = ctx.emit("Where", {bool_constant(ctx, column_j, {1, n}, "column_is"), fresh, l});
  }
  return {l, info};
}

// linalg_cholesky(Tensor self, *, bool upper=False) -> Tensor; linalg_cholesky_ex(Tensor self, *,
// bool upper=False, bool check_errors=False) -> (Tensor L, Tensor info). The upper factor is the
// transposed lower factor of self's transpose (so that it reads self's upper triangle, as torch).
RuleResult aten_linalg_cholesky(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const Square a = square64(ctx, args, "self");
  const bool upper = args.bool_or("upper", false);
  Inverse factor{a.value, ""};
  if (a.n > 0) factor = cholesky64(ctx, upper ? transposed(ctx, a.value, a.rank) : a.value, a.n, wants_info(ctx));
  const std::string l = upper && a.n > 0 ? transposed(ctx, factor.value, a.rank) : factor.value;
  ctx.set_output(0, cast_if_needed(ctx, l, DType::kFloat64, args.out_dtype(0)));
  set_info(ctx, args, "self", factor);
  return RuleResult::kEmitted;
}

}  // namespace

void register_decomp_linalg_rules(RuleTable& t) {
  t.add("aten.linalg_cholesky.default", aten_linalg_cholesky);
  t.add("aten.linalg_cholesky_ex.default", aten_linalg_cholesky);
  t.add("aten.linalg_inv.default", aten_linalg_inv);
  t.add("aten.linalg_inv_ex.default", aten_linalg_inv);
  t.add("aten.linalg_solve.default", aten_linalg_solve);
  t.add("aten.linalg_solve_ex.default", aten_linalg_solve);
  t.add("aten.linalg_matrix_power.default", aten_linalg_matrix_power);
  t.add("aten.linalg_tensorinv.default", aten_linalg_tensorinv);
  t.add("aten.linalg_tensorsolve.default", aten_linalg_tensorsolve);
  t.add("aten.cholesky_inverse.default", aten_cholesky_inverse);
  t.add("aten.cholesky_solve.default", aten_cholesky_solve);
  t.add("aten.triangular_solve.default", aten_triangular_solve);
  t.add("aten.linalg_solve_triangular.default", aten_linalg_solve_triangular);
}

}  // namespace pt2onnx::translate
