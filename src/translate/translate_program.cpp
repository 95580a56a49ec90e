// translate_program: checks support, declares the graph's boundary, then translates every live
// FX node in order through the rule table.
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "common/bulk_free.h"
#include "common/error.h"
#include "common/opsets.h"
#include "common/view_map.h"
#include "ir/dtype_table.h"
#include "translate/complex_values.h"
#include "translate/decompositions/decompose.h"
#include "translate/half_in_float.h"
#include "translate/translate_with_rules.h"
#include "translate/emit_context.h"
#include "translate/graph_io.h"
#include "translate/liveness.h"
#include "translate/op_support.h"
#include "translate/packed_nodes.h"
#include "translate/view_mutation.h"

namespace pt2onnx::translate {

namespace {

constexpr int kNodesPerPack = 64;

// {"s72": {"min": 1, "max": 512}, ...}: the export's ranges of its symbols (null: unbounded),
// which ONNX shapes cannot say, for runtimes and users that want to size buffers or check inputs.
std::string range_constraints_json(const ir::Program& program) {
  auto bound = [](const std::optional<int64_t>& b) { return b ? std::to_string(*b) : std::string("null"); };
  std::string out = "{";
  for (const auto& [symbol, range] : program.range_constraints) {
    if (out.size() > 1) out += ", ";
    out += "\"" + symbol + "\": {\"min\": " + bound(range.min) + ", \"max\": " + bound(range.max) + "}";
  }
  return out + "}";
}

void set_model_header(onnx::ModelProto& model, const ir::Program& program, int opset) {
  model.set_producer_name("pt2onnx");  // convert() adds the producer_version
  onnx::OperatorSetIdProto* op_set = model.add_opset_import();
  op_set->set_domain("");
  op_set->set_version(opset);
  const std::string schema =
      std::to_string(program.schema_version.major) + "." + std::to_string(program.schema_version.minor);
  const std::string torch = program.torch_version.empty() ? "unknown" : program.torch_version;
  model.set_doc_string("converted by pt2onnx from a torch.export program (torch " + torch + ", schema " + schema + ")");
  auto add_meta = [&](const std::string& key, const std::string& value) {
    onnx::StringStringEntryProto* entry = model.add_metadata_props();
    entry->set_key(key);
    entry->set_value(value);
  };
  if (!program.torch_version.empty()) add_meta("pkg.torch.export.torch_version", program.torch_version);
  add_meta("pkg.torch.export.schema_version", schema);
  if (!program.range_constraints.empty()) add_meta("pkg.torch.export.range_constraints", range_constraints_json(program));
  model.mutable_graph()->set_name("main_graph");
}

// After `aten.foo_(self, ...)`, later readers of `self` see the new value.
void rebind_mutated_self(EmitContext& ctx, const ir::Node& node) {
  const ir::Argument* self = node.input("self");
  const auto* self_tensor = self ? std::get_if<ir::TensorArg>(self) : nullptr;
  const auto* out = node.outputs.empty() ? nullptr : std::get_if<ir::TensorArg>(&node.outputs.front());
  if (self_tensor && out && ctx.is_bound(out->name)) ctx.bind(self_tensor->name, ctx.value_of(out->name));
}

// The first config rule that matches `target`, or -1.
int find_custom_rule(const std::vector<CustomOpRule>& custom, const std::string& target) {
  for (size_t i = 0; i < custom.size(); ++i)
    if (custom_rule_matches(custom[i], target)) return static_cast<int>(i);
  return -1;
}

// An op whose outputs are all tensors of static shapes with no elements has nothing to compute:
// each output is an Expand of a zero to its shape. Edge cases (roll, unflatten, pixel_unshuffle,
// group_norm of a 0 dim ...) would otherwise meet ONNX ops that read a 0 in a shape as "copy the
// input's dim" or refuse empty extents. In-place ops keep their rules (their writes are state).
bool emit_empty_outputs(EmitContext& ctx, const ir::Node& node) {
  if (node.outputs.empty() || is_inplace_target(node.target) || node.target.rfind("aten.", 0) != 0) return false;
  std::vector<std::pair<ir::DType, std::vector<int64_t>>> outs;
  for (const ir::Argument& out : node.outputs) {
    const auto* tensor = std::get_if<ir::TensorArg>(&out);
    const ir::TensorMeta* meta = tensor ? ctx.meta(tensor->name) : nullptr;
    const ir::DTypeFacts* facts = meta ? ir::dtype_facts(meta->dtype) : nullptr;
    if (!facts || facts->onnx_type == 0 || facts->kind == ir::DTypeKind::kComplex || facts->min_opset > ctx.opset()) return false;
    std::vector<int64_t> shape;
    bool empty = false;
    for (const auto& d : meta->sizes) {
      if (!d.is_static()) return false;
      shape.push_back(d.as_int());
      empty |= d.as_int() == 0;
    }
    if (!empty) return false;
    outs.emplace_back(meta->dtype, std::move(shape));
  }
  for (size_t i = 0; i < outs.size(); ++i)
    ctx.set_output(i, ctx.emit("Expand", {ctx.const_scalar(0, outs[i].first), ctx.const_i64s(outs[i].second)}));
  return true;
}

void translate_node(EmitContext& ctx, const ir::Graph& graph, size_t index, const Liveness& liveness,
                    const ComplexNodes& complex_nodes, const RuleTable& rules, const TranslateOptions& options,
                    std::vector<int64_t>& custom_hits) {
  const ir::Node& node = graph.nodes[index];
  ctx.begin_node(node);
  if (const int c = find_custom_rule(options.custom_ops, node.target); c >= 0) {
    emit_custom_op(ctx, node, options.custom_ops[static_cast<size_t>(c)]);
    ctx.finish_node();
    ++custom_hits[static_cast<size_t>(c)];
    return;
  }
  const std::vector<Rule>* list = rules.find(node.target);
  if (!list) {
    // Decomposed nodes are gone by now (decompositions/decompose.h): this one's decomposition declined.
    const Decomposition* d = rules.find_decomposition(node.target);
    fail(ErrorCode::kUnsupported, d ? "its decomposition declined and no rule handles " + node.target +
                                          (d->note.empty() ? std::string() : " (" + std::string(d->note) + ")")
                                    : "no rule handles " + node.target);
  }
  const bool complex = complex_nodes.touches(node);
  if (!complex && emit_empty_outputs(ctx, node)) {
    ctx.finish_node();
    return;
  }
  std::string notes;
  for (const Rule& rule : *list) {
    if (rule.min_opset > ctx.opset() || rule.complex != complex) continue;
    std::optional<HalfInFloat> in_float;
    if (rule.half_in_float) in_float.emplace(ctx, node);
    const int before = ctx.node_count();
    if (rule.fn(ctx, node) == RuleResult::kEmitted) {
      if (in_float) in_float->round_results();
      in_float.reset();  // the operands' own values again, before the results are bound
      const bool inplace = is_inplace_target(node.target);
      const std::vector<Rebinding> sources = inplace ? write_back_views(ctx, graph, node, index, liveness)
                                                     : std::vector<Rebinding>{};
      const std::string produced = ctx.output_count() ? ctx.output_value(0) : std::string();
      ctx.finish_node();
      if (!inplace) return;
      rebind_mutated_self(ctx, node);
      for (const Rebinding& r : sources) {
        // finish_node may have renamed the produced value to its FX name.
        const bool renamed = r.value == produced && !node.outputs.empty() && std::holds_alternative<ir::TensorArg>(node.outputs[0]);
        ctx.bind(r.fx_name, renamed ? ctx.value_of(std::get<ir::TensorArg>(node.outputs[0]).name) : r.value);
      }
      return;
    }
    PT2ONNX_CHECK(ctx.node_count() == before, ErrorCode::kInternal, "a rule emitted nodes and then declined");
    if (!rule.note.empty()) notes += (notes.empty() ? "" : "; ") + std::string(rule.note);
  }
  fail(ErrorCode::kUnsupported, "no rule handles this case at opset " + std::to_string(ctx.opset()) +
                                    (notes.empty() ? std::string() : " (" + notes + ")"));
}

// The subgraphs of a node (the bodies of a higher-order op), in argument order.
std::vector<const ir::GraphArg*> subgraphs_of(const ir::Node& node) {
  std::vector<const ir::GraphArg*> out;
  for (const ir::NamedArgument& in : node.inputs)
    if (const auto* g = std::get_if<ir::GraphArg>(&in.arg); g && g->graph) out.push_back(g);
  return out;
}

// Translates the live nodes of a subgraph into a child context (the rules of higher-order ops
// call this through EmitContext::translate_graph).
void translate_subgraph(EmitContext& ctx, const ir::Graph& graph, const RuleTable& rules,
                        const TranslateOptions& options, std::vector<int64_t>& custom_hits) {
  const Liveness liveness = analyze_liveness(graph);
  const ComplexNodes complex_nodes(graph.tensor_values);
  ctx.set_used_names(liveness.used);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (!liveness.live[i]) continue;
    try {
      translate_node(ctx, graph, i, liveness, complex_nodes, rules, options, custom_hits);
    } catch (const Error& e) {
      throw e.with_context("translating " + describe_node(graph.nodes[i]));
    } catch (const std::exception& e) {
      throw Error(ErrorCode::kInternal, "translating " + describe_node(graph.nodes[i]) + ": " + e.what());
    }
  }
}

struct Missing {
  int count = 0;
  int min_opset = 0;  // classify's: the lowest opset of a rule of the node's kind, 0: none
  const ir::Node* example = nullptr;
  std::string where;  // "" in the main graph, else "in subgraph true_graph_0 of node cond"
};

// Adds the live targets of `graph` (and of the subgraphs of its live nodes) that nothing handles.
// `complex_nodes` is the graph's.
void collect_missing(const ir::Graph& graph, const ComplexNodes& complex_nodes, const std::vector<bool>& live,
                     const RuleTable& rules, int opset, const std::vector<CustomOpRule>& custom, const std::string& where,
                     std::map<std::string, Missing>& missing, std::vector<std::string>& order) {
  const auto& nodes = graph.nodes;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!live[i]) continue;
    for (const ir::GraphArg* sub : subgraphs_of(nodes[i]))
      collect_missing(*sub->graph, ComplexNodes(sub->graph->tensor_values), analyze_liveness(*sub->graph).live, rules,
                      opset, custom, "in subgraph " + sub->name + " of node " + nodes[i].name, missing, order);
    const bool complex = complex_nodes.touches(nodes[i]);
    const Support support = classify(nodes[i].target, complex, opset, rules, custom);
    if (!support.refused()) continue;
    // A complex node the real rules cannot take is listed apart: "aten.exp.default on complex values".
    const std::string key = complex ? nodes[i].target + std::string(kOnComplexValues) : nodes[i].target;
    Missing& m = missing[key];
    if (m.count++ == 0) {
      m.example = &nodes[i];
      m.min_opset = support.min_opset;
      m.where = where;
      order.push_back(key);
    }
  }
}

