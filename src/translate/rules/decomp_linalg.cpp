// Inverses and linear solves ONNX has no op for, through one Gauss-Jordan elimination with partial
// pivoting in float64, unrolled over the static matrix size (at most 32): linalg_inv(_ex),
// linalg_solve(_ex), linalg_matrix_power (negative powers through the inverse), linalg_tensorinv,
// linalg_tensorsolve, cholesky_inverse/cholesky_solve (from the factor) and the triangular solves;
// the Cholesky factorization, column by column; and LU with partial pivoting (linalg_lu,
// linalg_lu_factor(_ex), _lu_with_info, lu_unpack, lu_solve, linalg_lu_solve, linalg_slogdet);
// Householder QR as LAPACK computes it (geqrf, linalg_qr, linalg_householder_product, ormqr); the
// singular values by one-sided Jacobi sweeps (linalg_svdvals, linalg_pinv, pinverse,
// linalg_matrix_rank, linalg_cond, the nuclear and spectral matrix norms, linalg_polar,
// linalg_matrix_sqrth, linalg_eigvalsh); the matrix exponential by
// scaling and squaring (linalg_matrix_exp). Results are cast back to the input's type.
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"
#include "translate/subgraph_body.h"

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

// Output `index` (info; 1 but for _linalg_solve_ex) where used: int32 of the batch shape.
void set_info(EmitContext& ctx, const ArgReader& args, const std::string& name, const Inverse& inv, size_t index = 1) {
  if (ctx.output_count() <= index || !ctx.output_used(index)) return;
  const int64_t rank = args.rank_of(name);
  std::string info = inv.info.empty() ? ctx.emit("Expand", {ctx.const_i64(0), ctx.shape_slice(args.tensor(name), 0, rank - 2)})
                                      : ctx.squeeze(inv.info, {-2, -1});
  ctx.set_output(index, cast_if_needed(ctx, info, DType::kInt64, args.out_dtype(index)));
}

// linalg_inv(Tensor A) -> Tensor; linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor info)
RuleResult aten_linalg_inv(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string name = args.has("A") ? "A" : "self";  // inverse(self) too
  const Inverse inv = inverse_of(ctx, args, name, wants_info(ctx));
  ctx.set_output(0, cast_if_needed(ctx, inv.value, DType::kFloat64, args.out_dtype(0)));
  set_info(ctx, args, name, inv);
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

// linalg_matrix_exp(Tensor self) -> Tensor: scaling and squaring in float64. Each matrix is divided
// by 2^s, s the smallest power making its 1-norm at most 1; its degree-18 Taylor polynomial (Horner
// form, remainder below 1/19! ~ 8e-18 there) is then squared s times in a Loop, each matrix of a
// batch stopping at its own s (at most 1100, past which float64 overflows anyway).
RuleResult aten_linalg_matrix_exp(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const ir::TensorMeta& meta = args.meta("self");
  const size_t rank = meta.sizes.size();
  PT2ONNX_CHECK(rank >= 2 && meta.sizes[rank - 1].is_static() && meta.sizes[rank - 2].is_static() &&
                    meta.sizes[rank - 1].as_int() == meta.sizes[rank - 2].as_int(),
                ErrorCode::kUnsupported, "linalg_matrix_exp of matrices that are not square of a static size");
  const int64_t n = meta.sizes[rank - 1].as_int();
  const DType type = args.dtype_of("self");
  PT2ONNX_CHECK(is_floating(type), ErrorCode::kUnsupported, "linalg_matrix_exp of " + std::string(ir::dtype_name(type)));
  if (n == 0) return emitted(ctx, args.tensor("self"));
  const std::string a = cast_if_needed(ctx, args.tensor("self"), type, DType::kFloat64);
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  const std::string column_sums = ctx.reduce("ReduceSum", ctx.emit("Abs", {a}), std::vector<int64_t>{-2}, true);
  const std::string norm = ctx.reduce("ReduceMax", column_sums, std::vector<int64_t>{-1}, true);  // [..., 1, 1]
  std::string squarings = ctx.emit("Ceil", {ctx.emit("Div", {ctx.emit("Log", {norm}), c(std::log(2.0))})});
  squarings = ctx.emit("Clip", {squarings, c(0), c(1100)});
  squarings = ctx.emit("Where", {ctx.emit("IsNaN", {squarings}), c(0), squarings});
  const std::string x = ctx.emit("Mul", {a, ctx.emit("Pow", {c(2), ctx.emit("Neg", {squarings})})});
  const std::string eye = identity64(ctx, n);
  std::string taylor = eye;
  for (int k = 18; k >= 1; --k) taylor = ctx.emit("Add", {eye, ctx.emit("Div", {ctx.emit("MatMul", {x, taylor}), c(k)})});

  onnx::GraphProto body;
  body.set_name(ctx.fresh_name("matrix_exp_squaring"));
  const std::string i = add_scalar_input(ctx, body, "i", DType::kInt64), cond = add_scalar_input(ctx, body, "cond", DType::kBool);
  const std::string t = add_typed_input(ctx, body, "t", DType::kFloat64);
  const std::string step = append_body_node(ctx, body, "Cast", {i}, {Attr("to", int64_t{onnx_dtype(DType::kFloat64)})});
  const std::string squared = append_body_node(ctx, body, "MatMul", {t, t});
  const std::string next = append_body_node(ctx, body, "Where", {append_body_node(ctx, body, "Less", {step, squarings}), squared, t});
  add_typed_output(body, append_body_node(ctx, body, "Identity", {cond}), DType::kBool, true);
  add_typed_output(body, next, DType::kFloat64);
  const std::string trips = ctx.cast(ctx.reduce("ReduceMax", squarings, std::nullopt, false), DType::kInt64);
  const std::string result = ctx.emit("Loop", {trips, ctx.const_bool(true), taylor}, {Attr("body", std::move(body))}, 1)[0];
  return emitted(ctx, cast_if_needed(ctx, result, DType::kFloat64, args.out_dtype()));
}

// _linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> (Tensor result,
// Tensor LU, Tensor pivots, Tensor info): linalg_solve's kernel, which core IR writes (reading the
// result only). The result and info convert; LU and pivots are refused where a program reads them.
RuleResult aten_linalg_solve_kernel(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(!ctx.output_used(1) && !ctx.output_used(2), ErrorCode::kUnsupported,
                "_linalg_solve_ex with its LU or pivots read (only the solution and info convert)");
  const bool info = ctx.output_used(3);
  const Inverse inv = inverse_of(ctx, args, "A", info);
  ctx.set_output(0, cast_if_needed(ctx, solve_with(ctx, args, inv.value, "B", args.bool_or("left", true)), DType::kFloat64, args.out_dtype(0)));
  set_info(ctx, args, "A", inv, 3);
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
// given by its Cholesky factor input2; _cholesky_solve_helper(Tensor self, Tensor A, bool upper),
// its kernel, names the factor A.
RuleResult aten_cholesky_solve(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string inv = cholesky_inverse64(ctx, square64(ctx, args, args.has("input2") ? "input2" : "A"), args.bool_or("upper", false));
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

// ---- LU with partial pivoting ---------------------------------------------------------------------

// The static sizes m, n of the matrices [..., m, n] of argument `name`.
std::pair<int64_t, int64_t> matrix_sizes(const ArgReader& args, const std::string& name) {
  const ir::TensorMeta& meta = args.meta(name);
  const size_t rank = meta.sizes.size();
  PT2ONNX_CHECK(rank >= 2 && meta.sizes[rank - 2].is_static() && meta.sizes[rank - 1].is_static(), ErrorCode::kUnsupported,
                "a matrix argument '" + name + "' of rank below 2 or of symbolic size");
  const int64_t m = meta.sizes[rank - 2].as_int(), n = meta.sizes[rank - 1].as_int();
  PT2ONNX_CHECK(std::min(m, n) <= kMaxUnrolled, ErrorCode::kUnsupported,
                "a factorization of matrices with more than " + std::to_string(kMaxUnrolled) + " rows and columns (the elimination is unrolled)");
  return {m, n};
}

std::string bool_mask(EmitContext& ctx, int64_t rows, int64_t cols, const std::function<bool(int64_t, int64_t)>& keep, const std::string& base) {
  std::vector<bool> v(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) v[static_cast<size_t>(i * cols + j)] = keep(i, j);
  return bool_constant(ctx, v, {rows, cols}, base);
}

// The rows r of `order` [..., m] for a swap of rows i and p ([..., 1]): p at i, i at p, r elsewhere.
std::string swap_order(EmitContext& ctx, const std::string& rows, int64_t i, const std::string& p) {
  const std::string ii = ctx.const_i64(i);
  return ctx.emit("Where", {ctx.emit("Equal", {rows, ii}), p, ctx.emit("Where", {ctx.emit("Equal", {rows, p}), ii, rows})});
}

struct Lu {
  std::string packed;  // [..., m, n] float64: L's multipliers below the diagonal, U on and above
  std::string pivots;  // [..., k] int64, 1-based (LAPACK's ipiv)
  std::string order;   // [..., m] int64: A[order] = L U
  std::string info;    // [..., 1, 1] int64 (0, or 1 + the first zero pivot)
};

// Gaussian elimination with partial pivoting of the float64 matrices `a` [..., m, n], k = min(m, n)
// columns: the pivot the largest magnitude at or below the diagonal, the rows swapped, the
// multipliers stored below it and the rows below reduced.
Lu lu64(EmitContext& ctx, const std::string& a, int64_t m, int64_t n) {
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  const std::string last = ctx.const_i64s({-1}), second_last = ctx.const_i64s({-2});
  auto slice = [&](const std::string& v, int64_t begin, const std::string& axis) {
    return ctx.emit("Slice", {v, ctx.const_i64s({begin}), ctx.const_i64s({begin + 1}), axis});
  };
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < m; ++i) ids.push_back(i);
  const std::string rows = ctx.const_i64s(ids);
  const std::string column_shape = ctx.shape_of(slice(a, 0, last));  // [..., m, 1]
  std::string order = ctx.squeeze(ctx.emit("Expand", {ctx.unsqueeze(rows, {-1}), column_shape}), {-1});
  std::string info = ctx.emit("Expand", {ctx.const_i64(0), ctx.shape_of(slice(slice(a, 0, last), 0, second_last))});
  std::string lu = a;
  std::vector<std::string> pivots;
  for (int64_t j = 0; j < std::min(m, n); ++j) {
    const std::string column = ctx.squeeze(slice(lu, j, last), {-1});
    const std::string from = bool_mask(ctx, 1, m, [&](int64_t, int64_t i) { return i >= j; }, "rows_from");
    const std::string candidates = ctx.emit("Where", {ctx.squeeze(from, {0}), ctx.emit("Abs", {column}), c(-1)});
    const std::string p = ctx.emit("ArgMax", {candidates}, {Attr("axis", -1), Attr("keepdims", 1)});
    const std::string swap = swap_order(ctx, rows, j, p);
    lu = ctx.emit("GatherElements", {lu, ctx.emit("Expand", {ctx.unsqueeze(swap, {-1}), ctx.shape_of(lu)})}, {Attr("axis", -2)});
    order = ctx.emit("GatherElements", {order, swap}, {Attr("axis", -1)});
    pivots.push_back(ctx.emit("Add", {p, ctx.const_i64(1)}));
    const std::string pivot_row = slice(lu, j, second_last), pivot = slice(pivot_row, j, last);
    info = ctx.emit("Where", {ctx.emit("And", {ctx.emit("Equal", {info, ctx.const_i64(0)}), ctx.emit("Equal", {pivot, c(0)})}),
                              ctx.const_i64(j + 1), info});
    const std::string factors = ctx.emit("Div", {slice(lu, j, last), pivot});  // [..., m, 1]
    const std::string reduced = ctx.emit("Sub", {lu, ctx.emit("Mul", {factors, pivot_row})});
    // Rows below the pivot: the multiplier in column j, the reduced row right of it, the earlier
    // multipliers kept left of it.
    const std::string in_column = bool_mask(ctx, 1, n, [&](int64_t, int64_t col) { return col == j; }, "column_is");
    const std::string after = bool_mask(ctx, 1, n, [&](int64_t, int64_t col) { return col > j; }, "columns_after");
    const std::string below = bool_mask(ctx, m, 1, [&](int64_t i, int64_t) { return i > j; }, "rows_below");
    const std::string row = ctx.emit("Where", {after, reduced, ctx.emit("Where", {in_column, factors, lu})});
    lu = ctx.emit("Where", {below, row, lu});
  }
  const std::string all_pivots = pivots.empty() ? ctx.emit("Expand", {ctx.const_i64(0), ctx.shape_slice(order, 0, -1)})
                                                : ctx.concat(pivots, -1);
  return {lu, all_pivots, order, info};
}

// The row order [..., m] of LAPACK pivots [..., k] (1-based, applied as swaps in turn).
std::string order_of_pivots(EmitContext& ctx, const std::string& pivots, int64_t m, int64_t k) {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < m; ++i) ids.push_back(i);
  const std::string rows = ctx.const_i64s(ids);
  const std::string batch = ctx.shape_slice(pivots, 0, -1);
  std::string order = ctx.emit("Expand", {rows, ctx.concat({batch, ctx.const_i64s({m})}, 0)});
  const std::string p0 = ctx.emit("Sub", {pivots, ctx.const_i64(1)});
  for (int64_t i = 0; i < k; ++i) {
    const std::string p = ctx.emit("Slice", {p0, ctx.const_i64s({i}), ctx.const_i64s({i + 1}), ctx.const_i64s({-1})});
    order = ctx.emit("GatherElements", {order, swap_order(ctx, rows, i, p)}, {Attr("axis", -1)});
  }
  return order;
}

// P [..., m, m] with A = P L U for A[order] = L U: P[i, j] = (order[j] == i), float64.
std::string permutation_matrix(EmitContext& ctx, const std::string& order, int64_t m) {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < m; ++i) ids.push_back(i);
  const std::string column = ctx.reshape(ctx.const_i64s(ids), ctx.const_i64s({m, 1}));
  return ctx.cast(ctx.emit("Equal", {column, ctx.unsqueeze(order, {-2})}), DType::kFloat64);
}

