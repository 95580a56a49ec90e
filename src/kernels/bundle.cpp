// --compile bundles: input types from call sites, code generation, parallel NVRTC compiles with
// cubin checks, the manifest, and atomic directory writes.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "common/error.h"
#include "emit/output_file.h"
#include "kernels/cubin.h"
#include "kernels/expr.h"
#include "kernels/kernels.h"
#include "kernels/sha256.h"
#include "ir/onnx_dtype.h"
#include "model/lowering.h"

namespace pt2onnx::kernels {

namespace {

using Json = nlohmann::ordered_json;

std::optional<TensorType> type_from_value_info(const onnx::ValueInfoProto& vi) {
  if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return std::nullopt;
  TensorType t;
  t.dtype = vi.type().tensor_type().elem_type();
  for (const auto& d : vi.type().tensor_type().shape().dim()) {
    if (d.has_dim_value()) t.shape.push_back(ir::sym_int(d.dim_value()));
    else if (d.has_dim_param()) t.shape.push_back(ir::parse_sym_expr(d.dim_param()));
    else return std::nullopt;
  }
  return t;
}

std::optional<TensorType> lookup_type(const onnx::ModelProto& model, const ir::TensorValues& value_types, const std::string& name) {
  const auto& g = model.graph();
  for (const auto& init : g.initializer())
    if (init.name() == name) {
      TensorType t;
      t.dtype = init.data_type();
      for (int64_t d : init.dims()) t.shape.push_back(ir::sym_int(d));
      return t;
    }
  for (const auto& vi : g.input())
    if (vi.name() == name) return type_from_value_info(vi);
  for (const auto& vi : g.value_info())
    if (vi.name() == name) return type_from_value_info(vi);
  if (auto it = value_types.find(name); it != value_types.end()) {
    const std::optional<int32_t> elem_type = model::onnx_elem_type(it->second);
    if (!elem_type) return std::nullopt;
    TensorType t;
    t.dtype = *elem_type;
    for (const auto& d : it->second.sizes) t.shape.push_back(d.is_static() ? ir::sym_int(d.as_int()) : d.as_expr());
    return t;
  }
  return std::nullopt;
}

Json shape_json(const std::vector<ir::SymExpr>& shape) {
  Json a = Json::array();
  for (const auto& d : shape) {
    if (d->op == ir::SymOp::kInt) a.push_back(d->value);
    else a.push_back(to_manifest(d));
  }
  return a;
}

std::string expr_text(const ir::SymExpr& e) { return to_manifest(e); }

// "k<N>"; built with append, since GCC 12 -O3 warns falsely (-Wrestrict) on "k" + to_string().
std::string kernel_key(size_t index) {
  std::string key = "k";
  key.append(std::to_string(index));
  return key;
}

int arch_number(const std::string& arch) {
  size_t i = 3;
  int v = 0;
  while (i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i]))) v = v * 10 + (arch[i++] - '0');
  return v;
}

void check_cubin(CompiledImage& image, const KernelPlan& plan) {
  const std::string where = plan.bundle + " " + image.arch + ": ";
  const CubinInfo info = read_cubin(image.cubin);
  PT2ONNX_CHECK(info.machine == 190 && info.elf_type == 2, ErrorCode::kCompile, where + "the cubin is not an executable EM_CUDA ELF");
  PT2ONNX_CHECK(info.sm == arch_number(image.arch), ErrorCode::kCompile,
                where + "the cubin is for sm_" + std::to_string(info.sm));
  for (const Kernel& k : plan.kernels) {
    auto it = std::find_if(info.kernels.begin(), info.kernels.end(), [&](const CubinKernel& c) { return c.symbol == k.symbol; });
    PT2ONNX_CHECK(it != info.kernels.end(), ErrorCode::kCompile, where + "entry " + k.symbol + " is missing from the cubin");
    PT2ONNX_CHECK(it->params.size() == k.params.size(), ErrorCode::kCompile,
                  where + k.symbol + " has " + std::to_string(it->params.size()) + " parameters in the cubin, " +
                      std::to_string(k.params.size()) + " in the plan");
    for (size_t i = 0; i < k.params.size(); ++i)
      PT2ONNX_CHECK(it->params[i].size == static_cast<uint32_t>(k.params[i].bytes), ErrorCode::kCompile,
                    where + k.symbol + " parameter " + k.params[i].name + " is " + std::to_string(it->params[i].size) +
                        " bytes in the cubin");
    image.resources[k.symbol] = {it->registers, it->shared_bytes};
  }
}

}  // namespace

