// Finding the buffers and user inputs a program updates.
#include "translate/program_state.h"

#include <map>
#include <set>

#include "common/error.h"
#include "translate/liveness.h"

namespace pt2onnx::translate {

namespace {

const ir::InputSpec* input_by_placeholder(const ir::Program& program, const std::string& fx) {
  for (const ir::InputSpec& spec : program.signature.inputs)
    if (const auto* t = std::get_if<ir::TensorArg>(&spec.arg); t && t->name == fx) return &spec;
  return nullptr;
}

const ir::InputSpec* input_by_target(const ir::Program& program, ir::OutputKind kind, const std::string& target) {
  for (const ir::InputSpec& spec : program.signature.inputs) {
    const auto* t = std::get_if<ir::TensorArg>(&spec.arg);
    if (!t) continue;
    if (kind == ir::OutputKind::kUserInputMutation ? spec.kind == ir::InputKind::kUserInput && t->name == target
                                                   : spec.kind != ir::InputKind::kUserInput && spec.target == target)
      return &spec;
  }
  return nullptr;
}

std::string first_name(const ir::Argument& arg) {
  std::vector<std::string> names;
  collect_value_names(arg, names);
  return names.empty() ? std::string() : names.front();
}

bool is_embedding_renorm(std::string_view target) {
  return target == "aten.embedding_renorm_.default" || target == "aten.embedding_renorm.default";
}

// nn.Embedding(max_norm=...) renormalises the rows it looks up in its weight, in place. When those
// lookups are all that reads the weight (through views, embedding_renorm and then embedding of the
// same indices), each call's results equal those from the untouched weight (a renormalised row is
// not scaled again), so the update needs no ONNX state; any other reader (tied weights) would see
// rows renormalised by earlier calls.
struct RenormReaders {
  bool renormed = false;       // an embedding_renorm reads the weight
  bool other_readers = false;  // something else does too
};

RenormReaders renorm_readers(const ir::Program& program, const std::string& placeholder) {
  RenormReaders result;
  std::set<std::string> weight = {placeholder};  // the weight, its views, renormalised copies
  std::set<std::string> renormed_indices;        // indices of the renorms seen so far
  for (const ir::Node& node : program.graph.nodes) {
    std::vector<std::string> read;
    for (const ir::NamedArgument& in : node.inputs) collect_value_names(in.arg, read);
    bool reads = false;
    for (const std::string& name : read) reads = reads || weight.count(name) != 0;
    if (!reads) continue;
    const ir::Argument* self = node.input(node.target == "aten.embedding.default" ? "weight" : "self");
    const ir::Argument* indices = node.input("indices");
    const bool self_is_weight = self && weight.count(first_name(*self)) != 0;
    if (is_view_target(node.target) && self_is_weight) {
      // a view of the weight is the weight
    } else if (is_embedding_renorm(node.target) && self_is_weight && indices) {
      result.renormed = true;
      renormed_indices.insert(first_name(*indices));
    } else if (node.target == "aten.embedding.default" && self_is_weight && indices &&
               renormed_indices.count(first_name(*indices)) != 0 && read.size() == 2) {
      continue;  // a lookup of renormalised rows: its output is not the weight
    } else {
      result.other_readers = true;
      continue;
    }
    for (const ir::Argument& out : node.outputs) {
      std::vector<std::string> names;
      collect_value_names(out, names);
      weight.insert(names.begin(), names.end());
    }
  }
  for (const ir::OutputSpec& out : program.signature.outputs)
    if (is_returned_output(out) && weight.count(first_name(out.arg)) != 0) result.other_readers = true;
  return result;
}

}  // namespace

const char* state_kind_word(ir::InputKind kind) {
  switch (kind) {
    case ir::InputKind::kUserInput: return "user input";
    case ir::InputKind::kParameter: return "parameter";
    case ir::InputKind::kBuffer: return "buffer";
    case ir::InputKind::kTensorConstant: return "tensor constant";
    case ir::InputKind::kCustomObj: return "custom object";
    case ir::InputKind::kToken: return "token";
    case ir::InputKind::kConstantInput: return "constant input";
  }
  return "input";
}

namespace {

// Convert's verdict on one update (StateUpdate::refusal and ::stateless).
void judge(const ir::Program& program, StateUpdate& u) {
  if (u.kind == ir::InputKind::kParameter) {
    const RenormReaders readers = renorm_readers(program, u.placeholder);
    if (readers.renormed && !readers.other_readers) {
      u.stateless = true;
      return;
    }
    if (readers.renormed)
      u.refusal = "the program renormalises looked-up rows of '" + u.target + "' in place (nn.Embedding(max_norm=...), " +
                  u.how + ") and reads that weight otherwise too (tied weights?): torch's results then depend on "
                  "earlier calls";
    return;
  }
  if (u.kind != ir::InputKind::kBuffer && u.kind != ir::InputKind::kUserInput)
    u.refusal = std::string("the program updates ") + state_kind_word(u.kind) + " '" + u.target + "' (" + u.how +
                "); only parameters, buffers and user inputs become ONNX state";
}

}  // namespace

std::vector<StateUpdate> list_state_updates(const ir::Program& program) {
  std::map<std::string, StateUpdate> by_placeholder;  // first update of each placeholder
  auto record = [&](const ir::InputSpec& spec, const std::string& new_value, const std::string& how,
                    const std::string& refusal = {}) {
    const std::string placeholder = std::get<ir::TensorArg>(spec.arg).name;
    const std::string target = spec.kind == ir::InputKind::kUserInput ? placeholder : spec.target;
    StateUpdate& u = by_placeholder.try_emplace(placeholder, StateUpdate{spec.kind, target, placeholder, new_value, how, {}, false})
                         .first->second;
    if (u.refusal.empty()) u.refusal = refusal;
  };

  for (const ir::OutputSpec& out : program.signature.outputs) {
    const bool mutation = out.kind == ir::OutputKind::kBufferMutation || out.kind == ir::OutputKind::kUserInputMutation ||
                          out.kind == ir::OutputKind::kParameterMutation;
    if (!mutation) continue;
    const ir::InputSpec* spec = input_by_target(program, out.kind, out.target);
    const std::string kind = out.kind == ir::OutputKind::kBufferMutation      ? "BUFFER_MUTATION"
                             : out.kind == ir::OutputKind::kUserInputMutation ? "USER_INPUT_MUTATION"
                                                                              : "PARAMETER_MUTATION";
    PT2ONNX_CHECK(spec != nullptr, ErrorCode::kUnsupported,
                  "signature output " + kind + " updates '" + out.target + "', which is no input of the program");
    record(*spec, first_name(out.arg), kind + " output " + first_name(out.arg));
  }

  // In-place writes (an in-place op's `self`, a training batch norm's running statistics) to an
  // input placeholder or a view of one.
  std::map<std::string, const ir::Node*> views;
  for (const ir::Node& node : program.graph.nodes)
    if (is_view_target(node.target))
      for (const auto& out : node.outputs)
        if (const auto* t = std::get_if<ir::TensorArg>(&out)) views[t->name] = &node;
  for (const ir::Node& node : program.graph.nodes) {
    // detach_ changes autograd metadata only, not the value.
    if (is_dropped_target(node.target) || node.target == "aten.detach_.default") continue;
    for (std::string_view argument : written_arguments(node)) {
      const ir::Argument* written = node.input(std::string(argument));
      const std::string name = written ? first_name(*written) : std::string();
      std::string root = name;
      for (auto it = views.find(root); it != views.end(); it = views.find(root)) root = view_source(*it->second);
      const ir::InputSpec* spec = root.empty() ? nullptr : input_by_placeholder(program, root);
      if (!spec) continue;
      const bool through_self = argument == "self";
      const std::string how = "in-place " + node.target + " (node " + node.name + (through_self ? "" : ", " + std::string(argument)) + ")";
      // The rule rebinds the running statistics it was given, not the views' sources.
      record(*spec, "", how,
             through_self || root == name ? std::string()
                                          : "the program updates the running statistics of a batch norm through a view of '" +
                                                root + "' (" + how + "), which ONNX state cannot follow");
    }
  }

  std::vector<StateUpdate> result;
  for (const ir::InputSpec& spec : program.signature.inputs)
    if (const auto* t = std::get_if<ir::TensorArg>(&spec.arg))
      if (auto it = by_placeholder.find(t->name); it != by_placeholder.end()) {
        judge(program, it->second);
        result.push_back(it->second);
      }
  return result;
}

std::vector<std::string> state_program_refusals(const ir::Program& program) {
  std::vector<std::string> out;
  for (const ir::OutputSpec& spec : program.signature.outputs)
    if (spec.kind == ir::OutputKind::kGradientToParameter || spec.kind == ir::OutputKind::kGradientToUserInput) {
      out.push_back("the program returns gradients (a joint training graph): '" + spec.target + "' has no ONNX form");
      break;
    }
  return out;
}

std::vector<StateUpdate> find_state_updates(const ir::Program& program, Refusals* refused) {
  auto refuse = [&](const std::string& message) {
    if (!refused) fail(ErrorCode::kUnsupported, message);
    refused->emplace_back(ErrorCode::kUnsupported, message);
  };
  for (const std::string& message : state_program_refusals(program)) refuse(message);
  std::vector<StateUpdate> updates;
  for (const StateUpdate& u : list_state_updates(program)) {
    if (!u.refusal.empty()) refuse(u.refusal);
    else if (!u.stateless) updates.push_back(u);
  }
  return updates;
}

}  // namespace pt2onnx::translate