// L [..., m, k] (unit lower) and U [..., k, n] (upper) of packed factors.
std::pair<std::string, std::string> unpack_lu(EmitContext& ctx, const std::string& packed, int64_t m, int64_t n) {
  const int64_t k = std::min(m, n);
  const std::string last = ctx.const_i64s({-1}), second_last = ctx.const_i64s({-2}), zero = ctx.const_i64s({0});
  const std::string left = ctx.emit("Slice", {packed, zero, ctx.const_i64s({k}), last});
  const std::string top = ctx.emit("Slice", {packed, zero, ctx.const_i64s({k}), second_last});
  std::vector<double> unit(static_cast<size_t>(m * k), 0.0);
  for (int64_t i = 0; i < k; ++i) unit[static_cast<size_t>(i * k + i)] = 1.0;
  const std::string l = ctx.emit("Where", {bool_mask(ctx, m, k, [](int64_t i, int64_t j) { return i > j; }, "strictly_lower"), left,
                                           f64_constant(ctx, unit, {m, k}, "unit_diagonal")});
  const std::string u = ctx.emit("Where", {bool_mask(ctx, k, n, [](int64_t i, int64_t j) { return j >= i; }, "upper"), top,
                                           ctx.const_scalar(0, DType::kFloat64)});
  return {l, u};
}

// linalg_lu_factor(Tensor A, *, bool pivot=True) -> (Tensor LU, Tensor pivots); linalg_lu_factor_ex
// and _lu_with_info(Tensor self, bool pivot=True, bool check_errors=True) add info. Pivots and info int32.
RuleResult aten_lu_factor(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string name = args.has("A") ? "A" : "self";
  PT2ONNX_CHECK(args.bool_or("pivot", true), ErrorCode::kUnsupported, "an LU factorization without pivoting");
  const auto [m, n] = matrix_sizes(args, name);
  const Lu lu = lu64(ctx, cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), DType::kFloat64), m, n);
  ctx.set_output(0, cast_if_needed(ctx, lu.packed, DType::kFloat64, args.out_dtype(0)));
  if (ctx.output_used(1)) ctx.set_output(1, cast_if_needed(ctx, lu.pivots, DType::kInt64, args.out_dtype(1)));
  if (ctx.output_count() > 2 && ctx.output_used(2))
    ctx.set_output(2, cast_if_needed(ctx, ctx.squeeze(lu.info, {-2, -1}), DType::kInt64, args.out_dtype(2)));
  return RuleResult::kEmitted;
}

// linalg_lu(Tensor A, *, bool pivot=True) -> (Tensor P, Tensor L, Tensor U) with A = P L U.
RuleResult aten_linalg_lu(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(args.bool_or("pivot", true), ErrorCode::kUnsupported, "an LU factorization without pivoting");
  const auto [m, n] = matrix_sizes(args, "A");
  const Lu lu = lu64(ctx, cast_if_needed(ctx, args.tensor("A"), args.dtype_of("A"), DType::kFloat64), m, n);
  const auto [l, u] = unpack_lu(ctx, lu.packed, m, n);
  const DType type = args.out_dtype(0);
  ctx.set_output(0, cast_if_needed(ctx, permutation_matrix(ctx, lu.order, m), DType::kFloat64, type));
  ctx.set_output(1, cast_if_needed(ctx, l, DType::kFloat64, type));
  ctx.set_output(2, cast_if_needed(ctx, u, DType::kFloat64, type));
  return RuleResult::kEmitted;
}

// lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, bool unpack_pivots=True) -> (P, L, U)
RuleResult aten_lu_unpack(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(args.bool_or("unpack_data", true) && args.bool_or("unpack_pivots", true), ErrorCode::kUnsupported,
                "lu_unpack without unpacking data or pivots (torch returns empty tensors there)");
  const auto [m, n] = matrix_sizes(args, "LU_data");
  const std::string packed = cast_if_needed(ctx, args.tensor("LU_data"), args.dtype_of("LU_data"), DType::kFloat64);
  const std::string pivots = cast_if_needed(ctx, args.tensor("LU_pivots"), args.dtype_of("LU_pivots"), DType::kInt64);
  const auto [l, u] = unpack_lu(ctx, packed, m, n);
  const DType type = args.out_dtype(0);
  ctx.set_output(0, cast_if_needed(ctx, permutation_matrix(ctx, order_of_pivots(ctx, pivots, m, std::min(m, n)), m), DType::kFloat64, type));
  ctx.set_output(1, cast_if_needed(ctx, l, DType::kFloat64, type));
  ctx.set_output(2, cast_if_needed(ctx, u, DType::kFloat64, type));
  return RuleResult::kEmitted;
}