namespace {

// Plans functions on demand: the input types of a function come from its calls in the main
// graph and, for a type called inside other functions, from the plans of those callers (the
// generator records the operand types of every call it inlines). Plans are kept, so a caller
// that is compiled too is generated once.
class Planner {
 public:
  Planner(const onnx::ModelProto& model, const ir::TensorValues& value_types, const std::string& domain,
          const GenerateOptions& options)
      : model_(model), value_types_(value_types), domain_(domain), options_(options) {
    for (const auto& f : model.functions()) library_.push_back(&f);
  }

  const onnx::FunctionProto* find(const std::string& name) const {
    for (const auto& f : model_.functions())
      if (f.name() == name && f.domain() == domain_) return &f;
    return nullptr;
  }

  // The plans of `fn` with their call sites; throws Error(kUnsupported) naming what is missing.
  // A type called in the main graph has one plan over all its sites (dims on which they disagree
  // become symbols); a type called only inside other functions has one per distinct input
  // signature of those calls (dtypes and shapes as the callers' plans give them), named
  // <Function>_s<i> in the order the signatures are first seen when there is more than one.
  const std::vector<PlannedBundle>& plan(const onnx::FunctionProto& fn) {
    if (auto it = plans_.find(fn.name()); it != plans_.end()) return it->second;
    PT2ONNX_CHECK(!in_progress_.count(fn.name()), ErrorCode::kUnsupported,
                  "--compile: function " + fn.name() + " calls itself");
    std::vector<CallSite> sites;
    std::vector<std::vector<TensorType>> site_types;
    bool main_graph = false;
    {
      // Unmarked however the collection ends: after a caller's refusal, a later plan of this
      // function must not look like a recursive call.
      struct Unmark {
        std::set<std::string>& names;
        const std::string& name;
        ~Unmark() { names.erase(name); }
      };
      in_progress_.insert(fn.name());
      const Unmark unmark{in_progress_, fn.name()};
      collect_main_sites(fn, sites, site_types);
      main_graph = !sites.empty();
      collect_nested_sites(fn, sites, site_types);
    }
    PT2ONNX_CHECK(!site_types.empty(), ErrorCode::kUnsupported,
                  "--compile: function " + fn.name() + " is never called, so its input types are unknown");
    // Site indices per signature, in order of first appearance.
    std::vector<std::vector<size_t>> groups;
    if (main_graph) {
      groups.emplace_back();
      for (size_t i = 0; i < sites.size(); ++i) groups.back().push_back(i);
    } else {
      std::map<std::string, size_t> by_signature;
      for (size_t i = 0; i < sites.size(); ++i) {
        auto [it, fresh] = by_signature.emplace(signature_key(site_types[i]), groups.size());
        if (fresh) groups.emplace_back();
        groups[it->second].push_back(i);
      }
    }
    std::vector<PlannedBundle> plans;
    for (size_t g = 0; g < groups.size(); ++g) {
      PlannedBundle pb;
      std::vector<std::vector<TensorType>> types;
      for (size_t i : groups[g]) {
        pb.call_sites.push_back(sites[i]);
        types.push_back(site_types[i]);
      }
      GenerateOptions options = options_;
      if (groups.size() > 1) {
        options.bundle_name = fn.name() + "_s" + std::to_string(g);
        PT2ONNX_CHECK(find(options.bundle_name) == nullptr, ErrorCode::kUnsupported,
                      "--compile: function " + fn.name() + ": the bundle of its input signature " + std::to_string(g) +
                          " would be named " + options.bundle_name + ", which is also a function");
      }
      pb.plan = generate_kernels(fn, merge(fn, types), library_, options);
      pb.plan.signature = {static_cast<int>(g), static_cast<int>(groups.size())};
      plans.push_back(std::move(pb));
    }
    return plans_.emplace(fn.name(), std::move(plans)).first->second;
  }

