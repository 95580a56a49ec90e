// Config rules: one custom-domain node per matched FX node.
#include "translate/custom_op_rule.h"

#include "common/error.h"
#include "translate/arg_reader.h"
#include "translate/onnx_types.h"

namespace pt2onnx::translate {

namespace {

bool is_tensor_like(const ir::Argument& arg) {
  return std::holds_alternative<ir::TensorArg>(arg) || std::holds_alternative<ir::TensorListArg>(arg) ||
         std::holds_alternative<ir::OptionalTensorListArg>(arg);
}

[[noreturn]] void rule_error(const std::string& origin, const std::string& what) {
  fail(ErrorCode::kUnsupported, "config rule " + origin + ": " + what);
}

const ir::Argument* find_arg(const ir::Node& node, const std::string& name) {
  for (const ir::NamedArgument& a : node.inputs)
    if (a.name == name) return &a.arg;
  return nullptr;
}

std::string arg_names(const ir::Node& node) {
  std::string out;
  for (const ir::NamedArgument& a : node.inputs) out += (out.empty() ? "" : ", ") + a.name;
  return out.empty() ? "none" : out;
}

// Node inputs for one argument: tensors as they are, scalars as 0-D constants, None as "".
void add_inputs(EmitContext& ctx, const ir::Argument& arg, const std::string& origin, const std::string& name,
                std::vector<std::string>& inputs) {
  if (const auto* t = std::get_if<ir::TensorArg>(&arg)) {
    inputs.push_back(ctx.value_of(t->name));
  } else if (const auto* list = std::get_if<ir::TensorListArg>(&arg)) {
    for (const auto& n : list->names) inputs.push_back(ctx.value_of(n));
  } else if (const auto* opt = std::get_if<ir::OptionalTensorListArg>(&arg)) {
    for (const auto& n : opt->names) inputs.push_back(n ? ctx.value_of(*n) : std::string());
  } else if (std::holds_alternative<ir::NoneArg>(arg)) {
    inputs.emplace_back();
  } else if (const auto* i = std::get_if<ir::SymIntArg>(&arg)) {
    inputs.push_back(ctx.sym_int(*i));
  } else if (const auto* f = std::get_if<ir::SymFloatArg>(&arg)) {
    const auto* v = std::get_if<double>(&f->v);
    if (!v) rule_error(origin, "input '" + name + "' is a symbolic float, which cannot become a node input");
    inputs.push_back(ctx.const_scalar(*v, ir::DType::kFloat32));
  } else if (const auto* b = std::get_if<ir::SymBoolArg>(&arg)) {
    const auto* v = std::get_if<bool>(&b->v);
    if (!v) rule_error(origin, "input '" + name + "' is a symbolic bool, which cannot become a node input");
    inputs.push_back(ctx.const_bool(*v));
  } else {
    rule_error(origin, "input '" + name + "' is not a tensor, a list of tensors, a number or None");
  }
}

// The attribute value of an argument; nullopt when it is None (the attribute is left out).
std::optional<Attr::Value> attribute_from_arg(const ir::Argument& arg, const CustomAttribute& attr) {
  auto refuse = [&](const std::string& why) -> std::optional<Attr::Value> {
    rule_error(attr.origin, "argument '" + attr.from_arg + "' " + why);
  };
  if (std::holds_alternative<ir::NoneArg>(arg)) return std::nullopt;
  if (const auto* i = std::get_if<ir::SymIntArg>(&arg)) {
    if (const auto* v = std::get_if<int64_t>(&i->v)) return Attr::Value(*v);
    return refuse("is a symbolic int; an attribute must be a constant");
  }
  if (const auto* f = std::get_if<ir::SymFloatArg>(&arg)) {
    if (const auto* v = std::get_if<double>(&f->v)) return Attr::Value(static_cast<float>(*v));
    return refuse("is a symbolic float; an attribute must be a constant");
  }
  if (const auto* b = std::get_if<ir::SymBoolArg>(&arg)) {
    if (const auto* v = std::get_if<bool>(&b->v)) return Attr::Value(int64_t{*v ? 1 : 0});
    return refuse("is a symbolic bool; an attribute must be a constant");
  }
  if (const auto* s = std::get_if<std::string>(&arg)) return Attr::Value(*s);
  if (const auto* list = std::get_if<ir::SymIntListArg>(&arg)) {
    std::vector<int64_t> ints;
    for (const ir::SymIntArg& item : list->items) {
      const auto* v = std::get_if<int64_t>(&item.v);
      if (!v) return refuse("holds a symbolic int; an attribute must be a constant");
      ints.push_back(*v);
    }
    return Attr::Value(std::move(ints));
  }
  if (const auto* list = std::get_if<ir::SymFloatListArg>(&arg)) {
    std::vector<float> floats;
    for (const ir::SymFloatArg& item : list->items) {
      const auto* v = std::get_if<double>(&item.v);
      if (!v) return refuse("holds a symbolic float; an attribute must be a constant");
      floats.push_back(static_cast<float>(*v));
    }
    return Attr::Value(std::move(floats));
  }
  if (const auto* dt = std::get_if<ir::ScalarTypeArg>(&arg)) return Attr::Value(int64_t{onnx_dtype(dt->dtype)});
  return refuse("is not a number, a string, a list of numbers, a dtype or None");
}

}  // namespace

std::string normalize_op_name(const std::string& name) {
  const std::string_view prefix = "torch.ops.";
  std::string_view in = name;
  if (in.substr(0, prefix.size()) == prefix) in.remove_prefix(prefix.size());
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == ':' && i + 1 < in.size() && in[i + 1] == ':') {
      out += '.';
      ++i;
    } else {
      out += in[i];
    }
  }
  return out;
}

