// EmitContext: the ONNX graph being built and everything rules share while building it — the
// target opset, the map from FX value names to ONNX value names, deterministic unique names, a
// cache of small constants, cached Shape/dimension values, symbolic-int values, and the bookkeeping
// of the FX node being translated (its outputs, which of them are used).
//
// Naming: the value that a rule binds to an FX output is renamed to the FX name when the rule
// produced it itself, so ONNX values read like the FX graph; intermediates are "<fx>_<OpType>"
// made unique; a node is named "node_<its first output>". The same program gives the same names.
//
// Subgraphs (the bodies of higher-order ops) get a child context: it emits into the body's own
// ONNX graph and translates the body's FX graph (its own values and metadata), while names stay
// unique across the whole model (ONNX forbids a subgraph to shadow an outer name). A child reads
// outer values by name (ONNX subgraphs see outer scopes): the operands bound to its inputs and
// the symbol values its parent computes; an isolated child (a local function body) reads
// nothing from outside.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <span>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include <onnx/onnx_pb.h>

#include "common/interned_names.h"
#include "common/view_map.h"
#include "ir/program.h"
#include "translate/packed_nodes.h"

namespace pt2onnx::translate {

// One attribute of an emitted node.
struct Attr {
  using Value = std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>, onnx::TensorProto,
                             onnx::GraphProto, std::vector<std::string>>;
  std::string name;
  Value value;

  Attr(std::string n, int v) : name(std::move(n)), value(int64_t{v}) {}
  Attr(std::string n, int64_t v) : name(std::move(n)), value(v) {}
  Attr(std::string n, double v) : name(std::move(n)), value(static_cast<float>(v)) {}
  Attr(std::string n, const char* v) : name(std::move(n)), value(std::string(v)) {}
  Attr(std::string n, std::string v) : name(std::move(n)), value(std::move(v)) {}
  Attr(std::string n, std::vector<int64_t> v) : name(std::move(n)), value(std::move(v)) {}
  Attr(std::string n, std::vector<float> v) : name(std::move(n)), value(std::move(v)) {}
  Attr(std::string n, std::vector<std::string> v) : name(std::move(n)), value(std::move(v)) {}
  Attr(std::string n, onnx::TensorProto v) : name(std::move(n)), value(std::move(v)) {}
  Attr(std::string n, onnx::GraphProto v) : name(std::move(n)), value(std::move(v)) {}
};

// The AttributeProto of an attribute.
onnx::AttributeProto make_attribute(const Attr& attr);
// The same, written into `proto` (a node's new attribute, without a temporary to copy).
void fill_attribute(onnx::AttributeProto& proto, const Attr& attr);

class EmitContext;

// Translates the live nodes of an FX graph into a context (set by the driver, which owns the
// rule table; rules of higher-order ops call it through EmitContext::translate_graph).
using GraphTranslator = std::function<void(EmitContext&, const ir::Graph&)>;

// ONNX local functions made while translating (invoke_subgraph bodies), shared by structure.
struct LocalFunctions {
  std::vector<onnx::FunctionProto> functions;  // in the order made
  std::map<std::string, size_t> by_key;        // structural key -> index in functions
};

class EmitContext {
 public:
  // `graph` receives the nodes; `program` must outlive the context.
  EmitContext(onnx::GraphProto& graph, const ir::Program& program, int opset);
  // A child context translating FX graph `fx` (a subgraph of a node of `parent`) into `graph`;
  // `isolated`: it reads no value of its parent (a function body). Both must outlive the child.
  EmitContext(EmitContext& parent, onnx::GraphProto& graph, const ir::Graph& fx, bool isolated);
  EmitContext(const EmitContext&) = delete;
  EmitContext& operator=(const EmitContext&) = delete;

  int opset() const { return opset_; }
  const ir::Program& program() const { return program_; }
  // The FX graph this context translates: the program's, or a subgraph's.
  const ir::Graph& fx_graph() const { return *fx_graph_; }
  bool is_subgraph() const { return parent_ != nullptr; }
  bool is_isolated() const { return isolated_; }
  onnx::GraphProto& graph() { return graph_; }

