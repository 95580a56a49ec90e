// AtenBuilder: aten nodes with the metas torch's meta functions give them (aten_builder.h).
#include "translate/decompositions/aten_builder.h"

#include <algorithm>

#include "common/error.h"
#include "translate/onnx_types.h"

namespace pt2onnx::translate {

namespace {

ir::SymExpr as_expr(const ir::Dim& d) { return d.is_static() ? ir::sym_int(d.as_int()) : d.as_expr(); }

ir::Dim as_dim(ir::SymExpr e) {
  if (e->op == ir::SymOp::kInt) return ir::Dim{e->value};
  return ir::Dim{std::move(e)};
}

bool same_dim(const ir::Dim& a, const ir::Dim& b) {
  if (a.is_static() != b.is_static()) return false;
  return a.is_static() ? a.as_int() == b.as_int() : to_string(a.as_expr()) == to_string(b.as_expr());
}

bool is_one(const ir::Dim& d) { return d.is_static() && d.as_int() == 1; }

ir::Dim product(const std::vector<ir::Dim>& dims) {
  int64_t known = 1;
  std::vector<ir::SymExpr> factors;
  for (const ir::Dim& d : dims) {
    if (d.is_static()) known *= d.as_int();
    else factors.push_back(d.as_expr());
  }
  if (factors.empty() || known == 0) return ir::Dim{known};
  if (known != 1) factors.push_back(ir::sym_int(known));
  return factors.size() == 1 ? ir::Dim{factors.front()} : ir::Dim{ir::sym_apply(ir::SymOp::kMul, std::move(factors))};
}

ir::Dim dim_sum(const ir::Dim& a, const ir::Dim& b) {
  if (a.is_static() && b.is_static()) return ir::Dim{a.as_int() + b.as_int()};
  if (a.is_static() && a.as_int() == 0) return b;
  if (b.is_static() && b.as_int() == 0) return a;
  return as_dim(ir::sym_apply(ir::SymOp::kAdd, {as_expr(a), as_expr(b)}));
}

ir::SymIntListArg int_list(const std::vector<int64_t>& values) {
  ir::SymIntListArg out;
  for (int64_t v : values) out.items.push_back(ir::SymIntArg{v});
  return out;
}

ir::NamedArgument named(std::string name, ir::Argument arg, bool keyword = false) {
  return ir::NamedArgument{std::move(name), std::move(arg), keyword};
}

// The flat output names of a node (tensor lists count each tensor; other kinds are "").
std::vector<std::string> flat_outputs(const ir::Node& node) {
  std::vector<std::string> out;
  for (const ir::Argument& a : node.outputs) {
    if (const auto* t = std::get_if<ir::TensorArg>(&a)) out.push_back(t->name);
    else if (const auto* list = std::get_if<ir::TensorListArg>(&a)) out.insert(out.end(), list->names.begin(), list->names.end());
    else out.emplace_back();
  }
  return out;
}

void rename_in(ir::Argument& a, const std::string& from, const std::string& to) {
  if (auto* t = std::get_if<ir::TensorArg>(&a)) {
    if (t->name == from) t->name = to;
  } else if (auto* list = std::get_if<ir::TensorListArg>(&a)) {
    std::replace(list->names.begin(), list->names.end(), from, to);
  } else if (auto* opt = std::get_if<ir::OptionalTensorListArg>(&a)) {
    for (auto& n : opt->names)
      if (n && *n == from) n = to;
  }
}

}  // namespace

const ir::TensorMeta* AtenBuilder::Args::find_meta(const std::string& fx_name) const {
  const auto made = std::find_if(builder_.metas_.begin(), builder_.metas_.end(), [&](const auto& m) { return m.first == fx_name; });
  if (made != builder_.metas_.end()) return &made->second;
  const auto found = builder_.graph_.tensor_values.find(fx_name);
  return found == builder_.graph_.tensor_values.end() ? nullptr : &found->second;
}

AtenBuilder::AtenBuilder(const ir::Graph& graph, const ir::Node& node, std::function<std::string(const std::string&)> fresh_name)
    : graph_(graph), node_(node), fresh_name_(std::move(fresh_name)), args_(node, *this), output_names_(flat_outputs(node)),
      bound_(output_names_.size()) {}

const ir::TensorMeta& AtenBuilder::meta(const std::string& value) const {
  const ir::TensorMeta* m = args_.meta_of(value);
  if (!m) throw CannotDecompose{"value '" + value + "' has no tensor meta"};
  return *m;
}

const ir::TensorMeta& AtenBuilder::output_meta(size_t i) const {
  PT2ONNX_CHECK(i < output_names_.size() && !output_names_[i].empty(), ErrorCode::kInternal,
                "output " + std::to_string(i) + " of " + node_.name + " is not a tensor");
  return meta(output_names_[i]);
}

Size AtenBuilder::constant(int64_t n) { return Size{ir::Dim{n}, ir::SymIntArg{n}}; }

Size AtenBuilder::size(const std::string& value, int64_t dim) {
  const ir::Dim& d = meta(value).sizes.at(static_cast<size_t>(dim));
  if (d.is_static()) return constant(d.as_int());
  const std::string name = fresh_name_(node_.name + "_size");
  ir::Node n;
  n.name = name;
  n.target = "aten.sym_size.int";
  n.inputs = {named("self", ir::TensorArg{value}), named("dim", ir::SymIntArg{dim})};
  n.outputs = {ir::SymIntArg{name}};
  n.module_stack = node_.module_stack;
  n.metadata = node_.metadata;
  nodes_.push_back(std::move(n));
  sym_ints_.emplace_back(name, d);
  return Size{d, ir::SymIntArg{name}};
}

std::string AtenBuilder::make(const std::string& op, const std::string& target, std::vector<ir::NamedArgument> inputs,
                             ir::TensorMeta out) {
  const std::string name = fresh_name_(node_.name + "_" + op);
  ir::Node n;
  n.name = name;
  n.target = target;
  n.inputs = std::move(inputs);
  n.outputs = {ir::TensorArg{name}};
  n.module_stack = node_.module_stack;
  n.metadata = node_.metadata;
  nodes_.push_back(std::move(n));
  out.strides.clear();  // no rule reads the strides of a value; torch's would be the contiguous ones
  metas_.emplace_back(name, std::move(out));
  return name;
}

std::string AtenBuilder::permute(const std::string& x, const std::vector<int64_t>& dims) {
  ir::TensorMeta out = meta(x);
  for (size_t i = 0; i < dims.size(); ++i) out.sizes[i] = meta(x).sizes.at(static_cast<size_t>(dims[i]));
  return make("permute", "aten.permute.default", {named("self", ir::TensorArg{x}), named("dims", int_list(dims))}, std::move(out));
}

std::string AtenBuilder::flip(const std::string& x, const std::vector<int64_t>& dims) {
  return make("flip", "aten.flip.default", {named("self", ir::TensorArg{x}), named("dims", int_list(dims))}, meta(x));
}

std::string AtenBuilder::unsqueeze(const std::string& x, int64_t dim) {
  ir::TensorMeta out = meta(x);
  out.sizes.insert(out.sizes.begin() + dim, ir::Dim{int64_t{1}});
  return make("unsqueeze", "aten.unsqueeze.default", {named("self", ir::TensorArg{x}), named("dim", ir::SymIntArg{dim})},
             std::move(out));
}

std::string AtenBuilder::view(const std::string& x, const std::vector<Size>& sizes) {
  ir::TensorMeta out = meta(x);
  out.sizes.clear();
  std::vector<ir::Dim> others;
  int inferred = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i].dim.is_static() && sizes[i].dim.as_int() == -1) {
      PT2ONNX_CHECK(inferred < 0, ErrorCode::kInternal, "a view with two sizes of -1");
      inferred = static_cast<int>(i);
    } else {
      others.push_back(sizes[i].dim);
    }
    out.sizes.push_back(sizes[i].dim);
  }
  if (inferred >= 0) {
    const ir::Dim numel = product(meta(x).sizes), rest = product(others);
    if (is_one(rest)) out.sizes[static_cast<size_t>(inferred)] = numel;
    else if (numel.is_static() && rest.is_static() && rest.as_int() != 0) out.sizes[static_cast<size_t>(inferred)] = ir::Dim{numel.as_int() / rest.as_int()};
    else throw CannotDecompose{"a view whose -1 extent is a quotient of symbolic sizes"};
  }
  ir::SymIntListArg list;
  for (const Size& s : sizes) list.items.push_back(s.arg);
  return make("view", "aten.view.default", {named("self", ir::TensorArg{x}), named("size", std::move(list))}, std::move(out));
}

