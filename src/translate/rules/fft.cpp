// FFTs as ONNX DFT (opset 17+: its axis an attribute below 20, an input from 20), on complex
// values as real pairs
// (complex_values.h). Core IR writes _fft_r2c/_fft_c2c/_fft_c2r; the default IR keeps the
// torch.fft user ops (fft_fft, fft_rfft, fft_irfftn ...), which resize their input (n, s) and then
// are one of the three. Several dims are a chain of one-axis DFTs, in torch's order (r2c: the
// last dim onesided first, then the others; c2r: the others first, then the last). ONNX's inverse
// DFT divides by n; torch's normalization (0 none, 1 by sqrt(n), 2 by n, over the product of the
// signal sizes) is applied as one factor at the end. c2r rebuilds the full spectrum of the last
// dim from its onesided half by conjugate symmetry (X[n-k] = conj X[k]), inverts it and keeps the
// real part: the imaginary parts of the DC and Nyquist bins drop out, as in torch. istft's
// overlap-add (Col2Im) needs opset 18.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "translate/complex_values.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"
#include "translate/constant_tensors.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;

constexpr int kAxisInputOpset = 20;  // DFT takes its axis as an input from here, as an attribute before
constexpr int kCol2ImOpset = 18;

enum class Norm : int64_t { kNone = 0, kByRootN = 1, kByN = 2 };  // torch's fft_norm_mode

// Static sizes of a tensor's dims; nullopt where one is symbolic.
std::optional<std::vector<int64_t>> static_sizes(const ir::TensorMeta& meta) {
  std::vector<int64_t> out;
  for (const ir::Dim& d : meta.sizes) {
    if (!d.is_static()) return std::nullopt;
    out.push_back(d.as_int());
  }
  return out;
}

// The transforms run in float64: onnxruntime sums a DFT's n terms directly in the input's type,
// which in float32 leaves errors of about 1e-5 of the output's scale where torch's FFT gives exact
// zeros (multi-dim transforms of OpInfo's samples). A chain of DFTs is widened once and narrowed
// back to `component` once.
std::string widened(EmitContext& ctx, const std::string& x, DType component) {
  return cast_if_needed(ctx, x, component, DType::kFloat64);
}
std::string narrowed(EmitContext& ctx, const std::string& x, DType component) {
  return cast_if_needed(ctx, x, DType::kFloat64, component);
}

// One DFT along logical axis `axis` of float64 `x` (a pair, or a real tensor with a trailing axis of 1).
std::string dft(EmitContext& ctx, const std::string& x, int64_t axis, bool inverse, bool onesided) {
  const Attr inverse_attr("inverse", int64_t{inverse ? 1 : 0}), onesided_attr("onesided", int64_t{onesided ? 1 : 0});
  if (ctx.opset() >= kAxisInputOpset) return ctx.emit("DFT", {x, "", ctx.const_i64(axis)}, {inverse_attr, onesided_attr});
  return ctx.emit("DFT", {x}, {inverse_attr, onesided_attr, Attr("axis", axis)});
}

// x * factor, where factor = n^power for n the product of `sizes` (static).
std::string scaled(EmitContext& ctx, const std::string& x, const std::vector<int64_t>& sizes, double power,
                   DType component) {
  if (power == 0) return x;
  double n = 1;
  for (int64_t s : sizes) n *= static_cast<double>(s);
  const double factor = std::pow(n, power);
  if (factor == 1) return x;
  return ctx.emit("Mul", {x, ctx.const_scalar(factor, component)});
}

// Exponent of n in torch's factor for a forward transform (none 0, by sqrt(n) -1/2, by n -1).
double forward_power(Norm norm) { return norm == Norm::kNone ? 0 : norm == Norm::kByRootN ? -0.5 : -1; }

Norm norm_arg(const ArgReader& args) {
  const int64_t n = args.get_int("normalization");
  PT2ONNX_CHECK(n >= 0 && n <= 2, ErrorCode::kUnsupported, "fft normalization " + std::to_string(n));
  return static_cast<Norm>(n);
}

std::vector<int64_t> fft_dims(const ArgReader& args, int64_t rank) {
  std::vector<int64_t> dims = normalize_dims(args.ints("dim"), rank);
  PT2ONNX_CHECK(!dims.empty(), ErrorCode::kUnsupported, "an FFT over no dims");
  return dims;
}

