// The generator's driver: input binding, stored values, the copy kernel, inlining of nested
// calls and the walk over the body (attention chains deferred to their last MatMul).
#include <algorithm>

#include "common/error.h"
#include "kernels/expr.h"
#include "kernels/generator.h"
#include "kernels/kernel_template.h"
#include "kernels/op_rules.h"

namespace pt2onnx::kernels {

namespace detail {

using onnx::TensorProto;

Generator::Generator(const onnx::FunctionProto& function, const std::vector<TensorType>& inputs,
                     const std::vector<const onnx::FunctionProto*>& library, const GenerateOptions& options)
    : function_(function),
      options_(options),
      graph_(function),
      buffers_(function),
      renderer_(options.bundle_name.empty() ? function.name() : options.bundle_name, buffers_, graph_.symbols()),
      library_(library) {
  PT2ONNX_CHECK(static_cast<int>(inputs.size()) == function.input_size(), ErrorCode::kInternal,
                "generate_kernels: input types do not match the function's inputs");
  inputs_ = inputs;
  for (int i = 0; i < function.input_size(); ++i) {
    const TensorType& t = inputs[static_cast<size_t>(i)];
    storage_c_type(t.dtype);  // throws for dtypes we do not handle
    PT2ONNX_CHECK(t.dtype != TensorProto::DOUBLE, ErrorCode::kUnsupported,
                  "--compile: function " + function.name() + ": input " + function.input(i) + " is float64");
    define_stored(function.input(i), t.dtype, t.shape, buffers_.bind_input(i, t.dtype));
  }
  graph_.find_symbols(inputs);
}

void Generator::unsupported(const onnx::NodeProto& node, const std::string& why) const {
  fail(ErrorCode::kUnsupported, "--compile: function " + function_.name() + ": op " + node.op_type() + " (node " +
                                    (node.name().empty() ? (node.output_size() ? node.output(0) : "?") : node.name()) +
                                    "): " + why);
}

void Generator::define_stored(const std::string& name, int dtype, const std::vector<SymExpr>& shape, const Dest& dest) {
  Value v;
  v.dtype = dtype;
  v.shape = shape;
  v.pointer = dest.pointer;
  if (dest.storage_dtype == dtype) {
    v.strided_pointer = dest.pointer;
    v.strides.assign(shape.size(), ir::sym_int(1));
    for (size_t i = shape.size(); i-- > 1;) v.strides[i - 1] = product(shape, i);
  }
  const std::string pointer = dest.pointer;
  const int storage = dest.storage_dtype;
  v.load = [pointer, storage, shape, dtype](Body& b, const Idx& idx) {
    b.scope->pointers.insert(pointer);
    const std::string raw = pointer + "[" + linear_index(idx, shape) + "]";
    // The storage type may be wider than the value's (fp16 value in a float32 workspace).
    return b.let(compute_type(dtype), convert(load_converted(raw, storage), storage, dtype));
  };
  define(name, std::move(v));
}

void Generator::emit_copy(const std::string& value_name, const Dest& dest, const std::string& computes) {
  const Value v = value(value_name);
  Scope scope;
  Body b;
  b.scope = &scope;
  const SymExpr n = product(v.shape);
  b.line("const long long p2_n = " + to_c(n) + ";");
  b.line("const long long p2_i = (long long)blockIdx.x * " + std::to_string(Renderer::kBlock) + " + threadIdx.x;");
  b.line("if (p2_i >= p2_n) return;");
  const Idx idx = delinearize(b, "p2_i", v.shape);
  const std::string x = load(b, value_name, idx);
  b.line(dest.pointer + "[p2_i] = " + store_converted(x, v.dtype, dest.storage_dtype) + ";");
  add_kernel(computes, dest.pointer, scope, b.code, 0,
             {to_manifest(ir::sym_apply(ir::SymOp::kCeilDiv, {n, ir::sym_int(Renderer::kBlock)})), "1", "1"});
}

void Generator::materialize(const std::string& name, const std::string& computes) {
  const Value v = value(name);
  const Dest dest = buffers_.destination(name, v.dtype, v.shape);
  emit_copy(name, dest, computes);
  define_stored(name, v.dtype, v.shape, dest);
}

const onnx::FunctionProto* Generator::callee(const onnx::NodeProto& node) const {
  for (const auto* f : library_)
    if (f->name() == node.op_type() && f->domain() == node.domain()) return f;
  return nullptr;
}

void Generator::visit_or_inline(const onnx::NodeProto& node, std::set<std::string>& ops, int depth) {
  if (node.domain().empty() || node.domain() == "ai.onnx") {
    ops.insert(node.op_type());
    visit(node);
    return;
  }
  const onnx::FunctionProto* f = callee(node);
  if (f == nullptr) unsupported(node, "domain " + node.domain() + " is not generated");
  if (depth > 16) unsupported(node, "functions nested too deeply");
  // Formal names map to the caller's values; the callee's own values get a unique prefix.
  NestedCall call{f->domain(), f->name(), !node.name().empty() ? node.name() : node.output_size() ? node.output(0) : "?", {}, {}, {}};
  call.outputs.assign(node.output().begin(), node.output().end());
  for (const auto& in : node.input()) {
    call.inputs.push_back(in);
    const bool known = !in.empty() && has(in);
    call.types.push_back(known ? TensorType{value(in).dtype, value(in).shape} : TensorType{});
  }
  nested_calls_.push_back(std::move(call));
  const std::string prefix = "inl" + std::to_string(inlined_++) + "/";
  const int saved_node = current_node_;
  current_node_ = -1;  // no epilogue fusion across inlined bodies
  std::map<std::string, std::string> rename;
  for (int i = 0; i < f->input_size(); ++i) rename[f->input(i)] = i < node.input_size() ? node.input(i) : std::string();
  auto mapped = [&](const std::string& name) {
    if (name.empty()) return name;
    auto it = rename.find(name);
    return it != rename.end() ? it->second : prefix + name;
  };
  for (const auto& inner : f->node()) {
    onnx::NodeProto copy = inner;
    for (const auto& a : copy.attribute())
      if (!a.ref_attr_name().empty()) unsupported(inner, "attribute references of nested functions");
    for (int i = 0; i < copy.input_size(); ++i) copy.set_input(i, mapped(copy.input(i)));
    for (int i = 0; i < copy.output_size(); ++i) copy.set_output(i, mapped(copy.output(i)));
    visit_or_inline(copy, ops, depth + 1);
  }
  for (int o = 0; o < node.output_size() && o < f->output_size(); ++o)
    if (!node.output(o).empty()) define(node.output(o), value(mapped(f->output(o))));
  current_node_ = saved_node;
}

KernelPlan Generator::run() {
  std::set<std::string> ops;
  // Attention chains: their inner nodes wait until the final MatMul, where every operand (q, k,
  // v, the mask's inputs) is defined; then either one fused kernel or, when the values do not
  // prove the form, the waiting nodes are visited as usual.
  std::map<int, AttentionMatch> attention;
  std::set<int> waiting;
  for (const auto& m : find_attention()) {
    const std::vector<int> d = m.deferred();
    bool overlaps = attention.count(m.out) > 0 || waiting.count(m.out) > 0;
    for (int n : d) overlaps = overlaps || waiting.count(n) > 0 || attention.count(n) > 0;
    if (overlaps) continue;
    attention[m.out] = m;
    waiting.insert(d.begin(), d.end());
  }
  for (int n = 0; n < function_.node_size(); ++n) {
    const onnx::NodeProto& node = function_.node(n);
    if (fused_nodes_.count(n) || waiting.count(n)) {
      ops.insert(node.op_type());
      continue;
    }
    if (auto it = attention.find(n); it != attention.end() && !emit_attention(it->second)) {
      for (int d : it->second.deferred()) {
        if (fused_nodes_.count(d)) continue;
        current_node_ = d;
        visit_or_inline(function_.node(d), ops, 0);
        current_node_ = -1;
      }
      attention.erase(it);
    }
    if (attention.count(n)) {
      ops.insert(node.op_type());
    } else {
      current_node_ = n;
      visit_or_inline(node, ops, 0);
      current_node_ = -1;
    }
    // Function outputs produced by pointwise/view nodes are written by a copy kernel right away,
    // so that launches follow the body's order.
    for (const auto& o : node.output())
      if (buffers_.output_pending(o)) {
        const Value v = value(o);
        emit_copy(o, buffers_.destination(o, v.dtype, v.shape), "write output " + o);
      }
  }
  KernelPlan plan;
  plan.domain = function_.domain();
  plan.name = function_.name();
  plan.bundle = options_.bundle_name.empty() ? plan.name : options_.bundle_name;
  plan.overload = "";  // FunctionProto.overload (IR v10) is newer than the ONNX headers we build with
  for (int i = 0; i < function_.input_size(); ++i) plan.input_names.push_back(function_.input(i));
  plan.inputs = inputs_;
  for (int o = 0; o < function_.output_size(); ++o) {
    const std::string& name = function_.output(o);
    const Value v = value(name);
    plan.output_names.push_back(name);
    plan.outputs.push_back({v.dtype, v.shape});
    if (buffers_.output_pending(name)) emit_copy(name, buffers_.destination(name, v.dtype, v.shape), "write output " + name);
  }
  // An output that is also an input or an earlier output was stored elsewhere: copy it.
  for (int o = 0; o < function_.output_size(); ++o) {
    if (buffers_.output_bound(o)) continue;
    const std::string& name = function_.output(o);
    emit_copy(name, buffers_.bind_output(o, value(name).dtype), "write output " + name);
  }
  plan.symbols = graph_.symbol_sources();
  plan.preconditions = std::move(preconditions_);
  std::sort(plan.preconditions.begin(), plan.preconditions.end());
  plan.preconditions.erase(std::unique(plan.preconditions.begin(), plan.preconditions.end()), plan.preconditions.end());
  plan.buffers = buffers_.buffers();
  plan.workspace_bytes = buffers_.workspace_bytes();
  plan.kernels = std::move(renderer_.kernels());
  plan.launches = std::move(renderer_.launches());
  plan.source = renderer_.source();
  plan.op_types.assign(ops.begin(), ops.end());
  plan.nested_calls = std::move(nested_calls_);
  plan.tf32 = used_tf32_;
  return plan;
}


}  // namespace detail

KernelPlan generate_kernels(const onnx::FunctionProto& function, const std::vector<TensorType>& inputs,
                            const std::vector<const onnx::FunctionProto*>& library, const GenerateOptions& options) {
  detail::Generator g(function, inputs, library, options);
  return g.run();
}

}  // namespace pt2onnx::kernels
