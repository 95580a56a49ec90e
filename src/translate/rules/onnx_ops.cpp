// torch.onnx.ops pass-through: the ops of the `onnx` namespace (onnx::Attention.opset23,
// onnx::RotaryEmbedding.opset23) and the generic onnx_symbolic::_symbolic/_symbolic_multi_out
// (op type, domain, version and attributes as arguments) become exactly the ONNX node they name.
// fuse_patterns.cpp rewrites fusable aten nodes into these, so the fused ops are emitted here too.
// Attributes left at their ONNX default are not written; the output types are the node's own
// tensor_values (ONNX infers the same), so the `shape`/`onnx_dtype` arguments are not needed.
#include "common/error.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

// The node's inputs from `names`, "" for absent optional ones, trailing absent ones dropped.
std::vector<std::string> optional_inputs(const ArgReader& args, const std::vector<std::string>& names) {
  std::vector<std::string> inputs;
  for (const std::string& n : names) inputs.push_back(args.has(n) ? args.tensor(n) : std::string());
  while (!inputs.empty() && inputs.back().empty()) inputs.pop_back();
  return inputs;
}

// Emits `op_type` with one output per used leading output of the FX node, and binds them.
RuleResult emit_outputs(EmitContext& ctx, std::string_view op_type, const std::vector<std::string>& inputs,
                        const std::vector<Attr>& attrs) {
  size_t count = 1;
  for (size_t i = 0; i < ctx.output_count(); ++i)
    if (ctx.output_used(i)) count = i + 1;
  const std::vector<std::string> outs = ctx.emit(op_type, inputs, attrs, static_cast<int>(count));
  for (size_t i = 0; i < count; ++i) ctx.set_output(i, outs[i]);
  return RuleResult::kEmitted;
}

// Attention.opset23(Tensor Q, Tensor K, Tensor V, Tensor? attn_mask=None, Tensor? past_key=None,
//     Tensor? past_value=None, *, bool is_causal=False, SymInt kv_num_heads=0, SymInt q_num_heads=0,
//     SymInt qk_matmul_output_mode=0, float? scale=None, float softcap=0., SymInt? softmax_precision=None)
//   -> (Tensor, Tensor, Tensor, Tensor)
RuleResult onnx_attention_opset23(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  std::vector<Attr> attrs;
  if (args.bool_or("is_causal", false)) attrs.emplace_back("is_causal", 1);
  for (const char* name : {"kv_num_heads", "q_num_heads", "qk_matmul_output_mode"})
    if (const int64_t v = args.int_or(name, 0)) attrs.emplace_back(name, v);
  if (auto scale = args.optional_float("scale")) attrs.emplace_back("scale", *scale);
  if (const double softcap = args.float_or("softcap", 0.0); softcap != 0.0) attrs.emplace_back("softcap", softcap);
  if (auto precision = args.optional_int("softmax_precision")) attrs.emplace_back("softmax_precision", *precision);
  return emit_outputs(ctx, "Attention", optional_inputs(args, {"Q", "K", "V", "attn_mask", "past_key", "past_value"}), attrs);
}

// RotaryEmbedding.opset23(Tensor x, Tensor cos_cache, Tensor sin_cache, Tensor? position_ids=None, *,
//     bool interleaved=False, SymInt num_heads=0, SymInt rotary_embedding_dim=0) -> Tensor
RuleResult onnx_rotary_embedding_opset23(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  std::vector<Attr> attrs;
  if (args.bool_or("interleaved", false)) attrs.emplace_back("interleaved", 1);
  for (const char* name : {"num_heads", "rotary_embedding_dim"})
    if (const int64_t v = args.int_or(name, 0)) attrs.emplace_back(name, v);
  return emitted(ctx, ctx.emit("RotaryEmbedding", optional_inputs(args, {"x", "cos_cache", "sin_cache", "position_ids"}), attrs));
}

// ---- onnx_symbolic ----------------------------------------------------------------------------

const std::vector<std::string>& strings_arg(const ArgReader& args, const std::string& name) {
  const auto* list = std::get_if<std::vector<std::string>>(&args.arg(name));
  PT2ONNX_CHECK(list, ErrorCode::kUnsupported, "argument '" + name + "' is not a list of strings");
  return *list;
}

