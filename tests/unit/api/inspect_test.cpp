// inspect() on the real samples (checked against samples/MANIFEST.json, which torch itself
// wrote), and its pieces on hand-built programs: unknown, dropped, dead and too-new ops, the
// module tree, weight totals and both renderers.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "translate/translate_for_tests.h"
#include "api/inspect.h"
#include "api/inspect_summary.h"
#include "common/error.h"
#include "translate/translate_with_rules.h"
#include "translate/program_builder.h"

using namespace pt2onnx;
using namespace pt2onnx::translate::testing;

namespace {

const std::filesystem::path kSamples = PT2ONNX_SAMPLES_DIR;

const nlohmann::json& manifest() {
  static const nlohmann::json m = [] {
    std::ifstream in(kSamples / "MANIFEST.json");
    REQUIRE(in.good());
    return nlohmann::json::parse(in);
  }();
  return m;
}

ModelInspection inspect_sample(const std::string& file) {
  InspectOptions options;
  options.input = kSamples / file;
  const InspectReport report = inspect(options);
  REQUIRE(report.models.size() == 1);
  return report.models.front();
}

// The manifest's histogram, keyed as the IR keys targets (without "torch.ops.").
std::map<std::string, int64_t> manifest_histogram(const nlohmann::json& sample) {
  std::map<std::string, int64_t> out;
  for (const auto& [target, count] : sample.at("op_histogram").items()) {
    const std::string prefix = "torch.ops.";
    out[target.starts_with(prefix) ? target.substr(prefix.size()) : target] = count.get<int64_t>();
  }
  return out;
}

std::map<std::string, int64_t> histogram(const ModelInspection& m) {
  std::map<std::string, int64_t> out;
  for (const OpSummary& op : m.ops) out[op.target] = op.count;
  return out;
}

const OpSummary* find_op(const ModelInspection& m, const std::string& target) {
  for (const OpSummary& op : m.ops)
    if (op.target == target) return &op;
  return nullptr;
}

const ModuleSummary* find_module(const ModelInspection& m, const std::string& path) {
  for (const ModuleSummary& mod : m.modules)
    if (mod.path == path) return &mod;
  return nullptr;
}

// The first line of `text` that contains `needle`, without its newline; "" when none does.
std::string line_with(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  if (at == std::string::npos) return {};
  const size_t begin = text.rfind('\n', at) + 1;  // npos + 1 == 0 for the first line
  return text.substr(begin, text.find('\n', at) - begin);
}

bool ends_with(const std::string& s, const std::string& suffix) { return s.ends_with(suffix); }

// A RuleFn for tables built in tests; never called (inspect only asks whether a rule exists).
// inspect runs the rules (to find what convert refuses): this one translates a node as an
// Identity of its `self`.
translate::RuleResult pass_through(translate::EmitContext& ctx, const ir::Node& node) {
  ctx.set_output(0, ctx.emit("Identity", {ctx.value_of(std::get<ir::TensorArg>(*node.input("self")).name)}));
  return translate::RuleResult::kEmitted;
}

// A rule that declines every node: convert refuses them ("no rule handles this case").
translate::RuleResult always_declines(translate::EmitContext&, const ir::Node&) {
  return translate::RuleResult::kDeclined;
}

archive::TensorData tensor_data(ir::DType dtype, std::vector<int64_t> sizes) {
  archive::TensorData t;
  t.dtype = dtype;
  t.sizes = std::move(sizes);
  return t;
}

}  // namespace