// The inverse of A = P L U from packed square factors and pivots.
std::string inverse_from_lu(EmitContext& ctx, const ArgReader& args, const std::string& data, const std::string& pivots_name) {
  const int64_t n = square_size(args, data);
  const std::string packed = cast_if_needed(ctx, args.tensor(data), args.dtype_of(data), DType::kFloat64);
  if (n == 0) return packed;
  const std::string pivots = cast_if_needed(ctx, args.tensor(pivots_name), args.dtype_of(pivots_name), DType::kInt64);
  const auto [l, u] = unpack_lu(ctx, packed, n, n);
  const std::string p = permutation_matrix(ctx, order_of_pivots(ctx, pivots, n, n), n);
  return inverse64(ctx, ctx.emit("MatMul", {p, ctx.emit("MatMul", {l, u})}), n).value;
}

// lu_solve(Tensor self, Tensor LU_data, Tensor LU_pivots) -> Tensor: X with A X = self.
RuleResult aten_lu_solve(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string inv = inverse_from_lu(ctx, args, "LU_data", "LU_pivots");
  const std::string b = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), DType::kFloat64);
  return emitted(ctx, cast_if_needed(ctx, ctx.emit("MatMul", {inv, b}), DType::kFloat64, args.out_dtype()));
}

// linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False) -> Tensor:
// X with op(A) X = B (X op(A) = B when not left), op the transpose when `adjoint` (real tensors).
RuleResult aten_linalg_lu_solve(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  std::string inv = inverse_from_lu(ctx, args, "LU", "pivots");
  if (args.bool_or("adjoint", false)) inv = transposed(ctx, inv, args.rank_of("LU"));
  const std::string b = cast_if_needed(ctx, args.tensor("B"), args.dtype_of("B"), DType::kFloat64);
  const std::string x = args.bool_or("left", true) ? ctx.emit("MatMul", {inv, b}) : ctx.emit("MatMul", {b, inv});
  return emitted(ctx, cast_if_needed(ctx, x, DType::kFloat64, args.out_dtype()));
}

// linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet) from the LU factors: the product of
// U's diagonal signs times the parity of the row swaps, the sum of log|U_ii| (sign 0 and -inf
// when singular, as torch gives; 1 and 0 for an empty matrix).
RuleResult aten_linalg_slogdet_lu(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string name = args.has("A") ? "A" : "self";  // slogdet(self) too
  const int64_t n = square_size(args, name);
  const std::string a = cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), DType::kFloat64);
  std::string diagonal, swaps;
  if (n == 0) {
    diagonal = ctx.emit("Expand", {ctx.const_scalar(1, DType::kFloat64), ctx.concat({ctx.shape_slice(a, 0, -2), ctx.const_i64s({1})}, 0)});
    swaps = ctx.emit("Expand", {ctx.const_i64(0), ctx.shape_slice(a, 0, -2)});
  } else {
    const Lu lu = lu64(ctx, a, n, n);
    diagonal = ctx.reduce("ReduceSum", ctx.emit("Where", {bool_mask(ctx, n, n, [](int64_t i, int64_t j) { return i == j; }, "diagonal"),
                                                          lu.packed, ctx.const_scalar(0, DType::kFloat64)}),
                          std::vector<int64_t>{-1}, false);
    std::vector<int64_t> own;
    for (int64_t i = 1; i <= n; ++i) own.push_back(i);
    swaps = ctx.reduce("ReduceSum", ctx.cast(ctx.emit("Not", {ctx.emit("Equal", {lu.pivots, ctx.const_i64s(own)})}), DType::kInt64),
                       std::vector<int64_t>{-1}, false);
  }
  const std::string parity = ctx.emit("Sub", {ctx.const_scalar(1, DType::kFloat64),
                                              ctx.emit("Mul", {ctx.cast(ctx.emit("Mod", {swaps, ctx.const_i64(2)}), DType::kFloat64),
                                                               ctx.const_scalar(2, DType::kFloat64)})});
  const std::string sign = ctx.emit("Mul", {ctx.reduce("ReduceProd", ctx.emit("Sign", {diagonal}), std::vector<int64_t>{-1}, false), parity});
  const std::string logabs = ctx.reduce("ReduceSum", ctx.emit("Log", {ctx.emit("Abs", {diagonal})}), std::vector<int64_t>{-1}, false);
  ctx.set_output(0, cast_if_needed(ctx, sign, DType::kFloat64, args.out_dtype(0)));
  ctx.set_output(1, cast_if_needed(ctx, logabs, DType::kFloat64, args.out_dtype(1)));
  return RuleResult::kEmitted;
}

// ---- Householder QR ------------------------------------------------------------------------------

// The reflector vectors v_i [..., m, 1] of packed factors (1 at row i, the column's entries below,
// zeros above), i < count.
std::string reflector(EmitContext& ctx, const std::string& packed, int64_t m, int64_t i) {
  const std::string column = ctx.emit("Slice", {packed, ctx.const_i64s({i}), ctx.const_i64s({i + 1}), ctx.const_i64s({-1})});
  const std::string below = bool_mask(ctx, m, 1, [&](int64_t r, int64_t) { return r > i; }, "rows_below");
  const std::string at = bool_mask(ctx, m, 1, [&](int64_t r, int64_t) { return r == i; }, "row_is");
  const std::string zero = ctx.const_scalar(0, DType::kFloat64), one = ctx.const_scalar(1, DType::kFloat64);
  return ctx.emit("Where", {at, one, ctx.emit("Where", {below, column, zero})});
}

// H_0 H_1 ... H_{k-1} q for H_i = I - tau_i v_i v_i^T (LAPACK's orgqr/ormqr product), applied to
// the float64 matrices `q` [..., m, c] from the last reflector to the first.
std::string apply_reflectors(EmitContext& ctx, const std::string& packed, const std::string& tau, int64_t m, int64_t k, std::string q,
                             bool transpose) {
  for (int64_t step = 0; step < k; ++step) {
    const int64_t i = transpose ? step : k - 1 - step;  // Q^T q = H_{k-1} ... H_0 q
    const std::string v = reflector(ctx, packed, m, i);
    const std::string t = ctx.unsqueeze(ctx.emit("Slice", {tau, ctx.const_i64s({i}), ctx.const_i64s({i + 1}), ctx.const_i64s({-1})}), {-1});
    const std::string w = ctx.reduce("ReduceSum", ctx.emit("Mul", {v, q}), std::vector<int64_t>{-2}, true);  // v^T q, [..., 1, c]
    q = ctx.emit("Sub", {q, ctx.emit("Mul", {ctx.emit("Mul", {t, v}), w})});
  }
  return q;
}

// The first `cols` columns of the m x m identity, expanded to the batch of `like` (float64).
std::string identity_columns(EmitContext& ctx, const std::string& like, int64_t m, int64_t cols) {
  std::vector<double> eye(static_cast<size_t>(m * cols), 0.0);
  for (int64_t i = 0; i < std::min(m, cols); ++i) eye[static_cast<size_t>(i * cols + i)] = 1.0;
  const std::string batch = ctx.shape_slice(like, 0, -2);
  return ctx.emit("Expand", {f64_constant(ctx, eye, {m, cols}, "identity"), ctx.concat({batch, ctx.const_i64s({m, cols})}, 0)});
}

struct Qr {
  std::string packed;  // [..., m, n]: R on and above the diagonal, the reflectors below
  std::string tau;     // [..., k]
};