const std::vector<std::vector<int64_t>>& int_lists_arg(const ArgReader& args, const std::string& name) {
  static const std::vector<std::vector<int64_t>> kEmpty;
  const ir::Argument& a = args.arg(name);
  if (const auto* lists = std::get_if<ir::IntListListArg>(&a)) return lists->lists;
  // An empty list may be written as any list kind.
  if (const auto* ints = std::get_if<ir::SymIntListArg>(&a); ints && ints->items.empty()) return kEmpty;
  if (const auto* strs = std::get_if<std::vector<std::string>>(&a); strs && strs->empty()) return kEmpty;
  fail(ErrorCode::kUnsupported, "argument '" + name + "' is not a list of int lists");
}

// A string list that may have been written as an empty list of another kind.
std::vector<std::string> string_list_or_empty(const ArgReader& args, const std::string& name) {
  if (!args.has(name)) return {};
  const ir::Argument& a = args.arg(name);
  if (const auto* strs = std::get_if<std::vector<std::string>>(&a)) return *strs;
  if (const auto* ints = std::get_if<ir::SymIntListArg>(&a); ints && ints->items.empty()) return {};
  if (const auto* floats = std::get_if<ir::SymFloatListArg>(&a); floats && floats->items.empty()) return {};
  return strings_arg(args, name);
}

std::vector<int64_t> ints_or_empty(const ArgReader& args, const std::string& name) {
  if (!args.has(name)) return {};
  if (const auto* strs = std::get_if<std::vector<std::string>>(&args.arg(name)); strs && strs->empty()) return {};
  return args.ints(name);
}

std::vector<double> floats_or_empty(const ArgReader& args, const std::string& name) {
  if (!args.has(name)) return {};
  const ir::Argument& a = args.arg(name);
  if (const auto* strs = std::get_if<std::vector<std::string>>(&a); strs && strs->empty()) return {};
  if (const auto* ints = std::get_if<ir::SymIntListArg>(&a); ints && ints->items.empty()) return {};
  return args.floats(name);
}

// The attributes torch.onnx.ops encodes as parallel lists: for attribute i, attr_types[i] says
// which of attr_ints/attr_floats/attr_strs holds it and attr_pos[i] its [start, end) there.
std::vector<onnx::AttributeProto> decode_attributes(const ArgReader& args) {
  const std::vector<std::string> keys = string_list_or_empty(args, "attr_keys");
  const std::vector<std::string> types = string_list_or_empty(args, "attr_types");
  const std::vector<std::vector<int64_t>>& pos = keys.empty() ? std::vector<std::vector<int64_t>>{} : int_lists_arg(args, "attr_pos");
  const std::vector<int64_t> ints = ints_or_empty(args, "attr_ints");
  const std::vector<double> floats = floats_or_empty(args, "attr_floats");
  const std::vector<std::string> strs = string_list_or_empty(args, "attr_strs");
  PT2ONNX_CHECK(types.size() == keys.size() && pos.size() == keys.size(), ErrorCode::kUnsupported,
                "attr_keys, attr_types and attr_pos differ in length");
  std::vector<onnx::AttributeProto> out;
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string& type = types[i];
    PT2ONNX_CHECK(pos[i].size() == 2 && pos[i][0] >= 0 && pos[i][0] <= pos[i][1], ErrorCode::kUnsupported,
                  "attribute '" + keys[i] + "': bad attr_pos");
    const auto begin = static_cast<size_t>(pos[i][0]), end = static_cast<size_t>(pos[i][1]);
    const size_t available = type[0] == 'i' ? ints.size() : type[0] == 'f' ? floats.size() : strs.size();
    PT2ONNX_CHECK(end <= available && (type.size() == 2 || end == begin + 1), ErrorCode::kUnsupported,
                  "attribute '" + keys[i] + "': attr_pos [" + std::to_string(begin) + ", " + std::to_string(end) +
                      ") is outside its list");
    onnx::AttributeProto a;
    a.set_name(keys[i]);
    if (type == "i") {
      a.set_type(onnx::AttributeProto::INT);
      a.set_i(ints[begin]);
    } else if (type == "f") {
      a.set_type(onnx::AttributeProto::FLOAT);
      a.set_f(static_cast<float>(floats[begin]));
    } else if (type == "s") {
      a.set_type(onnx::AttributeProto::STRING);
      a.set_s(strs[begin]);
    } else if (type == "is") {
      a.set_type(onnx::AttributeProto::INTS);
      for (size_t j = begin; j < end; ++j) a.add_ints(ints[j]);
    } else if (type == "fs") {
      a.set_type(onnx::AttributeProto::FLOATS);
      for (size_t j = begin; j < end; ++j) a.add_floats(static_cast<float>(floats[j]));
    } else if (type == "ss") {
      a.set_type(onnx::AttributeProto::STRINGS);
      for (size_t j = begin; j < end; ++j) a.add_strings(strs[j]);
    } else {
      fail(ErrorCode::kUnsupported, "attribute '" + keys[i] + "' has type '" + type + "' (expected i, f, s, is, fs or ss)");
    }
    out.push_back(std::move(a));
  }
  return out;
}

