// The fast readers of graph.nodes and tensor_values (fast_graph.h) against the general ones: the
// same IR where they take a file, a decline (and then the general readers' result or message)
// where they do not.
#include <initializer_list>
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/read_once_text.h"

#include "import/fast_graph.h"
#include "import/import_program.h"
#include "import/ir_text.h"
#include "import/json_doc.h"
#include "import/real_excerpts.h"
#include "import_test_util.h"

namespace pt2onnx::test {
namespace {

// Whether the fast readers take the text's nodes and tensor values.
bool taken(const std::string& json) {
  import::FastGraph fast;
  return import::parse_program_doc_fast(json, kSourceName, fast) != nullptr && fast.nodes_taken && fast.values_taken;
}

std::string general_text(const std::string& json) { return graph_text(import::import_program_general(json, kSourceName).graph); }

std::string general_error(const std::string& json) {
  try {
    import::import_program_general(json, kSourceName);
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("expected the general import to fail");
  return "";
}

const std::string kAdd =
    R"({"target": "torch.ops.aten.add.Tensor", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1},
         {"name": "other", "arg": {"as_tensor": {"name": "x"}}, "kind": 1}, {"name": "alpha", "arg": {"as_int": 2}, "kind": 2}],
        "outputs": [{"as_tensor": {"name": "add"}}],
        "metadata": {"stack_trace": "File x.py, line 3", "nn_module_stack": "L__self__,,m.M;L__self__a,a,m.A", "torch_fn": "add_1;f"},
        "name": "add"})";
const std::string kValues =
    R"(, "tensor_values": {"x": {"dtype": 7, "sizes": [{"as_int": 2}, {"as_expr": {"expr_str": "s0", "hint": {"as_int": 3}}}],
         "requires_grad": false, "device": {"type": "cpu", "index": null}, "strides": [{"as_int": 3}, {"as_int": 1}],
         "storage_offset": {"as_int": 0}, "layout": 7},
       "add": {"dtype": 7, "sizes": [{"as_int": 2}, {"as_int": 3}], "device": {"type": "cuda:0"}, "requires_grad": true}})";

std::string program_of(const std::string& nodes, const std::string& values = kValues) {
  return program_with_graph(R"({"inputs": [{"as_tensor": {"name": "x"}}], "outputs": [{"as_tensor": {"name": "add"}}], "nodes": [)" +
                            nodes + "]" + values + "}");
}

TEST_CASE("fast graph readers: real exporter output gives the general readers' IR") {
  for (const char* excerpt : {kTorch215ConvDynamic, kTorch27ConvDynamic}) {
    const std::string json = excerpt;
    CHECK(taken(json));
    CHECK(graph_text(import_text(json).graph) == general_text(json));
  }
}

TEST_CASE("fast graph readers: arguments, metadata, symbolic and static sizes") {
  const std::string json = program_of(kAdd);
  REQUIRE(taken(json));
  const ir::Program program = import_text(json);
  CHECK(graph_text(program.graph) == general_text(json));
  REQUIRE(program.graph.nodes.size() == 1);
  CHECK(program.graph.nodes[0].module_stack.size() == 2);
  CHECK(program.graph.tensor_values.at("add").device == "cuda");
  CHECK_FALSE(program.graph.tensor_values.at("x").sizes[1].is_static());
}

