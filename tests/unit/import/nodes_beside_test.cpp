// The nodes read on a second thread (nodes_beside.h): the same nodes as one parse reads, on real
// exporter output cut into pieces of every size, with and without the thread; a guess that the
// whole parse does not confirm falls back to one thread and gives the same result.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/read_once_text.h"
#include "import/fast_graph.h"
#include "import/ir_text.h"
#include "import/json_doc.h"
#include "import/nodes_beside.h"
#include "import/real_excerpts.h"
#include "import_test_util.h"

namespace pt2onnx::test {
namespace {

using import::NodesBeside;
using import::NodesBesideOptions;

// The excerpts are laid out over lines for reading; torch writes one line with ", " and ": ".
std::string as_torch_writes(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      out += text[i];
      continue;
    }
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
    if (!out.empty() && out.back() == ',') out += ' ';
  }
  out.reserve(out.size() + ReadOnceText::kPadding);
  return out;
}

struct FastRead {
  bool taken = false;
  std::string nodes;   // graph_text of the nodes read
  size_t values = 0;   // tensor values read
};

FastRead read_fast(const std::string& json, const NodesBesideOptions& options) {
  import::FastGraph fast;
  fast.nodes_beside = options;
  FastRead out;
  out.taken = import::parse_program_doc_fast(import::JsonText(json), kSourceName, fast) != nullptr && fast.nodes_taken &&
              fast.values_taken;
  ir::Graph graph;
  graph.nodes = std::move(fast.nodes);
  out.nodes = graph_text(graph);
  out.values = fast.tensor_values.size();
  return out;
}

const NodesBesideOptions kOneThread{.min_bytes = SIZE_MAX};

NodesBesideOptions split(size_t piece_bytes, import::NodesBesideRun run = import::NodesBesideRun::kBeside) {
  return {.min_bytes = 0, .piece_bytes = piece_bytes, .run = run};
}

// The nodes of `json` read by one parse and by the split ones (pieces of one node up to one piece).
void check_split_reads_the_same(const std::string& json) {
  const FastRead whole = read_fast(json, kOneThread);
  REQUIRE(whole.taken);
  for (import::NodesBesideRun run : {import::NodesBesideRun::kBeside, import::NodesBesideRun::kInGet}) {
    for (size_t piece_bytes : {size_t{1}, size_t{600}, size_t{1} << 20}) {
      CAPTURE(piece_bytes);
      const FastRead parts = read_fast(json, split(piece_bytes, run));
      CHECK(parts.taken);
      CHECK(parts.nodes == whole.nodes);
      CHECK(parts.values == whole.values);
    }
  }
}

std::string relu_nodes(int count) {
  std::string nodes;
  for (int i = 0; i < count; ++i) {
    if (i) nodes += ", ";
    nodes += R"({"target": "torch.ops.aten.relu.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}], )"
             R"("outputs": [{"as_tensor": {"name": "r)" + std::to_string(i) + R"("}}], "name": "r)" + std::to_string(i) + R"("})";
  }
  return nodes;
}

const std::string kValuesOfX = R"({"x": {"dtype": 7, "sizes": []}})";