std::vector<int64_t> need_static(const std::optional<std::vector<int64_t>>& sizes) {
  PT2ONNX_CHECK(sizes.has_value(), ErrorCode::kUnsupported, "an FFT over a tensor of symbolic shape");
  return *sizes;
}

// The sizes of `shape` at `dims`.
std::vector<int64_t> sizes_at(const std::vector<int64_t>& shape, const std::vector<int64_t>& dims) {
  std::vector<int64_t> sizes;
  for (int64_t d : dims) sizes.push_back(shape[static_cast<size_t>(d)]);
  return sizes;
}

// Forward (or inverse, unscaled by ONNX's 1/n undone) c2c of pair `x` over `dims`, with torch's
// normalization over `sizes` (the signal sizes).
std::string c2c(EmitContext& ctx, std::string x, const std::vector<int64_t>& dims, const std::vector<int64_t>& sizes,
                Norm norm, bool forward, DType component) {
  x = widened(ctx, x, component);
  for (int64_t d : dims) x = dft(ctx, x, d, !forward, false);
  // ONNX's inverse is unnormalized / n; torch's is unnormalized * n^forward_power.
  return scaled(ctx, narrowed(ctx, x, component), sizes, forward ? forward_power(norm) : 1 + forward_power(norm), component);
}

// r2c of real `x` (rank `rank`) over `dims`: onesided on the last of them, c2c on the others.
std::string r2c(EmitContext& ctx, const std::string& x, const std::vector<int64_t>& dims,
                const std::vector<int64_t>& sizes, Norm norm, bool onesided, DType component) {
  std::string y = dft(ctx, widened(ctx, ctx.unsqueeze(x, {-1}), component), dims.back(), false, onesided);
  for (size_t i = 0; i + 1 < dims.size(); ++i) y = dft(ctx, y, dims[i], false, false);
  return scaled(ctx, narrowed(ctx, y, component), sizes, forward_power(norm), component);
}

// c2r of pair `x` over `dims`, the last one to `n` real points from its first n/2 + 1 bins
// (`have` bins in x: fewer are zero-padded, more are cut). `sizes`: the output's signal sizes.
std::string c2r(EmitContext& ctx, std::string x, int64_t x_rank, const std::vector<int64_t>& dims, int64_t have,
                int64_t n, const std::vector<int64_t>& sizes, Norm norm, DType component) {
  PT2ONNX_CHECK(n >= 1, ErrorCode::kUnsupported, "an inverse real FFT to " + std::to_string(n) + " points");
  x = widened(ctx, x, component);
  for (size_t i = 0; i + 1 < dims.size(); ++i) x = dft(ctx, x, dims[i], true, false);
  const int64_t axis = dims.back();
  const int64_t half = n / 2 + 1;
  if (have > half) {
    x = ctx.emit("Slice", {x, ctx.const_i64s({0}), ctx.const_i64s({half}), ctx.const_i64s({axis})});
  } else if (have < half) {
    std::vector<int64_t> pads(static_cast<size_t>(2 * (x_rank + 1)), 0);
    pads[static_cast<size_t>(x_rank + 1 + axis)] = half - have;
    x = ctx.emit("Pad", {x, ctx.const_i64s(pads)});
  }
  const int64_t mirrored = (n + 1) / 2 - 1;  // bins n-1 .. half are conj of bins 1 .. mirrored
  if (mirrored > 0) {
    const std::string tail = ctx.emit("Slice", {x, ctx.const_i64s({mirrored}), ctx.const_i64s({0}),
                                                ctx.const_i64s({axis}), ctx.const_i64s({-1})});
    const std::string signs = ctx.concat({ctx.const_tensor(filled_tensor(1, DType::kFloat64, {1}), "conj_re"),
                                          ctx.const_tensor(filled_tensor(-1, DType::kFloat64, {1}), "conj_im")}, 0);
    x = ctx.concat({x, ctx.emit("Mul", {tail, signs})}, axis);
  }
  x = dft(ctx, x, axis, true, false);
  const std::string re = ctx.emit("Gather", {x, ctx.const_i64(0)}, {Attr("axis", int64_t{-1})});
  return scaled(ctx, narrowed(ctx, re, component), sizes, 1 + forward_power(norm), component);
}

