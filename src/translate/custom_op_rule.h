// Rules given by the user (a --config file): an op becomes one node of a custom domain,
// optionally with a local function as its body (ONNX text, parsed by config/). They win over the
// built-in rules and cover ops no built-in rule knows (custom torch.library ops).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "translate/emit_context.h"

namespace pt2onnx::ir {
struct Node;
}

namespace pt2onnx::translate {

// An attribute of the emitted node: copied from an argument of the FX node, or a literal.
struct CustomAttribute {
  std::string name;
  std::string from_arg;              // non-empty: the argument (by schema name) that gives the value
  std::optional<Attr::Value> value;  // else this literal
  std::string origin;                // where the config says it, e.g. "rules[0].attributes.alpha"
};

struct CustomOpRule {
  std::string origin;  // "rules[0]": named in messages and in the report of unused rules
  // The target it matches, normalised to dots: "ns.op" matches every overload, "ns.op.overload" one.
  std::string op;
  std::string domain;
  std::string op_type;
  int64_t domain_version = 1;
  // Arguments (by schema name) that become the node's inputs, in order; "" leaves an optional
  // input out. nullopt: every tensor argument, in the op's order.
  std::optional<std::vector<std::string>> inputs;
  std::vector<CustomAttribute> attributes;
  // The node's body, when the config gives one: a local function named op_type in domain.
  std::optional<onnx::FunctionProto> function;
};

// "pt2onnx_test::scaled_tanh.default" and "pt2onnx_test.scaled_tanh" style names -> dotted form.
std::string normalize_op_name(const std::string& name);

// Whether `rule` applies to a node of `target` (e.g. "pt2onnx_test.scaled_tanh.default").
bool custom_rule_matches(const CustomOpRule& rule, const std::string& target);

// Emits the node for the FX node being translated (ctx.begin_node was called) and sets its
// outputs. Errors name the rule's origin and the argument at fault.
void emit_custom_op(EmitContext& ctx, const ir::Node& node, const CustomOpRule& rule);

}  // namespace pt2onnx::translate