std::string AtenBuilder::expand(const std::string& x, const std::vector<Size>& sizes) {
  ir::TensorMeta out = meta(x);
  const std::vector<ir::Dim>& in = meta(x).sizes;
  PT2ONNX_CHECK(sizes.size() >= in.size(), ErrorCode::kInternal, "an expand to fewer dims than the tensor has");
  out.sizes.clear();
  const size_t lead = sizes.size() - in.size();
  for (size_t i = 0; i < sizes.size(); ++i) {
    const bool keep = sizes[i].dim.is_static() && sizes[i].dim.as_int() == -1;
    out.sizes.push_back(keep ? in.at(i - lead) : sizes[i].dim);
  }
  ir::SymIntListArg list;
  for (const Size& s : sizes) list.items.push_back(s.arg);
  return make("expand", "aten.expand.default",
             {named("self", ir::TensorArg{x}), named("size", std::move(list)), named("implicit", ir::SymBoolArg{false}, true)},
             std::move(out));
}

std::string AtenBuilder::cat(const std::vector<std::string>& xs, int64_t dim) {
  PT2ONNX_CHECK(!xs.empty(), ErrorCode::kInternal, "a cat of no tensors");
  ir::TensorMeta out = meta(xs.front());
  bool first = true;
  for (const std::string& x : xs) {
    const ir::TensorMeta& m = meta(x);
    out.dtype = promote_types(out.dtype, m.dtype);
    // torch's cat skips 1-D tensors of no elements whatever the other tensors' rank.
    if (m.sizes.size() == 1 && m.sizes[0].is_static() && m.sizes[0].as_int() == 0) continue;
    if (first) {
      out.sizes = m.sizes;
      first = false;
    } else {
      out.sizes.at(static_cast<size_t>(dim)) = dim_sum(out.sizes.at(static_cast<size_t>(dim)), m.sizes.at(static_cast<size_t>(dim)));
    }
  }
  return make("cat", "aten.cat.default", {named("tensors", ir::TensorListArg{xs}), named("dim", ir::SymIntArg{dim})},
             std::move(out));
}