// check_supported with the main graph's ComplexNodes made already.
void check_supported_with(const ir::Program& program, const std::vector<bool>& live, const RuleTable& rules, int opset,
                          const std::vector<CustomOpRule>& custom, const ComplexNodes& complex_nodes) {
  std::map<std::string, Missing> missing;
  std::vector<std::string> order;  // first occurrence order, so the message follows the graph
  collect_missing(program.graph, complex_nodes, live, rules, opset, custom, "", missing, order);
  if (missing.empty()) return;
  std::string message = "unsupported ops (" + std::to_string(missing.size()) + "): ";
  for (size_t i = 0; i < order.size(); ++i) {
    const Missing& m = missing[order[i]];
    message += (i ? "; " : "") + order[i] + " \u00d7" + std::to_string(m.count) + " (e.g. " +
               describe_node(*m.example, /*with_target=*/false) + (m.where.empty() ? "" : " " + m.where) + ")";
    if (m.min_opset) message += " [needs opset " + std::to_string(m.min_opset) + " or newer]";
  }
  fail(ErrorCode::kUnsupported, message);
}

}  // namespace

int64_t ir_version_for_opset(int opset) {
  if (opset <= 18) return 8;
  if (opset <= 20) return 9;
  if (opset <= 22) return 10;
  if (opset <= 23) return 11;  // onnx 1.18
  if (opset <= 24) return 12;  // onnx 1.19
  if (opset <= 27) return 13;  // onnx 1.20 to 1.22
  return 14;                   // opset 28 (onnx 1.23)
}

