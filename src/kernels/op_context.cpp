// OpContext (the operand, attribute and definition helpers every codegen rule family uses), the
// rule table, and Generator::visit, which dispatches a node to its rule.
#include <algorithm>

#include "kernels/expr.h"
#include "kernels/op_rules.h"

namespace pt2onnx::kernels::detail {

OpContext::OpContext(Generator& g, const onnx::NodeProto& n) : gen(g), node(n), out(n.output(0)) {}

const onnx::AttributeProto* OpContext::attr(const char* name) const {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
int64_t OpContext::attr_int(const char* name, int64_t fallback) const {
  const auto* a = attr(name);
  return a ? a->i() : fallback;
}
float OpContext::attr_float(const char* name, float fallback) const {
  const auto* a = attr(name);
  return a ? a->f() : fallback;
}
std::string OpContext::attr_string(const char* name, const std::string& fallback) const {
  const auto* a = attr(name);
  return a ? a->s() : fallback;
}

std::vector<SymExpr> OpContext::known_ints(int i, const char* what) {
  const std::string name = input(i);
  if (name.empty() || !value(name).ints) unsupported(std::string(what) + " is not a known constant");
  return *value(name).ints;
}

std::vector<int64_t> OpContext::const_ints(int i, const char* what) {
  std::vector<int64_t> v;
  for (const auto& e : known_ints(i, what)) {
    const auto c = const_value(e);
    if (!c) unsupported(std::string(what) + " is symbolic (" + ir::to_string(e) + ")");
    v.push_back(*c);
  }
  return v;
}

std::optional<std::vector<int64_t>> OpContext::axes_from(int input_index, const char* attr_name) {
  if (!input(input_index).empty()) return const_ints(input_index, "axes");
  if (const auto* a = attr(attr_name)) return std::vector<int64_t>(a->ints().begin(), a->ints().end());
  return std::nullopt;
}

size_t OpContext::norm_axis(int64_t a, size_t rank) const {
  const int64_t r = static_cast<int64_t>(rank);
  const int64_t axis = a < 0 ? a + r : a;
  if (axis < 0 || axis >= r) unsupported("axis " + std::to_string(a) + " out of range for rank " + std::to_string(r));
  return static_cast<size_t>(axis);
}

std::optional<double> OpContext::known_float(const std::string& name) {
  if (name.empty() || !gen.has(name)) return std::nullopt;
  const Value& v = value(name);
  if (v.floats && v.floats->size() == 1) return (*v.floats)[0];
  return std::nullopt;
}

void OpContext::define_view(const std::string& src, std::vector<SymExpr> shape, std::function<Idx(Body&, const Idx&)> map,
                            std::optional<std::vector<SymExpr>> ints) {
  Value v;
  v.dtype = value(src).dtype;
  v.shape = std::move(shape);
  v.ints = std::move(ints);
  if (v.ints) v.load = known_ints_loader(*v.ints, v.shape);
  else v.load = [g = &gen, src, map](Body& b, const Idx& idx) { return g->load(b, src, map(b, idx)); };
  gen.define(out, std::move(v));
}

void OpContext::pointwise(const std::vector<std::string>& ins, int out_dtype,
                          std::function<std::string(const std::vector<std::string>&)> expr) {
  std::vector<std::vector<SymExpr>> shapes;
  for (const auto& i : ins) shapes.push_back(value(i).shape);
  Value v;
  v.dtype = out_dtype;
  v.shape = broadcast_shapes(shapes);
  const std::vector<SymExpr> oshape = v.shape;
  v.load = [g = &gen, ins, shapes, oshape, out_dtype, expr](Body& b, const Idx& idx) {
    std::vector<std::string> args;
    for (size_t i = 0; i < ins.size(); ++i) args.push_back(g->load(b, ins[i], broadcast_index(idx, oshape, shapes[i])));
    return b.let(compute_type(out_dtype), expr(args));
  };
  gen.define(out, std::move(v));
}

std::vector<SymExpr> OpContext::broadcast_shapes(const std::vector<std::vector<SymExpr>>& shapes) const {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<SymExpr> result(rank, ir::sym_int(1));
  for (const auto& s : shapes)
    for (size_t j = 0; j < s.size(); ++j) {
      SymExpr& o = result[j + rank - s.size()];
      if (is_const(s[j], 1)) continue;
      if (is_const(o, 1)) o = s[j];
      else if (!same_dim(o, s[j]))
        gen.unsupported(node, "shapes do not broadcast: " + ir::to_string(o) + " vs " + ir::to_string(s[j]));
    }
  return result;
}

std::string wrapped_index(Generator& g, Body& b, const std::string& indices, const Idx& at, const std::string& dim_c) {
  const std::string raw = g.load(b, indices, at);
  return b.let("long long", "(" + raw + " < 0 ? " + raw + " + " + dim_c + " : " + raw + ")");
}

std::string fresh_temp(Body& b) { return "p2_t" + std::to_string(b.scope->next_tmp++); }

void emit_loop(Body& b, const std::string& first, const std::string& end,
               const std::function<void(Body&, const std::string&)>& fill) {
  const std::string t = fresh_temp(b);
  b.line("for (long long " + t + " = " + first + "; " + t + " < " + end + "; ++" + t + ") {");
  Body body = b.child();
  fill(body, t);
  b.code += body.code;
  b.line("}");
}

void emit_if(Body& b, const std::string& condition, const std::function<void(Body&)>& fill) {
  b.line("if (" + condition + ") {");
  Body body = b.child();
  fill(body);
  b.code += body.code;
  b.line("}");
}

std::string guarded_load(Generator& g, Body& b, const std::string& src, const Idx& at, const std::string& condition,
                         const std::string& otherwise, int dtype) {
  const std::string out = fresh_temp(b);
  b.line(compute_type(dtype) + " " + out + " = " + otherwise + ";");
  emit_if(b, condition, [&](Body& inside) { inside.line(out + " = " + g.load(inside, src, at) + ";"); });
  return out;
}

// Loader of a tensor whose (small) contents are known integer expressions.
Loader known_ints_loader(const std::vector<SymExpr>& ints, const std::vector<SymExpr>& shape) {
  return [ints, shape](Body& b, const Idx& idx) {
    if (ints.empty()) return std::string("(0LL)");  // a tensor with no elements: never read
    if (ints.size() == 1) return "(" + to_c(ints[0]) + ")";
    const std::string lin = b.let("long long", linear_index(idx, shape));
    std::string e = to_c(ints.back());
    for (size_t i = ints.size() - 1; i-- > 0;) e = "(" + lin + " == " + std::to_string(i) + " ? " + to_c(ints[i]) + " : " + e + ")";
    return e;
  };
}


// num / den when both are products whose factors cancel exactly ((32*a*b) / (16*a*b) = 2), which
// the symbolic simplifier leaves as a floor division; else floor(num / den).
SymExpr divide_exact(const SymExpr& num, const SymExpr& den) {
  auto factors = [](const SymExpr& e, int64_t& constant, std::vector<std::string>& keys, std::vector<SymExpr>& items) {
    const std::vector<SymExpr> parts = e->op == ir::SymOp::kMul ? e->args : std::vector<SymExpr>{e};
    for (const auto& p : parts) {
      if (p->op == ir::SymOp::kInt) constant *= p->value;
      else {
        keys.push_back(ir::to_string(p));
        items.push_back(p);
      }
    }
  };
  int64_t cn = 1, cd = 1;
  std::vector<std::string> kn, kd;
  std::vector<SymExpr> in, id;
  factors(num, cn, kn, in);
  factors(den, cd, kd, id);
  for (const auto& k : kd) {
    auto it = std::find(kn.begin(), kn.end(), k);
    if (it == kn.end() || cd == 0 || cn % cd != 0) return ir::sym_apply(ir::SymOp::kFloorDiv, {num, den});
    in.erase(in.begin() + (it - kn.begin()));
    kn.erase(it);
  }
  if (cd == 0 || cn % cd != 0) return ir::sym_apply(ir::SymOp::kFloorDiv, {num, den});
  in.push_back(ir::sym_int(cn / cd));
  return product(in);
}

void OpRuleTable::add(std::string_view op, OpRule rule, bool epilogue, bool multi_output) {
  rules_[std::string(op)] = OpRuleEntry{rule, epilogue, multi_output};
}

const OpRuleEntry* OpRuleTable::find(std::string_view op) const {
  auto it = rules_.find(op);
  return it == rules_.end() ? nullptr : &it->second;
}

void Generator::visit(const onnx::NodeProto& node) {
  if (node.output_size() == 0) unsupported(node, "no outputs");
  const OpRuleEntry* entry = builtin_op_rules().find(node.op_type());
  for (int i = 1; i < node.output_size(); ++i)
    if (!node.output(i).empty() && !(entry && entry->multi_output)) unsupported(node, "more than one output");
  if (!entry) unsupported(node, "no kernel template for this op");
  OpContext ctx(*this, node);
  entry->rule(ctx);
}

const OpRuleTable& builtin_op_rules() {
  static const OpRuleTable table = [] {
    OpRuleTable t;
    register_constant_op_rules(t);
    register_view_op_rules(t);
    register_kernel_op_rules(t);
    register_pointwise_op_rules(t);
    register_conv_pool_op_rules(t);
    register_scan_op_rules(t);
    register_pad_op_rules(t);
    register_resize_op_rules(t);
    register_scatter_op_rules(t);
    return t;
  }();
  return table;
}

}  // namespace pt2onnx::kernels::detail