TEST_CASE("fast graph readers decline what they do not take; the general readers decide") {
  struct Case {
    std::string what;
    std::string json;
  };
  const Case cases[] = {
      {"a union in the all-keys encoding",
       program_of(R"({"target": "torch.ops.aten.relu.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}, "as_int": null}}],
                      "outputs": [{"as_tensor": {"name": "add"}}], "name": "add"})")},
      {"a node without a name or a named output",
       program_of(kAdd + R"(, {"target": "torch.ops.aten._assert_async.msg", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}},
                      {"name": "assert_msg", "arg": {"as_string": "x"}}], "outputs": [{"as_none": null}]})")},
      {"a repeated key (the general reader keeps the last)",
       program_of(R"({"target": "torch.ops.aten.neg.default", "target": "torch.ops.aten.relu.default",
                      "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}], "outputs": [{"as_tensor": {"name": "add"}}], "name": "add"})")},
      {"a tensor value given and then null",
       program_of(kAdd, R"(, "tensor_values": {"x": {"dtype": 7, "sizes": []}, "add": {"dtype": 7, "sizes": []}, "add": null})")},
      {"metadata that is not text",
       program_of(R"({"target": "torch.ops.aten.relu.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}],
                      "outputs": [{"as_tensor": {"name": "add"}}], "metadata": {"custom": {"a": 1}}, "name": "add"})")},
      {"an argument kind left to the general reader",
       program_of(R"({"target": "torch.ops.aten.relu.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}},
                      {"name": "z", "arg": {"as_complex": {"real": 1.0, "imag": 2.0}}}], "outputs": [{"as_tensor": {"name": "add"}}], "name": "add"})")},
      {"a non-finite float written as text",
       program_of(R"({"target": "torch.ops.aten.relu.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}},
                      {"name": "v", "arg": {"as_float": "Infinity"}}], "outputs": [{"as_tensor": {"name": "add"}}], "name": "add"})")},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    CHECK_FALSE(taken(c.json));
    CHECK(graph_text(import_text(c.json).graph) == general_text(c.json));
  }
}

TEST_CASE("fast graph readers decline a bad file, and its message is the general readers'") {
  const std::string cases[] = {
      program_of(kAdd, R"(, "tensor_values": {"x": {"dtype": 7, "sizes": [{"as_int": -2}]}})"),
      program_of(R"({"target": "torch.ops.aten.relu.default", "inputs": [{"name": "self", "arg": {"as_foo": 1}}],
                     "outputs": [{"as_tensor": {"name": "add"}}], "name": "add"})"),
      program_of(R"({"inputs": [], "outputs": [{"as_tensor": {"name": "add"}}], "name": "add"})"),
      program_of(R"({"target": "torch.ops.aten.relu.default", "inputs": [{"name": "self", "arg": {"as_int": 9223372036854775808}}],
                     "outputs": [{"as_tensor": {"name": "add"}}], "name": "add"})"),
      program_of(kAdd) + " trailing",
  };
  for (const std::string& json : cases) {
    CAPTURE(json);
    CHECK_FALSE(taken(json));
    CHECK(import_error(json) == general_error(json));
  }
}

TEST_CASE("fast graph readers unescape strings with escapes, and view those without in place") {
  // Names, keys, the module stack and stack traces with escapes (the traces longer than a SIMD
  // block, several in a row so that one buffer serves them in turn), beside plain ones.
  const std::string trace = R"(File \"a.py\", line 3, in forward\n    return self.act(self.linear(x))\n  File \"b.py\")";
  std::string nodes;
  for (int i = 0; i < 3; ++i)
    nodes += R"({"target": "torch.ops.aten.relu.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "\u0078"}}, "kind": 1}],
                 "outputs": [{"as_tensor": {"name": "r\\)" + std::to_string(i) + R"("}}],
                 "metadata": {"stack_trace": ")" + trace + std::to_string(i) + R"(", "nn_module_stack": "L__self__,,m.\u004d", "torch_fn": "relu;f"},
                 "n\u0061me": "r\\)" + std::to_string(i) + R"("}, )";
  nodes += kAdd;
  const std::string json = program_of(nodes, R"(, "tensor_values": {"\u0078": {"dtype": 7, "sizes": [{"as_int": 2}]},
      "r\\0": {"dtype": 7, "sizes": []}, "add": {"dtype": 7, "sizes": []}})");
  REQUIRE(taken(json));
  const ir::Program program = import_text(json);
  CHECK(graph_text(program.graph) == general_text(json));
  REQUIRE(program.graph.nodes.size() == 4);
  const ir::Node& first = program.graph.nodes[0];
  CHECK(first.name == "r\\0");
  CHECK(std::get<ir::TensorArg>(first.inputs.at(0).arg).name == "x");
  REQUIRE(first.module_stack.size() == 1);
  CHECK(first.module_stack[0].type == "m.M");
  CHECK(*first.metadata.at("stack_trace") == "File \"a.py\", line 3, in forward\n    return self.act(self.linear(x))\n  File \"b.py\"0");
  CHECK(*program.graph.nodes[2].metadata.at("stack_trace") ==
        "File \"a.py\", line 3, in forward\n    return self.act(self.linear(x))\n  File \"b.py\"2");
  CHECK(program.graph.tensor_values.count("x") == 1);
  CHECK(program.graph.tensor_values.count("r\\0") == 1);
  // A bad escape is refused in the general readers' words.
  const std::string bad = program_of(R"({"target": "torch.ops.aten.relu.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x\q"}}}],
                                          "outputs": [{"as_tensor": {"name": "add"}}], "name": "add"})");
  CHECK_FALSE(taken(bad));
  CHECK(import_error(bad) == general_error(bad));
}