// The conjugate of pair `x`.
std::string conjugated(EmitContext& ctx, const std::string& x, DType component) {
  const std::string signs = ctx.concat({ctx.const_tensor(filled_tensor(1, component, {1}), "conj_re"),
                                        ctx.const_tensor(filled_tensor(-1, component, {1}), "conj_im")}, 0);
  return ctx.emit("Mul", {x, signs});
}

// ---- core IR ---------------------------------------------------------------------------------

// _fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor
RuleResult aten_fft_r2c(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType component = complex_component(args.out_dtype());
  const std::vector<int64_t> dims = fft_dims(args, args.rank_of("self"));
  const std::vector<int64_t> sizes = sizes_at(need_static(static_sizes(args.meta("self"))), dims);
  const std::string x = cast_if_needed(ctx, args.tensor("self"), args.dtype_of("self"), component);
  return emitted(ctx, r2c(ctx, x, dims, sizes, norm_arg(args), args.get_bool("onesided"), component));
}

// _fft_c2c(Tensor self, SymInt[] dim, int normalization, bool forward) -> Tensor
RuleResult aten_fft_c2c(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType component = complex_component(args.out_dtype());
  const std::vector<int64_t> dims = fft_dims(args, args.rank_of("self"));
  const std::vector<int64_t> sizes = sizes_at(need_static(static_sizes(args.meta("self"))), dims);
  const std::string x = cast_if_needed(ctx, args.tensor("self"), complex_component(args.dtype_of("self")), component);
  return emitted(ctx, c2c(ctx, x, dims, sizes, norm_arg(args), args.get_bool("forward"), component));
}

// _fft_c2r(Tensor self, int[] dim, int normalization, SymInt last_dim_size) -> Tensor
RuleResult aten_fft_c2r(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  const DType component = args.out_dtype();
  const int64_t rank = args.rank_of("self");
  const std::vector<int64_t> dims = fft_dims(args, rank);
  const std::vector<int64_t> shape = need_static(static_sizes(args.meta("self")));
  PT2ONNX_CHECK(args.is_static_int("last_dim_size"), ErrorCode::kUnsupported, "an inverse real FFT to a symbolic size");
  const int64_t n = args.get_int("last_dim_size");
  std::vector<int64_t> sizes;
  for (int64_t d : dims) sizes.push_back(d == dims.back() ? n : shape[static_cast<size_t>(d)]);
  const std::string x = cast_if_needed(ctx, args.tensor("self"), complex_component(args.dtype_of("self")), component);
  return emitted(ctx, c2r(ctx, x, rank, dims, shape[static_cast<size_t>(dims.back())], n, sizes, norm_arg(args), component));
}

// ---- default IR: torch.fft user ops ------------------------------------------------------------

enum class Kind { kFft, kIfft, kRfft, kIrfft, kHfft, kIhfft };

// torch.fft's norm string for a transform in direction `forward`.
Norm norm_string(const ArgReader& args, bool forward) {
  const std::string norm = args.has("norm") ? args.string_or("norm", "backward") : "backward";
  if (norm == "ortho") return Norm::kByRootN;
  if (norm == "backward") return forward ? Norm::kNone : Norm::kByN;
  if (norm == "forward") return forward ? Norm::kByN : Norm::kNone;
  fail(ErrorCode::kUnsupported, "fft norm '" + norm + "'");
}

// `x` (a pair when `pair`) cut or zero-padded along `dim` from `have` to `want` elements.
std::string resized(EmitContext& ctx, const std::string& x, int64_t rank, bool pair, int64_t dim, int64_t have,
                    int64_t want) {
  if (want == have) return x;
  if (want < have) return ctx.emit("Slice", {x, ctx.const_i64s({0}), ctx.const_i64s({want}), ctx.const_i64s({dim})});
  const int64_t r = rank + (pair ? 1 : 0);
  std::vector<int64_t> pads(static_cast<size_t>(2 * r), 0);
  pads[static_cast<size_t>(r + dim)] = want - have;
  return ctx.emit("Pad", {x, ctx.const_i64s(pads)});
}

// The dims and sizes of an n-dim user op: fft_fftn(self, SymInt[1]? s=None, int[1]? dim=None, ...),
// the 2-D forms (dim defaults [-2, -1]) and the 1-D ones (SymInt? n=None, int dim=-1).
struct UserPlan {
  std::vector<int64_t> dims;
  std::vector<std::optional<int64_t>> lengths;  // s / n per dim; nullopt: the input's (or c2r's default)
};

