// render_inspect_json: the report as one JSON document for scripts. ordered_json keeps keys in
// the order written here, lists keep the report's (sorted) order, so equal archives give equal
// bytes. Unbounded range ends are null; symbolic dims are strings, static ones numbers.
#include <nlohmann/json.hpp>

#include "api/inspect.h"

namespace pt2onnx {

namespace {

using Json = nlohmann::ordered_json;

Json optional_int(const std::optional<int64_t>& v) { return v ? Json(*v) : Json(nullptr); }

Json value_json(const ValueSummary& v) {
  Json j;
  j["name"] = v.name;
  j["kind"] = v.kind;
  if (v.kind == "tensor") {
    j["dtype"] = v.has_meta ? Json(v.dtype) : Json(nullptr);
    Json dims = Json::array();
    for (const InspectDim& d : v.dims)
      dims.push_back(std::holds_alternative<int64_t>(d) ? Json(std::get<int64_t>(d)) : Json(std::get<std::string>(d)));
    j["dims"] = v.has_meta ? dims : Json(nullptr);
  }
  return j;
}

Json totals_json(const WeightTotals& t) { return Json{{"count", t.count}, {"bytes", t.bytes}}; }

const char* support_name(OpSupport s) {
  switch (s) {
    case OpSupport::kSupported:
      return "supported";
    case OpSupport::kDropped:
      return "dropped";
    case OpSupport::kNeedsOpset:
      return "needs_opset";
    case OpSupport::kUnsupported:
      return "unsupported";
    case OpSupport::kConfigRule:
      return "config_rule";
  }
  return "unknown";
}

Json model_json(const ModelInspection& m) {
  Json j;
  j["name"] = m.name;
  j["entry"] = m.entry;
  j["torch_version"] = m.torch_version.empty() ? Json(nullptr) : Json(m.torch_version);
  j["schema_version"] = Json{{"major", m.schema_major}, {"minor", m.schema_minor}};

  j["inputs"] = Json::array();
  for (const auto& v : m.inputs) j["inputs"].push_back(value_json(v));
  j["outputs"] = Json::array();
  for (const auto& v : m.outputs) j["outputs"].push_back(value_json(v));
  j["range_constraints"] = Json::array();
  for (const auto& r : m.range_constraints)
    j["range_constraints"].push_back(
        Json{{"symbol", r.symbol}, {"min", optional_int(r.min)}, {"max", optional_int(r.max)}});

  j["state"] = Json::array();
  for (const auto& s : m.state)
    j["state"].push_back(Json{{"kind", s.kind}, {"target", s.target}, {"how", s.how}, {"convertible", s.convertible}});

  Json weights = totals_json(m.weights.total());
  weights["parameters"] = totals_json(m.weights.parameters);
  weights["buffers"] = totals_json(m.weights.buffers);
  weights["constants"] = totals_json(m.weights.constants);
  weights["missing"] = m.weights.missing;
  weights["archive_reference"] = Json{{"possible", m.weights.unreferenceable == 0},
                                      {"unreferenceable", m.weights.unreferenceable},
                                      {"first", m.weights.unreferenceable_first}};
  j["weights"] = weights;

  j["modules"] = Json::array();
  for (const auto& mod : m.modules)
    j["modules"].push_back(Json{{"path", mod.path},
                                {"type", mod.type},
                                {"depth", mod.depth},
                                {"nodes", mod.nodes},
                                {"total_nodes", mod.total_nodes}});
  j["module_types"] = Json::object();
  for (const auto& [type, count] : m.module_types) j["module_types"][type] = count;
  j["nodes_outside_modules"] = m.nodes_outside_modules;

  j["subgraphs"] = Json::array();
  for (const auto& s : m.subgraphs)
    j["subgraphs"].push_back(Json{{"depth", s.depth}, {"node", s.node}, {"target", s.target}, {"name", s.name}, {"nodes", s.nodes}});

  j["ops"] = Json::array();
  Json blocking = Json::array();
  for (const auto& op : m.ops) {
    Json o{{"target", op.target}, {"count", op.count}, {"unused", op.unused}, {"support", support_name(op.support)}};
    o["min_opset"] = op.support == OpSupport::kNeedsOpset ? Json(op.min_opset) : Json(nullptr);
    o["rule"] = op.support == OpSupport::kConfigRule ? Json(op.rule) : Json(nullptr);
    o["decomposed"] = op.decomposed;
    o["blocks_conversion"] = op.blocks_conversion();
    j["ops"].push_back(o);
    if (op.blocks_conversion()) blocking.push_back(op.target);
  }
  j["refusals"] = Json::array();
  for (const auto& r : m.refusals) j["refusals"].push_back(Json{{"exit_code", r.exit_code}, {"message", r.message}});
  j["fused_ops"] = Json::array();
  for (const auto& [op, count] : m.fused_ops) j["fused_ops"].push_back(Json{{"op_type", op.first}, {"source", op.second}, {"count", count}});
  j["quantization"] = Json{{"weights", Json::array()}, {"activations", Json::array()}};
  for (const QuantizedWeight& w : m.quantization.weights)
    j["quantization"]["weights"].push_back(Json{{"weight", w.weight}, {"shape", w.shape}, {"values", w.values},
                                                {"scheme", w.scheme}, {"op", w.op}, {"onnx", w.onnx}});
  for (const auto& [what, count] : m.quantization.activations)
    j["quantization"]["activations"].push_back(Json{{"what", what}, {"count", count}});
  j["summary"] = Json{{"ops", m.node_count},
                      {"targets", m.ops.size()},
                      {"unsupported", m.unsupported_nodes},
                      {"unsupported_targets", blocking},
                      {"refusals", m.refusals.size()}};
  return j;
}

}  // namespace

std::string render_inspect_json(const InspectReport& report) {
  Json j;
  // schema/pt2onnx-inspect.schema.json; bumped when a field changes meaning or goes away.
  j["format_version"] = 1;
  j["file"] = report.input.string();
  j["layout"] = report.layout;
  j["opset"] = report.opset;
  j["models"] = Json::array();
  for (const auto& m : report.models) j["models"].push_back(model_json(m));
  // Names come from the archive: replace invalid UTF-8 rather than throw.
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace pt2onnx