// A text that records what the import lets go of.
class RecordingText final : public ReadOnceText {
 public:
  explicit RecordingText(std::string text) : text_(std::move(text)) { text_.reserve(text_.size() + kPadding); }
  std::string_view text() const override { return text_; }
  void release_before(const char* p) override { released.push_back(static_cast<size_t>(p - text_.data())); }
  std::vector<size_t> released;

 private:
  std::string text_;
};

TEST_CASE("fast graph readers let go of the text behind them, and of all of it at the end") {
  std::string nodes;
  for (int i = 0; i < 3000; ++i) {
    if (i) nodes += ", ";
    nodes += R"({"target": "torch.ops.aten.relu.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}],
                 "outputs": [{"as_tensor": {"name": "r)" + std::to_string(i) + R"("}}], "name": "r)" + std::to_string(i) + R"("})";
  }
  const std::string json = program_with_graph(R"({"inputs": [{"as_tensor": {"name": "x"}}], "outputs": [], "nodes": [)" + nodes +
                                              R"(], "tensor_values": {"x": {"dtype": 7, "sizes": []}}})");
  RecordingText text(json);
  const ir::Program program = import::import_program(text, kSourceName);
  CHECK(program.graph.nodes.size() == 3000);
  CHECK(graph_text(program.graph) == general_text(json));
  REQUIRE(text.released.size() == 3);  // nodes 1024 and 2048, then the end
  CHECK(text.released[0] < text.released[1]);
  CHECK(json.compare(text.released[1], 1, "{") == 0);  // a node's start
  CHECK(text.released.back() == json.size());
}

TEST_CASE("kGraphAndSignature leaves node metadata empty on both paths, and nothing else changes") {
  const std::string taken_json = program_of(kAdd);
  const std::string declined_json =
      program_of(kAdd + R"(, {"target": "torch.ops.aten._assert_async.msg", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}},
                      {"name": "assert_msg", "arg": {"as_string": "x"}}], "outputs": [{"as_none": null}]})");
  for (const std::string& json : {taken_json, declined_json}) {
    RecordingText with(json);
    RecordingText without(json);
    ir::Program full = import::import_program(with, kSourceName);
    const ir::Program bare = import::import_program(without, kSourceName, import::kGraphAndSignature);
    REQUIRE_FALSE(full.graph.nodes.front().metadata.empty());
    for (const ir::Node& n : bare.graph.nodes) CHECK(n.metadata.empty());
    CHECK(bare.graph.nodes.front().module_stack.size() == 2);  // module stacks are not metadata here
    for (ir::Node& n : full.graph.nodes) n.metadata.clear();
    CHECK(graph_text(bare.graph) == graph_text(full.graph));
  }
}

