// Contraction of instances into call nodes, with a stable topological sort that doubles as the
// cycle check.
#include "hierarchy/contract_instances.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <string_view>

#include "common/error.h"
#include "common/view_map.h"
#include "hierarchy/instance_body.h"

namespace pt2onnx::hierarchy {

void contract_instances(Nodes& nodes, ModuleStacks& stacks, const InstanceMap& map,
                        std::vector<CallNode> calls, const std::string& type) {
  // Items: the nodes outside every instance, then one call per instance; each is placed by the
  // position of its first node in the old order when the data allows.
  struct Item {
    size_t priority;
    onnx::NodeProto* node;
    ir::ModuleStack* stack;
    int instance;  // -1 for a node kept as is
  };
  std::vector<Item> items;
  items.reserve(node_count(nodes));
  for (size_t i = 0; i < node_count(nodes); ++i)
    if (map.group_of[i] < 0) items.push_back({i, &nodes[i], &stacks[i], -1});
  for (size_t g = 0; g < calls.size(); ++g)
    items.push_back({map.instances[g].nodes.front(), &calls[g].node, &calls[g].stack, static_cast<int>(g)});

  ViewMap<size_t> producer(items.size());  // views the items' output names
  for (size_t k = 0; k < items.size(); ++k)
    for (const std::string& out : items[k].node->output())
      if (!out.empty()) *producer.try_emplace(out, k).first = k;
  std::vector<std::vector<size_t>> dependents(items.size());
  std::vector<int> pending(items.size(), 0);
  std::vector<size_t> deps;
  for (size_t k = 0; k < items.size(); ++k) {
    deps.clear();
    for_each_read(*items[k].node, [&](const std::string& in) {
      if (const size_t* maker = producer.find(in); maker && *maker != k) deps.push_back(*maker);
    });
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    for (size_t d : deps) dependents[d].push_back(k);
    pending[k] = static_cast<int>(deps.size());
  }
  using Ready = std::pair<size_t, size_t>;  // (priority, item)
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
  for (size_t k = 0; k < items.size(); ++k)
    if (pending[k] == 0) ready.push({items[k].priority, k});
  std::vector<size_t> order;
  while (!ready.empty()) {
    const size_t k = ready.top().second;
    ready.pop();
    order.push_back(k);
    for (size_t d : dependents[k])
      if (--pending[d] == 0) ready.push({items[d].priority, d});
  }
  if (order.size() != items.size()) {
    std::string stuck;
    for (size_t k = 0; k < items.size(); ++k)
      if (pending[k] > 0 && items[k].instance >= 0) {
        const Instance& instance = map.instances[static_cast<size_t>(items[k].instance)];
        stuck += (stuck.empty() ? "'" : ", '") + (instance.path.empty() ? "<root>" : instance.path) + "'";
      }
    fail(ErrorCode::kUnsupported, "--hiera " + type + ": cannot fold instance " + stuck +
                                      ": nodes outside it both use its results and compute its inputs, so one "
                                      "call node would depend on itself");
  }

  // The kept nodes change hands as they are; the calls are moved in; the members go.
  std::vector<onnx::NodeProto*> owned(node_count(nodes));
  nodes.ExtractSubrange(0, nodes.size(), owned.data());
  Nodes new_nodes;
  ModuleStacks new_stacks;
  new_nodes.Reserve(static_cast<int>(order.size()));
  new_stacks.reserve(order.size());
  for (size_t k : order) {
    if (items[k].instance < 0) new_nodes.AddAllocated(items[k].node);
    else *new_nodes.Add() = std::move(*items[k].node);
    new_stacks.push_back(std::move(*items[k].stack));
  }
  for (size_t i = 0; i < owned.size(); ++i)
    if (map.group_of[i] >= 0) delete owned[i];
  nodes.Swap(&new_nodes);
  stacks = std::move(new_stacks);
}

}  // namespace pt2onnx::hierarchy