TEST_CASE("decoder.default.pt2: modules, inputs, weights and ops") {
  const ModelInspection m = inspect_sample("decoder.default.pt2");
  const nlohmann::json& sample = manifest().at("samples").at("decoder.default");

  CHECK(m.name == "model");
  CHECK(m.entry == sample.at("model_json_entry").get<std::string>());
  CHECK(m.torch_version == sample.at("torch_version").get<std::string>());
  CHECK(m.schema_major == sample.at("schema_version").at("major").get<int64_t>());
  CHECK(m.schema_minor == sample.at("schema_version").at("minor").get<int64_t>());

  SUBCASE("module tree") {
    int64_t decoder_layers = -1;
    for (const auto& [type, count] : m.module_types)
      if (ends_with(type, "DecoderLayer")) decoder_layers = count;
    CHECK(decoder_layers == 2);

    REQUIRE_FALSE(m.modules.empty());
    const ModuleSummary& root = m.modules.front();
    CHECK(root.path.empty());
    CHECK(root.depth == 0);
    CHECK(root.total_nodes == m.node_count);  // every node runs inside the root module
    const ModuleSummary* layer = find_module(m, "layers.1");
    const ModuleSummary* wq = find_module(m, "layers.1.attn.wq");
    REQUIRE(layer);
    REQUIRE(wq);
    CHECK(ends_with(layer->type, "DecoderLayer"));
    CHECK(layer->depth == 1);
    CHECK(wq->depth == 3);
    CHECK(wq->type == "torch.nn.modules.linear.Linear");
    CHECK(wq->nodes == 1);
    CHECK(layer->total_nodes > layer->nodes);
    // Depth-first: a module's submodules follow it, before its next sibling.
    auto index_of = [&](const std::string& path) {
      for (size_t i = 0; i < m.modules.size(); ++i)
        if (m.modules[i].path == path) return static_cast<int>(i);
      return -1;
    };
    CHECK(index_of("layers.0") >= 0);
    CHECK(index_of("layers.0") < index_of("layers.0.attn"));
    CHECK(index_of("layers.0.mlp.down") < index_of("layers.1"));
    CHECK(index_of("layers.1") < index_of("lm_head"));
    // Own node counts add up to the graph.
    int64_t own = m.nodes_outside_modules;
    for (const ModuleSummary& mod : m.modules) own += mod.nodes;
    CHECK(own == m.node_count);
  }

  SUBCASE("inputs and outputs") {
    REQUIRE(m.inputs.size() == 1);
    CHECK(m.inputs[0].name == "tokens");
    CHECK(m.inputs[0].kind == "tensor");
    CHECK(m.inputs[0].dtype == "int64");
    CHECK(m.inputs[0].dims == std::vector<InspectDim>{int64_t{2}, int64_t{8}});
    REQUIRE(m.outputs.size() == 1);
    CHECK(m.outputs[0].name == sample.at("user_outputs").at(0).get<std::string>());
    CHECK(m.outputs[0].dtype == "float32");
    CHECK(m.range_constraints.empty());
  }

  SUBCASE("weights: the state dict's blobs, parameters and buffers apart") {
    int64_t blobs = 0, blob_bytes = 0;
    for (const auto& entry : sample.at("archive_entries")) {
      if (entry.at("name").get<std::string>().find("/data/weights/weight_") == std::string::npos) continue;
      ++blobs;
      blob_bytes += entry.at("size").get<int64_t>();
    }
    CHECK(blobs == 28);
    CHECK(m.weights.parameters.count + m.weights.buffers.count == blobs);
    CHECK(m.weights.parameters.bytes + m.weights.buffers.bytes == blob_bytes);
    CHECK(m.weights.buffers.count == 4);  // the rotary cos/sin tables of both layers
    CHECK(m.weights.constants.count == 0);
    CHECK(m.weights.missing.empty());
    CHECK(m.weights.total().count == blobs);
  }

  SUBCASE("ops") {
    CHECK(histogram(m) == manifest_histogram(sample));
    const OpSummary* linear = find_op(m, "aten.linear.default");
    REQUIRE(linear);
    CHECK(linear->count == 16);
    CHECK(linear->support == OpSupport::kSupported);
    for (const OpSummary& op : m.ops) {
      INFO(op.target);
      CHECK_FALSE(op.blocks_conversion());
    }
    CHECK(m.unsupported_nodes == 0);
    CHECK(std::is_sorted(m.ops.begin(), m.ops.end(),
                         [](const OpSummary& a, const OpSummary& b) { return a.target < b.target; }));
  }
}

