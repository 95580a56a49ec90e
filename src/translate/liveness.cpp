// Liveness of FX nodes, computed backwards from the returned outputs.
#include "translate/liveness.h"

#include <algorithm>
#include <array>

#include "ir/value_names.h"
#include "translate/program_state.h"

namespace pt2onnx::translate {

namespace {
constexpr std::array<std::string_view, 9> kDroppedTargets = {
    "aten._assert_scalar.default",
    "aten.sym_constrain_range_for_size.default",
    "aten.sym_constrain_range.default",
    "aten._assert_tensor_metadata.default",
    "aten._assert_async.default",
    "aten._assert_async.msg",
    "aten._functional_assert_async.msg",
    "aten._functional_assert_scalar.default",
    "aten._print.default",
};

constexpr std::array<std::string_view, 13> kViewTargets = {
    "aten.select.int",       "aten.slice.Tensor",    "aten.view.default",   "aten._unsafe_view.default",
    "aten.unsqueeze.default", "aten.squeeze.dim",     "aten.squeeze.dims",   "aten.squeeze.default",
    "aten.transpose.int",    "aten.permute.default", "aten.t.default",      "aten.alias.default",
    "aten.detach.default",
};

// Batch norms that update their running statistics in place when `training` is true.
constexpr std::array<std::string_view, 3> kRunningStatsWriters = {
    "aten.batch_norm.default",
    "aten.native_batch_norm.default",
    "aten._native_batch_norm_legit.default",
};

// QAT observers that update their running min/max, scale and zero point in place on every call
// (whether they change them is read at run time, from the observer_on/fake_quant_on buffers).
constexpr std::array<std::string_view, 2> kObserverWriters = {
    "aten.fused_moving_avg_obs_fake_quant.default",
    "aten._fused_moving_avg_obs_fq_helper.default",
};

}  // namespace

bool is_dropped_target(std::string_view target) {
  for (std::string_view t : kDroppedTargets)
    if (t == target) return true;
  return false;
}

bool is_view_target(std::string_view target) {
  for (std::string_view t : kViewTargets)
    if (t == target) return true;
  return false;
}

std::string view_source(const ir::Node& node) {
  if (!is_view_target(node.target)) return {};
  const ir::Argument* self = node.input("self");
  const auto* t = self ? std::get_if<ir::TensorArg>(self) : nullptr;
  return t ? t->name : std::string();
}

bool is_inplace_target(std::string_view target) {
  if (!target.starts_with("aten.")) return false;
  const std::string_view rest = target.substr(5);
  const size_t dot = rest.find('.');
  const std::string_view op = rest.substr(0, dot);
  return op.size() > 1 && op.back() == '_' && !op.starts_with("__");
}

std::vector<std::string_view> written_arguments(const ir::Node& node) {
  if (is_inplace_target(node.target)) return {"self"};
  if (std::find(kObserverWriters.begin(), kObserverWriters.end(), node.target) != kObserverWriters.end())
    return {"running_min", "running_max", "scale", "zero_point"};
  if (std::find(kRunningStatsWriters.begin(), kRunningStatsWriters.end(), node.target) == kRunningStatsWriters.end()) return {};
  const ir::Argument* training = node.input("training");
  const auto* flag = training ? std::get_if<ir::SymBoolArg>(training) : nullptr;
  const auto* value = flag ? std::get_if<bool>(&flag->v) : nullptr;
  if (!value || !*value) return {};
  return {"running_mean", "running_var"};
}

bool is_returned_output(const ir::OutputSpec& spec) {
  return spec.kind == ir::OutputKind::kUserOutput || spec.kind == ir::OutputKind::kLossOutput;
}

namespace {

// Liveness of `graph`'s nodes backwards from `returned`, the FX names its outputs read.
Liveness analyze(const ir::Graph& graph, std::vector<std::string> returned) {
  const auto& nodes = graph.nodes;
  Liveness result;
  result.live.assign(nodes.size(), false);
  for (const ir::Node& node : nodes)
    if (is_view_target(node.target))
      for (const auto& out : node.outputs)
        if (const auto* t = std::get_if<ir::TensorArg>(&out)) result.views[t->name] = &node;

  // The base tensor a value aliases (itself when it is no view), and the views of each base.
  auto root_of = [&](std::string name) {
    for (auto it = result.views.find(name); it != result.views.end(); it = result.views.find(name)) name = view_source(*it->second);
    return name;
  };
  std::map<std::string, std::vector<std::string>> aliases_of_root;
  for (const auto& [view, view_node] : result.views) aliases_of_root[root_of(view)].push_back(view);

  ViewSet& needed = result.used;
  needed = ViewSet(nodes.size() * 2);
  result.last_use.reserve(result.views.size());
  result.returned = std::move(returned);  // not resized from here on: `needed` views its strings
  for (const std::string& n : result.returned) needed.insert(n);
  // The last reader is asked only of views (view_mutation.cpp): kept for them alone.
  auto is_view = [&](std::string_view n) { return !result.views.empty() && result.views.count(n); };
  for (const std::string& n : result.returned)
    if (is_view(n)) result.last_use[n] = nodes.size();

  std::vector<std::string_view> names;  // views of the node's own strings
  for (size_t i = nodes.size(); i-- > 0;) {
    const ir::Node& node = nodes[i];
    if (is_dropped_target(node.target)) continue;
    names.clear();
    for (const auto& out : node.outputs) ir::collect_value_name_views(out, names);
    bool live = false;
    for (std::string_view n : names) live = live || needed.contains(n);
    if (!live) {
      // Writing to a tensor writes to everything sharing its storage: its view chain up to the
      // base, and every other view of that base.
      for (std::string_view argument : written_arguments(node)) {
        names.clear();
        if (const ir::Argument* written = node.input(std::string(argument))) ir::collect_value_name_views(*written, names);
        if (names.empty()) continue;
        const std::string root = root_of(std::string(names.front()));
        auto aliases = aliases_of_root.find(root);
        live = live || needed.contains(root);
        if (aliases != aliases_of_root.end())
          for (const auto& alias : aliases->second) live = live || needed.contains(alias);
      }
    }
    if (!live) continue;
    result.live[i] = true;
    names.clear();
    for (const auto& in : node.inputs) ir::collect_value_name_views(in.arg, names);
    for (std::string_view n : names) {
      needed.insert(n);
      if (is_view(n)) result.last_use.try_emplace(std::string(n), i);  // backwards: the first seen is the last use
    }
  }
  return result;
}

}  // namespace

Liveness analyze_liveness(const ir::Program& program) {
  std::vector<std::string> names;
  for (const ir::OutputSpec& spec : program.signature.outputs)
    if (is_returned_output(spec)) collect_value_names(spec.arg, names);
  // State: an updated buffer or user input (its placeholder, which in-place writes reach through
  // their views, and its new value in a functional graph) is an output too.
  for (const StateUpdate& update : list_state_updates(program)) {
    names.push_back(update.placeholder);
    if (!update.new_value.empty()) names.push_back(update.new_value);
  }
  return analyze(program.graph, std::move(names));
}

Liveness analyze_liveness(const ir::Graph& graph) {
  std::vector<std::string> names;
  for (const ir::Argument& out : graph.outputs) collect_value_names(out, names);
  return analyze(graph, std::move(names));
}

}  // namespace pt2onnx::translate