  // ---- subgraphs ------------------------------------------------------------------------------
  void set_graph_translator(GraphTranslator translator) { shared_->translator = std::move(translator); }
  // Translates the live nodes of `fx` (this context's FX graph) through the driver.
  void translate_graph(const ir::Graph& fx);
  LocalFunctions& local_functions() { return shared_->functions; }

  // ---- names -------------------------------------------------------------------------------
  // Claims `name` (graph inputs, initializers, FX value names); false if it was taken already.
  bool reserve(std::string_view name);
  // Sizes the name table for about `count` names (a hint that spares rehashing a large graph).
  void expect_names(size_t count) {
    shared_->names.reserve(count);
    shared_->about.reserve(count);
  }
  // A name not used before, `base` itself when free, else `base_1`, `base_2`, ...; claimed.
  std::string fresh_name(std::string base);

  // ---- FX values -----------------------------------------------------------------------------
  void bind(const std::string& fx_name, const std::string& value);
  bool is_bound(const std::string& fx_name) const;
  // The ONNX value of an FX value; throws Error(kInternal) naming it when nothing was bound.
  std::string value_of(const std::string& fx_name) const;
  // tensor_values entry of an FX value, or nullptr.
  const ir::TensorMeta* meta(const std::string& fx_name) const;
  // While set, meta() answers these for the named FX values instead of the graph's metadata
  // (half_in_float.h: a node's half-precision operands seen as float while its rule runs).
  void override_meta(const std::string& fx_name, ir::TensorMeta meta) { meta_overrides_.insert_or_assign(fx_name, std::move(meta)); }
  void clear_meta_overrides() { meta_overrides_.clear(); }
  // Marks a value that must keep its name (graph inputs, initializers, cached values).
  void pin(const std::string& value);
  // Whether the node being translated may reuse a cached `value`: values made inside a module
  // instance are reused only within that instance (and its submodules). Otherwise the first
  // instance of a type would compute, say, a symbol's value and later instances would read it
  // from outside, and --hiera would see different bodies for identical modules.
  bool visible_here(const std::string& value) const;

  // ---- nodes ---------------------------------------------------------------------------------
  // Appends a node with fresh output names and returns them.
  std::vector<std::string> emit(std::string_view op_type, const std::vector<std::string>& inputs,
                                const std::vector<Attr>& attrs, int num_outputs);
  // Single-output form.
  std::string emit(std::string_view op_type, const std::vector<std::string>& inputs,
                   const std::vector<Attr>& attrs = {});
  // Appends a node whose outputs are named by the caller (names must be claimed already).
  onnx::NodeProto& emit_named(std::string_view op_type, const std::vector<std::string>& inputs,
                              const std::vector<std::string>& outputs, const std::vector<Attr>& attrs = {});

  std::string emit_unary(std::string_view op_type, const std::string& x) { return emit(op_type, {x}); }
  std::string emit_binary(std::string_view op_type, const std::string& a, const std::string& b) {
    return emit(op_type, {a, b});
  }
  std::string cast(const std::string& x, ir::DType to);

  // ---- constants (cached; emitted as Constant nodes at first use) ------------------------------
  std::string const_i64(int64_t v);                          // 0-D int64
  std::string const_i64s(const std::vector<int64_t>& v);     // 1-D int64
  std::string const_scalar(double v, ir::DType dtype);       // 0-D of `dtype`
  std::string const_bool(bool v) { return const_scalar(v ? 1 : 0, ir::DType::kBool); }
  // A constant tensor of any shape (not cached); `tensor` carries dtype, dims and data.
  std::string const_tensor(onnx::TensorProto tensor, const std::string& base);

  // ---- shapes -------------------------------------------------------------------------------
  std::string shape_of(const std::string& x);                    // 1-D int64, cached per value
  std::string dim_of(const std::string& x, int64_t axis);        // 0-D int64 Gather(Shape), cached
  // Size of `axis` of an FX tensor: a constant when tensor_values says it is static, else dim_of.
  std::string size_of(const std::string& fx_name, int64_t axis);
  // Shape(x)[start:end] as a 1-D int64 value (end may be INT64_MAX).
  std::string shape_slice(const std::string& x, int64_t start, int64_t end);
  std::string unsqueeze(const std::string& x, const std::vector<int64_t>& axes);
  std::string squeeze(const std::string& x, const std::vector<int64_t>& axes);
  std::string reshape(const std::string& x, const std::string& shape);
  std::string concat(const std::vector<std::string>& xs, int64_t axis);
  std::string transpose(const std::string& x, const std::vector<int64_t>& perm);
  // Reduce<op> over `axes` (nullopt: every axis); axes go in an input or an attribute as the
  // opset requires (ReduceSum takes an input since 13, the others since 18).
  std::string reduce(std::string_view op_type, const std::string& x, const std::optional<std::vector<int64_t>>& axes,
                     bool keepdims);