 private:
  void collect_main_sites(const onnx::FunctionProto& fn, std::vector<CallSite>& sites,
                          std::vector<std::vector<TensorType>>& site_types) const {
    for (const auto& node : model_.graph().node()) {
      if (node.op_type() != fn.name() || node.domain() != domain_) continue;
      std::vector<TensorType> types;
      for (const auto& in : node.input()) {
        auto t = lookup_type(model_, value_types_, in);
        PT2ONNX_CHECK(t.has_value(), ErrorCode::kUnsupported,
                      "--compile: function " + fn.name() + ": no type known for call input '" + in + "'");
        types.push_back(*t);
      }
      sites.push_back({node.name(), {node.input().begin(), node.input().end()}, {node.output().begin(), node.output().end()}});
      site_types.push_back(std::move(types));
    }
  }

  // Calls inside other functions: one site per (caller's site, inlined call), the operands that
  // are the caller's inputs named as at the caller's site, the others "<caller>/<value>".
  void collect_nested_sites(const onnx::FunctionProto& fn, std::vector<CallSite>& sites,
                            std::vector<std::vector<TensorType>>& site_types) {
    for (const auto& caller : model_.functions()) {
      bool calls = false;
      for (const auto& n : caller.node()) calls = calls || (n.op_type() == fn.name() && n.domain() == domain_);
      if (!calls || &caller == &fn) continue;
      const std::vector<PlannedBundle>* outers = nullptr;
      try {
        outers = &plan(caller);
      } catch (const Error& e) {
        if (e.code() != ErrorCode::kUnsupported) throw;
        fail(ErrorCode::kUnsupported, "--compile: function " + fn.name() + " is called inside " + caller.name() +
                                          ", whose calls give no types: " + e.what());
      }
      std::map<std::string, size_t> formal;
      for (int i = 0; i < caller.input_size(); ++i) formal.emplace(caller.input(i), static_cast<size_t>(i));
      for (const PlannedBundle& outer : *outers) {
        for (const auto& call : outer.plan.nested_calls) {
          if (call.function != fn.name() || call.domain != domain_) continue;
          for (size_t i = 0; i < call.types.size(); ++i)
            PT2ONNX_CHECK(call.types[i].dtype != 0, ErrorCode::kUnsupported,
                          "--compile: function " + fn.name() + ": call " + call.node + " inside " + caller.name() +
                              " leaves input " + std::to_string(i) + " out");
          for (const auto& outer_site : outer.call_sites) {
            CallSite site{outer_site.node + "/" + call.node, {}, {}};
            for (const auto& in : call.inputs) {
              auto it = formal.find(in);
              site.inputs.push_back(it != formal.end() && it->second < outer_site.inputs.size() ? outer_site.inputs[it->second]
                                                                                                : caller.name() + "/" + in);
            }
            for (const auto& o : call.outputs) site.outputs.push_back(caller.name() + "/" + o);
            sites.push_back(std::move(site));
            site_types.push_back(call.types);
          }
        }
      }
    }
  }

  // Dims on which call sites disagree become symbols; dims that take the same values at every
  // call site share one symbol (so a contraction stays provably equal). So does a dim computed
  // from the model's symbols (a conv's output length): the bundle reads it from the input like
  // any other.
  static std::vector<TensorType> merge(const onnx::FunctionProto& fn, const std::vector<std::vector<TensorType>>& site_types) {
    std::vector<TensorType> types = site_types.front();
    std::map<std::string, ir::SymExpr> by_values;
    for (size_t i = 0; i < types.size(); ++i) {
      for (const auto& other : site_types)
        PT2ONNX_CHECK(other[i].dtype == types[i].dtype && other[i].shape.size() == types[i].shape.size(),
                      ErrorCode::kUnsupported,
                      "--compile: function " + fn.name() + ": call sites give input " + fn.input(static_cast<int>(i)) +
                          " different dtypes or ranks");
      for (size_t a = 0; a < types[i].shape.size(); ++a) {
        std::string key;
        bool differ = false;
        for (const auto& other : site_types) {
          key += ir::to_string(other[i].shape[a]) + ";";
          differ = differ || ir::to_string(other[i].shape[a]) != ir::to_string(types[i].shape[a]);
        }
        const ir::SymOp op = types[i].shape[a]->op;
        if (!differ && (op == ir::SymOp::kInt || op == ir::SymOp::kSymbol)) continue;
        auto [it, fresh] = by_values.emplace(key, nullptr);
        if (fresh) it->second = ir::sym_symbol(fn.input(static_cast<int>(i)) + "_d" + std::to_string(a));
        types[i].shape[a] = it->second;
      }
    }
    return types;
  }