TEST_CASE("every sample agrees with the manifest") {
  for (const auto& [stem, sample] : manifest().at("samples").items()) {
    INFO(stem);
    const ModelInspection m = inspect_sample(sample.at("file").get<std::string>());
    CHECK(histogram(m) == manifest_histogram(sample));
    // Programs record torch_version from torch 2.5 on; older archives (2.1, 2.4) do not say.
    const std::string made_by = sample.at("torch_version").get<std::string>();
    const bool records_version = !(made_by.starts_with("2.1.") || made_by.starts_with("2.4."));
    CHECK(m.torch_version == (records_version ? made_by : std::string()));
    std::vector<std::string> inputs;
    for (const ValueSummary& v : m.inputs) inputs.push_back(v.name);
    CHECK(inputs == sample.at("user_inputs").get<std::vector<std::string>>());
    for (const ValueSummary& v : m.inputs) CHECK(v.dtype == sample.at("input_dtypes").at(v.name).get<std::string>());
    CHECK(m.unsupported_nodes == 0);
    CHECK(m.weights.missing.empty());
  }
}

TEST_CASE("a dynamic dim shows as its symbol, with its range") {
  const ModelInspection m = inspect_sample("mlp_dynamic.default.pt2");
  REQUIRE(m.inputs.size() == 1);
  REQUIRE(m.inputs[0].dims.size() == 2);
  REQUIRE(std::holds_alternative<std::string>(m.inputs[0].dims[0]));
  const std::string symbol = std::get<std::string>(m.inputs[0].dims[0]);
  CHECK(m.inputs[0].dims[1] == InspectDim{int64_t{16}});
  REQUIRE(m.range_constraints.size() == 1);
  CHECK(m.range_constraints[0].symbol == symbol);
  CHECK(m.range_constraints[0].min == 1);
  CHECK(m.range_constraints[0].max == 64);
}