  // ---- symbolic ints (0-D int64 values) -------------------------------------------------------
  std::string sym_int(const ir::SymIntArg& arg);
  std::string sym_expr(const ir::SymExpr& expr);
  // 1-D int64 of a SymInt list: a constant when all are static, else Concat of pieces.
  std::string sym_ints(const std::vector<ir::SymIntArg>& items);
  // A SymFloat as a 0-D float64 value (a Python float is a double) and a SymBool as a 0-D bool:
  // a constant, or the value of the node that produced it (item(), Python arithmetic).
  std::string sym_float(const ir::SymFloatArg& arg);
  std::string sym_bool(const ir::SymBoolArg& arg);
  // The value of a symbol, from the shape of the first user input that has it as a dimension
  // (or, failing that, one whose dimension is k*symbol or symbol + c).
  std::string symbol_value(const std::string& symbol);
  // dim_param text for a symbolic dimension.
  std::string dim_param(const ir::SymExpr& expr) const;

  // ---- the FX node being translated -----------------------------------------------------------
  void begin_node(const ir::Node& node);
  // Binds the FX outputs to the values set by the rule, renaming rule-made values to FX names.
  // Throws Error(kInternal) when a used output was left unset.
  void finish_node();
  // Ends a node whose rule threw (a refusal inspect collects): its FX outputs that are still
  // unbound read as values no node makes, so that later nodes can be translated.
  void abandon_node();
  const ir::Node& node() const { return *node_; }
  // Outputs of the FX node flattened (tensor lists expanded), with "" where no value is named.
  size_t output_count() const { return outputs_.size(); }
  const std::string& output_name(size_t i) const { return outputs_.at(i).fx_name; }
  bool output_used(size_t i) const;
  void set_output(size_t i, const std::string& value);
  // The value a rule set for output i ("" when unset).
  const std::string& output_value(size_t i) const { return outputs_.at(i).value; }
  // Number of ONNX nodes now in the graph.
  // Nodes emitted into this context's graph so far, packed ones included.
  int node_count() const { return packed_count() + graph_.node_size(); }
  // The node appended last (a rule sets a domain or attributes the emit helpers do not take).
  onnx::NodeProto& last_node() { return *graph_.mutable_node(graph_.node_size() - 1); }
  // Moves the nodes of the FX nodes finished so far into `packed` (translate/packed_nodes.h);
  // only between FX nodes, and `packed` must outlive the context. Node indices stay as they were.
  // `keep` false: they are dropped instead (PackedNodes::drop).
  void pack_nodes(PackedNodes& packed, bool keep = true);
  // Calls fn with every node of the graph in order, packed ones decoded one at a time.
  void visit_nodes(const std::function<void(const onnx::NodeProto&)>& fn) const;

  // FX names that live nodes or graph outputs read; set by the driver before translating (the
  // set must outlive the translation).
  void set_used_names(const ViewSet& used) { used_names_ = &used; }
  bool is_used(std::string_view fx_name) const { return used_names_->contains(fx_name); }

  // ---- results --------------------------------------------------------------------------------
  void warn(std::string message) { shared_->warnings.push_back(std::move(message)); }
  std::vector<std::string>& warnings() { return shared_->warnings; }
  void require_ir_version(int64_t v) { shared_->min_ir_version = std::max(shared_->min_ir_version, v); }
  int64_t min_ir_version() const { return shared_->min_ir_version; }

 private:
  struct OutputSlot {
    std::string fx_name;
    std::string value;  // set by the rule
  };