  const onnx::ModelProto& model_;
  const ir::TensorValues& value_types_;
  const std::string domain_;
  std::vector<const onnx::FunctionProto*> library_;
  // "dtype[dims];..." of every input: call sites with equal keys share a bundle.
  static std::string signature_key(const std::vector<TensorType>& types) {
    std::string key;
    for (const auto& t : types) {
      key += std::to_string(t.dtype) + "[";
      for (const auto& d : t.shape) key += ir::to_string(d) + ",";
      key += "];";
    }
    return key;
  }

  GenerateOptions options_;
  std::map<std::string, std::vector<PlannedBundle>> plans_;
  std::set<std::string> in_progress_;
};

}  // namespace

const char* param_type_name(ParamType type) { return type == ParamType::kPointer ? "ptr" : "i64"; }

const char* binding_kind_name(BindingKind kind) {
  switch (kind) {
    case BindingKind::kInput: return "input";
    case BindingKind::kOutput: return "output";
    case BindingKind::kBuffer: return "buffer";
    case BindingKind::kInt64: return "i64";
  }
  return "i64";
}

BundlePlans plan_bundles(const onnx::ModelProto& model, const ir::TensorValues& value_types, const std::vector<std::string>& functions,
                         const std::string& domain, const GenerateOptions& options) {
  BundlePlans out;
  Planner planner(model, value_types, domain, options);
  for (const std::string& fname : functions) {
    const onnx::FunctionProto* fn = planner.find(fname);
    PT2ONNX_CHECK(fn != nullptr, ErrorCode::kInternal, "--compile: no function " + domain + "::" + fname);
    try {
      for (const PlannedBundle& pb : planner.plan(*fn)) out.bundles.push_back(pb);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kUnsupported) throw;
      out.refused.push_back({fname, e.what()});
    }
  }
  return out;
}

std::vector<CompiledBundle> compile_bundles(const Nvrtc& nvrtc, const std::vector<PlannedBundle>& bundles,
                                            const std::vector<std::string>& archs, unsigned threads) {
  std::vector<CompiledBundle> out(bundles.size());
  struct Task {
    size_t bundle, arch;
  };
  std::vector<Task> tasks;
  for (size_t b = 0; b < bundles.size(); ++b) {
    out[b].planned = &bundles[b];
    out[b].images.resize(archs.size());
    for (size_t a = 0; a < archs.size(); ++a) tasks.push_back({b, a});
  }
  std::vector<std::exception_ptr> errors(tasks.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t t = next++; t < tasks.size(); t = next++) {
      try {
        const auto& plan = bundles[tasks[t].bundle].plan;
        CompiledImage& image = out[tasks[t].bundle].images[tasks[t].arch];
        image.arch = archs[tasks[t].arch];
        image.options = {"--gpu-architecture=" + image.arch, "-std=c++17"};
        NvrtcResult r = nvrtc.compile(plan.source, plan.bundle + ".cu", image.options);
        image.cubin = std::move(r.cubin);
        image.ptx = std::move(r.ptx);
        image.log = std::move(r.log);
        check_cubin(image, plan);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    }
  };
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, static_cast<unsigned>(std::max<size_t>(1, tasks.size())));
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}