UserPlan user_plan(const ArgReader& args, const ir::Node& node, int64_t rank) {
  UserPlan plan;
  if (node.input("s") == nullptr) {  // the 1-D ops: n and one dim
    plan.dims = {normalize_dim(args.int_or("dim", -1), rank)};
    std::optional<int64_t> n;
    if (args.has("n")) {
      PT2ONNX_CHECK(args.is_static_int("n"), ErrorCode::kUnsupported, "an FFT of a symbolic length n");
      n = args.get_int("n");
    }
    plan.lengths = {n};
    return plan;
  }
  std::optional<std::vector<int64_t>> s;
  if (args.has("s")) {
    PT2ONNX_CHECK(args.is_static_ints("s"), ErrorCode::kUnsupported, "an FFT of symbolic lengths s");
    s = args.ints("s");
  }
  if (args.has("dim")) {
    plan.dims = normalize_dims(args.ints("dim"), rank);
  } else if (s) {
    for (size_t i = 0; i < s->size(); ++i) plan.dims.push_back(rank - static_cast<int64_t>(s->size()) + static_cast<int64_t>(i));
  } else {
    for (int64_t d = 0; d < rank; ++d) plan.dims.push_back(d);
  }
  PT2ONNX_CHECK(!s || s->size() == plan.dims.size(), ErrorCode::kUnsupported, "fft s and dim of different lengths");
  for (size_t i = 0; i < plan.dims.size(); ++i) plan.lengths.push_back(s ? std::optional<int64_t>((*s)[i]) : std::nullopt);
  PT2ONNX_CHECK(!plan.dims.empty(), ErrorCode::kUnsupported, "an FFT over no dims");
  return plan;
}

RuleResult user_fft(EmitContext& ctx, const ir::Node& node, Kind kind) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  const DType in_type = args.dtype_of("self");
  bool complex_in = is_complex(in_type);
  const DType out_type = args.out_dtype();
  const DType component = is_complex(out_type) ? complex_component(out_type) : out_type;
  const std::vector<int64_t> shape = need_static(static_sizes(args.meta("self")));
  const UserPlan plan = user_plan(args, node, rank);
  // hfft is a forward transform written as an inverse real one, ihfft the other way round.
  const bool forward = kind == Kind::kFft || kind == Kind::kRfft || kind == Kind::kHfft;
  const Norm norm = norm_string(args, forward);
  std::string x = args.tensor("self");
  x = complex_in ? cast_if_needed(ctx, x, complex_component(in_type), component) : cast_if_needed(ctx, x, in_type, component);
  if (!complex_in && (kind == Kind::kIrfft || kind == Kind::kHfft)) {  // torch makes a real input complex first
    std::vector<int64_t> pads(static_cast<size_t>(2 * (rank + 1)), 0);
    pads.back() = 1;  // a zero imaginary part after each value
    x = ctx.emit("Pad", {ctx.unsqueeze(x, {-1}), ctx.const_i64s(pads)});
    complex_in = true;
  }

  // Every dim but the last of c2r is resized to its length; c2r's last dim is cut or padded to
  // n/2 + 1 bins by c2r itself.
  std::vector<int64_t> sizes;
  for (size_t i = 0; i < plan.dims.size(); ++i) {
    const int64_t d = plan.dims[i];
    const int64_t have = shape[static_cast<size_t>(d)];
    const bool c2r_last = (kind == Kind::kIrfft || kind == Kind::kHfft) && i + 1 == plan.dims.size();
    const int64_t want = plan.lengths[i].value_or(c2r_last ? 2 * (have - 1) : have);
    if (!c2r_last) x = resized(ctx, x, rank, complex_in, d, have, want);
    sizes.push_back(want);
  }
  switch (kind) {
    case Kind::kRfft:
      PT2ONNX_CHECK(!complex_in, ErrorCode::kUnsupported, "rfft of a complex tensor");
      return emitted(ctx, r2c(ctx, x, plan.dims, sizes, norm, true, component));
    case Kind::kIrfft:
    case Kind::kHfft: {
      // hfftn(x) = N * irfftn(conj x): the forward transform of a Hermitian signal is real, so
      // conj(N * ifftn(conj x)) drops its conj
      if (kind == Kind::kHfft) x = conjugated(ctx, x, component);
      const int64_t last = plan.dims.back();
      return emitted(ctx, c2r(ctx, x, rank, plan.dims, shape[static_cast<size_t>(last)], sizes.back(), sizes, norm, component));
    }
    case Kind::kIhfft:  // ihfftn(x) = conj(rfftn(x)) / n: onesided on the last dim, as rfftn
      PT2ONNX_CHECK(!complex_in, ErrorCode::kUnsupported, "ihfft of a complex tensor");
      return emitted(ctx, conjugated(ctx, r2c(ctx, x, plan.dims, sizes, norm, true, component), component));
    case Kind::kFft:
    case Kind::kIfft:
      if (!complex_in) {
        if (forward) return emitted(ctx, r2c(ctx, x, plan.dims, sizes, norm, false, component));
        std::vector<int64_t> pads(static_cast<size_t>(2 * (rank + 1)), 0);
        pads.back() = 1;
        x = ctx.emit("Pad", {ctx.unsqueeze(x, {-1}), ctx.const_i64s(pads)});
      }
      return emitted(ctx, c2c(ctx, x, plan.dims, sizes, norm, forward, component));
  }
  return RuleResult::kDeclined;
}