  onnx::NodeProto& append_node(std::string_view op_type, const std::vector<std::string>& inputs,
                               std::span<const std::string> outputs, const std::vector<Attr>& attrs);
  std::string intermediate_base(std::string_view op_type) const;
  // The cached value of `key`, or a new Constant named after base() holding tensor() (both made
  // only on a miss: most calls hit).
  std::string cached_constant(std::string key, const std::function<std::string()>& base,
                              const std::function<onnx::TensorProto()>& tensor);
  void rename_value(const std::string& from, const std::string& to);

  // What the model knows of one ONNX value name (by its id in Shared::names).
  struct NameInfo {
    bool claimed = false;  // by reserve() or fresh_name(): no other value may take it
    int next_suffix = 0;   // fresh_name(name) tries name_<next_suffix + 1> next
    // The context (its serial_) whose graph_ has the node that outputs the value (0: none), the
    // index of that node there and the module scope (in that context's scopes_) it was made in.
    // Names are unique across the model, so one entry serves every context.
    int made_by = 0;
    int node = 0;
    int scope = 0;
  };

  // What every context of one model shares: names, warnings, functions, the driver.
  struct Shared {
    InternedNames names;          // every name asked about (claimed or not), by dense id
    std::vector<NameInfo> about;  // by id of names
    // The last name id_of answered (a view of names' text) and its id: a name is often asked
    // about twice in a row (fresh_name, then append_node for its output; bind, then pin).
    std::string_view last_name;
    InternedNames::Id last_id = InternedNames::kAbsent;
    int contexts = 0;             // serials given so far
    std::vector<std::string> warnings;
    int64_t min_ir_version = 3;
    LocalFunctions functions;
    GraphTranslator translator;
  };

  // What is known of `name` (an entry made now when there was none).
  NameInfo& about(std::string_view name);
  // The id of `name` in shared_->names (added when absent).
  InternedNames::Id id_of(std::string_view name);
  bool is_pinned(const std::string& value) const;
  // The node of this context's graph_ that outputs `value`, as NameInfo says it, or null.
  const NameInfo* made_here(const std::string& value) const;

  std::string symbol_from_inputs(const std::string& symbol);

  onnx::GraphProto& graph_;
  const ir::Program& program_;
  const ir::Graph* fx_graph_;
  EmitContext* parent_ = nullptr;
  bool isolated_ = false;
  int opset_;
  std::shared_ptr<Shared> shared_;
  int serial_ = ++shared_->contexts;  // this context among the model's (a child's address may be reused)
  // Lookups only, never iterated (so hashed: the order of the output does not depend on them).
  IdMap values_;  // id of an FX name -> id of its ONNX value (both in shared_->names)
  std::vector<bool> pinned_;  // by id in shared_->names (a bit a name: a child's costs little)
  std::unordered_map<std::string, ir::TensorMeta> meta_overrides_;  // empty but while a rule runs in float
  std::unordered_map<std::string, std::string> constants_;  // cache key -> value
  std::unordered_map<std::string, std::string> shapes_;     // value -> Shape(value)
  std::map<std::pair<std::string, int64_t>, std::string> dims_;
  std::map<std::string, std::string> symbols_;      // symbol -> value
  std::map<std::string, std::string> sym_exprs_;    // canonical text -> value
  const ViewSet* used_names_ = &kNoNames;
  static const ViewSet kNoNames;

  // Module scopes ("a/b/": the keys of a module stack), each kept once; 0 is "" (no module).
  std::deque<std::string> scopes_{std::string()};  // a deque: its strings stay where they are
  ViewMap<int> scope_ids_;                          // views of scopes_' strings

  const ir::Node* node_ = nullptr;
  int scope_ = 0;         // scopes_ index of node_'s scope
  std::string doc_;       // doc_string of node_'s ONNX nodes: "path [type]" of its innermost module
  int node_start_ = 0;
  std::vector<OutputSlot> outputs_;
  // Nodes that precede graph_'s own (the root context's, see pack_nodes); null: none.
  PackedNodes* packed_ = nullptr;
  int packed_count() const { return packed_ ? packed_->size() : 0; }
};

// "node linear_3 (aten.linear.default) in layers.0.mlp [my.Mlp]" for messages; without the
// target when `with_target` is false.
std::string describe_node(const ir::Node& node, bool with_target = true);

}  // namespace pt2onnx::translate