ir::TensorMeta AtenBuilder::broadcast(const std::string& a, const std::string& b, ir::DType dtype) const {
  const ir::TensorMeta &ma = meta(a), &mb = meta(b);
  ir::TensorMeta out = ma;
  out.dtype = dtype;
  const size_t rank = std::max(ma.sizes.size(), mb.sizes.size());
  out.sizes.assign(rank, ir::Dim{int64_t{1}});
  for (size_t i = 0; i < rank; ++i) {
    const ir::Dim* da = i + ma.sizes.size() >= rank ? &ma.sizes[i + ma.sizes.size() - rank] : nullptr;
    const ir::Dim* db = i + mb.sizes.size() >= rank ? &mb.sizes[i + mb.sizes.size() - rank] : nullptr;
    if (!da || is_one(*da)) out.sizes[i] = db ? *db : ir::Dim{int64_t{1}};
    else if (!db || is_one(*db) || same_dim(*da, *db)) out.sizes[i] = *da;
    else throw CannotDecompose{"a broadcast of sizes that may differ"};
  }
  return out;
}

std::string AtenBuilder::mul(const std::string& a, const std::string& b) {
  return make("mul", "aten.mul.Tensor", {named("self", ir::TensorArg{a}), named("other", ir::TensorArg{b})},
             broadcast(a, b, promote_types(meta(a).dtype, meta(b).dtype)));
}

std::string AtenBuilder::add(const std::string& a, const std::string& b) {
  return make("add", "aten.add.Tensor",
             {named("self", ir::TensorArg{a}), named("other", ir::TensorArg{b}), named("alpha", ir::SymIntArg{int64_t{1}}, true)},
             broadcast(a, b, promote_types(meta(a).dtype, meta(b).dtype)));
}

std::string AtenBuilder::sub(const std::string& a, const std::string& b) {
  return make("sub", "aten.sub.Tensor",
             {named("self", ir::TensorArg{a}), named("other", ir::TensorArg{b}), named("alpha", ir::SymIntArg{int64_t{1}}, true)},
             broadcast(a, b, promote_types(meta(a).dtype, meta(b).dtype)));
}

std::string AtenBuilder::sqrt(const std::string& x) {
  ir::TensorMeta out = meta(x);
  if (!is_floating(out.dtype) && !is_complex(out.dtype)) out.dtype = ir::DType::kFloat32;
  return make("sqrt", "aten.sqrt.default", {named("self", ir::TensorArg{x})}, std::move(out));
}

std::string AtenBuilder::ne_zero(const std::string& x) {
  ir::TensorMeta out = meta(x);
  const bool floating = is_floating(out.dtype);
  out.dtype = ir::DType::kBool;
  return make("ne", "aten.ne.Scalar",
             {named("self", ir::TensorArg{x}), named("other", floating ? ir::Argument(ir::SymFloatArg{0.0}) : ir::Argument(ir::SymIntArg{int64_t{0}}))},
             std::move(out));
}