TEST_CASE("errors carry convert's codes") {
  InspectOptions options;
  options.input = kSamples / "mlp.default.pt2";

  options.model = "nope";
  CHECK_THROWS_WITH_AS(inspect(options), doctest::Contains("no model 'nope' (models: model)"), Error);
  try {
    inspect(options);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUsage);
  }

  options.model = "model";
  CHECK(inspect(options).models.size() == 1);

  options.opset = 3;
  try {
    inspect(options);
    FAIL("opset 3 accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUsage);
  }

  options.opset = 18;
  options.input = kSamples / "no-such-file.pt2";
  try {
    inspect(options);
    FAIL("a missing file accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kArchive);
  }
}

TEST_CASE("ops: unknown, too new, dropped and dead") {
  translate::RuleTable rules;
  rules.add("aten.relu.default", pass_through);
  rules.add_since(20, "aten.shiny.default", pass_through);
  const ir::Program program =
      ProgramBuilder()
          .user_input("x", ir::DType::kFloat32, {2, 3})
          .op("a", "aten.relu.default", {{"self", tensor("x")}}, ir::DType::kFloat32, {2, 3})
          .op("b", "aten.frobnicate.default", {{"self", tensor("a")}}, ir::DType::kFloat32, {2, 3})
          .op("c", "aten.frobnicate.default", {{"self", tensor("b")}}, ir::DType::kFloat32, {2, 3})
          .op("d", "aten.shiny.default", {{"self", tensor("c")}}, ir::DType::kFloat32, {2, 3})
          .op("dead", "aten.unheard_of.default", {{"self", tensor("x")}}, ir::DType::kFloat32, {2, 3})
          .node("check", "aten._assert_scalar.default", {{"self", boolean(true)}}, {})
          .output("d")
          .program();

  SUBCASE("at opset 18") {
    ModelInspection m = inspection::summarize_program(program, rules, 18);
    REQUIRE(m.ops.size() == 5);
    const OpSummary* frobnicate = find_op(m, "aten.frobnicate.default");
    REQUIRE(frobnicate);
    CHECK(frobnicate->count == 2);
    CHECK(frobnicate->support == OpSupport::kUnsupported);
    CHECK(frobnicate->blocks_conversion());

    const OpSummary* shiny = find_op(m, "aten.shiny.default");
    REQUIRE(shiny);
    CHECK(shiny->support == OpSupport::kNeedsOpset);
    CHECK(shiny->min_opset == 20);
    CHECK(shiny->blocks_conversion());

    const OpSummary* dead = find_op(m, "aten.unheard_of.default");
    REQUIRE(dead);
    CHECK(dead->support == OpSupport::kUnsupported);
    CHECK(dead->unused == 1);
    CHECK_FALSE(dead->blocks_conversion());  // convert skips nodes nothing reads

    const OpSummary* check = find_op(m, "aten._assert_scalar.default");
    REQUIRE(check);
    CHECK(check->support == OpSupport::kDropped);
    CHECK_FALSE(check->blocks_conversion());

    CHECK(find_op(m, "aten.relu.default")->support == OpSupport::kSupported);
    CHECK(m.node_count == 6);
    CHECK(m.unsupported_nodes == 3);  // frobnicate x2, shiny x1
    CHECK(m.refusals.empty());        // the ops without a rule are the histogram's

    m.name = "model";
    InspectReport report;
    report.input = "hand-built.pt2";
    report.layout = "pt2 (raw weights)";
    report.models.push_back(m);

    const std::string text = render_inspect_text(report);
    CHECK(line_with(text, "aten.frobnicate.default").ends_with(" 2  UNSUPPORTED"));
    CHECK(line_with(text, "aten.shiny.default").ends_with(" 1  UNSUPPORTED: needs opset 20 or newer"));
    CHECK(line_with(text, "aten.unheard_of.default").ends_with(" 1  no rule (unused, skipped)"));
    CHECK(line_with(text, "aten._assert_scalar.default").ends_with(" 1  dropped (runtime check)"));
    CHECK(line_with(text, "aten.relu.default").ends_with(" 1"));
    CHECK(text.ends_with("  6 ops, 3 unsupported (aten.frobnicate.default, aten.shiny.default)\n"));

    const std::string json_text = render_inspect_json(report);
    CHECK(json_text == render_inspect_json(report));  // deterministic
    const nlohmann::json j = nlohmann::json::parse(json_text);
    const nlohmann::json& summary = j.at("models").at(0).at("summary");
    CHECK(summary.at("ops") == 6);
    CHECK(summary.at("unsupported") == 3);
    CHECK(summary.at("unsupported_targets") == nlohmann::json{"aten.frobnicate.default", "aten.shiny.default"});
    bool found = false;
    for (const auto& op : j.at("models").at(0).at("ops"))
      if (op.at("target") == "aten.frobnicate.default") {
        found = true;
        CHECK(op.at("support") == "unsupported");
        CHECK(op.at("blocks_conversion") == true);
        CHECK(op.at("count") == 2);
      }
    CHECK(found);
  }

  SUBCASE("at opset 20 the newer rule applies") {
    const ModelInspection m = inspection::summarize_program(program, rules, 20);
    CHECK(find_op(m, "aten.shiny.default")->support == OpSupport::kSupported);
    CHECK(m.unsupported_nodes == 2);
  }
}

TEST_CASE("refusals: what convert refuses besides ops without a rule, in its order and words") {
  translate::RuleTable rules;
  rules.add("aten.relu.default", always_declines);
  rules.add("aten.neg.default", pass_through);
  const ir::Program program =
      ProgramBuilder()
          .weight(ir::InputKind::kTensorConstant, "c_c", "c", ir::DType::kFloat32, {3})
          .user_input("x", ir::DType::kFloat32, {3})
          .op("add_", "aten.add_.Tensor", {{"self", tensor("c_c")}, {"other", tensor("x")}}, ir::DType::kFloat32, {3})
          .op("a", "aten.relu.default", {{"self", tensor("add_")}}, ir::DType::kFloat32, {3})
          .op("b", "aten.neg.default", {{"self", tensor("a")}}, ir::DType::kFloat32, {3})
          .output("b")
          .program();
  rules.add("aten.add_.Tensor", pass_through);
  std::string convert_says;
  try {
    translate::translate_with_rules(program, {18}, rules);
  } catch (const Error& e) {
    convert_says = e.what();
  }
  ModelInspection m = inspection::summarize_program(program, rules, 18);
  CHECK(m.unsupported_nodes == 0);
  REQUIRE(m.refusals.size() == 2);
  CHECK(m.refusals[0].message == convert_says);  // convert stops at the first
  CHECK(m.refusals[0].exit_code == 4);
  CHECK(contains(m.refusals[0].message, "updates tensor constant 'c'"));
  CHECK(contains(m.refusals[1].message, "translating node a (aten.relu.default)"));
  CHECK(contains(m.refusals[1].message, "no rule handles this case at opset 18"));
  REQUIRE(m.state.size() == 1);
  CHECK_FALSE(m.state[0].convertible);

  m.name = "model";
  InspectReport report;
  report.input = "hand-built.pt2";
  report.layout = "pt2 (raw weights)";
  report.models.push_back(m);
  const std::string text = render_inspect_text(report);
  CHECK(contains(text, "  refused by convert besides unsupported ops (2; convert stops at the first):\n    exit 4: " +
                           convert_says + "\n"));
  CHECK(text.ends_with("  3 ops, 0 unsupported, 2 other refusals\n"));
  const nlohmann::json j = nlohmann::json::parse(render_inspect_json(report)).at("models").at(0);
  CHECK(j.at("refusals").size() == 2);
  CHECK(j.at("refusals").at(0).at("message") == convert_says);
  CHECK(j.at("refusals").at(0).at("exit_code") == 4);
  CHECK(j.at("summary").at("refusals") == 2);
}

namespace {
// A graph of one relu per module stack, in order.
ir::Graph graph_of_stacks(const std::vector<std::vector<ir::ModuleFrame>>& stacks) {
  ir::Graph graph;
  for (const auto& stack : stacks) {
    ir::Node n;
    n.target = "aten.relu.default";
    n.module_stack = stack;
    graph.nodes.push_back(std::move(n));
  }
  return graph;
}
}  // namespace

TEST_CASE("module tree from module stacks") {
  const ir::ModuleFrame root{"L__self__", "", "m.Net"};
  const ir::ModuleFrame block1{"k1", "blocks.1", "m.Block"};
  const ir::ModuleFrame block0{"k0", "blocks.0", "m.Block"};
  const ir::ModuleFrame act{"ka", "blocks.0.act", "torch.nn.ReLU"};
  const ir::Graph graph = graph_of_stacks({
      {root, block1},  // called first, so listed first
      {root, block0, act},
      {root, block0},
      {},
      {root},
  });

  const inspection::ModuleTree tree = inspection::summarize_modules(graph);
  REQUIRE(tree.modules.size() == 4);
  CHECK(tree.modules[0].path == "");
  CHECK(tree.modules[0].nodes == 1);
  CHECK(tree.modules[0].total_nodes == 4);
  CHECK(tree.modules[1].path == "blocks.1");
  CHECK(tree.modules[2].path == "blocks.0");
  CHECK(tree.modules[2].nodes == 1);
  CHECK(tree.modules[2].total_nodes == 2);
  CHECK(tree.modules[3].path == "blocks.0.act");
  CHECK(tree.modules[3].depth == 2);
  CHECK(tree.module_types == std::map<std::string, int64_t>{{"m.Block", 2}, {"m.Net", 1}, {"torch.nn.ReLU", 1}});
  CHECK(tree.nodes_outside_modules == 1);
}

TEST_CASE("a module whose frames record two types lists both (the root of a pt2e-quantized program)") {
  const ir::ModuleFrame wrapper{"L__self__", "", "torch.export._trace.Wrapper"};
  const ir::ModuleFrame model{"L__self__L__self__", "", "m.CNN"};
  const ir::Graph graph = graph_of_stacks({
      {wrapper},  // a dequantize torch inserted
      {model, {"k", "conv", "torch.nn.Conv2d"}},  // same root path as the stack before: no lookup
      {model},
      {wrapper},
  });

  const inspection::ModuleTree tree = inspection::summarize_modules(graph);
  REQUIRE(tree.modules.size() == 2);  // one root (by path), listed with the first type seen
  CHECK(tree.modules[0].type == "torch.export._trace.Wrapper");
  CHECK(tree.modules[0].total_nodes == 4);
  CHECK(tree.module_types == std::map<std::string, int64_t>{
                                 {"m.CNN", 1}, {"torch.export._trace.Wrapper", 1}, {"torch.nn.Conv2d", 1}});
}

TEST_CASE("weight totals by kind") {
  using ir::DType;
  using ir::InputKind;
  const ir::Program program = ProgramBuilder()
                                  .parameter("p_w", "fc.weight", {4, 8})
                                  .weight(InputKind::kBuffer, "b_mean", "bn.mean", DType::kFloat32, {8})
                                  .weight(InputKind::kBuffer, "b_tmp", "bn.tmp", DType::kFloat16, {8}, false)
                                  .weight(InputKind::kTensorConstant, "c0", "lifted_tensor_0", DType::kInt64, {3})
                                  .parameter("p_gone", "fc.bias", {4})
                                  .user_input("x", DType::kFloat32, {2, 8})
                                  .program();
  const std::map<std::string, archive::TensorData> state_dict = {
      {"fc.weight", tensor_data(ir::DType::kFloat32, {4, 8})},
      {"bn.mean", tensor_data(ir::DType::kFloat32, {8})},
  };
  const std::map<std::string, archive::TensorData> constants = {
      {"bn.tmp", tensor_data(ir::DType::kFloat16, {8})},
      {"lifted_tensor_0", tensor_data(ir::DType::kInt64, {3})},
  };
  const WeightSummary w = inspection::summarize_weights(program.signature, state_dict, constants);
  CHECK(w.parameters.count == 2);
  CHECK(w.parameters.bytes == 128);
  CHECK(w.buffers.count == 2);
  CHECK(w.buffers.bytes == 32 + 16);
  CHECK(w.constants.count == 1);
  CHECK(w.constants.bytes == 24);
  CHECK(w.missing == std::vector<std::string>{"fc.bias"});
  CHECK(w.total().count == 5);
  CHECK(w.total().bytes == 128 + 48 + 24);
}

TEST_CASE("text and JSON renderings of a real sample") {
  InspectOptions options;
  options.input = kSamples / "mlp_dynamic.default.pt2";
  const InspectReport report = inspect(options);

  const std::string text = render_inspect_text(report);
  CHECK(contains(text, ": pt2 (raw weights), 1 model\n"));
  CHECK(contains(text, "torch 2.15.0+cu132, export schema 8.20\n"));
  CHECK(contains(text, "x  float32[s"));
  CHECK(contains(text, "  1..64\n"));
  CHECK(contains(text, "weights: 4 tensors, 3232 bytes"));
  CHECK(contains(text, "aten.linear.default  2\n"));
  CHECK(text.ends_with("  3 ops, 0 unsupported\n"));

  const std::string json_text = render_inspect_json(report);
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(json_text);
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"format_version", "file", "layout", "opset", "models"});
  const auto& m = j.at("models").at(0);
  CHECK(m.at("inputs").at(0).at("dims").at(1) == 16);
  CHECK(m.at("inputs").at(0).at("dims").at(0).is_string());
  CHECK(m.at("range_constraints").at(0).at("max") == 64);
  CHECK(m.at("weights").at("count") == 4);
  CHECK(m.at("summary").at("ops") == 3);
  CHECK(m.at("summary").at("unsupported") == 0);
  CHECK(json_text == render_inspect_json(inspect(options)));  // same archive, same bytes
}