// Declares the domains of config rules that were used, and adds the bodies they carry.
// A body imports the standard domain at the model's opset (the ONNX checker wants one version per
// domain); one that imports none gets it.
onnx::FunctionProto function_at_opset(const CustomOpRule& rule, int opset) {
  onnx::FunctionProto function = *rule.function;
  bool imports_standard = false;
  for (const onnx::OperatorSetIdProto& op_set : function.opset_import()) {
    if (!op_set.domain().empty() && op_set.domain() != "ai.onnx") continue;
    imports_standard = true;
    PT2ONNX_CHECK(op_set.version() == opset, ErrorCode::kUsage,
                  "config rule " + rule.origin + ": its function imports opset " + std::to_string(op_set.version()) +
                      " of the standard domain, but the model is converted at opset " + std::to_string(opset));
  }
  if (!imports_standard) {
    onnx::OperatorSetIdProto* op_set = function.add_opset_import();
    op_set->set_domain("");
    op_set->set_version(opset);
  }
  return function;
}

void add_custom_domains(onnx::ModelProto& model, const std::vector<CustomOpRule>& custom,
                        const std::vector<int64_t>& hits, int opset) {
  std::map<std::string, int64_t> domains;
  std::set<std::string> functions;
  for (size_t i = 0; i < custom.size(); ++i) {
    if (hits[i] == 0) continue;
    const CustomOpRule& rule = custom[i];
    auto [it, inserted] = domains.emplace(rule.domain, rule.domain_version);
    PT2ONNX_CHECK(inserted || it->second == rule.domain_version, ErrorCode::kUsage,
                  "config rule " + rule.origin + ": domain '" + rule.domain + "' is used with versions " +
                      std::to_string(it->second) + " and " + std::to_string(rule.domain_version));
    if (rule.function && functions.insert(rule.domain + "." + rule.op_type).second)
      *model.add_functions() = function_at_opset(rule, opset);
  }
  for (const auto& [domain, version] : domains) {
    onnx::OperatorSetIdProto* op_set = model.add_opset_import();
    op_set->set_domain(domain);
    op_set->set_version(version);
  }
}