// LAPACK's geqrf (dgeqr2's unblocked order) in float64: for each column i < min(m, n), dlarfg's
// reflector of x = a[i:, i] (beta = -sign(alpha) |x|, tau = (beta - alpha) / beta, v = x[1:] /
// (alpha - beta); tau = 0 when x[1:] is zero), applied to the columns right of i.
Qr geqrf64(EmitContext& ctx, std::string a, int64_t m, int64_t n) {
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  const std::string last = ctx.const_i64s({-1}), second_last = ctx.const_i64s({-2});
  std::vector<std::string> taus;
  for (int64_t i = 0; i < std::min(m, n); ++i) {
    const std::string column = ctx.emit("Slice", {a, ctx.const_i64s({i}), ctx.const_i64s({i + 1}), last});  // [..., m, 1]
    const std::string alpha = ctx.emit("Slice", {column, ctx.const_i64s({i}), ctx.const_i64s({i + 1}), second_last});
    const std::string below = bool_mask(ctx, m, 1, [&](int64_t r, int64_t) { return r > i; }, "rows_below");
    const std::string lower = ctx.emit("Where", {below, column, c(0)});
    const std::string xnorm = ctx.emit("Sqrt", {ctx.reduce("ReduceSum", ctx.emit("Mul", {lower, lower}), std::vector<int64_t>{-2}, true)});
    const std::string zero = ctx.emit("Equal", {xnorm, c(0)});
    const std::string norm = ctx.emit("Sqrt", {ctx.emit("Add", {ctx.emit("Mul", {alpha, alpha}), ctx.emit("Mul", {xnorm, xnorm})})});
    const std::string beta_raw = ctx.emit("Mul", {ctx.emit("Where", {ctx.emit("GreaterOrEqual", {alpha, c(0)}), c(-1), c(1)}), norm});
    const std::string safe_beta = ctx.emit("Where", {zero, c(1), beta_raw});
    const std::string tau = ctx.emit("Where", {zero, c(0), ctx.emit("Div", {ctx.emit("Sub", {beta_raw, alpha}), safe_beta})});
    const std::string scale = ctx.emit("Where", {zero, c(0), ctx.emit("Reciprocal", {ctx.emit("Where", {zero, c(1), ctx.emit("Sub", {alpha, beta_raw})})})});
    const std::string beta = ctx.emit("Where", {zero, alpha, beta_raw});
    const std::string at = bool_mask(ctx, m, 1, [&](int64_t r, int64_t) { return r == i; }, "row_is");
    const std::string v = ctx.emit("Where", {at, c(1), ctx.emit("Mul", {lower, scale})});
    const std::string w = ctx.reduce("ReduceSum", ctx.emit("Mul", {v, a}), std::vector<int64_t>{-2}, true);
    const std::string updated = ctx.emit("Sub", {a, ctx.emit("Mul", {ctx.emit("Mul", {tau, v}), w})});
    const std::string new_column = ctx.emit("Where", {at, beta, ctx.emit("Where", {below, v, column})});
    const std::string right = bool_mask(ctx, 1, n, [&](int64_t, int64_t j) { return j > i; }, "columns_after");
    const std::string is_i = bool_mask(ctx, 1, n, [&](int64_t, int64_t j) { return j == i; }, "column_is");
    a = ctx.emit("Where", {right, updated, ctx.emit("Where", {is_i, new_column, a})});
    taus.push_back(ctx.squeeze(tau, {-1}));
  }
  const std::string tau = taus.empty() ? ctx.emit("Expand", {c(0), ctx.concat({ctx.shape_slice(a, 0, -2), ctx.const_i64s({0})}, 0)})
                                       : ctx.concat(taus, -1);
  return {a, tau};
}

// geqrf(Tensor self) -> (Tensor a, Tensor tau)
RuleResult aten_geqrf(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const auto [m, n] = matrix_sizes(args, "self");
  const Qr qr = geqrf64(ctx, cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), DType::kFloat64), m, n);
  ctx.set_output(0, cast_if_needed(ctx, qr.packed, DType::kFloat64, args.out_dtype(0)));
  if (ctx.output_used(1)) ctx.set_output(1, cast_if_needed(ctx, qr.tau, DType::kFloat64, args.out_dtype(1)));
  return RuleResult::kEmitted;
}

// linalg_qr(Tensor A, str mode="reduced") -> (Tensor Q, Tensor R): geqrf, then Q as the reflectors'
// product on the identity's first k (reduced) or m (complete) columns, R the upper triangle of the
// first k (reduced) or m rows; mode "r" gives an empty Q, as torch.
RuleResult aten_linalg_qr(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string mode = args.string_or("mode", "reduced");
  PT2ONNX_CHECK(mode == "reduced" || mode == "complete" || mode == "r", ErrorCode::kUnsupported, "linalg_qr of mode '" + mode + "'");
  const auto [m, n] = matrix_sizes(args, "A");
  const int64_t k = std::min(m, n);
  const Qr qr = geqrf64(ctx, cast_if_needed(ctx, args.tensor("A"), args.dtype_of("A"), DType::kFloat64), m, n);
  const DType type = args.out_dtype(0);
  const int64_t q_cols = mode == "complete" ? m : k, r_rows = mode == "complete" ? m : k;
  if (ctx.output_used(0)) {
    if (mode == "r") {
      onnx::TensorProto empty;
      empty.set_data_type(onnx_dtype(type));
      empty.add_dims(0);
      ctx.set_output(0, ctx.const_tensor(std::move(empty), "empty"));
    } else {
      const std::string q = apply_reflectors(ctx, qr.packed, qr.tau, m, k, identity_columns(ctx, qr.packed, m, q_cols), false);
      ctx.set_output(0, cast_if_needed(ctx, q, DType::kFloat64, type));
    }
  }
  const std::string rows = ctx.emit("Slice", {qr.packed, ctx.const_i64s({0}), ctx.const_i64s({r_rows}), ctx.const_i64s({-2})});
  const std::string r = ctx.emit("Where", {bool_mask(ctx, r_rows, n, [](int64_t i, int64_t j) { return j >= i; }, "upper"), rows,
                                           ctx.const_scalar(0, DType::kFloat64)});
  ctx.set_output(1, cast_if_needed(ctx, r, DType::kFloat64, args.out_dtype(1)));
  return RuleResult::kEmitted;
}

// linalg_householder_product(Tensor input, Tensor tau) -> Tensor: H_0 ... H_{k-1} on the first n
// columns of the m x m identity (orgqr), k = tau's length.
RuleResult aten_householder_product(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  // orgqr(self, input2) names the same operands differently.
  const std::string input = args.has("input") ? "input" : "self", tau_name = args.has("tau") ? "tau" : "input2";
  const auto [m, n] = matrix_sizes(args, input);
  const ir::Dim& count = args.meta(tau_name).sizes.back();
  PT2ONNX_CHECK(count.is_static() && count.as_int() <= kMaxUnrolled, ErrorCode::kUnsupported, "householder_product of a symbolic or large tau");
  const std::string packed = cast_if_needed(ctx, args.tensor(input), args.dtype_of(input), DType::kFloat64);
  const std::string tau = cast_if_needed(ctx, args.tensor(tau_name), args.dtype_of(tau_name), DType::kFloat64);
  const std::string q = apply_reflectors(ctx, packed, tau, m, count.as_int(), identity_columns(ctx, packed, m, n), false);
  return emitted(ctx, cast_if_needed(ctx, q, DType::kFloat64, args.out_dtype()));
}

// ormqr(Tensor self, Tensor input2, Tensor input3, bool left=True, bool transpose=False) -> Tensor:
// op(Q) input3 (left) or input3 op(Q), Q = H_0 ... H_{k-1} of the reflectors in self and tau input2.
RuleResult aten_ormqr(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const auto [m, n] = matrix_sizes(args, "self");
  (void)n;
  const ir::Dim& count = args.meta("input2").sizes.back();
  PT2ONNX_CHECK(count.is_static() && count.as_int() <= kMaxUnrolled, ErrorCode::kUnsupported, "ormqr of a symbolic or large tau");
  const std::string packed = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), DType::kFloat64);
  const std::string tau = cast_if_needed(ctx, args.tensor("input2"), args.dtype_of("input2"), DType::kFloat64);
  const std::string other = cast_if_needed(ctx, args.tensor("input3"), args.dtype_of("input3"), DType::kFloat64);
  const bool left = args.bool_or("left", true), transpose = args.bool_or("transpose", false);
  std::string x;
  if (left) {
    x = apply_reflectors(ctx, packed, tau, m, count.as_int(), other, transpose);
  } else {
    // other op(Q) = (op(Q)^T other^T)^T
    const int64_t rank = args.rank_of("input3");
    x = transposed(ctx, apply_reflectors(ctx, packed, tau, m, count.as_int(), transposed(ctx, other, rank), !transpose), rank);
  }
  return emitted(ctx, cast_if_needed(ctx, x, DType::kFloat64, args.out_dtype()));
}

// ---- singular values: one-sided Jacobi ----------------------------------------------------------

constexpr int64_t kMaxJacobi = 16;  // columns; a sweep is n (n - 1) / 2 rotations of about 30 nodes
constexpr int64_t kJacobiSweeps = 12;

onnx::ValueInfoProto body_value(const std::string& name, bool scalar = false, DType type = DType::kFloat64) {
  onnx::ValueInfoProto info;
  info.set_name(name);
  info.mutable_type()->mutable_tensor_type()->set_elem_type(onnx_dtype(type));
  if (scalar) info.mutable_type()->mutable_tensor_type()->mutable_shape();
  return info;
}

struct Jacobi {
  std::string b;  // A V [..., m, n]: orthogonal columns, their norms the singular values
  std::string v;  // [..., n, n] orthogonal
};

