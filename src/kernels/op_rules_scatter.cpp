// Codegen rules for ScatterElements and ScatterND, computed where each output element is read:
// the element starts as the data's, then every update whose index names it is combined in, in
// the order of the updates (so with reduction "none" the last one wins). Each read scans all
// updates, which suits the small index sets of masks and routing tables, not scatters over a
// whole large tensor.
#include <string>
#include <vector>

#include "kernels/expr.h"
#include "kernels/op_rules.h"

namespace pt2onnx::kernels::detail {

namespace {

// `acc` combined with `update` as the reduction attribute says.
std::string combine(const std::string& reduction, const std::string& acc, const std::string& update) {
  if (reduction == "add") return acc + " += " + update + ";";
  if (reduction == "mul") return acc + " *= " + update + ";";
  if (reduction == "max") return "if (" + update + " > " + acc + ") " + acc + " = " + update + ";";
  if (reduction == "min") return "if (" + update + " < " + acc + ") " + acc + " = " + update + ";";
  return acc + " = " + update + ";";
}

std::string checked_reduction(OpContext& ctx) {
  const std::string reduction = ctx.attr_string("reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" && reduction != "min")
    ctx.unsupported("reduction " + reduction);
  return reduction;
}

// Updates u (positions of the indices, all of their shape) land at data[u with u[axis] replaced
// by indices[u]].
void scatter_elements(OpContext& ctx) {
  const Value& data = ctx.value(ctx.input(0));
  const Value& indices = ctx.value(ctx.input(1));
  if (indices.shape.size() != data.shape.size()) ctx.unsupported("indices of another rank than the data");
  const size_t axis = ctx.norm_axis(ctx.attr_int("axis", 0), data.shape.size());
  const std::string reduction = checked_reduction(ctx);
  std::vector<std::string> index_dims;
  for (const auto& d : indices.shape) index_dims.push_back(to_c(d));
  Value v;
  v.dtype = data.dtype;
  v.shape = data.shape;
  v.load = [g = &ctx.gen, src = ctx.input(0), ind = ctx.input(1), upd = ctx.input(2), axis, reduction, index_dims,
            dim_c = to_c(data.shape[axis]), ctype = compute_type(data.dtype)](Body& b, const Idx& idx) {
    const std::string acc = fresh_temp(b);
    b.line(ctype + " " + acc + " = " + g->load(b, src, idx) + ";");
    std::string inside = "1";  // the element's other coordinates lie within the indices' shape
    for (size_t d = 0; d < idx.size(); ++d)
      if (d != axis) inside += " && " + idx[d] + " < " + index_dims[d];
    emit_if(b, inside, [&](Body& scan) {
      emit_loop(scan, "0", index_dims[axis], [&](Body& step, const std::string& t) {
        Idx at = idx;
        at[axis] = t;
        const std::string target = wrapped_index(*g, step, ind, at, dim_c);
        emit_if(step, target + " == " + idx[axis], [&](Body& hit) { hit.line(combine(reduction, acc, g->load(hit, upd, at))); });
      });
    });
    return acc;
  };
  ctx.gen.define(ctx.out, std::move(v));
}

// indices [q..., k] name data[i_0, ..., i_{k-1}, ...] for each of their q-dim positions u;
// updates [q..., rest...] hold the slice that lands there.
void scatter_nd(OpContext& ctx) {
  const Value& data = ctx.value(ctx.input(0));
  const Value& indices = ctx.value(ctx.input(1));
  if (indices.shape.empty()) ctx.unsupported("scalar indices");
  const auto k_known = const_value(indices.shape.back());
  if (!k_known) ctx.unsupported("a symbolic last dimension of the indices");
  const size_t k = static_cast<size_t>(*k_known);
  if (k > data.shape.size()) ctx.unsupported("index tuples longer than the data's rank");
  const std::string reduction = checked_reduction(ctx);
  const std::vector<SymExpr> positions(indices.shape.begin(), indices.shape.end() - 1);
  std::vector<std::string> dims_c;
  for (size_t j = 0; j < k; ++j) dims_c.push_back(to_c(data.shape[j]));
  Value v;
  v.dtype = data.dtype;
  v.shape = data.shape;
  v.load = [g = &ctx.gen, src = ctx.input(0), ind = ctx.input(1), upd = ctx.input(2), reduction, positions, dims_c,
            count = to_c(product(positions)), ctype = compute_type(data.dtype)](Body& b, const Idx& idx) {
    const std::string acc = fresh_temp(b);
    b.line(ctype + " " + acc + " = " + g->load(b, src, idx) + ";");
    emit_loop(b, "0", count, [&](Body& step, const std::string& u) {
      Idx at = delinearize(step, u, positions);
      Idx updated = at;
      at.emplace_back();
      std::string match = "1";
      for (size_t j = 0; j < dims_c.size(); ++j) {
        at.back() = "(" + std::to_string(j) + "LL)";
        match += " && " + wrapped_index(*g, step, ind, at, dims_c[j]) + " == " + idx[j];
      }
      updated.insert(updated.end(), idx.begin() + static_cast<std::ptrdiff_t>(dims_c.size()), idx.end());
      emit_if(step, match, [&](Body& hit) { hit.line(combine(reduction, acc, g->load(hit, upd, updated))); });
    });
    return acc;
  };
  ctx.gen.define(ctx.out, std::move(v));
}

}  // namespace

void register_scatter_op_rules(OpRuleTable& t) {
  t.add("ScatterElements", scatter_elements);
  t.add("ScatterND", scatter_nd);
}

}  // namespace pt2onnx::kernels::detail