// The invoke_subgraph bodies as local functions, and their domain.
void add_local_functions(onnx::ModelProto& model, const LocalFunctions& local) {
  if (local.functions.empty()) return;
  for (const onnx::FunctionProto& f : local.functions) *model.add_functions() = f;
  onnx::OperatorSetIdProto* op_set = model.add_opset_import();
  op_set->set_domain(local.functions.front().domain());
  op_set->set_version(1);
}

void check_supported(const ir::Program& program, const std::vector<bool>& live, const RuleTable& rules, int opset,
                     const std::vector<CustomOpRule>& custom) {
  check_supported_with(program, live, rules, opset, custom, ComplexNodes(program.graph.tensor_values));
}

namespace {

// The translation of `program`; with `consumed` (the same program, the caller's to free), each
// node's module stack is dropped once the node is translated, finished ONNX nodes are kept packed,
// and the program is freed (its value types kept) before they are unpacked.
Translated translate_impl(const ir::Program& program, const TranslateOptions& options, const RuleTable& rules,
                          model::Diagnostics& diagnostics, ir::Program* consumed) {
  PT2ONNX_CHECK(options.opset >= kMinOpset && options.opset <= kMaxOpset, ErrorCode::kUsage,
                "opset " + std::to_string(options.opset) + " is not supported (supported: " + std::to_string(kMinOpset) +
                    " to " + std::to_string(kMaxOpset) + ")");
  const Liveness liveness = analyze_liveness(program);
  // One scan of the tensor values for the check and the translation (there are as many as nodes).
  const ComplexNodes complex_nodes(program.graph.tensor_values);
  Refusals* const refusals = options.refusals;
  // Collecting refusals, the ops no rule handles are the caller's to list (inspect's histogram).
  if (!refusals) check_supported_with(program, liveness.live, rules, options.opset, options.custom_ops, complex_nodes);

  Translated result;
  onnx::ModelProto& proto = result.model.proto;
  PackedNodes packed_nodes;
  result.custom_op_hits.assign(options.custom_ops.size(), 0);
  set_model_header(proto, program, options.opset);
  EmitContext ctx(*proto.mutable_graph(), program, options.opset);
  ctx.set_graph_translator([&](EmitContext& sub, const ir::Graph& graph) {
    translate_subgraph(sub, graph, rules, options, result.custom_op_hits);
  });
  ctx.set_used_names(liveness.used);
  reserve_names(ctx, program);
  const std::vector<StateInput> state = declare_inputs(ctx, program, result.model.weights, refusals);
  // Nodes are only ever appended, so each FX node's ONNX nodes are the ones added while it ran.
  auto record_modules = [&](const ir::ModuleStack& stack) {
    if (options.module_stacks) result.model.node_modules.resize(static_cast<size_t>(ctx.node_count()), stack);
  };
  record_modules({});

  const auto& nodes = program.graph.nodes;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!liveness.live[i]) continue;
    if (refusals && !rules.supports(nodes[i].target, options.opset, complex_nodes.touches(nodes[i])) &&
        find_custom_rule(options.custom_ops, nodes[i].target) < 0) {
      ctx.begin_node(nodes[i]);
      ctx.abandon_node();
      continue;
    }
    const bool translated = refuse_or_record(refusals, [&] {
      try {
        translate_node(ctx, program.graph, i, liveness, complex_nodes, rules, options, result.custom_op_hits);
      } catch (const Error& e) {
        throw e.with_context("translating " + describe_node(nodes[i]));
      } catch (const std::exception& e) {
        throw Error(ErrorCode::kInternal, "translating " + describe_node(nodes[i]) + ": " + e.what());
      }
    });
    if (!translated) ctx.abandon_node();
    record_modules(nodes[i].module_stack);
    // Nothing reads a translated node's module stack again (node_modules holds its own reference).
    if (consumed) consumed->graph.nodes[i].module_stack = ir::ModuleStack();
    // In batches: the cleared messages are reused by the next nodes, so few are ever allocated.
    // Collecting refusals, nobody reads the graph: its nodes are dropped as they come.
    if ((consumed || refusals) && ctx.graph().node_size() >= kNodesPerPack) ctx.pack_nodes(packed_nodes, !refusals);
  }
  add_state_metadata(proto, declare_outputs(ctx, program, state, refusals));
  record_modules({});
  refuse_or_record(refusals, [&] { add_custom_domains(proto, options.custom_ops, result.custom_op_hits, options.opset); });
  add_local_functions(proto, ctx.local_functions());

  proto.set_ir_version(std::max(ir_version_for_opset(options.opset), ctx.min_ir_version()));
  for (std::string& warning : ctx.warnings()) diagnostics.warn(model::Stage::kTranslate, std::move(warning));
  // The IR goes before the packed nodes come back, into the memory it held.
  if (consumed) bulk_free([&] { result.value_types = value_types(std::move(*consumed)); });
  packed_nodes.unpack_before(*proto.mutable_graph()->mutable_node());
  return result;
}

}  // namespace

