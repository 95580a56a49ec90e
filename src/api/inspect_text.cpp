// render_inspect_text: the report as aligned, indented text for people. Every section appears
// for every model (empty ones say "none"), so the layout does not depend on the model.
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "api/inspect.h"

namespace pt2onnx {

namespace {

// How a table column is printed: numbers are right-aligned; a unit or "/ total" that belongs to
// the cell before it follows after one space instead of two.
struct Column {
  bool right_aligned = false;
  bool tight = false;
};

// Cells wider than this do not widen their column, and the module tree indents no deeper than
// kMaxIndentDepth levels (deeper rows say their depth): padding every row to one huge cell, or
// indenting 20,000 levels, would make the report quadratic in the archive.
constexpr size_t kMaxAlignedWidth = 120;
constexpr int kMaxIndentDepth = 32;

// Rows of cells printed in columns; a column is padded to its widest cell (up to kMaxAlignedWidth).
class Table {
 public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::ostringstream& out, const std::string& indent) const {
    std::vector<size_t> width(columns_.size(), 0);
    for (const auto& row : rows_)
      for (size_t c = 0; c < row.size(); ++c)
        if (row[c].size() <= kMaxAlignedWidth) width[c] = std::max(width[c], row[c].size());
    std::string line;
    for (const auto& row : rows_) {
      line = indent;
      for (size_t c = 0; c < row.size(); ++c) {
        const size_t pad = width[c] - std::min(width[c], row[c].size());
        if (c > 0) line += columns_[c].tight ? " " : "  ";
        if (columns_[c].right_aligned) line.append(pad, ' ');
        line += row[c];
        if (!columns_[c].right_aligned) line.append(pad, ' ');
      }
      line.erase(line.find_last_not_of(' ') + 1);  // no trailing blanks from a padded last column
      line += '\n';
      out.write(line.data(), static_cast<std::streamsize>(line.size()));
    }
  }

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

std::string human_bytes(int64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  char buf[32];
  const double b = static_cast<double>(bytes);
  if (bytes < (int64_t{1} << 20))
    std::snprintf(buf, sizeof buf, "%.1f kB", b / 1024);
  else if (bytes < (int64_t{1} << 30))
    std::snprintf(buf, sizeof buf, "%.1f MB", b / (1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%.1f GB", b / (1 << 30));
  return buf;
}

std::string plural(int64_t n, const std::string& word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

std::string dim_text(const InspectDim& dim) {
  return std::holds_alternative<int64_t>(dim) ? std::to_string(std::get<int64_t>(dim)) : std::get<std::string>(dim);
}

// "int64[2, 8]", "float32[s0, 16]", "symint", "tensor (no metadata)".
std::string type_text(const ValueSummary& v) {
  if (v.kind != "tensor") return v.kind;
  if (!v.has_meta) return "tensor (no metadata)";
  std::string out = v.dtype + "[";
  for (size_t i = 0; i < v.dims.size(); ++i) out += (i ? ", " : "") + dim_text(v.dims[i]);
  return out + "]";
}

void print_values(std::ostringstream& out, const std::string& title, const std::vector<ValueSummary>& values) {
  if (values.empty()) {
    out << "  " << title << ": none\n";
    return;
  }
  out << "  " << title << ":\n";
  Table table({{}, {}});
  for (const ValueSummary& v : values) table.add({v.name.empty() ? "-" : v.name, type_text(v)});
  table.print(out, "    ");
}

void print_state(std::ostringstream& out, const std::vector<StateSummary>& state) {
  if (state.empty()) {
    out << "  state: none\n";
    return;
  }
  out << "  state (updated by the program; graph input NAME, new value output NAME.new):\n";
  for (const StateSummary& s : state)
    out << "    " << s.kind << " " << s.target << ": " << s.how << (s.convertible ? "" : " [refused by convert]") << "\n";
}

void print_ranges(std::ostringstream& out, const std::vector<SymbolRange>& ranges) {
  if (ranges.empty()) {
    out << "  range constraints: none\n";
    return;
  }
  out << "  range constraints:\n";
  Table table({{}, {}});
  for (const SymbolRange& r : ranges)
    table.add({r.symbol, (r.min ? std::to_string(*r.min) : "-inf") + ".." + (r.max ? std::to_string(*r.max) : "inf")});
  table.print(out, "    ");
}

void print_weights(std::ostringstream& out, const WeightSummary& w) {
  const WeightTotals total = w.total();
  out << "  weights: " << plural(total.count, "tensor") << ", " << total.bytes << " bytes (" << human_bytes(total.bytes)
      << ")\n";
  Table table({{}, {.right_aligned = true}, {.right_aligned = true}, {.tight = true}});
  auto row = [&](const char* kind, const WeightTotals& t) {
    table.add({kind, std::to_string(t.count), std::to_string(t.bytes), "bytes"});
  };
  row("parameters", w.parameters);
  row("buffers", w.buffers);
  row("constants", w.constants);
  table.print(out, "    ");
  if (w.unreferenceable == 0)
    out << "    --external-data=archive: every weight can be referenced in place\n";
  else
    out << "    --external-data=archive: refused, " << plural(w.unreferenceable, "weight") << " cannot be referenced ("
        << w.unreferenceable_first << "); --external-data works\n";
  if (!w.missing.empty()) {
    out << "    missing from the archive (" << w.missing.size() << "):";
    for (const auto& fqn : w.missing) out << " " << fqn;
    out << "\n";
  }
}

void print_modules(std::ostringstream& out, const ModelInspection& m) {
  if (m.modules.empty()) {
    out << "  modules: none (no nn_module_stack metadata)\n";
    return;
  }
  out << "  modules (" << plural(static_cast<int64_t>(m.modules.size()), "instance") << " of "
      << plural(static_cast<int64_t>(m.module_types.size()), "type") << "; nodes: own / with submodules):\n";
  Table tree({{}, {}, {.right_aligned = true}, {.tight = true}});
  for (const ModuleSummary& mod : m.modules) {
    std::string label(2 * static_cast<size_t>(std::min(mod.depth, kMaxIndentDepth)), ' ');
    if (mod.depth > kMaxIndentDepth) label += "(depth " + std::to_string(mod.depth) + ") ";
    label += mod.path.empty() ? "(root)" : mod.path;
    tree.add({std::move(label), mod.type, std::to_string(mod.nodes), "/ " + std::to_string(mod.total_nodes)});
  }
  tree.print(out, "    ");
  if (m.nodes_outside_modules > 0) out << "    " << plural(m.nodes_outside_modules, "node") << " outside any module\n";

  out << "  module types (instances):\n";
  Table types({{.right_aligned = true}, {}});
  for (const auto& [type, count] : m.module_types) types.add({std::to_string(count), type});
  types.print(out, "    ");
}

std::string op_note(const OpSummary& op) {
  std::string note;
  switch (op.support) {
    case OpSupport::kSupported:
      break;
    case OpSupport::kDropped:
      note = "dropped (runtime check)";
      break;
    case OpSupport::kNeedsOpset:
      note = op.blocks_conversion() ? "UNSUPPORTED: needs opset " + std::to_string(op.min_opset) + " or newer"
                                    : "needs opset " + std::to_string(op.min_opset) + " (unused, skipped)";
      break;
    case OpSupport::kUnsupported:
      note = op.blocks_conversion() ? "UNSUPPORTED" : "no rule (unused, skipped)";
      break;
    case OpSupport::kConfigRule:
      note = "config " + op.rule;
      break;
  }
  if (op.decomposed) note = "decomposed";
  if (op.unused > 0 && op.support == OpSupport::kSupported) note += (note.empty() ? "" : ", ") + std::to_string(op.unused) + " unused";
  return note;
}

// From opset 23 on: which fused ONNX ops the conversion would emit (--no-fuse: none).
void print_fused_ops(std::ostringstream& out, const ModelInspection& m, int opset) {
  if (opset < 23) return;
  out << "  fused ops at opset " << opset << (m.fused_ops.empty() ? ": none" : ":") << "\n";
  for (const auto& [op, count] : m.fused_ops) out << "    " << op.first << " \u00d7" << count << " (" << op.second << ")\n";
}

// Nested subgraphs, indented by depth: "cond (higher_order.cond): true_graph_0, 2 nodes".
void print_subgraphs(std::ostringstream& out, const ModelInspection& m) {
  if (m.subgraphs.empty()) return;
  out << "  subgraphs (" << m.subgraphs.size() << "; indented under the subgraph holding their node):\n";
  for (const SubgraphSummary& s : m.subgraphs)
    out << "    " << std::string(static_cast<size_t>(2 * s.depth), ' ') << s.node << " (" << s.target << "): " << s.name
        << ", " << plural(s.nodes, "node") << "\n";
}

// Quantized weights, one a line, then the quantized activations by op and scheme.
void print_quantization(std::ostringstream& out, const QuantizationSummary& q, int opset) {
  if (q.empty()) return;
  out << "  quantization (" << plural(static_cast<int64_t>(q.weights.size()), "quantized weight") << ", as held at opset "
      << opset << "):\n";
  Table table({{}, {}, {}, {}, {}, {}});
  for (const QuantizedWeight& w : q.weights) {
    std::ostringstream shape;
    shape << "[";
    for (size_t i = 0; i < w.shape.size(); ++i) shape << (i ? "," : "") << w.shape[i];
    shape << "]";
    table.add({w.weight, shape.str(), w.values, w.scheme, w.op, "-> " + w.onnx});
  }
  table.print(out, "    ");
  for (const auto& [what, count] : q.activations) out << "    activations: " << what << " \u00d7" << count << "\n";
}

void print_ops(std::ostringstream& out, const ModelInspection& m, int opset) {
  out << "  ops (" << plural(static_cast<int64_t>(m.ops.size()), "target") << ", checked at opset " << opset << "):\n";
  Table table({{}, {.right_aligned = true}, {}});
  std::vector<std::string> blocking;
  for (const OpSummary& op : m.ops) {
    table.add({op.target, std::to_string(op.count), op_note(op)});
    if (op.blocks_conversion()) blocking.push_back(op.target);
  }
  table.print(out, "    ");
  if (!m.refusals.empty()) {
    out << "  refused by convert besides unsupported ops (" << m.refusals.size() << "; convert stops at the first):\n";
    for (const RefusalSummary& r : m.refusals) out << "    exit " << r.exit_code << ": " << r.message << "\n";
  }
  out << "  " << m.node_count << " ops, " << m.unsupported_nodes << " unsupported";
  for (size_t i = 0; i < blocking.size(); ++i) out << (i ? ", " : " (") << blocking[i];
  out << (blocking.empty() ? "" : ")");
  if (!m.refusals.empty()) out << ", " << plural(static_cast<int64_t>(m.refusals.size()), "other refusal");
  out << "\n";
}

}  // namespace

std::string render_inspect_text(const InspectReport& report) {
  std::ostringstream out;
  out << report.input.string() << ": " << report.layout << ", "
      << plural(static_cast<int64_t>(report.models.size()), "model") << "\n";
  for (const ModelInspection& m : report.models) {
    out << "\nmodel '" << m.name << "' (" << m.entry << ")\n";
    out << "  torch " << (m.torch_version.empty() ? "unknown" : m.torch_version) << ", export schema " << m.schema_major
        << "." << m.schema_minor << "\n";
    print_values(out, "inputs", m.inputs);
    print_values(out, "outputs", m.outputs);
    print_ranges(out, m.range_constraints);
    print_state(out, m.state);
    print_weights(out, m.weights);
    print_modules(out, m);
    print_fused_ops(out, m, report.opset);
    print_subgraphs(out, m);
    print_quantization(out, m.quantization, report.opset);
    print_ops(out, m, report.opset);
  }
  return out.str();
}

}  // namespace pt2onnx