TEST_CASE("kGraphAndSignature leaves the module call graph of real exporter output empty, and the graph as it was") {
  for (const char* excerpt : {kTorch215ConvDynamic, kTorch27ConvDynamic}) {
    RecordingText with(excerpt);
    RecordingText without(excerpt);
    ir::Program full = import::import_program(with, kSourceName);
    const ir::Program bare = import::import_program(without, kSourceName, import::kGraphAndSignature);
    REQUIRE_FALSE(full.module_call_graph.empty());
    CHECK(bare.module_call_graph.empty());
    for (ir::Node& n : full.graph.nodes) n.metadata.clear();  // the other part left out
    CHECK(graph_text(bare.graph) == graph_text(full.graph));
    CHECK(bare.signature.inputs.size() == full.signature.inputs.size());
    CHECK(bare.signature.outputs.size() == full.signature.outputs.size());
  }
}

// "ok", or the message the import gives, for `json` read with `parts`.
std::string import_outcome(const std::string& json, import::ImportParts parts) {
  RecordingText text(json);
  try {
    import::import_program(text, kSourceName, parts);
  } catch (const Error& e) {
    return e.what();
  }
  return "ok";
}

// "ok", or the message parsing `json` as a document gives (what is wrong with it as JSON).
std::string json_outcome(const std::string& json) {
  try {
    import::parse_json_doc(json, kSourceName);
  } catch (const Error& e) {
    return e.what();
  }
  return "ok";
}

// The pieces joined (g++ 12 warns falsely about some chains of operator+ on std::string).
std::string joined(std::initializer_list<std::string_view> pieces) {
  std::string out;
  for (std::string_view piece : pieces) out.append(piece);
  return out;
}

std::string with_module_call_graph(const std::string& calls) {
  std::string json = program_of(kAdd);
  const std::string_view empty = R"("module_call_graph": [])";
  const size_t at = json.find(empty);
  REQUIRE(at != std::string::npos);
  return json.replace(at, empty.size(), joined({R"("module_call_graph": )", calls}));
}

// The module call graph is not read (its shape is not checked) but it is still checked as JSON.
TEST_CASE("kGraphAndSignature checks a module call graph it does not keep as JSON, in the document's words") {
  std::string many = "[";
  for (int i = 0; i < 9000; ++i)
    many.append(i ? ", " : "").append(R"({"fqn": "m)").append(std::to_string(i)).append(R"(", "signature": null})");
  const std::string bad_entries[] = {R"({"fqn": 1e999})", R"({"fqn": "a\q"})", R"({"fqn": nul})",
                                     R"({"fqn": 12345678901234567890123})"};
  std::vector<std::string> cases = {joined({many, "]"}), "{}", R"("text")", "null"};
  for (const std::string& bad : bad_entries) {
    cases.push_back(joined({many, ", ", bad, "]"}));  // past the scratch document's first reset
    cases.push_back(joined({"[", bad, "]"}));
    cases.push_back(bad);
  }
  for (const std::string& calls : cases) {
    const std::string json = with_module_call_graph(calls);
    CAPTURE(calls.substr(calls.size() > 80 ? calls.size() - 80 : 0));
    CHECK(import_outcome(json, import::kGraphAndSignature) == json_outcome(json));
  }
  // Nesting: refused at the document's depth (the entries sit three levels down).
  int refused_at = 0;
  for (int depth = 500; depth <= 515 && refused_at == 0; ++depth) {
    const std::string open(static_cast<size_t>(depth), '[');
    const std::string close(static_cast<size_t>(depth), ']');
    const std::string json = with_module_call_graph(joined({"[", open, close, "]"}));
    const std::string expected = json_outcome(json);
    CHECK(import_outcome(json, import::kGraphAndSignature) == expected);
    if (expected != "ok") refused_at = depth;
  }
  CHECK(refused_at > 500);  // the boundary was crossed within the range
}

}  // namespace
}  // namespace pt2onnx::test
