// canonical_order (instance_body.h) for any way of telling values apart: by name, or by id
// (instance_ids.h). One algorithm, so both give the same order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "hierarchy/instance_body.h"

namespace pt2onnx::hierarchy {

// `values` answers, for the members at hand:
//   all_inputs(i, pred)  whether pred(v) holds for every non-empty input v of nodes[i], in order
//                        (it stops at the first that fails);
//   for_each_read(i, fn) fn(v) for each value nodes[i] reads (for_each_read's values);
//   made_inside(v)       whether a member makes v;
//   set_floating(i)      nodes[i]'s one output is made by floating member i;
//   floating_maker(v)    the floating member making v, or -1.
template <typename Values>
std::vector<size_t> canonical_order_with(const Nodes& nodes, const std::vector<size_t>& members, Values& values) {
  // Floating members: input-less Constants, Shapes of values from outside, and shape arithmetic
  // on floating values only. Where they sit depends on which instance first needed them, so each
  // goes right before its first reader (its own floating inputs first).
  // Per member, by its rank among the members' node indices: whether it floats, whether it is placed.
  std::vector<size_t> sorted = members;
  std::sort(sorted.begin(), sorted.end());
  auto rank = [&](size_t i) { return static_cast<size_t>(std::lower_bound(sorted.begin(), sorted.end(), i) - sorted.begin()); };
  std::vector<char> floating(members.size(), 0);
  bool any_floating = false;
  for (size_t i : members) {
    const onnx::NodeProto& n = nodes[static_cast<int>(i)];
    if (!n.domain().empty() || n.output_size() != 1 || !is_shape_arithmetic(n.op_type())) continue;
    if (n.op_type() == "Constant" ? n.input_size() != 0 : n.input_size() == 0) continue;
    const bool is_shape = n.op_type() == "Shape";
    if (!values.all_inputs(i, [&](const auto& in) {
          return values.floating_maker(in) >= 0 || (is_shape && !values.made_inside(in));
        }))
      continue;
    floating[rank(i)] = 1;
    any_floating = true;
    values.set_floating(i);
  }
  if (!any_floating) return members;  // nothing moves: no constant or shape arithmetic inside
  std::vector<size_t> order;
  order.reserve(members.size());
  std::vector<char> placed(members.size(), 0);
  auto place = [&](auto& self, size_t i) -> void {
    char& done = placed[rank(i)];
    if (done) return;
    done = 1;
    values.for_each_read(i, [&](const auto& in) {
      if (const long maker = values.floating_maker(in); maker >= 0) self(self, static_cast<size_t>(maker));
    });
    order.push_back(i);
  };
  for (size_t i : members)
    if (!floating[rank(i)]) place(place, i);
  for (size_t i : members) place(place, i);  // floating members nothing inside reads
  return order;
}

}  // namespace pt2onnx::hierarchy