bool custom_rule_matches(const CustomOpRule& rule, const std::string& target) {
  if (target == rule.op) return true;
  // "ns.op" matches "ns.op.<overload>" (exactly one more component).
  return target.size() > rule.op.size() + 1 && target.compare(0, rule.op.size(), rule.op) == 0 &&
         target[rule.op.size()] == '.' && target.find('.', rule.op.size() + 1) == std::string::npos;
}

void emit_custom_op(EmitContext& ctx, const ir::Node& node, const CustomOpRule& rule) {
  std::vector<std::string> inputs;
  if (rule.inputs) {
    for (size_t i = 0; i < rule.inputs->size(); ++i) {
      const std::string& name = (*rule.inputs)[i];
      if (name.empty()) {
        inputs.emplace_back();
        continue;
      }
      const ir::Argument* arg = find_arg(node, name);
      if (!arg)
        rule_error(rule.origin + ".inputs[" + std::to_string(i) + "]",
                   "the op has no argument '" + name + "' (arguments: " + arg_names(node) + ")");
      add_inputs(ctx, *arg, rule.origin + ".inputs[" + std::to_string(i) + "]", name, inputs);
    }
  } else {
    for (const ir::NamedArgument& a : node.inputs)
      if (is_tensor_like(a.arg)) add_inputs(ctx, a.arg, rule.origin, a.name, inputs);
  }
  while (!inputs.empty() && inputs.back().empty()) inputs.pop_back();  // trailing optional inputs

  std::vector<Attr> attrs;
  for (const CustomAttribute& attr : rule.attributes) {
    std::optional<Attr::Value> value = attr.value;
    if (!attr.from_arg.empty()) {
      const ir::Argument* arg = find_arg(node, attr.from_arg);
      if (!arg)
        rule_error(attr.origin, "the op has no argument '" + attr.from_arg + "' (arguments: " + arg_names(node) + ")");
      value = attribute_from_arg(*arg, attr);
    }
    if (!value) continue;
    Attr a(attr.name, int64_t{0});
    a.value = std::move(*value);
    attrs.push_back(std::move(a));
  }

  const int outputs = static_cast<int>(std::max<size_t>(ctx.output_count(), 1));
  if (rule.function) {
    PT2ONNX_CHECK(rule.function->output_size() == outputs, ErrorCode::kUnsupported,
                  "config rule " + rule.origin + ": function " + rule.op_type + " has " +
                      std::to_string(rule.function->output_size()) + " outputs, the op " + std::to_string(outputs));
    PT2ONNX_CHECK(static_cast<int>(inputs.size()) <= rule.function->input_size(), ErrorCode::kUnsupported,
                  "config rule " + rule.origin + ": " + std::to_string(inputs.size()) + " inputs for function " +
                      rule.op_type + ", which takes " + std::to_string(rule.function->input_size()));
  }
  const std::vector<std::string> values = ctx.emit(rule.op_type, inputs, attrs, outputs);
  ctx.last_node().set_domain(rule.domain);
  for (size_t i = 0; i < ctx.output_count(); ++i) ctx.set_output(i, values[i]);
}

}  // namespace pt2onnx::translate