// Hestenes' one-sided Jacobi on the float64 matrices `a` [..., m, n] (m >= n): each sweep rotates
// every column pair (p, q) of B = A V so that they become orthogonal (t = sign(z) / (|z| +
// sqrt(1 + z^2)), z = (|b_q|^2 - |b_p|^2) / (2 b_p.b_q); no rotation where b_p.b_q = 0), the same
// rotation accumulated in V. A Loop runs 12 sweeps (the method converges quadratically: a handful
// suffice for 16 columns, further sweeps change nothing).
Jacobi jacobi64(EmitContext& ctx, const std::string& a, int64_t n) {
  auto c = [&](double v) { return ctx.const_scalar(v, DType::kFloat64); };
  onnx::GraphProto body;
  body.set_name(ctx.fresh_name("jacobi_sweep"));
  const std::string iter = ctx.fresh_name("i"), cond = ctx.fresh_name("cond"), b_in = ctx.fresh_name("b"), v_in = ctx.fresh_name("v");
  *body.add_input() = body_value(iter, true, DType::kInt64);
  *body.add_input() = body_value(cond, true, DType::kBool);
  *body.add_input() = body_value(b_in);
  *body.add_input() = body_value(v_in);
  auto step = [&](const std::string& op, const std::vector<std::string>& in) { return append_body_node(ctx, body, op, in); };
  auto column = [&](const std::string& x, int64_t j) {
    return step("Slice", {x, ctx.const_i64s({j}), ctx.const_i64s({j + 1}), ctx.const_i64s({-1})});
  };
  auto dot = [&](const std::string& x, const std::string& y) { return step("ReduceSum", {step("Mul", {x, y}), ctx.const_i64s({-2})}); };
  std::string b = b_in, v = v_in;
  for (int64_t p = 0; p < n; ++p)
    for (int64_t q = p + 1; q < n; ++q) {
      const std::string bp = column(b, p), bq = column(b, q);
      const std::string alpha = dot(bp, bp), beta = dot(bq, bq), gamma = dot(bp, bq);
      const std::string none = step("Equal", {gamma, c(0)});
      const std::string z = step("Div", {step("Sub", {beta, alpha}), step("Mul", {step("Where", {none, c(1), gamma}), c(2)})});
      const std::string sign = step("Where", {step("Less", {z, c(0)}), c(-1), c(1)});
      const std::string t_raw = step("Div", {sign, step("Add", {step("Abs", {z}), step("Sqrt", {step("Add", {c(1), step("Mul", {z, z})})})})});
      const std::string t = step("Where", {none, c(0), t_raw});
      const std::string cs = step("Reciprocal", {step("Sqrt", {step("Add", {c(1), step("Mul", {t, t})})})});
      const std::string sn = step("Mul", {cs, t});
      const std::string is_p = bool_mask(ctx, 1, n, [&](int64_t, int64_t j) { return j == p; }, "column_is");
      const std::string is_q = bool_mask(ctx, 1, n, [&](int64_t, int64_t j) { return j == q; }, "column_is");
      auto rotate = [&](const std::string& x, const std::string& xp, const std::string& xq) {
        const std::string new_p = step("Sub", {step("Mul", {cs, xp}), step("Mul", {sn, xq})});
        const std::string new_q = step("Add", {step("Mul", {sn, xp}), step("Mul", {cs, xq})});
        return step("Where", {is_p, new_p, step("Where", {is_q, new_q, x})});
      };
      b = rotate(b, bp, bq);
      v = rotate(v, column(v, p), column(v, q));
    }
  *body.add_output() = body_value(step("Identity", {cond}), true, DType::kBool);
  *body.add_output() = body_value(b);
  *body.add_output() = body_value(v);
  const std::string eye = ctx.emit("Expand", {identity64(ctx, n), ctx.concat({ctx.shape_slice(a, 0, -2), ctx.const_i64s({n, n})}, 0)});
  const std::vector<std::string> loop = ctx.emit("Loop", {ctx.const_i64(kJacobiSweeps), "", a, eye}, {Attr("body", std::move(body))}, 2);
  return {loop[0], loop[1]};
}

struct Svd {
  std::string values;  // [..., k] descending (k = min(m, n))
  std::string b, v;    // Jacobi's factors of A, or of A^T when A is wide (m < n)
  bool wide = false;
  std::string order;   // [..., k] the columns of b and v by descending value (k > 0)
  std::string matrix;  // what the sweeps decomposed: A, or A^T when A is wide
};

// The singular values of the float64 matrices `a` [..., m, n] of rank `rank` (static sizes, at
// most 16 on the smaller side).
Svd svd64(EmitContext& ctx, std::string a, int64_t m, int64_t n, int64_t rank) {
  const bool wide = m < n;
  const int64_t k = std::min(m, n);
  PT2ONNX_CHECK(k <= kMaxJacobi, ErrorCode::kUnsupported,
                "singular values of matrices with more than " + std::to_string(kMaxJacobi) + " rows and columns (unrolled Jacobi sweeps)");
  if (wide) a = transposed(ctx, a, rank);
  if (k == 0) {
    const std::string empty = ctx.emit("Expand", {ctx.const_scalar(0, DType::kFloat64), ctx.concat({ctx.shape_slice(a, 0, -2), ctx.const_i64s({0})}, 0)});
    return {empty, a, a, wide, "", a};
  }
  const Jacobi j = jacobi64(ctx, a, k);
  const std::string norms = ctx.emit("Sqrt", {ctx.reduce("ReduceSum", ctx.emit("Mul", {j.b, j.b}), std::vector<int64_t>{-2}, false)});
  const std::vector<std::string> sorted = ctx.emit("TopK", {norms, ctx.const_i64s({k})}, {Attr("axis", -1), Attr("largest", 1), Attr("sorted", 1)}, 2);
  return {sorted[0], j.b, j.v, wide, sorted[1], a};
}

// svd64 of argument `name`; `hermitian`: of the symmetric matrix of its lower triangle, as torch
// reads a hermitian matrix through eigh.
Svd svd_of(EmitContext& ctx, const ArgReader& args, const std::string& name) {
  const auto [m, n] = matrix_sizes(args, name);
  std::string a = cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), DType::kFloat64);
  if (args.bool_or("hermitian", false) && std::min(m, n) > 0) {
    const std::string lower = bool_mask(ctx, m, n, [](int64_t i, int64_t j) { return i >= j; }, "lower");
    a = ctx.emit("Where", {lower, a, transposed(ctx, a, args.rank_of(name))});
  }
  return svd64(ctx, a, m, n, args.rank_of(name));
}

// linalg_matrix_norm / linalg_norm of ord "nuc" (the singular values' sum), 2 (the largest) or -2
// (the smallest) over two dims (linalg_norm: over its dims, or a 2-D tensor's); other orders are
// composite_math.cpp's (declined here). An empty matrix gives 0 for nuc and 2.
// The ord-norm (0: nuclear, +-2: spectral) of self's matrices over `dims`, by their singular values.
std::string singular_value_norm(EmitContext& ctx, const ArgReader& args, double ord, const std::vector<int64_t>& dims, bool keepdim) {
  const int64_t rank = args.rank_of("self");
  const ir::TensorMeta& meta = args.meta("self");
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    if (i != dims[0] && i != dims[1]) perm.push_back(i);
  perm.push_back(dims[0]);
  perm.push_back(dims[1]);
  const ir::Dim& rows = meta.sizes[static_cast<size_t>(dims[0])];
  const ir::Dim& cols = meta.sizes[static_cast<size_t>(dims[1])];
  PT2ONNX_CHECK(rows.is_static() && cols.is_static(), ErrorCode::kUnsupported, "a spectral or nuclear norm over symbolic sizes");
  const int64_t m = rows.as_int(), n = cols.as_int(), k = std::min(m, n);
  PT2ONNX_CHECK(k > 0 || ord != -2, ErrorCode::kUnsupported, "a norm of ord -2 of an empty matrix");
  std::string a = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), DType::kFloat64);
  bool moved = false;
  for (int64_t i = 0; i < rank; ++i) moved = moved || perm[static_cast<size_t>(i)] != i;
  if (moved) a = ctx.transpose(a, perm);
  const Svd svd = svd64(ctx, a, m, n, rank);
  std::string value;
  if (k == 0) value = ctx.reduce("ReduceSum", svd.values, std::vector<int64_t>{-1}, false);  // zeros of the batch shape
  else if (ord == 0) value = ctx.reduce("ReduceSum", svd.values, std::vector<int64_t>{-1}, false);
  else value = ctx.squeeze(ctx.emit("Slice", {svd.values, ctx.const_i64s({ord > 0 ? 0 : k - 1}), ctx.const_i64s({ord > 0 ? 1 : k}),
                                              ctx.const_i64s({-1})}), {-1});
  if (keepdim) value = ctx.unsqueeze(value, {std::min(dims[0], dims[1]), std::max(dims[0], dims[1])});
  return cast_if_needed(ctx, value, DType::kFloat64, args.out_dtype());
}

RuleResult aten_singular_value_norm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (!args.has("ord")) return RuleResult::kDeclined;
  double ord = 0;  // 0: nuc
  if (const auto* text = std::get_if<std::string>(&args.arg("ord"))) {
    if (*text != "nuc") return RuleResult::kDeclined;
  } else {
    ord = args.scalar_number("ord");
    if (std::abs(ord) != 2) return RuleResult::kDeclined;
  }
  const int64_t rank = args.rank_of("self");
  if (!args.has("dim") && rank != 2) return RuleResult::kDeclined;
  std::vector<int64_t> dims = args.has("dim") ? normalize_dims(args.ints("dim"), rank) : std::vector<int64_t>{0, 1};
  if (dims.size() != 2) return RuleResult::kDeclined;
  return emitted(ctx, singular_value_norm(ctx, args, ord, dims, args.bool_or("keepdim", false)));
}

// nuclear_norm(Tensor self, bool keepdim=False) (a 2-D self) and .dim(Tensor self, int[2] dim, bool
// keepdim=False): the sum of the singular values.
RuleResult aten_nuclear_norm(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  PT2ONNX_CHECK(args.has("dim") || rank == 2, ErrorCode::kUnsupported, "nuclear_norm of a tensor that is not 2-D without dims");
  const std::vector<int64_t> dims = args.has("dim") ? normalize_dims(args.ints("dim"), rank) : std::vector<int64_t>{0, 1};
  PT2ONNX_CHECK(dims.size() == 2, ErrorCode::kUnsupported, "nuclear_norm over other than two dims");
  return emitted(ctx, singular_value_norm(ctx, args, 0, dims, args.bool_or("keepdim", false)));
}

// linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor
RuleResult aten_linalg_svdvals(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, cast_if_needed(ctx, svd_of(ctx, args, "A").values, DType::kFloat64, args.out_dtype()));
}

// The float64 columns u [..., m, c] (orthonormal where `valid` [..., 1, c] holds, zero elsewhere)
// with every other column replaced, in order, by the unit vector along the standard basis vector
// e_t least covered by the columns so far (t: the row of u of least norm, whose squared norm is
// below 1 while fewer than m columns are set), minus its projection on them. Unrolled over c.
std::string complete_orthonormal(EmitContext& ctx, std::string u, const std::string& valid, int64_t m, int64_t c, int64_t rank) {
  const std::string rows = ctx.reshape(ctx.emit("Range", {ctx.const_i64(0), ctx.const_i64(m), ctx.const_i64(1)}), ctx.const_i64s({m, 1}));
  for (int64_t j = 0; j < c; ++j) {
    const std::string row_norms = ctx.reduce("ReduceSum", ctx.emit("Mul", {u, u}), std::vector<int64_t>{-1}, true);
    const std::string t = ctx.emit("ArgMin", {row_norms}, {Attr("axis", -2), Attr("keepdims", 1)});
    const std::string e = cast_if_needed(ctx, ctx.emit("Equal", {rows, t}), DType::kBool, DType::kFloat64);
    const std::string w = ctx.emit("Sub", {e, ctx.emit("MatMul", {u, ctx.emit("MatMul", {transposed(ctx, u, rank), e})})});
    const std::string unit = ctx.emit("Div", {w, ctx.emit("Sqrt", {ctx.reduce("ReduceSum", ctx.emit("Mul", {w, w}), std::vector<int64_t>{-2}, true)})});
    const std::string column = bool_mask(ctx, 1, c, [j](int64_t, int64_t k) { return k == j; }, "column_is");
    u = ctx.emit("Where", {ctx.emit("And", {column, ctx.emit("Not", {valid})}), unit, u});
  }
  return u;
}

// The singular value decomposition A = U diag(S) V^T of the float64 matrices `a` [..., m, n] (static
// sizes): S descending, U [..., m, k] (or [..., m, m] when `full`), V [..., n, k] (or [..., n, n]),
// k = min(m, n). The one-sided Jacobi sweeps give V and B = A V, U = B diag(1/S); a column of U
// whose singular value is 0 (below 1e-13 of the largest), and the columns `full` adds, are
// completed to an orthonormal basis. A wide A is decomposed as A^T, with U and V exchanged.
struct SvdFactors {
  std::string u, s, v;
};
SvdFactors svd_factors(EmitContext& ctx, const std::string& a, int64_t m, int64_t n, int64_t rank, bool full) {
  const int64_t rows = std::max(m, n), k = std::min(m, n);  // of A, or of A^T when A is wide
  const int64_t c = full ? rows : k;                         // columns of the tall side's U
  PT2ONNX_CHECK(c <= kMaxUnrolled, ErrorCode::kUnsupported,
                "full singular vectors of matrices with more than " + std::to_string(kMaxUnrolled) + " rows (the completion is unrolled)");
  const Svd svd = svd64(ctx, a, m, n, rank);
  const std::string zero = ctx.const_scalar(0, DType::kFloat64);
  std::string batch;  // A's batch dims, read where zeros need them
  auto zeros = [&](const std::vector<int64_t>& matrix) {
    if (batch.empty()) batch = ctx.shape_slice(svd.matrix, 0, -2);
    return ctx.emit("Expand", {zero, ctx.concat({batch, ctx.const_i64s(matrix)}, 0)});
  };
  SvdFactors f;
  f.s = svd.values;
  std::string u, valid;
  if (k == 0) {
    f.v = zeros({0, 0});
    u = zeros({rows, c});
    valid = ctx.emit("Expand", {ctx.const_bool(false), ctx.const_i64s({1, c})});
  } else {
    auto columns_in_order = [&](const std::string& x) {
      return ctx.emit("GatherElements", {x, ctx.emit("Expand", {ctx.unsqueeze(svd.order, {-2}), ctx.emit("Shape", {x})})}, {Attr("axis", -1)});
    };
    f.v = columns_in_order(svd.v);
    const std::string s_row = ctx.unsqueeze(f.s, {-2});
    const std::string floor = ctx.emit("Mul", {ctx.reduce("ReduceMax", s_row, std::vector<int64_t>{-1}, true), ctx.const_scalar(1e-13, DType::kFloat64)});
    valid = ctx.emit("And", {ctx.emit("Greater", {s_row, floor}), ctx.emit("Greater", {s_row, zero})});
    u = ctx.emit("Where", {valid, ctx.emit("Div", {columns_in_order(svd.b), ctx.emit("Where", {valid, s_row, ctx.const_scalar(1, DType::kFloat64)})}), zero});
    if (c > k) {
      u = ctx.concat({u, zeros({rows, c - k})}, -1);
      valid = ctx.concat({valid, ctx.emit("Expand", {ctx.const_bool(false), ctx.concat({ctx.shape_slice(valid, 0, -1), ctx.const_i64s({c - k})}, 0)})}, -1);
    }
  }
  u = complete_orthonormal(ctx, u, valid, rows, c, rank);
  if (svd.wide) return {f.v, f.s, u};
  return {u, f.s, f.v};
}

// linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)
// and svd(Tensor self, bool some=True, bool compute_uv=True) -> (Tensor U, Tensor S, Tensor V):
// svd_factors. Singular vectors are defined only up to sign (pairs of U and V columns together),
// and those of a zero singular value only up to a rotation: torch's are LAPACK's choice.
RuleResult svd_rule(EmitContext& ctx, const ArgReader& args, const std::string& name, bool full, bool v_transposed) {
  const auto [m, n] = matrix_sizes(args, name);
  const int64_t rank = args.rank_of(name);
  const std::string a = cast_if_needed(ctx, args.tensor(name), args.dtype_of(name), DType::kFloat64);
  const SvdFactors f = svd_factors(ctx, a, m, n, rank, full);
  ctx.set_output(0, cast_if_needed(ctx, f.u, DType::kFloat64, args.out_dtype(0)));
  ctx.set_output(1, cast_if_needed(ctx, f.s, DType::kFloat64, args.out_dtype(1)));
  ctx.set_output(2, cast_if_needed(ctx, v_transposed ? transposed(ctx, f.v, rank) : f.v, DType::kFloat64, args.out_dtype(2)));
  return RuleResult::kEmitted;
}

RuleResult aten_linalg_svd(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return svd_rule(ctx, args, "A", args.bool_or("full_matrices", true), true);
}

// svd with compute_uv=False gives zero-filled U [..., m, m] and V [..., n, n] besides S.
RuleResult aten_svd(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (args.bool_or("compute_uv", true)) return svd_rule(ctx, args, "self", !args.bool_or("some", true), false);
  const auto [m, n] = matrix_sizes(args, "self");
  const std::string batch = ctx.shape_slice(args.tensor("self"), 0, -2);
  ctx.set_output(0, ctx.emit("Expand", {ctx.const_scalar(0, args.out_dtype(0)), ctx.concat({batch, ctx.const_i64s({m, m})}, 0)}));
  ctx.set_output(1, cast_if_needed(ctx, svd_of(ctx, args, "self").values, DType::kFloat64, args.out_dtype(1)));
  ctx.set_output(2, ctx.emit("Expand", {ctx.const_scalar(0, args.out_dtype(2)), ctx.concat({batch, ctx.const_i64s({n, n})}, 0)}));
  return RuleResult::kEmitted;
}

// linalg_polar(Tensor A) -> (Tensor U, Tensor H), A [..., m, n] with m >= n (torch requires it):
// from A = W S V^T as the Jacobi sweeps give it (B = A V, S B's column norms), U = W V^T =
// B diag(1/S) V^T and H = V diag(S) V^T, both unique for a full-rank A. A zero singular value's
// direction is left out of U (torch completes it with an arbitrary one).
RuleResult aten_linalg_polar(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const auto [m, n] = matrix_sizes(args, "A");
  PT2ONNX_CHECK(m >= n, ErrorCode::kUnsupported, "linalg_polar of matrices with fewer rows than columns");
  PT2ONNX_CHECK(n <= kMaxJacobi, ErrorCode::kUnsupported,
                "linalg_polar of matrices with more than " + std::to_string(kMaxJacobi) + " columns (unrolled Jacobi sweeps)");
  const int64_t rank = args.rank_of("A");
  const std::string a = cast_if_needed(ctx, args.tensor("A"), args.dtype_of("A"), DType::kFloat64);
  const DType out = args.out_dtype();
  if (n == 0) {
    ctx.set_output(0, cast_if_needed(ctx, a, DType::kFloat64, out));
    ctx.set_output(1, ctx.emit("Expand", {ctx.const_scalar(0, out), ctx.concat({ctx.shape_slice(a, 0, -2), ctx.const_i64s({0, 0})}, 0)}));
    return RuleResult::kEmitted;
  }
  const Jacobi j = jacobi64(ctx, a, n);
  const std::string s = ctx.emit("Sqrt", {ctx.reduce("ReduceSum", ctx.emit("Mul", {j.b, j.b}), std::vector<int64_t>{-2}, true)});
  const std::string zero = ctx.const_scalar(0, DType::kFloat64);
  const std::string positive = ctx.emit("Greater", {s, zero});
  const std::string inverse = ctx.emit("Where", {positive, ctx.emit("Reciprocal", {ctx.emit("Where", {positive, s, ctx.const_scalar(1, DType::kFloat64)})}), zero});
  const std::string vt = transposed(ctx, j.v, rank);
  ctx.set_output(0, cast_if_needed(ctx, ctx.emit("MatMul", {ctx.emit("Mul", {j.b, inverse}), vt}), DType::kFloat64, out));
  if (ctx.output_used(1)) ctx.set_output(1, cast_if_needed(ctx, ctx.emit("MatMul", {ctx.emit("Mul", {j.v, s}), vt}), DType::kFloat64, out));
  return RuleResult::kEmitted;
}

