// fold_hierarchy: for each --hiera type, innermost first: find its instances, give them their own
// constants, canonicalise each body, share one function per distinct body, contract.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "common/error.h"
#include "common/view_map.h"
#include "hierarchy/contract_instances.h"
#include "hierarchy/function_naming.h"
#include "hierarchy/hierarchy.h"
#include "hierarchy/instance_body.h"
#include "hierarchy/instance_ids.h"
#include "hierarchy/module_instances.h"
#include "hierarchy/unshare_constants.h"

namespace pt2onnx::hierarchy {

namespace {

struct GraphState {
  Nodes nodes;
  ModuleStacks stacks;
  NameSet graph_inputs;
  NameSet graph_outputs;
  std::vector<std::string> graph_output_names;  // the same names, walked once per folded type
  NameSet value_names;
  NameSet node_names;
  std::set<std::string> function_names;
  std::vector<onnx::FunctionProto> functions;
  std::vector<onnx::OperatorSetIdProto> function_opsets;
};

[[noreturn]] void no_such_type(const std::string& wanted, const ModuleStacks& stacks) {
  std::string listed;
  for (const auto& [type, count] : module_types(stacks))
    listed += (listed.empty() ? "" : ", ") + type + (count > 1 ? " (\u00d7" + std::to_string(count) + ")" : "");
  fail(ErrorCode::kUsage, "--hiera " + wanted + " matches no module type of the model (types: " +
                              (listed.empty() ? "none, the graph carries no module stacks" : listed) + ")");
}

// Frees the contents of the member nodes of an instance that has been made into a body and a
// call, keeping each node object (empty) in place. Cheap nodes stay whole: later instances copy
// them in, and `cheap` views their outputs.
void release_contents(Nodes& nodes, const std::vector<size_t>& members, const CheapValues& cheap) {
  for (size_t i : members) {
    onnx::NodeProto& node = nodes[i];
    if (node.output_size() == 1 && cheap.made_by(node.output(0)) == static_cast<long>(i)) continue;
    onnx::NodeProto().Swap(&node);
  }
}

// The node names a call's name could collide with. fresh_name() names a call after its
// instance's module path (the type's name for the root), or that with "_<k>": no other name is
// ever asked about, and a table of every node name would be held through the whole fold.
void add_colliding_node_names(const Nodes& nodes, const ModuleStacks& stacks, const std::vector<std::string>& types,
                              NameSet& node_names) {
  ViewSet bases;  // views the frames' paths and `types`
  for (size_t i = 0; i < stacks.size(); ++i) {
    if (i > 0 && stacks[i].same_as(stacks[i - 1])) continue;  // the nodes of one call share a stack
    for (const ir::FrameView frame : stacks[i]) bases.insert(frame.path);
  }
  for (const std::string& type : types) bases.insert(type);
  for (const onnx::NodeProto& node : nodes) {
    const std::string_view name = node.name();
    bool colliding = bases.contains(name);
    const size_t cut = name.rfind('_');
    if (!colliding && cut != std::string_view::npos && cut + 1 < name.size() &&
        std::all_of(name.begin() + static_cast<std::ptrdiff_t>(cut) + 1, name.end(),
                    [](char c) { return c >= '0' && c <= '9'; }))
      colliding = bases.contains(name.substr(0, cut));
    if (colliding) node_names.insert(name);
  }
}

constexpr int kNoReader = -2;  // not read yet (-1 is the group of nodes outside every instance)

// Who reads a value, as far as folding one type needs to know.
struct Readers {
  int group = kNoReader;      // the instance (-1: none) of its first reader
  bool several = false;       // readers lie in more than one
  bool graph_output = false;  // one lookup answers both questions used_outside asks
};

// Per value, its Readers; readers that borrow a copy do not count. By the value's id in
// value_names (not a second table keyed by name); a read of a name no node, input or initializer
// makes (none in a valid graph) goes to `unnamed`, whose keys view the nodes' input names,
// unchanged until contract_instances.
struct ReaderGroups {
  std::vector<Readers> by_id;
  ViewMap<Readers> unnamed;