ir::TensorValues value_types(ir::Program&& program) {
  ir::Program dying = std::move(program);  // all but the kept values is freed on return
  ViewSet placeholders(dying.signature.inputs.size());
  for (const ir::InputSpec& spec : dying.signature.inputs)
    if (ir::is_weight(spec.kind))
      if (const auto* t = std::get_if<ir::TensorArg>(&spec.arg)) placeholders.insert(t->name);
  ir::TensorValues kept;
  for (auto& [name, meta] : dying.graph.tensor_values)
    if (!placeholders.contains(name)) kept.emplace(std::move(name), std::move(meta));
  return kept;
}

Translated translate_with_rules(const ir::Program& program, const TranslateOptions& options, const RuleTable& rules,
                                model::Diagnostics& diagnostics) {
  if (!has_decompositions(program, rules)) return translate_impl(program, options, rules, diagnostics, nullptr);
  const ir::Program decomposed = decompose(program, rules);
  return translate_impl(decomposed, options, rules, diagnostics, nullptr);
}

Translated translate_program(ir::Program&& program, const TranslateOptions& options, model::Diagnostics& diagnostics) {
  const RuleTable& rules = builtin_rules();
  if (has_decompositions(program, rules)) program = decompose(std::move(program), rules);
  return translate_impl(program, options, rules, diagnostics, &program);
}

}  // namespace pt2onnx::translate
