// Higher-order control flow: cond -> If, while_loop -> Loop, scan and map_impl -> Scan,
// invoke_subgraph -> a call of an ONNX local function shared by every structurally identical
// body. Torch's bodies are closed (every value they read is an explicit operand), so an operand
// that the body does not iterate over is read by the ONNX subgraph from the outer scope by name.
#include "common/error.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"
#include "translate/subgraph_body.h"

namespace pt2onnx::translate {

namespace {

// The subgraph at positional input i.
const ir::Graph& body_at(const ir::Node& node, size_t i, std::string* name = nullptr) {
  const auto* g = i < node.inputs.size() ? std::get_if<ir::GraphArg>(&node.inputs[i].arg) : nullptr;
  PT2ONNX_CHECK(g && g->graph, ErrorCode::kUnsupported, "input " + std::to_string(i) + " is not a subgraph");
  if (name) *name = g->name;
  return *g->graph;
}

// ONNX values of one operand argument: a tensor list, a tensor or a SymInt.
void append_operand(EmitContext& ctx, const ir::Argument& arg, std::vector<std::string>& out) {
  if (const auto* list = std::get_if<ir::TensorListArg>(&arg)) {
    for (const auto& n : list->names) out.push_back(ctx.value_of(n));
  } else if (const auto* t = std::get_if<ir::TensorArg>(&arg)) {
    out.push_back(ctx.value_of(t->name));
  } else if (const auto* s = std::get_if<ir::SymIntArg>(&arg)) {
    out.push_back(ctx.sym_int(*s));
  } else {
    fail(ErrorCode::kUnsupported, "an operand is neither a tensor, a tensor list nor an int");
  }
}

std::vector<std::string> operands_at(EmitContext& ctx, const ir::Node& node, size_t i) {
  PT2ONNX_CHECK(i < node.inputs.size(), ErrorCode::kUnsupported, "operand list " + std::to_string(i) + " is missing");
  std::vector<std::string> out;
  append_operand(ctx, node.inputs[i].arg, out);
  return out;
}

std::vector<std::string> joined(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// A 0-D/one-element bool value of a predicate: a bool tensor, a SymBool, or a constant.
std::string predicate(EmitContext& ctx, const ir::Argument& arg) {
  if (const auto* t = std::get_if<ir::TensorArg>(&arg)) {
    const ir::TensorMeta* m = ctx.meta(t->name);
    const std::string& v = ctx.value_of(t->name);
    return m && m->dtype == ir::DType::kBool ? v : ctx.cast(v, ir::DType::kBool);
  }
  if (const auto* b = std::get_if<ir::SymBoolArg>(&arg)) {
    if (const auto* c = std::get_if<bool>(&b->v)) return ctx.const_bool(*c);
    return ctx.value_of(std::get<std::string>(b->v));
  }
  fail(ErrorCode::kUnsupported, "the predicate is neither a bool tensor nor a SymBool");
}

// Body output i typed by the FX graph's own output i.
std::vector<BodyOutput> typed_outputs(const ir::Graph& fx, const std::vector<std::string>& values, size_t first = 0) {
  std::vector<BodyOutput> out;
  for (size_t i = 0; i < values.size(); ++i) out.push_back({values[i], &fx.outputs.at(first + i)});
  return out;
}

// Binds the node's outputs to the ONNX node's, which must be as many.
RuleResult bind_outputs(EmitContext& ctx, const std::vector<std::string>& values) {
  PT2ONNX_CHECK(values.size() == ctx.output_count(), ErrorCode::kUnsupported,
                "the subgraph gives " + std::to_string(values.size()) + " outputs, the node has " +
                    std::to_string(ctx.output_count()));
  for (size_t i = 0; i < values.size(); ++i) ctx.set_output(i, values[i]);
  return RuleResult::kEmitted;
}

onnx::GraphProto named_graph(EmitContext& ctx, const std::string& base) {
  onnx::GraphProto g;
  g.set_name(ctx.fresh_name(base));
  return g;
}

// A bool value of a body's condition output (torch gives a bool tensor; an int one is cast).
std::string as_bool_in(EmitContext& ctx, onnx::GraphProto& graph, const ir::Graph& fx, const std::string& value) {
  const auto* t = std::get_if<ir::TensorArg>(&fx.outputs.at(0));
  auto meta = t ? fx.tensor_values.find(t->name) : fx.tensor_values.end();
  if (meta != fx.tensor_values.end() && meta->second.dtype == ir::DType::kBool) return value;
  return append_body_node(ctx, graph, "Cast", {value}, {Attr("to", int64_t{onnx::TensorProto_DataType_BOOL})});
}

// cond(pred, true_fn, false_fn, operands) -> outputs
RuleResult higher_order_cond(EmitContext& ctx, const ir::Node& node) {
  PT2ONNX_CHECK(node.inputs.size() == 4, ErrorCode::kUnsupported, "cond with " + std::to_string(node.inputs.size()) + " inputs");
  const std::string pred = predicate(ctx, node.inputs[0].arg);
  std::string then_name, else_name;
  const ir::Graph& then_fx = body_at(node, 1, &then_name);
  const ir::Graph& else_fx = body_at(node, 2, &else_name);
  const std::vector<std::string> operands = operands_at(ctx, node, 3);
  onnx::GraphProto then_g = named_graph(ctx, node.name + "_" + then_name);
  onnx::GraphProto else_g = named_graph(ctx, node.name + "_" + else_name);
  set_body_outputs(ctx, then_g, then_fx, typed_outputs(then_fx, translate_body(ctx, then_g, then_fx, operands)));
  set_body_outputs(ctx, else_g, else_fx, typed_outputs(else_fx, translate_body(ctx, else_g, else_fx, operands)));
  const int n = then_g.output_size();
  PT2ONNX_CHECK(n == else_g.output_size(), ErrorCode::kUnsupported, "the branches of cond give different numbers of outputs");
  return bind_outputs(ctx, ctx.emit("If", {pred}, {Attr("then_branch", std::move(then_g)), Attr("else_branch", std::move(else_g))}, n));
}

// while_loop(cond_fn, body_fn, carried_inputs, additional_inputs) -> final carried values.
// Loop checks its condition input before the first iteration, as torch does; the body computes
// the next condition from the new carried values.
RuleResult higher_order_while_loop(EmitContext& ctx, const ir::Node& node) {
  PT2ONNX_CHECK(node.inputs.size() == 4, ErrorCode::kUnsupported,
                "while_loop with " + std::to_string(node.inputs.size()) + " inputs");
  std::string body_name;
  const ir::Graph& cond_fx = body_at(node, 0);
  const ir::Graph& body_fx = body_at(node, 1, &body_name);
  const std::vector<std::string> carried = operands_at(ctx, node, 2);
  const std::vector<std::string> extra = operands_at(ctx, node, 3);
  PT2ONNX_CHECK(body_fx.outputs.size() == carried.size(), ErrorCode::kUnsupported,
                "the body of while_loop gives " + std::to_string(body_fx.outputs.size()) + " values for " +
                    std::to_string(carried.size()) + " carried ones");

  std::string first = translate_body(ctx, ctx.graph(), cond_fx, joined(carried, extra)).at(0);
  if (const auto* t = std::get_if<ir::TensorArg>(&cond_fx.outputs.at(0)))
    if (auto m = cond_fx.tensor_values.find(t->name); m == cond_fx.tensor_values.end() || m->second.dtype != ir::DType::kBool)
      first = ctx.cast(first, ir::DType::kBool);

  onnx::GraphProto body = named_graph(ctx, node.name + "_" + body_name);
  add_scalar_input(ctx, body, node.name + "_iteration", ir::DType::kInt64);
  add_scalar_input(ctx, body, node.name + "_condition", ir::DType::kBool);
  std::vector<std::string> formals;
  for (size_t i = 0; i < carried.size(); ++i) formals.push_back(add_body_input(ctx, body, body_fx, body_fx.inputs.at(i)));
  const std::vector<std::string> next = translate_body(ctx, body, body_fx, joined(formals, extra));
  const std::string again = as_bool_in(ctx, body, cond_fx, translate_body(ctx, body, cond_fx, joined(next, extra)).at(0));
  std::vector<BodyOutput> outputs = {{again, nullptr}};
  for (const BodyOutput& o : typed_outputs(body_fx, next)) outputs.push_back(o);
  set_body_outputs(ctx, body, body_fx, outputs);
  return bind_outputs(ctx, ctx.emit("Loop", joined({"", first}, carried), {Attr("body", std::move(body))},
                                    static_cast<int>(carried.size())));
}

// A Scan over the leading dim of `xs` with `states` carried: the body's inputs are the states,
// one slice of each of xs, then `extra` (read from outside); its outputs the new states and the
// per-slice results, which Scan stacks.
RuleResult emit_scan(EmitContext& ctx, const ir::Node& node, const ir::Graph& fx, const std::string& fx_name,
                     const std::vector<std::string>& states, const std::vector<std::string>& xs,
                     const std::vector<std::string>& extra) {
  PT2ONNX_CHECK(!xs.empty(), ErrorCode::kUnsupported, "a scan over no tensors");
  PT2ONNX_CHECK(fx.inputs.size() == states.size() + xs.size() + extra.size(), ErrorCode::kUnsupported,
                "the subgraph takes " + std::to_string(fx.inputs.size()) + " inputs, the node passes " +
                    std::to_string(states.size() + xs.size() + extra.size()));
  onnx::GraphProto body = named_graph(ctx, node.name + "_" + fx_name);
  std::vector<std::string> formals;
  for (size_t i = 0; i < states.size() + xs.size(); ++i) formals.push_back(add_body_input(ctx, body, fx, fx.inputs[i]));
  const std::vector<std::string> results = translate_body(ctx, body, fx, joined(formals, extra));
  PT2ONNX_CHECK(results.size() >= states.size(), ErrorCode::kUnsupported, "the scan body returns fewer values than it carries");
  set_body_outputs(ctx, body, fx, typed_outputs(fx, results));
  return bind_outputs(ctx, ctx.emit("Scan", joined(states, xs),
                                    {Attr("body", std::move(body)), Attr("num_scan_inputs", static_cast<int64_t>(xs.size()))},
                                    static_cast<int>(results.size())));
}

// scan(combine_fn, init, xs, additional_inputs) -> (final carries, stacked outputs). torch.export
// writes reverse=True as flips around the node, so the node itself always scans forwards.
RuleResult higher_order_scan(EmitContext& ctx, const ir::Node& node) {
  PT2ONNX_CHECK(node.inputs.size() == 4, ErrorCode::kUnsupported,
                "scan with " + std::to_string(node.inputs.size()) + " inputs (the form of torch 2.7 and newer has 4)");
  std::string name;
  const ir::Graph& fx = body_at(node, 0, &name);
  return emit_scan(ctx, node, fx, name, operands_at(ctx, node, 1), operands_at(ctx, node, 2), operands_at(ctx, node, 3));
}

// map_impl(f, xs, pos_args) -> stacked outputs: a Scan without states.
RuleResult higher_order_map_impl(EmitContext& ctx, const ir::Node& node) {
  PT2ONNX_CHECK(node.inputs.size() == 3, ErrorCode::kUnsupported, "map_impl with " + std::to_string(node.inputs.size()) + " inputs");
  std::string name;
  const ir::Graph& fx = body_at(node, 0, &name);
  return emit_scan(ctx, node, fx, name, {}, operands_at(ctx, node, 1), operands_at(ctx, node, 2));
}

// The function for a body: an existing one of the same structure, or a new one named after the
// subgraph (suffixed when a different body has that name).
const onnx::FunctionProto& shared_function(EmitContext& ctx, onnx::FunctionProto function, const std::string& name) {
  LocalFunctions& local = ctx.local_functions();
  const std::string key = structural_key(function);
  if (auto it = local.by_key.find(key); it != local.by_key.end()) return local.functions[it->second];
  std::string unique = name;
  for (int suffix = 1;; ++suffix) {
    bool taken = false;
    for (const onnx::FunctionProto& f : local.functions) taken = taken || f.name() == unique;
    if (!taken) break;
    unique = name + "_" + std::to_string(suffix);
  }
  function.set_name(unique);
  local.by_key.emplace(key, local.functions.size());
  local.functions.push_back(std::move(function));
  return local.functions.back();
}

// invoke_subgraph(subgraph, identifier, *operands) -> outputs: a call of a local function.
RuleResult higher_order_invoke_subgraph(EmitContext& ctx, const ir::Node& node) {
  std::string name;
  const ir::Graph& fx = body_at(node, 0, &name);
  std::vector<std::string> operands;
  for (size_t i = 2; i < node.inputs.size(); ++i) append_operand(ctx, node.inputs[i].arg, operands);

  onnx::GraphProto body = named_graph(ctx, node.name + "_" + name);
  std::vector<std::string> formals;
  for (const ir::Argument& in : fx.inputs) formals.push_back(add_body_input(ctx, body, fx, in));
  set_body_outputs(ctx, body, fx, typed_outputs(fx, translate_body(ctx, body, fx, formals, /*isolated=*/true)));

  onnx::FunctionProto function;
  function.set_domain(kSubgraphDomain);
  for (const auto& in : body.input()) function.add_input(in.name());
  for (const auto& out : body.output()) function.add_output(out.name());
  bool calls_functions = false;
  for (auto& n : *body.mutable_node()) {
    calls_functions = calls_functions || n.domain() == kSubgraphDomain;
    *function.add_node() = std::move(n);
  }
  onnx::OperatorSetIdProto* standard = function.add_opset_import();
  standard->set_domain("");
  standard->set_version(ctx.opset());
  if (calls_functions) {
    onnx::OperatorSetIdProto* own = function.add_opset_import();
    own->set_domain(kSubgraphDomain);
    own->set_version(1);
  }
  const onnx::FunctionProto& shared = shared_function(ctx, std::move(function), name);
  std::vector<std::string> outputs;
  for (int i = 0; i < shared.output_size(); ++i) outputs.push_back(ctx.fresh_name(node.name + "_out"));
  ctx.emit_named(shared.name(), operands, outputs).set_domain(kSubgraphDomain);
  return bind_outputs(ctx, outputs);
}

}  // namespace

void register_control_flow_rules(RuleTable& t) {
  t.add("higher_order.cond", higher_order_cond);
  t.add("higher_order.while_loop", higher_order_while_loop);
  t.add("higher_order.scan", higher_order_scan);
  t.add("higher_order.map_impl", higher_order_map_impl);
  t.add("higher_order.invoke_subgraph", higher_order_invoke_subgraph);
}

}  // namespace pt2onnx::translate