// The symmetric matrices of self's lower (or upper) triangle, as torch reads a matrix through eigh,
// by the Jacobi sweeps: V and the signed eigenvalues lambda_i = v_i . (A v_i) [..., 1, n]. n is
// static, at most kMaxJacobi and > 0.
struct SymmetricEigen {
  std::string v, lambda;
};
SymmetricEigen symmetric_eigen(EmitContext& ctx, const ArgReader& args, int64_t n, bool lower) {
  const int64_t rank = args.rank_of("self");
  std::string a = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), DType::kFloat64);
  const std::string kept = bool_mask(ctx, n, n, [lower](int64_t i, int64_t k) { return lower ? i >= k : i <= k; }, "triangle");
  a = ctx.emit("Where", {kept, a, transposed(ctx, a, rank)});
  const Jacobi j = jacobi64(ctx, a, n);
  return {j.v, ctx.reduce("ReduceSum", ctx.emit("Mul", {j.v, j.b}), std::vector<int64_t>{-2}, true)};
}

// The size of self's square matrices, checked for the Jacobi sweeps.
int64_t symmetric_size(const ArgReader& args, const std::string& op) {
  const auto [m, n] = matrix_sizes(args, "self");
  PT2ONNX_CHECK(m == n, ErrorCode::kUnsupported, op + " of a matrix that is not square");
  PT2ONNX_CHECK(n <= kMaxJacobi, ErrorCode::kUnsupported,
                op + " of matrices larger than " + std::to_string(kMaxJacobi) + " (unrolled Jacobi sweeps)");
  return n;
}

// linalg_matrix_sqrth(Tensor self) -> Tensor: V diag(sqrt(max(lambda, 0))) V^T of the lower
// triangle's symmetric matrix (torch clamps negative eigenvalues to 0).
RuleResult aten_linalg_matrix_sqrth(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t n = symmetric_size(args, "linalg_matrix_sqrth");
  if (n == 0) return emitted(ctx, cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), args.out_dtype()));
  const SymmetricEigen e = symmetric_eigen(ctx, args, n, true);
  const std::string root = ctx.emit("Sqrt", {ctx.emit("Max", {e.lambda, ctx.const_scalar(0, DType::kFloat64)})});
  const std::string x = ctx.emit("MatMul", {ctx.emit("Mul", {e.v, root}), transposed(ctx, e.v, args.rank_of("self"))});
  return emitted(ctx, cast_if_needed(ctx, x, DType::kFloat64, args.out_dtype()));
}

// linalg_eigvalsh(Tensor self, str UPLO="L") -> Tensor: the eigenvalues of the lower (or upper)
// triangle's symmetric matrix, ascending (the eigenvectors, defined only up to sign, are not needed).
RuleResult aten_linalg_eigvalsh(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t n = symmetric_size(args, "linalg_eigvalsh");
  const std::string uplo = args.string_or("UPLO", "L");
  PT2ONNX_CHECK(uplo == "L" || uplo == "U", ErrorCode::kUnsupported, "linalg_eigvalsh with UPLO '" + uplo + "'");
  if (n == 0) {
    const std::string a = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), args.out_dtype());
    return emitted(ctx, ctx.reduce("ReduceSum", a, std::vector<int64_t>{-1}, false));
  }
  const std::string lambda = ctx.squeeze(symmetric_eigen(ctx, args, n, uplo == "L").lambda, {-2});
  const std::string ascending = ctx.emit("TopK", {lambda, ctx.const_i64s({n})}, {Attr("axis", -1), Attr("largest", 0), Attr("sorted", 1)}, 2)[0];
  return emitted(ctx, cast_if_needed(ctx, ascending, DType::kFloat64, args.out_dtype()));
}

// linalg_eigh(Tensor self, str UPLO="L") -> (Tensor eigenvalues, Tensor eigenvectors): the
// eigenvalues ascending and the eigenvectors as the columns of an orthogonal matrix, in the same
// order. Each eigenvector is defined only up to its sign (and, where eigenvalues repeat, up to a
// rotation within their space): torch leaves that choice to LAPACK, here it is Jacobi's. The
// Jacobi rotations keep V orthogonal whatever the matrix.
RuleResult aten_linalg_eigh(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const int64_t n = symmetric_size(args, "linalg_eigh");
  const std::string uplo = args.string_or("UPLO", "L");
  PT2ONNX_CHECK(uplo == "L" || uplo == "U", ErrorCode::kUnsupported, "linalg_eigh with UPLO '" + uplo + "'");
  const DType out = args.out_dtype();
  if (n == 0) {
    const std::string a = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), out);
    ctx.set_output(0, ctx.reduce("ReduceSum", a, std::vector<int64_t>{-1}, false));
    ctx.set_output(1, a);
    return RuleResult::kEmitted;
  }
  const SymmetricEigen e = symmetric_eigen(ctx, args, n, uplo == "L");
  const std::vector<std::string> sorted = ctx.emit("TopK", {ctx.squeeze(e.lambda, {-2}), ctx.const_i64s({n})},
                                                   {Attr("axis", -1), Attr("largest", 0), Attr("sorted", 1)}, 2);
  ctx.set_output(0, cast_if_needed(ctx, sorted[0], DType::kFloat64, out));
  if (ctx.output_used(1)) {
    const std::string order = ctx.emit("Expand", {ctx.unsqueeze(sorted[1], {-2}), ctx.emit("Shape", {e.v})});
    ctx.set_output(1, cast_if_needed(ctx, ctx.emit("GatherElements", {e.v, order}, {Attr("axis", -1)}), DType::kFloat64, out));
  }
  return RuleResult::kEmitted;
}

// torch's cutoff max(atol, rtol * sigma_max) [..., 1] for pinv and matrix_rank: rtol defaults to
// eps * max(m, n) of the input's dtype when atol is absent (or zero), else to 0.
std::string cutoff(EmitContext& ctx, const ArgReader& args, const std::string& name, const Svd& svd) {
  const auto [m, n] = matrix_sizes(args, name);
  const double eps = args.dtype_of(name) == DType::kFloat64 ? 2.220446049250313e-16 : 1.1920928955078125e-07;
  auto value = [&](const std::string& arg) -> std::optional<std::string> {
    if (!args.has(arg)) return std::nullopt;
    if (args.is_tensor(arg)) return ctx.unsqueeze(cast_if_needed(ctx, args.tensor(arg), args.dtype_of(arg), DType::kFloat64), {-1});
    return ctx.const_scalar(args.get_float(arg), DType::kFloat64);
  };
  if (args.has("tol")) return *value("tol");  // linalg_matrix_rank(tol): an absolute cutoff, no relative one
  std::optional<std::string> atol = value("atol"), rtol = value("rtol");
  if (args.has("rcond")) rtol = value("rcond");
  const std::string zero = ctx.const_scalar(0, DType::kFloat64);
  const std::string default_rtol = ctx.const_scalar(eps * static_cast<double>(std::max(m, n)), DType::kFloat64);
  if (!rtol) rtol = atol ? ctx.emit("Where", {ctx.emit("Greater", {*atol, zero}), zero, default_rtol}) : default_rtol;
  const std::string largest = ctx.emit("Slice", {svd.values, ctx.const_i64s({0}), ctx.const_i64s({1}), ctx.const_i64s({-1})});
  const std::string relative = ctx.emit("Mul", {*rtol, largest});
  return atol ? ctx.emit("Max", {*atol, relative}) : relative;
}