// fft_hfft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor
RuleResult aten_fft_hfft(EmitContext& ctx, const ir::Node& node) { return user_fft(ctx, node, Kind::kHfft); }
// fft_ihfft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor
RuleResult aten_fft_ihfft(EmitContext& ctx, const ir::Node& node) { return user_fft(ctx, node, Kind::kIhfft); }

// fft_fftshift(Tensor self, int[1]? dim=None) -> Tensor; fft_ifftshift: a roll of every dim (or
// of `dim`) by n // 2 (ifftshift: by -(n // 2)) as Slice + Concat, real or a pair alike.
RuleResult fft_shift(EmitContext& ctx, const ir::Node& node, bool inverse) {
  ArgReader args(ctx, node);
  const int64_t rank = args.rank_of("self");
  std::vector<int64_t> dims;
  if (args.has("dim")) {
    dims = normalize_dims(args.ints("dim"), rank);
  } else {
    for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
  }
  const std::vector<int64_t> shape = need_static(static_sizes(args.meta("self")));
  std::string x = args.tensor("self");
  for (int64_t d : dims) {
    const int64_t n = shape[static_cast<size_t>(d)];
    const int64_t split = inverse ? n / 2 : n - n / 2;  // elements [split, n) move to the front
    if (n < 2 || split == 0 || split == n) continue;
    const std::string axes = ctx.const_i64s({d});
    const std::string tail = ctx.emit("Slice", {x, ctx.const_i64s({split}), ctx.const_i64s({n}), axes});
    const std::string head = ctx.emit("Slice", {x, ctx.const_i64s({0}), ctx.const_i64s({split}), axes});
    x = ctx.concat({tail, head}, d);
  }
  return emitted(ctx, x);
}
RuleResult aten_fft_fftshift(EmitContext& ctx, const ir::Node& node) { return fft_shift(ctx, node, false); }
RuleResult aten_fft_ifftshift(EmitContext& ctx, const ir::Node& node) { return fft_shift(ctx, node, true); }

// fft_fftfreq(int n, float d=1.0, *, ScalarType? dtype=None, ...) -> Tensor: [0, 1, ..., -2, -1] / (d n);
// fft_rfftfreq: [0, 1, ..., n // 2] / (d n)
RuleResult fft_freq(EmitContext& ctx, const ir::Node& node, bool onesided) {
  ArgReader args(ctx, node);
  const int64_t n = args.get_int("n");
  PT2ONNX_CHECK(n >= 1, ErrorCode::kUnsupported, "fftfreq of " + std::to_string(n) + " points");
  const DType type = args.out_dtype();
  PT2ONNX_CHECK(is_floating(type), ErrorCode::kUnsupported, "fftfreq in " + std::string(ir::dtype_name(type)));
  std::vector<int64_t> k;
  for (int64_t i = 0; i <= (onesided ? n / 2 : (n - 1) / 2); ++i) k.push_back(i);
  if (!onesided)
    for (int64_t i = -(n / 2); i < 0; ++i) k.push_back(i);
  const double scale = args.float_or("d", 1.0) * static_cast<double>(n);
  return emitted(ctx, ctx.emit("Div", {ctx.cast(ctx.const_i64s(k), type), ctx.const_scalar(scale, type)}));
}
RuleResult aten_fft_fftfreq(EmitContext& ctx, const ir::Node& node) { return fft_freq(ctx, node, false); }
RuleResult aten_fft_rfftfreq(EmitContext& ctx, const ir::Node& node) { return fft_freq(ctx, node, true); }

