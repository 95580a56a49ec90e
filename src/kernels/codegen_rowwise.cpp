// Row-wise kernels (Reduce*, Softmax/LogSoftmax, LayerNormalization): one block per kept row,
// passes over the reduced columns with block reductions between them.
#include "common/error.h"
#include "kernels/expr.h"
#include "kernels/generator.h"

namespace pt2onnx::kernels::detail {

using onnx::TensorProto;

namespace {

constexpr int kBlock = Renderer::kBlock;

// Which dims of the input a row-wise op reduces, and the shapes that follow: a row per kept index,
// the reduced dims its columns.
struct RowShape {
  std::vector<bool> reduced;
  std::vector<SymExpr> kept, red, out_shape;
};

RowShape row_shape(const Generator& gen, const onnx::NodeProto& node, Generator::RowOp op, const std::vector<SymExpr>& shape,
                   const std::vector<int64_t>& axes, bool keepdims) {
  const int rank = static_cast<int>(shape.size());
  RowShape r;
  r.reduced.assign(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    const int64_t axis = a < 0 ? a + rank : a;
    if (axis < 0 || axis >= rank) gen.unsupported(node, "axis " + std::to_string(a) + " out of range");
    r.reduced[static_cast<size_t>(axis)] = true;
  }
  for (int i = 0; i < rank; ++i) {
    (r.reduced[static_cast<size_t>(i)] ? r.red : r.kept).push_back(shape[static_cast<size_t>(i)]);
    if (!r.reduced[static_cast<size_t>(i)]) r.out_shape.push_back(shape[static_cast<size_t>(i)]);
    else if (keepdims) r.out_shape.push_back(ir::sym_int(1));
  }
  using RowOp = Generator::RowOp;
  if (op == RowOp::kSoftmax || op == RowOp::kLogSoftmax || op == RowOp::kLayerNorm) r.out_shape = shape;  // elementwise out
  return r;
}

}  // namespace

void Generator::emit_rowwise(const onnx::NodeProto& node, RowOp op, const std::string& x, const std::vector<int64_t>& axes_in,
                             bool keepdims, const std::string& out, const std::string& scale, const std::string& bias,
                             double epsilon) {
  const Value vx = value(x);
  const int rank = static_cast<int>(vx.shape.size());
  const RowShape rows_of = row_shape(*this, node, op, vx.shape, axes_in, keepdims);
  const std::vector<bool>& reduced = rows_of.reduced;
  const std::vector<SymExpr> &kept = rows_of.kept, &red = rows_of.red, &out_shape = rows_of.out_shape;
  const int out_dtype = vx.dtype;
  // Integer and bool inputs reduce exactly in int64 (sum, max, min only).
  const bool fl = is_float_dtype(vx.dtype);
  if (!fl && op != RowOp::kMax && op != RowOp::kMin && op != RowOp::kSum) unsupported(node, "non-float input");
  const int acc_dtype = fl ? TensorProto::FLOAT : TensorProto::INT64;
  const std::string acc_t = fl ? "float" : "long long";
  const std::string zero = fl ? "0.0f" : "0LL", lowest = fl ? "-P2_INF" : "(-9223372036854775807LL - 1)",
                    highest = fl ? "P2_INF" : "9223372036854775807LL";
  const Dest dest = buffers_.destination(out, out_dtype, out_shape);

  Scope scope;
  Body b;
  b.scope = &scope;
  b.line("__shared__ " + acc_t + " p2_red[9];");
  b.line("const long long p2_row = blockIdx.x;");
  b.line("const long long p2_cols = " + to_c(product(red)) + ";");
  const Idx ridx = delinearize(b, "p2_row", kept);
  // Full index of column `col` of this row.
  auto full_index = [&](Body& body, const std::string& col) {
    const Idx cidx = delinearize(body, col, red);
    Idx full(static_cast<size_t>(rank));
    size_t ki = 0, ri = 0;
    for (int i = 0; i < rank; ++i) full[static_cast<size_t>(i)] = reduced[static_cast<size_t>(i)] ? cidx[ri++] : ridx[ki++];
    return full;
  };
  // One pass over the row: `acc` updated by `update(x)`, where x is the element as float.
  auto pass = [&](const std::string& acc_init, const std::function<std::string(const std::string&)>& update,
                  const std::string& reducer) {
    const std::string acc = "p2_acc" + std::to_string(scope.next_tmp++);
    b.line(acc_t + " " + acc + " = " + acc_init + ";");
    b.line("for (long long p2_c = threadIdx.x; p2_c < p2_cols; p2_c += " + std::to_string(kBlock) + ") {");
    Body inner = b.child();
    const Idx full = full_index(inner, "p2_c");
    const std::string xv = convert(load(inner, x, full), vx.dtype, acc_dtype);
    std::string u = update(xv);
    for (size_t f = u.find("p2_accX"); f != std::string::npos; f = u.find("p2_accX")) u.replace(f, 7, acc);
    inner.line(acc + " = " + u + ";");
    b.code += inner.code;
    b.line("}");
    // reducer: "<functor>|<identity>"
    const size_t bar = reducer.find('|');
    return b.let(acc_t, "p2_block_reduce<" + acc_t + ">(" + acc + ", p2_red, " + reducer.substr(bar + 1) + ", " +
                            reducer.substr(0, bar) + "())");
  };
  auto write_pass = [&](const std::function<std::string(Body&, const Idx&, const std::string&)>& result) {
    b.line("for (long long p2_c = threadIdx.x; p2_c < p2_cols; p2_c += " + std::to_string(kBlock) + ") {");
    Body inner = b.child();
    const Idx full = full_index(inner, "p2_c");
    const std::string xv = convert(load(inner, x, full), vx.dtype, TensorProto::FLOAT);
    inner.line(dest.pointer + "[" + linear_index(full, out_shape) + "] = " +
               store_converted(result(inner, full, xv), TensorProto::FLOAT, dest.storage_dtype) + ";");
    b.code += inner.code;
    b.line("}");
  };
  auto write_row = [&](const std::string& v) {
    b.line("if (threadIdx.x == 0) " + dest.pointer + "[p2_row] = " + store_converted(v, acc_dtype, dest.storage_dtype) + ";");
  };
  switch (op) {
    case RowOp::kSum: write_row(pass(zero, [&](const std::string& v) { return "p2_accX + " + v; }, "P2Sum|" + zero)); break;
    case RowOp::kMean: {
      const std::string s = pass("0.0f", [&](const std::string& v) { return "p2_accX + " + v; }, "P2Sum|0.0f");
      write_row(s + " / (float)p2_cols");
      break;
    }
    case RowOp::kMax:
      write_row(pass(lowest, [&](const std::string& v) { return "P2Max()(p2_accX, " + v + ")"; }, "P2Max|" + lowest));
      break;
    case RowOp::kMin:
      write_row(pass(highest, [&](const std::string& v) { return "P2Min()(p2_accX, " + v + ")"; }, "P2Min|" + highest));
      break;
    case RowOp::kSoftmax:
    case RowOp::kLogSoftmax: {
      const std::string mx = pass("-P2_INF", [&](const std::string& v) { return "fmaxf(p2_accX, " + v + ")"; }, "P2Max|-P2_INF");
      const std::string sum =
          pass("0.0f", [&](const std::string& v) { return "p2_accX + expf(" + v + " - " + mx + ")"; }, "P2Sum|0.0f");
      if (op == RowOp::kSoftmax) {
        const std::string inv = b.let("float", "1.0f / " + sum);
        write_pass([&](Body&, const Idx&, const std::string& v) { return "expf(" + v + " - " + mx + ") * " + inv; });
      } else {
        const std::string lse = b.let("float", mx + " + logf(" + sum + ")");
        write_pass([&](Body&, const Idx&, const std::string& v) { return v + " - " + lse; });
      }
      break;
    }
    case RowOp::kLayerNorm: {
      const std::string s = pass("0.0f", [&](const std::string& v) { return "p2_accX + " + v; }, "P2Sum|0.0f");
      const std::string mean = b.let("float", s + " / (float)p2_cols");
      const std::string sq = pass(
          "0.0f", [&](const std::string& v) { return "p2_accX + (" + v + " - " + mean + ") * (" + v + " - " + mean + ")"; },
          "P2Sum|0.0f");
      const std::string rstd = b.let("float", "rsqrtf(" + sq + " / (float)p2_cols + " + float_literal(epsilon) + ")");
      write_pass([&](Body& inner, const Idx& full, const std::string& v) {
        std::string r = "(" + v + " - " + mean + ") * " + rstd;
        if (!scale.empty()) {
          const Value& vs = value(scale);
          r += " * " + convert(load(inner, scale, broadcast_index(full, vx.shape, vs.shape)), vs.dtype, TensorProto::FLOAT);
        }
        if (!bias.empty()) {
          const Value& vb = value(bias);
          r += " + " + convert(load(inner, bias, broadcast_index(full, vx.shape, vb.shape)), vb.dtype, TensorProto::FLOAT);
        }
        return r;
      });
      break;
    }
  }
  const std::string code = b.code;
  const SymExpr rows = product(kept);
  if (!const_value(rows)) preconditions_.push_back(to_manifest(rows) + " <= 2147483647");
  add_kernel(node.op_type() + " -> " + out, dest.pointer, scope, code, 9 * 4, {to_manifest(rows), "1", "1"});
  define_stored(out, out_dtype, out_shape, dest);
}

}  // namespace pt2onnx::kernels::detail