std::string manifest_json(const CompiledBundle& bundle, int nvrtc_major, int nvrtc_minor, const std::string& model_file) {
  const KernelPlan& p = bundle.planned->plan;
  Json m;
  m["format"] = "pt2onnx.kernel-bundle";
  m["format_version"] = {1, 0};
  const std::string nv = std::to_string(nvrtc_major) + "." + std::to_string(nvrtc_minor);
  m["generator"] = {{"tool", "pt2onnx"}, {"nvrtc", nv}};
  m["function"] = {{"domain", p.domain}, {"name", p.name}, {"overload", p.overload}, {"model", model_file}};
  Json sites = Json::array();
  for (const auto& s : bundle.planned->call_sites) sites.push_back({{"node", s.node}, {"inputs", s.inputs}, {"outputs", s.outputs}});
  m["call_sites"] = sites;
  // A type called only inside other functions with several input signatures: which one this is.
  if (p.signature.count > 1)
    m["signature"] = {{"bundle", p.bundle}, {"index", p.signature.index}, {"of", p.signature.count}};
  Json symbols = Json::object();
  for (const auto& s : p.symbols) symbols[s.name] = {{"from", {{"input", s.input}, {"axis", s.axis}}}};
  m["symbols"] = symbols;
  auto io = [](const std::vector<std::string>& names, const std::vector<TensorType>& types) {
    Json a = Json::array();
    for (size_t i = 0; i < names.size(); ++i)
      a.push_back({{"name", names[i]}, {"dtype", ir::onnx_type_name(types[i].dtype)}, {"shape", shape_json(types[i].shape)},
                   {"layout", "contiguous"}});
    return a;
  };
  m["inputs"] = io(p.input_names, p.inputs);
  m["outputs"] = io(p.output_names, p.outputs);
  m["requires"] = p.preconditions;
  Json buffers = Json::object();
  for (const auto& b : p.buffers)
    buffers[b.name] = {{"holds", b.holds}, {"dtype", ir::onnx_type_name(b.dtype)}, {"shape", shape_json(b.shape)},
                       {"offset", expr_text(b.offset)}, {"bytes", expr_text(b.bytes)}};
  m["workspace"] = {{"align", 256}, {"bytes", expr_text(p.workspace_bytes)}, {"buffers", buffers}};
  Json images = Json::object();
  for (const auto& img : bundle.images) {
    const std::string file = BundleLayout::cubin(p.bundle, img.arch).generic_string();
    images[img.arch] = {{"file", file},
                        {"sha256", sha256_hex({img.cubin.data(), img.cubin.size()})},
                        {"bytes", img.cubin.size()},
                        {"nvrtc", nv},
                        {"nvrtc_options", img.options},
                        {"min_driver", nvrtc_major * 1000 + nvrtc_minor * 10}};
    images[img.arch]["ptx"] = {{"file", BundleLayout::ptx(p.bundle, img.arch).generic_string()},
                               {"sha256", sha256_hex(img.ptx)},
                               {"bytes", img.ptx.size()}};
  }
  m["images"] = images;
  m["source"] = {{"file", BundleLayout::source(p.bundle).generic_string()}, {"sha256", sha256_hex(p.source)}};
  Json kernels = Json::object();
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    const Kernel& kern = p.kernels[k];
    Json params = Json::array();
    for (const auto& prm : kern.params) params.push_back({{"name", prm.name}, {"type", param_type_name(prm.type)}, {"bytes", prm.bytes}});
    Json resources = Json::object();
    for (const auto& img : bundle.images)
      if (auto it = img.resources.find(kern.symbol); it != img.resources.end())
        resources[img.arch] = {{"registers", it->second.first}, {"shared_section_bytes", it->second.second}};
    kernels[kernel_key(k)] = {{"symbol", kern.symbol}, {"computes", kern.computes}, {"params", params},
                                        {"block", {kern.block, 1, 1}}, {"dynamic_smem", "0"},
                                        {"static_smem", kern.static_smem_hint}, {"resources", resources}};
  }
  m["kernels"] = kernels;
  Json launches = Json::array();
  for (const auto& l : p.launches) {
    Json args = Json::array();
    for (const auto& a : l.args) args.push_back({{binding_kind_name(a.kind), a.value}});
    launches.push_back({{"kernel", kernel_key(static_cast<size_t>(l.kernel))}, {"grid", l.grid}, {"args", args}});
  }
  m["launches"] = launches;
  m["numerics"] = {{"compute", "float32"},
                   {"fast_math", false},
                   {"tolerance", {{"FLOAT", {{"rtol", 1e-4}, {"atol", 1e-5}}},
                                  {"FLOAT16", {{"rtol", 1e-2}, {"atol", 1e-3}}},
                                  {"BFLOAT16", {{"rtol", 2e-2}, {"atol", 1e-2}}}}}};
  if (p.tf32) {
    // TF32 operands (unit roundoff 2^-11): see docs/kernels.md for the tolerance's derivation.
    m["numerics"]["tf32"] = true;
    m["numerics"]["tolerance"]["FLOAT"] = {{"rtol", 1e-2}, {"atol", 1e-2}};
  }
  m["ops"] = p.op_types;
  return m.dump(2) + "\n";
}