// fft_fft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor; fft_fft2, fft_fftn
RuleResult aten_fft_fft(EmitContext& ctx, const ir::Node& node) { return user_fft(ctx, node, Kind::kFft); }
// fft_ifft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor; fft_ifft2, fft_ifftn
RuleResult aten_fft_ifft(EmitContext& ctx, const ir::Node& node) { return user_fft(ctx, node, Kind::kIfft); }
// fft_rfft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor; fft_rfft2, fft_rfftn
RuleResult aten_fft_rfft(EmitContext& ctx, const ir::Node& node) { return user_fft(ctx, node, Kind::kRfft); }
// fft_irfft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor; fft_irfft2, fft_irfftn
RuleResult aten_fft_irfft(EmitContext& ctx, const ir::Node& node) { return user_fft(ctx, node, Kind::kIrfft); }

// ---- stft / istft (the default IR; core IR decomposes them into unfold and _fft_*) -----------

// The window as torch uses it: `window` (or ones of win_length) zero-padded to n_fft, centred.
std::string padded_window(EmitContext& ctx, const ArgReader& args, int64_t n_fft, DType type) {
  const int64_t win = args.has("win_length") ? args.get_int("win_length") : n_fft;
  PT2ONNX_CHECK(win >= 1 && win <= n_fft, ErrorCode::kUnsupported, "a window longer than n_fft");
  std::string w = args.has("window") ? cast_if_needed(ctx, args.tensor("window"), args.dtype_of("window"), type)
                                     : ctx.const_tensor(filled_tensor(1, type, {win}), "stft_window");
  if (args.has("window")) {
    const ir::TensorMeta& m = args.meta("window");
    PT2ONNX_CHECK(m.sizes.size() == 1 && m.sizes[0].is_static() && m.sizes[0].as_int() == win, ErrorCode::kUnsupported,
                  "an stft window whose length is not win_length");
    PT2ONNX_CHECK(!is_complex(args.dtype_of("window")), ErrorCode::kUnsupported, "a complex stft window");
  }
  if (win == n_fft) return w;
  const int64_t left = (n_fft - win) / 2;
  return ctx.emit("Pad", {w, ctx.const_i64s({left, n_fft - win - left})});
}

int64_t hop_of(const ArgReader& args, int64_t n_fft) {
  const int64_t hop = args.has("hop_length") ? args.get_int("hop_length") : n_fft / 4;
  PT2ONNX_CHECK(hop >= 1, ErrorCode::kUnsupported, "an stft hop of " + std::to_string(hop));
  return hop;
}

