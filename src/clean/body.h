// One scope of an ONNX model that the clean-up passes rewrite: the main graph (with its
// initializers, value_info and, before --hiera, the module stack of each node) or the body of a
// local function. Values named in `inputs` come from outside; those in `outputs` must survive.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include <onnx/onnx_pb.h>

#include "ir/program.h"

namespace pt2onnx::clean {

using Nodes = google::protobuf::RepeatedPtrField<onnx::NodeProto>;
using ir::ModuleStacks;

// What is statically known of a value: element type (0: unknown) and dims (nullopt: symbolic).
struct ValueType {
  int32_t elem_type = 0;
  std::vector<std::optional<int64_t>> dims;
  // Per dim, the symbolic expression of a dynamic dim ("s0", "2*s1"), "" when static or unknown:
  // two dims with the same expression are equal at run time.
  std::vector<std::string> symbols;
  bool shape_known = false;  // rank (and so `dims`) known
  bool static_shape() const;
};
// Types the passes cannot see in the ONNX (e.g. the export's own metadata), by value name.
using TypeOracle = std::function<std::optional<ValueType>(const std::string& name)>;

struct Body {
  Nodes* nodes = nullptr;
  ModuleStacks* modules = nullptr;     // parallel to *nodes, or null when not tracked
  onnx::GraphProto* graph = nullptr;   // the main graph (initializers, value_info), or null
  // Only asked and edited by name, never walked in order: hash sets (a large graph's 50k
  // initializer names in a std::set cost more than some passes).
  std::unordered_set<std::string> inputs;   // graph/function inputs (and initializers)
  std::unordered_set<std::string> outputs;  // graph/function outputs
  TypeOracle types;                    // may be empty
  // The --hiera (and opaque module) types still to be folded: nodes of different instances of
  // them must not start sharing values (except input-less Constants, which hierarchy clones).
  std::vector<std::string> hiera_types;
};

Body main_body(onnx::GraphProto& graph, ModuleStacks* modules, TypeOracle types,
               std::vector<std::string> hiera_types);
Body function_body(onnx::FunctionProto& function);

// Which instance of each hiera type node `index` belongs to, as one string; "" with no types.
// Two nodes may share values only when these are equal.
std::string instance_key(const Body& body, int index);
// Whether node `index` lies inside an instance of one of body.hiera_types.
bool inside_instance(const Body& body, int index);

// Replaces reads (subgraphs' outer reads too) by `renames` (followed transitively).
void apply_renames(onnx::NodeProto& node, const std::map<std::string, std::string>& renames);

// Inserts each node right before the node at its index (module stack copied from that node).
void insert_before(Body& body, std::vector<std::pair<int, onnx::NodeProto>> inserts);

// Removes the nodes whose `keep` entry is false, keeping order (and `modules` parallel).
void erase_nodes(Body& body, const std::vector<bool>& keep);

// Node `index` gives way to `value` (a new initializer that holds its result): its readers read
// `value` (through `renames`, which the caller applies) and it goes (`keep`); where its output is
// a scope output, which keeps its name, it becomes an Identity of `value` instead.
void replace_by_value(Body& body, int index, const std::string& value, std::vector<bool>& keep,
                      std::map<std::string, std::string>& renames);

// The initializer `name` of `graph`, or null (a linear search: for the few a pass looks up).
const onnx::TensorProto* find_initializer(const onnx::GraphProto& graph, const std::string& name);

// Adds `t` as an initializer of the scope (whose graph it must have) and records its name.
void declare_initializer(Body& body, onnx::TensorProto t);

// Replaces every read of `from` by `to`, in subgraph attributes too (outer-scope reads).
void rename_uses(Body& body, const std::string& from, const std::string& to);

// Values read from outside by the subgraphs (GRAPH/GRAPHS attributes, recursively) of a node.
void subgraph_reads(const onnx::NodeProto& node, std::set<std::string>& names);

// Which node makes each value, and how often each value is read. A read from a subgraph or as a
// scope output counts 2, so such a value is never "read once" (a fusion may not remove it).
struct ValueUses {
  std::map<std::string, int> producer;
  std::map<std::string, int> reads;
};
ValueUses value_uses(const Body& body);
bool has_subgraph(const onnx::NodeProto& node);

const onnx::AttributeProto* find_attribute(const onnx::NodeProto& node, const std::string& name);
int64_t int_attribute(const onnx::NodeProto& node, const std::string& name, int64_t fallback);

}  // namespace pt2onnx::clean