  Readers* of(const NameSet& value_names, const std::string& value) {
    const NameSet::Id id = value_names.id(value);
    return id == NameSet::kAbsent ? unnamed.find(value) : &by_id[id];
  }
};

ReaderGroups reader_groups(const GraphState& state, const InstanceMap& map, const CheapValues& cheap,
                           const std::optional<InstanceIds>& ids) {
  ReaderGroups readers;
  readers.by_id.resize(state.value_names.size());
  auto note = [&](Readers& r, int group) {
    if (r.group == kNoReader) r.group = group;
    else if (r.group != group) r.several = true;
  };
  if (ids) {
    for (size_t i = 0; i < node_count(state.nodes); ++i)
      ids->for_each_read(i, [&](NameSet::Id value) {
        const int group = map.group_of[i];
        if (group >= 0 && ids->made_outside(value, map.group_of, group) >= 0) return;  // reads a copy of its own
        note(readers.by_id[value], group);
      });
  } else {
    for (size_t i = 0; i < node_count(state.nodes); ++i)
      for_each_read(state.nodes[i], [&](const std::string& in) {
        if (borrows(state.nodes, i, in, map.group_of, cheap)) return;  // reads a copy of its own
        Readers* r = readers.of(state.value_names, in);
        if (!r) r = readers.unnamed.try_emplace(in, Readers{}).first;
        note(*r, map.group_of[i]);
      });
  }
  for (const std::string& out : state.graph_output_names)
    if (Readers* r = readers.of(state.value_names, out)) r->graph_output = true;
  return readers;
}

// Folds every instance of `wanted`; returns what was made.
FoldedType fold_type(GraphState& state, const std::string& wanted, const HierarchyOptions& options) {
  const std::string& domain = options.domain;
  auto opaque_it = options.opaque.find(wanted);
  const OpaqueModule* opaque = opaque_it == options.opaque.end() ? nullptr : &opaque_it->second;
  FoldedType folded{wanted, 0, 0, {}, opaque != nullptr};
  InstanceMap map = find_instances(wanted, state.stacks);
  if (map.instances.empty()) return folded;  // an earlier, overlapping type took its frames
  CheapValues cheap = cheap_values(state.nodes, state.graph_inputs, state.graph_outputs);
  if (unshare_constants(state.nodes, state.stacks, map.group_of, cheap, state.value_names)) {
    map = find_instances(wanted, state.stacks);
    cheap = cheap_values(state.nodes, state.graph_inputs, state.graph_outputs);  // the nodes moved
  }
  // The per-instance steps go by value id where every value read is named and no node has a
  // subgraph (instance_ids.h), else by name.
  std::optional<InstanceIds> ids = InstanceIds::of(state.nodes, state.value_names, cheap);
  ReaderGroups read_by = reader_groups(state, map, cheap, ids);
  auto readers_of = [&](const std::string& value) { return read_by.of(state.value_names, value); };

  // Once its body and call are made, an instance's members are read no more (contract_instances
  // drops them): their contents go at once, so the calls grow in the memory they free. Not when
  // `read_by.unnamed` views names inside them.
  const bool release_members = read_by.unnamed.size() == 0;
  std::unordered_map<std::string, size_t> function_of_key;  // structural key -> index in state.functions
  std::vector<onnx::FunctionProto> opaque_bodies;  // opaque types: bodies are compared, not kept
  std::vector<CallNode> calls;
  std::unordered_set<std::string> borrowed_values;  // copied into some body: their makers may go
  onnx::FunctionProto body;  // of the instance at hand, made only when it is a new one
  std::string key;
  for (size_t g = 0; g < map.instances.size(); ++g) {
    const Instance& instance = map.instances[g];
    const int group = static_cast<int>(g);
    std::vector<size_t> borrowed;
    std::vector<size_t> members;
    Boundary boundary;
    bool flat = true;
    // Most instances repeat a body already made: their key is found without making theirs.
    if (ids) {
      members = ids->canonical_order(state.nodes, ids->with_borrowed(instance.nodes, map.group_of, group, borrowed));
      boundary = ids->boundary(state.nodes, members, [&](NameSet::Id value) {
        if (ids->made_outside(value, map.group_of, group) >= 0) return false;  // borrowed
        const Readers& readers = read_by.by_id[value];
        return readers.graph_output || (readers.group != kNoReader && (readers.several || readers.group != group));
      });
      ids->flat_structural_key(state.nodes, members, key);
    } else {
      members = canonical_order(state.nodes,
                                with_borrowed(state.nodes, instance.nodes, map.group_of, group, cheap, borrowed));
      auto used_outside = [&](const std::string& value) {
        if (cheap.made_outside(value, map.group_of, group) >= 0) return false;  // borrowed
        const Readers* readers = readers_of(value);
        if (readers ? readers->graph_output : state.graph_outputs.count(value)) return true;
        return readers && readers->group != kNoReader && (readers->several || readers->group != group);
      };
      boundary = instance_boundary(state.nodes, members, used_outside);
      flat = flat_structural_key(state.nodes, members, boundary, key);
    }
    for (size_t b : borrowed) borrowed_values.insert(state.nodes[b].output(0));
    if (!flat) {
      canonical_body(state.nodes, members, boundary, body);
      key = structural_key(body);
    }
    const auto known = function_of_key.find(key);
    const bool new_body = known == function_of_key.end();
    if (flat && new_body) canonical_body(state.nodes, members, boundary, body);
    CallNode call;
    call.node.set_name(fresh_name(instance.path.empty() ? wanted : instance.path, state.node_names));
    call.node.set_doc_string((instance.path.empty() ? "<root>" : instance.path) + " [" + instance.type() + "]");
    for (std::string& in : boundary.inputs) call.node.add_input(std::move(in));  // boundary is read no more
    for (std::string& out : boundary.outputs) call.node.add_output(std::move(out));
    call.stack = instance.outer_stack();
    if (release_members) release_contents(state.nodes, instance.nodes, cheap);
    if (opaque) {
      if (new_body) {
        function_of_key.emplace(key, opaque_bodies.size());
        opaque_bodies.push_back(std::move(body));
      }
      call.node.set_op_type(opaque->op_type);
      call.node.set_domain(opaque->domain);
      for (const onnx::AttributeProto& attr : opaque->attributes) *call.node.add_attribute() = attr;
      calls.push_back(std::move(call));
      continue;
    }
    size_t function = new_body ? state.functions.size() : known->second;
    if (new_body) {
      function_of_key.emplace(key, function);
      const std::string& type = instance.type();
      body.set_name(claim_function_name(function_base_name(type, options.function_name), state.function_names));
      body.set_domain(domain);
      body.set_doc_string("module " + type + " (first instance: " + (instance.path.empty() ? "<root>" : instance.path) + ")");
      for (const onnx::OperatorSetIdProto& opset : state.function_opsets) *body.add_opset_import() = opset;
      folded.functions.push_back(body.name());
      state.functions.push_back(std::move(body));
    }
    call.node.set_op_type(state.functions[function].name());
    call.node.set_domain(domain);
    calls.push_back(std::move(call));
  }
  folded.instances = static_cast<int>(map.instances.size());
  folded.bodies = static_cast<int>(function_of_key.size());
  contract_instances(state.nodes, state.stacks, map, std::move(calls), wanted);
  drop_unread_borrowed(state.nodes, state.stacks, borrowed_values, state.graph_outputs);
  return folded;
}

// value_info of values that now live only inside function bodies would name nothing.
void drop_stale_value_info(onnx::GraphProto& graph) {
  ViewSet present(static_cast<size_t>(graph.node_size()) * 2);
  for (const auto& in : graph.input()) present.insert(in.name());
  for (const auto& init : graph.initializer()) present.insert(init.name());
  for (const auto& node : graph.node())
    for (const std::string& out : node.output()) present.insert(out);
  auto* infos = graph.mutable_value_info();
  infos->erase(std::remove_if(infos->begin(), infos->end(),
                              [&](const onnx::ValueInfoProto& info) { return !present.contains(info.name()); }),
               infos->end());
}

}  // namespace

HierarchyReport fold_hierarchy(onnx::ModelProto& model, ir::ModuleStacks& node_modules,
                               const HierarchyOptions& options) {
  HierarchyReport report;
  if (options.types.empty()) return report;
  onnx::GraphProto& graph = *model.mutable_graph();
  PT2ONNX_CHECK(node_modules.size() == static_cast<size_t>(graph.node_size()), ErrorCode::kInternal,
                "module stacks do not match the graph's nodes");
  PT2ONNX_CHECK(!options.domain.empty(), ErrorCode::kUsage, "the domain of --hiera functions must not be empty");

  // Check every type first, so a typo fails before any work; then fold the deepest first, so an
  // outer function's body calls the inner one.
  std::vector<std::pair<int, size_t>> order;  // (-depth, position given)
  for (size_t t = 0; t < options.types.size(); ++t) {
    const int depth = deepest_match(options.types[t], node_modules);
    if (depth < 0) no_such_type(options.types[t], node_modules);
    order.emplace_back(-depth, t);
  }
  std::sort(order.begin(), order.end());

  GraphState state;
  state.nodes.Swap(graph.mutable_node());  // and back at the end
  state.stacks = std::move(node_modules);
  // Room for every value name and an eighth more (copies of cheap nodes add some), not a guess
  // from the node count that would hold room for names never added.
  size_t value_count = static_cast<size_t>(graph.input_size() + graph.initializer_size());
  for (const auto& node : state.nodes) value_count += static_cast<size_t>(node.output_size());
  state.value_names.reserve(value_count + value_count / 8);
  for (const auto& out : graph.output()) {
    state.graph_outputs.insert(out.name());
    state.graph_output_names.push_back(out.name());
  }
  for (const auto& in : graph.input()) {
    state.value_names.insert(in.name());
    state.graph_inputs.insert(in.name());
  }
  for (const auto& init : graph.initializer()) state.value_names.insert(init.name());
  for (const auto& node : state.nodes)
    for (const std::string& out : node.output()) state.value_names.insert(out);
  add_colliding_node_names(state.nodes, state.stacks, options.types, state.node_names);
  for (const auto& function : model.functions()) state.function_names.insert(function.name());
  // Function bodies may hold nodes of every domain the model uses (config rules' custom domains),
  // calls of inner functions, and opaque nodes.
  std::map<std::string, int64_t> domains;
  for (const auto& opset : model.opset_import()) domains[opset.domain()] = opset.version();
  domains.emplace(options.domain, 1);
  for (const auto& [type, node] : options.opaque) {
    PT2ONNX_CHECK(!node.domain.empty() && !node.op_type.empty(), ErrorCode::kUsage,
                  "the opaque node of " + type + " needs a domain and an op_type");
    PT2ONNX_CHECK(node.domain != options.domain, ErrorCode::kUsage,
                  "the opaque node of " + type + " must not use the domain of --hiera functions (" + options.domain + ")");
    auto [it, inserted] = domains.emplace(node.domain, node.domain_version);
    PT2ONNX_CHECK(inserted || it->second == node.domain_version, ErrorCode::kUsage,
                  "domain '" + node.domain + "' is declared with versions " + std::to_string(it->second) + " and " +
                      std::to_string(node.domain_version));
  }
  for (const auto& [name, version] : domains) {
    onnx::OperatorSetIdProto opset;
    opset.set_domain(name);
    opset.set_version(version);
    state.function_opsets.push_back(opset);
  }

  report.types.resize(options.types.size());
  for (const auto& [depth, t] : order) {
    report.types[t] = fold_type(state, options.types[t], options);
    const FoldedType& folded = report.types[t];
    if (folded.opaque && folded.bodies > 1)
      report.warnings.push_back(options.types[t] + ": its " + std::to_string(folded.instances) +
                                " instances have " + std::to_string(folded.bodies) +
                                " different bodies (constants or structure differ); every opaque node is " +
                                options.opaque.at(options.types[t]).op_type + ", so the plugin must not rely on them being equal");
  }

  graph.mutable_node()->Swap(&state.nodes);
  node_modules = std::move(state.stacks);
  drop_stale_value_info(graph);
  for (auto& function : state.functions) *model.add_functions() = std::move(function);
  // Declare the domains now used in the main graph or in the new functions.
  std::set<std::string> used;
  for (const auto& node : graph.node()) used.insert(node.domain());
  for (const auto& function : model.functions())
    for (const auto& node : function.node()) used.insert(node.domain());
  for (const onnx::OperatorSetIdProto& opset : state.function_opsets) {
    const bool declared = std::any_of(model.opset_import().begin(), model.opset_import().end(),
                                      [&](const auto& o) { return o.domain() == opset.domain(); });
    if (!declared && used.count(opset.domain())) *model.add_opset_import() = opset;
  }
  return report;
}

}  // namespace pt2onnx::hierarchy