// stft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None,
//      bool normalized=False, bool? onesided=None, bool? return_complex=None, bool? align_to_window=None) -> Tensor
// Frames by one Gather of the frame-start + offset indices, windowed, a onesided DFT each, then
// [..., bins, frames]; torch.stft's centre padding is a pad node before this one.
//
// stft.center(..., bool center=True, str pad_mode="reflect", ...) first pads the signal by n_fft / 2
// on both sides (reflect, constant, replicate: ONNX Pad's reflect, constant, edge; circular: wrap,
// opset 19), then is the same.
RuleResult aten_stft(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(!args.bool_or("align_to_window", false), ErrorCode::kUnsupported, "stft with align_to_window");
  PT2ONNX_CHECK(!is_complex(args.dtype_of("self")), ErrorCode::kUnsupported, "stft of a complex signal");
  const int64_t rank = args.rank_of("self");
  PT2ONNX_CHECK(rank == 1 || rank == 2, ErrorCode::kUnsupported, "stft of a rank-" + std::to_string(rank) + " signal");
  const std::vector<int64_t> shape = need_static(static_sizes(args.meta("self")));
  const DType out = args.out_dtype();
  const DType component = is_complex(out) ? complex_component(out) : out;
  const int64_t n_fft = args.get_int("n_fft"), hop = hop_of(args, n_fft);
  std::string signal = args.tensor("self");
  int64_t length = shape.back();
  if (args.bool_or("center", false)) {
    const std::string pad_mode = args.string_or("pad_mode", "reflect");
    const std::map<std::string, std::string> modes = {{"reflect", "reflect"}, {"constant", "constant"}, {"replicate", "edge"}, {"circular", "wrap"}};
    const auto mode = modes.find(pad_mode);
    PT2ONNX_CHECK(mode != modes.end() && (pad_mode != "circular" || ctx.opset() >= 19), ErrorCode::kUnsupported,
                  "stft with pad_mode '" + pad_mode + "'" + (pad_mode == "circular" ? " below opset 19" : ""));
    const int64_t pad = n_fft / 2;
    PT2ONNX_CHECK(pad_mode != "reflect" || pad < length, ErrorCode::kUnsupported, "an stft reflecting past the signal");
    const std::string pads = ctx.const_i64s(rank == 1 ? std::vector<int64_t>{pad, pad} : std::vector<int64_t>{0, pad, 0, pad});
    signal = ctx.emit("Pad", {signal, pads}, {Attr("mode", mode->second)});
    length += 2 * pad;
  }
  PT2ONNX_CHECK(n_fft >= 1 && n_fft <= length, ErrorCode::kUnsupported, "an stft with n_fft past the signal");
  const int64_t frames = 1 + (length - n_fft) / hop;
  // index[f, k] = f * hop + k, computed in the graph (a constant would be frames * n_fft int64s)
  const std::string starts = ctx.emit("Range", {ctx.const_i64(0), ctx.const_i64(frames * hop), ctx.const_i64(hop)});
  const std::string offsets = ctx.emit("Range", {ctx.const_i64(0), ctx.const_i64(n_fft), ctx.const_i64(1)});
  const std::string index = ctx.emit("Add", {ctx.unsqueeze(starts, {1}), ctx.unsqueeze(offsets, {0})});
  const std::string x = cast_if_needed(ctx, signal, args.dtype_of("self"), component);
  std::string y = ctx.emit("Gather", {x, index}, {Attr("axis", int64_t{-1})});
  y = ctx.emit("Mul", {y, padded_window(ctx, args, n_fft, component)});
  y = narrowed(ctx, dft(ctx, widened(ctx, ctx.unsqueeze(y, {-1}), component), rank, false, args.bool_or("onesided", true)),
               component);  // [..., frames, bins, 2]
  y = ctx.transpose(y, rank == 1 ? std::vector<int64_t>{1, 0, 2} : std::vector<int64_t>{0, 2, 1, 3});
  if (args.get_bool("normalized")) y = ctx.emit("Mul", {y, ctx.const_scalar(1 / std::sqrt(double(n_fft)), component)});
  return emitted(ctx, y);
}