// linalg_pinv.atol_rtol_tensor(Tensor self, *, Tensor? atol=None, Tensor? rtol=None, bool hermitian=False)
// and the float/rcond forms, pinverse(Tensor self, float rcond=1e-15): V diag(w) B^T with B = A V,
// w = 1 / sigma^2 where sigma > the cutoff, else 0 (transposed for a wide A). hermitian: of the
// symmetric matrix of self's lower triangle (its singular values are its eigenvalues' magnitudes).
// The pseudo-inverse of `self` in float64 (see aten_linalg_pinv).
std::string pinv64(EmitContext& ctx, const ArgReader& args) {
  const auto [m, n] = matrix_sizes(args, "self");
  const int64_t rank = args.rank_of("self");
  const Svd svd = svd_of(ctx, args, "self");
  if (std::min(m, n) == 0) {  // [..., n, m] of zeros
    const std::string shape = ctx.concat({ctx.shape_slice(args.tensor("self"), 0, -2), ctx.const_i64s({n, m})}, 0);
    return ctx.emit("Expand", {ctx.const_scalar(0, DType::kFloat64), shape});
  }
  const std::string norms2 = ctx.reduce("ReduceSum", ctx.emit("Mul", {svd.b, svd.b}), std::vector<int64_t>{-2}, true);  // [..., 1, k]
  const std::string tol = ctx.unsqueeze(cutoff(ctx, args, "self", svd), {-1});                                          // [..., 1, 1]
  const std::string keep = ctx.emit("Greater", {ctx.emit("Sqrt", {norms2}), tol});
  const std::string w = ctx.emit("Where", {keep, ctx.emit("Reciprocal", {ctx.emit("Where", {keep, norms2, ctx.const_scalar(1, DType::kFloat64)})}),
                                           ctx.const_scalar(0, DType::kFloat64)});
  std::string pinv = ctx.emit("MatMul", {ctx.emit("Mul", {svd.v, w}), transposed(ctx, svd.b, rank)});  // [..., k', rows]
  if (svd.wide) pinv = transposed(ctx, pinv, rank);
  return pinv;
}

RuleResult aten_linalg_pinv(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emitted(ctx, cast_if_needed(ctx, pinv64(ctx, args), DType::kFloat64, args.out_dtype()));
}

// linalg_matrix_rank.atol_rtol_tensor(Tensor input, *, Tensor? atol=None, Tensor? rtol=None, bool
// hermitian=False) -> Tensor and the float form: the singular values above the cutoff, counted.
RuleResult aten_linalg_matrix_rank(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const std::string name = args.has("input") ? "input" : "self";
  const Svd svd = svd_of(ctx, args, name);
  const auto [m, n] = matrix_sizes(args, name);
  if (std::min(m, n) == 0)
    return emitted(ctx, ctx.emit("Expand", {ctx.const_i64(0), ctx.shape_slice(args.tensor(name), 0, -2)}));
  const std::string above = ctx.emit("Greater", {svd.values, cutoff(ctx, args, name, svd)});
  const std::string count = ctx.reduce("ReduceSum", ctx.cast(above, DType::kInt64), std::vector<int64_t>{-1}, false);
  return emitted(ctx, cast_if_needed(ctx, count, DType::kInt64, args.out_dtype()));
}

// linalg_cond.p_str(Tensor self, str p): ||A|| ||A^-1|| in the Frobenius ("fro") or nuclear ("nuc")
// norm, both functions of the singular values: sqrt(sum s^2 sum s^-2) and sum s sum 1/s (inf for a
// singular matrix, as torch gives).
std::string cond_by_name(EmitContext& ctx, const ArgReader& args) {
  const std::string p = std::get<std::string>(args.arg("p"));
  PT2ONNX_CHECK(p == "fro" || p == "nuc", ErrorCode::kUnsupported, "linalg_cond with p '" + p + "'");
  const auto [m, n] = matrix_sizes(args, "self");
  PT2ONNX_CHECK(m == n && n > 0, ErrorCode::kUnsupported, "linalg_cond with p '" + p + "' of a matrix that is not square");
  const Svd svd = svd_of(ctx, args, "self");
  const std::string s = svd.values, inv = ctx.emit("Reciprocal", {svd.values});
  const std::vector<int64_t> last = {-1};
  std::string value;
  if (p == "nuc") {
    value = ctx.emit("Mul", {ctx.reduce("ReduceSum", s, last, false), ctx.reduce("ReduceSum", inv, last, false)});
  } else {
    value = ctx.emit("Sqrt", {ctx.emit("Mul", {ctx.reduce("ReduceSum", ctx.emit("Mul", {s, s}), last, false),
                                               ctx.reduce("ReduceSum", ctx.emit("Mul", {inv, inv}), last, false)})});
  }
  return cast_if_needed(ctx, value, DType::kFloat64, args.out_dtype());
}

// linalg_cond(Tensor self, Scalar? p=None) -> Tensor for p None or +-2: sigma_max / sigma_min (or
// its inverse for -2); other orders are the norm rules' (declined).
RuleResult aten_linalg_cond(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  if (args.has("p") && std::holds_alternative<std::string>(args.arg("p"))) return emitted(ctx, cond_by_name(ctx, args));
  double p = 2;
  if (args.has("p")) p = args.scalar_number("p");
  if (p != 2 && p != -2) return RuleResult::kDeclined;
  const Svd svd = svd_of(ctx, args, "self");
  const auto [m, n] = matrix_sizes(args, "self");
  const int64_t k = std::min(m, n);
  PT2ONNX_CHECK(k > 0, ErrorCode::kUnsupported, "linalg_cond of an empty matrix");
  auto at = [&](int64_t i) { return ctx.emit("Slice", {svd.values, ctx.const_i64s({i}), ctx.const_i64s({i + 1}), ctx.const_i64s({-1})}); };
  std::string ratio = p == 2 ? ctx.emit("Div", {at(0), at(k - 1)}) : ctx.emit("Div", {at(k - 1), at(0)});
  return emitted(ctx, cast_if_needed(ctx, ctx.squeeze(ratio, {-1}), DType::kFloat64, args.out_dtype()));
}

}  // namespace

void register_decomp_linalg_rules(RuleTable& t) {
  t.add("aten.linalg_svdvals.default", aten_linalg_svdvals);
  t.add("aten.linalg_svd.default", aten_linalg_svd);
  t.add("aten.svd.default", aten_svd);
  t.add("aten.linalg_polar.default", aten_linalg_polar);
  t.add("aten.linalg_matrix_sqrth.default", aten_linalg_matrix_sqrth);
  t.add("aten.linalg_eigvalsh.default", aten_linalg_eigvalsh);
  t.add("aten.linalg_eigh.default", aten_linalg_eigh);
  constexpr std::string_view kOtherOrds = "ords other than nuc and +-2 are composite_math.cpp's";
  t.add("aten.linalg_matrix_norm.default", aten_singular_value_norm, kOtherOrds);
  t.add("aten.linalg_matrix_norm.str_ord", aten_singular_value_norm, kOtherOrds);
  t.add("aten.linalg_norm.default", aten_singular_value_norm, kOtherOrds);
  t.add("aten.nuclear_norm.default", aten_nuclear_norm);
  t.add("aten.nuclear_norm.dim", aten_nuclear_norm);
  t.add("aten.linalg_norm.ord_str", aten_singular_value_norm, kOtherOrds);
  t.add("aten.linalg_pinv.atol_rtol_tensor", aten_linalg_pinv);
  t.add("aten.linalg_pinv.atol_rtol_float", aten_linalg_pinv);
  t.add("aten.pinverse.default", aten_linalg_pinv);
  t.add("aten.linalg_matrix_rank.atol_rtol_tensor", aten_linalg_matrix_rank);
  t.add("aten.linalg_matrix_rank.atol_rtol_float", aten_linalg_matrix_rank);
  t.add("aten.linalg_cond.default", aten_linalg_cond, "orders other than None and +-2 are not the singular values'");
  t.add("aten.linalg_cond.p_str", aten_linalg_cond);
  t.add("aten.geqrf.default", aten_geqrf);
  t.add("aten.linalg_qr.default", aten_linalg_qr);
  t.add("aten.linalg_householder_product.default", aten_householder_product);
  t.add("aten.ormqr.default", aten_ormqr);
  t.add("aten.linalg_lu_factor.default", aten_lu_factor);
  t.add("aten.linalg_lu_factor_ex.default", aten_lu_factor);
  t.add("aten._lu_with_info.default", aten_lu_factor);
  t.add("aten.linalg_lu.default", aten_linalg_lu);
  t.add("aten.lu_unpack.default", aten_lu_unpack);
  t.add("aten.lu_solve.default", aten_lu_solve);
  t.add("aten.linalg_lu_solve.default", aten_linalg_lu_solve);
  t.add("aten.linalg_slogdet.default", aten_linalg_slogdet_lu);
  t.add("aten.linalg_cholesky.default", aten_linalg_cholesky);
  t.add("aten.linalg_cholesky_ex.default", aten_linalg_cholesky);
  t.add("aten.linalg_inv.default", aten_linalg_inv);
  t.add("aten.linalg_inv_ex.default", aten_linalg_inv);
  t.add("aten.linalg_solve.default", aten_linalg_solve);
  t.add("aten.linalg_solve_ex.default", aten_linalg_solve);
  t.add("aten._linalg_solve_ex.default", aten_linalg_solve_kernel);
  t.add("aten.linalg_matrix_power.default", aten_linalg_matrix_power);
  t.add("aten.linalg_matrix_exp.default", aten_linalg_matrix_exp);
  t.add("aten.linalg_tensorinv.default", aten_linalg_tensorinv);
  t.add("aten.linalg_tensorsolve.default", aten_linalg_tensorsolve);
  t.add("aten.cholesky_inverse.default", aten_cholesky_inverse);
  t.add("aten.cholesky_solve.default", aten_cholesky_solve);
  t.add("aten._cholesky_solve_helper.default", aten_cholesky_solve);
  t.add("aten.triangular_solve.default", aten_triangular_solve);
  t.add("aten.linalg_solve_triangular.default", aten_linalg_solve_triangular);
}

}  // namespace pt2onnx::translate