std::vector<WrittenBundle> write_bundles(const std::vector<CompiledBundle>& bundles, int nvrtc_major, int nvrtc_minor,
                                         const std::filesystem::path& dir, const std::string& model_file) {
  namespace fs = std::filesystem;
  std::vector<fs::path> staged;
  std::vector<emit::PendingPath> pending;  // staged trees are removed on SIGINT/SIGTERM too
  std::vector<WrittenBundle> written;
  auto cleanup = [&] {
    for (const auto& s : staged) emit::remove_tree_nofollow(s.c_str());
  };
  if (bundles.empty()) return written;  // every type refused: no kernels directory either
  const fs::path target = dir.empty() ? fs::path(".") : dir;
  std::error_code ec;
  const bool made_target = !fs::exists(target, ec);
  try {
    fs::create_directories(target, ec);
    PT2ONNX_CHECK(!ec, ErrorCode::kOutput, dir.string() + ": cannot create the kernels directory: " + ec.message());
    for (const auto& b : bundles) {
      const KernelPlan& p = b.planned->plan;
      // A random name created with mkdir (which never follows a planted link), registered first.
      const fs::path tmp = fs::absolute(dir.empty() ? fs::path(".") : dir) / emit::random_temp_name("kernels");
      pending.emplace_back(tmp, emit::PendingPath::Kind::kTree);
      PT2ONNX_CHECK(::mkdir(tmp.c_str(), 0777) == 0, ErrorCode::kOutput,
                    tmp.string() + ": cannot create: " + std::strerror(errno));
      staged.push_back(tmp);
      WrittenBundle w{p.bundle, dir / BundleLayout::dir_name(p.bundle), static_cast<int>(p.kernels.size()), 0};
      auto put = [&](const fs::path& rel, const char* data, size_t size) {
        const fs::path path = tmp / rel;
        fs::create_directories(path.parent_path(), ec);
        PT2ONNX_CHECK(!ec, ErrorCode::kOutput, path.parent_path().string() + ": " + ec.message());
        std::ofstream f(path, std::ios::binary);
        f.write(data, static_cast<std::streamsize>(size));
        f.close();
        PT2ONNX_CHECK(f.good(), ErrorCode::kOutput, path.string() + ": cannot write");
        w.bytes += static_cast<int64_t>(size);
      };
      const std::string manifest = manifest_json(b, nvrtc_major, nvrtc_minor, model_file);
      put(BundleLayout::manifest(), manifest.data(), manifest.size());
      put(BundleLayout::source(p.bundle), p.source.data(), p.source.size());
      for (const auto& img : b.images) {
        put(BundleLayout::cubin(p.bundle, img.arch), img.cubin.data(), img.cubin.size());
        put(BundleLayout::ptx(p.bundle, img.arch), img.ptx.data(), img.ptx.size());
      }
      written.push_back(w);
    }
    for (size_t i = 0; i < bundles.size(); ++i) {
      emit::replace_atomically(staged[i], written[i].dir);  // the old bundle stays until the new one is there
    }
  } catch (...) {
    cleanup();
    if (made_target) fs::remove(target, ec);  // only if still empty: the folder this call made
    throw;
  }
  return written;
}

}  // namespace pt2onnx::kernels