// istft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None,
//       bool center=True, bool normalized=False, bool? onesided=None, int? length=None,
//       bool return_complex=False) -> Tensor
// An inverse DFT per frame, windowed, overlap-added by Col2Im (frames as blocks of 1 x n_fft at a
// stride of hop), divided by the overlap-added squared window, trimmed as torch does.
RuleResult aten_istft(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(!args.bool_or("return_complex", false), ErrorCode::kUnsupported, "istft with return_complex");
  const int64_t rank = args.rank_of("self");
  PT2ONNX_CHECK(rank == 2 || rank == 3, ErrorCode::kUnsupported, "istft of a rank-" + std::to_string(rank) + " spectrum");
  const std::vector<int64_t> shape = need_static(static_sizes(args.meta("self")));
  const DType component = args.out_dtype();
  const int64_t n_fft = args.get_int("n_fft"), hop = hop_of(args, n_fft);
  const int64_t bins = shape[static_cast<size_t>(rank - 2)], frames = shape.back();
  const bool onesided = args.bool_or("onesided", bins != n_fft);
  PT2ONNX_CHECK(bins == (onesided ? n_fft / 2 + 1 : n_fft), ErrorCode::kUnsupported,
                "istft of " + std::to_string(bins) + " bins for n_fft " + std::to_string(n_fft));
  std::string x = cast_if_needed(ctx, args.tensor("self"), complex_component(args.dtype_of("self")), component);
  if (rank == 2) x = ctx.unsqueeze(x, {0});
  x = ctx.transpose(x, {0, 2, 1, 3});  // [B, frames, bins, 2]
  if (args.get_bool("normalized")) x = ctx.emit("Mul", {x, ctx.const_scalar(std::sqrt(double(n_fft)), component)});
  std::string y = onesided ? c2r(ctx, x, 3, {2}, bins, n_fft, {n_fft}, Norm::kByN, component)
                           : ctx.emit("Gather", {c2c(ctx, x, {2}, {n_fft}, Norm::kByN, false, component), ctx.const_i64(0)},
                                      {Attr("axis", int64_t{-1})});
  const std::string window = padded_window(ctx, args, n_fft, component);
  y = ctx.transpose(ctx.emit("Mul", {y, window}), {0, 2, 1});  // [B, n_fft, frames]
  const int64_t full = n_fft + hop * (frames - 1);
  const std::vector<Attr> fold = {Attr("strides", std::vector<int64_t>{1, hop})};
  const std::string image = ctx.const_i64s({1, full}), block = ctx.const_i64s({1, n_fft});
  y = ctx.reshape(ctx.emit("Col2Im", {y, image, block}, fold), ctx.const_i64s({-1, full}));
  const std::string squares = ctx.emit("Expand", {ctx.unsqueeze(ctx.emit("Mul", {window, window}), {0, 2}),
                                                  ctx.const_i64s({1, n_fft, frames})});
  std::string envelope = ctx.reshape(ctx.emit("Col2Im", {squares, image, block}, fold), ctx.const_i64s({1, full}));
  const int64_t start = args.get_bool("center") ? n_fft / 2 : 0;
  const std::optional<int64_t> length = args.optional_int("length");
  const int64_t end = length ? start + *length : (args.get_bool("center") ? full - n_fft / 2 : full);
  const int64_t kept = std::min(end, full);
  auto trim = [&](const std::string& v) {
    return ctx.emit("Slice", {v, ctx.const_i64s({start}), ctx.const_i64s({kept}), ctx.const_i64s({1})});
  };
  y = ctx.emit("Div", {trim(y), trim(envelope)});
  if (end > kept) y = ctx.emit("Pad", {y, ctx.const_i64s({0, 0, 0, end - kept})});
  return emitted(ctx, rank == 2 ? ctx.squeeze(y, {0}) : y);
}

}  // namespace

void register_fft_rules(RuleTable& t) {
  t.add_complex("aten._fft_r2c.default", aten_fft_r2c);
  t.add_complex("aten._fft_c2c.default", aten_fft_c2c);
  t.add_complex("aten._fft_c2r.default", aten_fft_c2r);
  for (const char* target : {"aten.fft_fft.default", "aten.fft_fft2.default", "aten.fft_fftn.default"})
    t.add_complex(target, aten_fft_fft);
  for (const char* target : {"aten.fft_ifft.default", "aten.fft_ifft2.default", "aten.fft_ifftn.default"})
    t.add_complex(target, aten_fft_ifft);
  for (const char* target : {"aten.fft_rfft.default", "aten.fft_rfft2.default", "aten.fft_rfftn.default"})
    t.add_complex(target, aten_fft_rfft);
  // irfft and hfft of a real tensor (a real result, no complex value in the node) as well
  for (const char* target : {"aten.fft_irfft.default", "aten.fft_irfft2.default", "aten.fft_irfftn.default"}) {
    t.add_complex(target, aten_fft_irfft);
    t.add(target, aten_fft_irfft);
  }
  for (const char* target : {"aten.fft_hfft.default", "aten.fft_hfft2.default", "aten.fft_hfftn.default"}) {
    t.add_complex(target, aten_fft_hfft);
    t.add(target, aten_fft_hfft);
  }
  for (const char* target : {"aten.fft_ihfft.default", "aten.fft_ihfft2.default", "aten.fft_ihfftn.default"})
    t.add_complex(target, aten_fft_ihfft);
  // real and complex alike: the dims are addressed by non-negative index
  t.add("aten.fft_fftshift.default", aten_fft_fftshift);
  t.add_complex("aten.fft_fftshift.default", aten_fft_fftshift);
  t.add("aten.fft_ifftshift.default", aten_fft_ifftshift);
  t.add_complex("aten.fft_ifftshift.default", aten_fft_ifftshift);
  t.add("aten.fft_fftfreq.default", aten_fft_fftfreq);
  t.add("aten.fft_rfftfreq.default", aten_fft_rfftfreq);
  t.add_complex("aten.stft.default", aten_stft);
  t.add_complex("aten.stft.center", aten_stft);
  t.add_complex_since(kCol2ImOpset, "aten.istft.default", aten_istft);
}

}  // namespace pt2onnx::translate