std::string AtenBuilder::sum(const std::string& x, const std::optional<std::vector<int64_t>>& dims, bool keepdim,
                             std::optional<ir::DType> dtype) {
  ir::TensorMeta out = meta(x);
  const auto rank = static_cast<int64_t>(out.sizes.size());
  std::vector<bool> reduced(static_cast<size_t>(rank), !dims || dims->empty());
  if (dims)
    for (int64_t d : *dims) reduced.at(static_cast<size_t>(d < 0 ? d + rank : d)) = true;
  std::vector<ir::Dim> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[static_cast<size_t>(d)]) sizes.push_back(out.sizes[static_cast<size_t>(d)]);
    else if (keepdim) sizes.push_back(ir::Dim{int64_t{1}});
  }
  out.sizes = std::move(sizes);
  if (dtype) out.dtype = *dtype;
  else if (!is_floating(out.dtype) && !is_complex(out.dtype)) out.dtype = ir::DType::kInt64;
  ir::SymIntListArg dim_list;
  if (dims)
    for (int64_t d : *dims) dim_list.items.push_back(ir::SymIntArg{d});
  return make("sum", "aten.sum.dim_IntList",
             {named("self", ir::TensorArg{x}), named("dim", dims ? ir::Argument(dim_list) : ir::Argument(ir::NoneArg{})),
              named("keepdim", ir::SymBoolArg{keepdim}),
              named("dtype", dtype ? ir::Argument(ir::ScalarTypeArg{*dtype}) : ir::Argument(ir::NoneArg{}), true)},
             std::move(out));
}

std::string AtenBuilder::vector_norm(const std::string& x, double ord) {
  ir::TensorMeta out = meta(x);
  out.sizes.clear();
  if (out.dtype == ir::DType::kComplex64) out.dtype = ir::DType::kFloat32;
  if (out.dtype == ir::DType::kComplex128) out.dtype = ir::DType::kFloat64;
  return make("norm", "aten.linalg_vector_norm.default",
             {named("self", ir::TensorArg{x}), named("ord", ir::SymFloatArg{ord}), named("dim", ir::NoneArg{}),
              named("keepdim", ir::SymBoolArg{false}), named("dtype", ir::NoneArg{}, true)},
             std::move(out));
}

void AtenBuilder::set_output(size_t i, const std::string& value) {
  PT2ONNX_CHECK(i < bound_.size(), ErrorCode::kInternal,
                "output " + std::to_string(i) + " of " + node_.name + " set, but it has " + std::to_string(bound_.size()));
  bound_[i] = value;
}

AtenBuilder::Written AtenBuilder::finish() {
  std::vector<std::pair<std::string, std::string>> renamed;  // value made here -> the output name it now has
  auto alias = [&](const std::string& name, const std::string& source) {
    ir::Node n;
    n.name = name;
    n.target = "aten.alias.default";
    n.inputs = {named("self", ir::TensorArg{source})};
    n.outputs = {ir::TensorArg{name}};
    n.module_stack = node_.module_stack;
    n.metadata = node_.metadata;
    nodes_.push_back(std::move(n));
  };
  for (size_t i = 0; i < output_names_.size(); ++i) {
    const std::string& name = output_names_[i];
    if (name.empty()) continue;
    const std::string& value = bound_[i];
    PT2ONNX_CHECK(!value.empty(), ErrorCode::kInternal, "the decomposition of " + node_.name + " left output " + name + " unbound");
    const auto done = std::find_if(renamed.begin(), renamed.end(), [&](const auto& r) { return r.first == value; });
    if (done != renamed.end()) {  // a value that already carries another output's name
      alias(name, done->second);
      continue;
    }
    const ir::TensorMeta& want = meta(name);
    const ir::TensorMeta& got = meta(value);
    PT2ONNX_CHECK(got.dtype == want.dtype && got.sizes.size() == want.sizes.size(), ErrorCode::kInternal,
                  "the decomposition of " + node_.name + " gives output " + name + " another dtype or rank than the program's");
    const auto made = std::find_if(metas_.begin(), metas_.end(), [&](const auto& m) { return m.first == value; });
    if (made == metas_.end()) {  // an input passed through
      alias(name, value);
      continue;
    }
    for (ir::Node& n : nodes_) {
      if (n.name == value) n.name = name;
      for (ir::NamedArgument& in : n.inputs) rename_in(in.arg, value, name);
      for (ir::Argument& o : n.outputs) rename_in(o, value, name);
    }
    metas_.erase(made);
    renamed.emplace_back(value, name);
  }
  Written out;
  out.nodes = std::move(nodes_);
  out.metas = std::move(metas_);
  out.sym_ints = std::move(sym_ints_);
  return out;
}

}  // namespace pt2onnx::translate