// Emits the node _symbolic/_symbolic_multi_out describe, with `count` outputs.
RuleResult emit_symbolic(EmitContext& ctx, const ir::Node& node, size_t count) {
  ArgReader args(ctx, node);
  const std::string op_type = args.string_or("op_type", "");
  const std::string domain = args.string_or("domain", "");
  PT2ONNX_CHECK(!op_type.empty(), ErrorCode::kUnsupported, "torch.onnx.ops.symbolic without an op_type");
  PT2ONNX_CHECK(domain.empty() || domain == "ai.onnx", ErrorCode::kUnsupported,
                "torch.onnx.ops.symbolic op " + op_type + " in domain '" + domain +
                    "': only the standard domain is supported (the model would need that domain's opset)");
  if (auto version = args.optional_int("version"))
    PT2ONNX_CHECK(*version <= ctx.opset(), ErrorCode::kUnsupported,
                  "torch.onnx.ops.symbolic op " + op_type + " is opset " + std::to_string(*version) +
                      ", the model is converted at opset " + std::to_string(ctx.opset()) + "; use --opset " +
                      std::to_string(*version) + " or newer");
  std::vector<std::string> inputs;
  for (const std::optional<std::string>& in : args.optional_tensors("inputs")) inputs.push_back(in.value_or(""));
  while (!inputs.empty() && inputs.back().empty()) inputs.pop_back();
  std::vector<onnx::AttributeProto> attrs = decode_attributes(args);
  const std::vector<std::string> outs = ctx.emit(op_type, inputs, {}, static_cast<int>(count));
  onnx::NodeProto& emitted_node = ctx.last_node();
  for (onnx::AttributeProto& a : attrs) *emitted_node.add_attribute() = std::move(a);
  for (size_t i = 0; i < count; ++i) ctx.set_output(i, outs[i]);
  return RuleResult::kEmitted;
}

// _symbolic(Tensor?[] inputs, str op_type, int onnx_dtype, *, SymInt[] shape, str[] attr_keys,
//     str[] attr_types, int[][] attr_pos, int[] attr_ints, float[] attr_floats, str[] attr_strs,
//     str[] metadata_props_keys, str[] metadata_props_values, str domain="", int? version=None) -> Tensor
RuleResult onnx_symbolic(EmitContext& ctx, const ir::Node& node) { return emit_symbolic(ctx, node, 1); }

// _symbolic_multi_out(Tensor?[] inputs, str op_type, int[] onnx_dtypes, *, SymInt[][] shapes, ...) -> Tensor[]
RuleResult onnx_symbolic_multi_out(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  return emit_symbolic(ctx, node, args.ints("onnx_dtypes").size());
}

}  // namespace

void register_onnx_ops_rules(RuleTable& t) {
  t.add_since(23, "onnx.Attention.opset23", onnx_attention_opset23);
  t.add_since(23, "onnx.RotaryEmbedding.opset23", onnx_rotary_embedding_opset23);
  t.add("onnx_symbolic._symbolic.default", onnx_symbolic);
  t.add("onnx_symbolic._symbolic_multi_out.default", onnx_symbolic_multi_out);
}

}  // namespace pt2onnx::translate