TEST_CASE("nodes beside: guess_nodes_range finds the array as torch writes it, and nothing else") {
  const std::string json = program_with_graph(R"({"inputs": [], "outputs": [], "nodes": [)" + relu_nodes(2) +
                                              R"(], "tensor_values": )" + kValuesOfX + "}");
  const auto range = import::guess_nodes_range(json, 0);
  REQUIRE(range);
  CHECK(json[range->begin] == '[');
  CHECK(json[range->end - 1] == ']');
  CHECK(json.compare(range->begin + 1, 12, R"({"target": ")") == 0);
  CHECK(json.compare(range->values_at, 8, R"({"x": {")") == 0);
  CHECK_FALSE(import::guess_nodes_range(json, range->end - range->begin + 1));  // too small to be worth a thread
  CHECK_FALSE(import::guess_nodes_range(R"({"graph": {"nodes": []}})", 0));    // no tensor_values after it
  // A subgraph's nodes and tensor_values inside the array would end the guess early.
  const std::string nested = program_with_graph(
      R"({"inputs": [], "outputs": [], "nodes": [{"target": "cond", "inputs": [{"name": "g", "arg": {"as_graph": )"
      R"({"name": "g", "graph": {"nodes": [], "tensor_values": {}}}}}]}], "tensor_values": {}})");
  CHECK_FALSE(import::guess_nodes_range(nested, 0));
}

TEST_CASE("nodes beside: real exporter output gives the nodes of one parse, in pieces of any size") {
  for (const char* excerpt : {kTorch215ConvDynamic, kTorch27ConvDynamic}) {
    const std::string json = as_torch_writes(excerpt);
    REQUIRE(import::guess_nodes_range(json, 0));
    check_split_reads_the_same(json);
  }
}

TEST_CASE("nodes beside: many nodes, one node, no node") {
  for (int count : {3000, 1, 0}) {
    CAPTURE(count);
    const std::string json = as_torch_writes(program_with_graph(R"({"inputs": [{"as_tensor": {"name": "x"}}], "outputs": [], "nodes": [)" +
                                                                relu_nodes(count) + R"(], "tensor_values": )" + kValuesOfX + "}"));
    check_split_reads_the_same(json);
  }
}

TEST_CASE("nodes beside: a guess the whole parse does not confirm is read again on one thread") {
  // The members in another order: the ']' before tensor_values ends outputs, not the nodes.
  const std::string reordered = as_torch_writes(program_with_graph(
      R"({"inputs": [{"as_tensor": {"name": "x"}}], "nodes": [)" + relu_nodes(3) +
      R"(], "outputs": [{"as_tensor": {"name": "r2"}}], "tensor_values": )" + kValuesOfX + "}"));
  REQUIRE(import::guess_nodes_range(reordered, 0));
  check_split_reads_the_same(reordered);

  // A piece guessed to start inside a node: an argument list whose second object starts with
  // "target" (the fast reader declines it; both ways then leave it to the general readers).
  std::string odd = relu_nodes(2);
  odd.insert(odd.find(R"("outputs")"), R"("extra": [{"a": 1}, {"target": 2}], )");
  const std::string json = as_torch_writes(program_with_graph(R"({"inputs": [{"as_tensor": {"name": "x"}}], "outputs": [], "nodes": [)" +
                                                              odd + R"(], "tensor_values": )" + kValuesOfX + "}"));
  const FastRead whole = read_fast(json, kOneThread);
  const FastRead parts = read_fast(json, split(1));
  CHECK(parts.taken == whole.taken);
  CHECK(parts.nodes == whole.nodes);
}

TEST_CASE("nodes beside: a piece that starts inside a node is found out by the element starts") {
  std::string odd = relu_nodes(2);
  odd.insert(odd.find(R"("outputs")"), R"("extra": [{"a": 1}, {"target": 2}], )");
  const std::string json = as_torch_writes(program_with_graph(R"({"inputs": [], "outputs": [], "nodes": [)" + odd +
                                                              R"(], "tensor_values": {}})"));
  const auto range = import::guess_nodes_range(json, 0);
  REQUIRE(range);
  NodesBeside beside(json, *range, nullptr, true, 1024, split(1));
  const import::NodesBesideRead read = beside.get();
  REQUIRE(read.piece_starts.size() == 3);  // the two nodes and the inner {"target": 2}
  const char* first = json.data() + range->begin + 1;
  const char* second = json.data() + json.find(R"({"target": "torch.ops.aten.relu.default")", range->begin + 2);
  CHECK_FALSE(read.matches({first, second}));
  // The same starts, all where elements start, do match (the count is checked only without an error).
  import::NodesBesideRead fine;
  fine.piece_starts = {first, second};
  fine.nodes.resize(2);
  CHECK(fine.matches({first, second}));
  CHECK_FALSE(fine.matches({first}));
  CHECK_FALSE(fine.matches({second}));
}

// Records the ranges given back, in text offsets.
class RangeRecordingText final : public ReadOnceText {
 public:
  explicit RangeRecordingText(std::string text) : text_(std::move(text)) { text_.reserve(text_.size() + kPadding); }
  std::string_view text() const override { return text_; }
  void release_before(const char* p) override { before.push_back(static_cast<size_t>(p - text_.data())); }
  void release_range(const char* begin, const char* end) override {
    ranges.emplace_back(static_cast<size_t>(begin - text_.data()), static_cast<size_t>(end - text_.data()));
  }
  std::vector<size_t> before;
  std::vector<std::pair<size_t, size_t>> ranges;

 private:
  std::string text_;
};

TEST_CASE("nodes beside: a window gives back only its own part, each byte once") {
  RangeRecordingText text(std::string(100, ' '));
  const char* base = text.text().data();
  import::ReadOnceWindow window(text, base + 20, base + 60);
  window.release_before(base + 10);  // before the window: nothing
  window.release_before(base + 30);
  window.release_before(base + 25);  // behind what was given: nothing
  window.release_before(base + 90);  // past the window: up to its end
  window.release_range(base, base + 100);
  window.evict();
  CHECK(text.before.empty());
  REQUIRE(text.ranges.size() == 4);
  CHECK(text.ranges[0] == std::pair<size_t, size_t>(20, 30));
  CHECK(text.ranges[1] == std::pair<size_t, size_t>(30, 60));
  CHECK(text.ranges[2] == std::pair<size_t, size_t>(20, 60));
  CHECK(text.ranges[3] == std::pair<size_t, size_t>(20, 60));
}

TEST_CASE("nodes beside: a large program read from a text that is given back gives the same program") {
  const std::string json = as_torch_writes(program_with_graph(R"({"inputs": [{"as_tensor": {"name": "x"}}], "outputs": [], "nodes": [)" +
                                                              relu_nodes(40000) + R"(], "tensor_values": )" + kValuesOfX + "}"));
  REQUIRE(import::guess_nodes_range(json));  // past kNodesBesideBytes: import_program splits it
  RangeRecordingText text(json);
  const ir::Program program = import::import_program(text, kSourceName);
  CHECK(program.graph.nodes.size() == 40000);
  CHECK(graph_text(program.graph) == graph_text(import::import_program_general(json, kSourceName).graph));
  CHECK_FALSE(text.ranges.empty());  // the pieces were given back as they were read
  CHECK(text.before.back() == json.size());  // and the whole text at the end
}

}  // namespace
}  // namespace pt2onnx::test
