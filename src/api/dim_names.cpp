#include "api/dim_names.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <variant>

#include "common/error.h"
#include "ir/rename_symbols.h"

namespace pt2onnx::api {

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// "input_ids: [s72, s70]" for each user tensor input, to show in errors what can be named.
std::string describe_inputs(const ir::Program& program) {
  std::string out;
  for (const ir::InputSpec& spec : program.signature.inputs) {
    if (spec.kind != ir::InputKind::kUserInput) continue;
    const auto* t = std::get_if<ir::TensorArg>(&spec.arg);
    if (!t) continue;
    const auto it = program.graph.tensor_values.find(t->name);
    if (it == program.graph.tensor_values.end()) continue;
    std::string dims;
    for (const ir::Dim& d : it->second.sizes)
      dims += (dims.empty() ? "" : ", ") + (d.is_static() ? std::to_string(d.as_int()) : ir::to_string(d.as_expr()));
    out += (out.empty() ? "" : "; ") + t->name + " [" + dims + "]";
  }
  return out.empty() ? "no tensor inputs" : out;
}

// The symbol KEY names; throws with `what` (the request as given) on failure.
std::string symbol_of(const ir::Program& program, const std::vector<std::string>& symbols, const std::string& key,
                      const std::string& what) {
  if (std::binary_search(symbols.begin(), symbols.end(), key)) return key;
  const size_t dot = key.rfind('.');
  auto no_such = [&](const std::string& why) {
    std::string known;
    for (const std::string& s : symbols) known += (known.empty() ? "" : ", ") + s;
    fail(ErrorCode::kUsage, "dim name " + what + ": " + why + " (symbols: " + (known.empty() ? "none" : known) +
                                "; inputs: " + describe_inputs(program) + ")");
  };
  if (dot == std::string::npos || dot == 0 || dot + 1 == key.size()) no_such("'" + key + "' is no symbol of the program");
  const std::string input = key.substr(0, dot), index_text = key.substr(dot + 1);
  int64_t index = 0;
  try {
    size_t used = 0;
    index = std::stoll(index_text, &used);
    if (used != index_text.size()) throw std::invalid_argument(index_text);
  } catch (const std::exception&) {
    no_such("'" + index_text + "' is not a dim index");
  }
  const ir::TensorMeta* meta = nullptr;
  for (const ir::InputSpec& spec : program.signature.inputs)
    if (spec.kind == ir::InputKind::kUserInput)
      if (const auto* t = std::get_if<ir::TensorArg>(&spec.arg); t && t->name == input) {
        const auto it = program.graph.tensor_values.find(t->name);
        if (it != program.graph.tensor_values.end()) meta = &it->second;
      }
  if (!meta) no_such("'" + input + "' is no tensor input of the program");
  const int64_t rank = static_cast<int64_t>(meta->sizes.size());
  if (index < -rank || index >= rank) no_such(input + " has rank " + std::to_string(rank));
  const ir::Dim& d = meta->sizes[static_cast<size_t>(index < 0 ? index + rank : index)];
  PT2ONNX_CHECK(!d.is_static(), ErrorCode::kUsage,
                "dim name " + what + ": " + key + " is static (size " + (d.is_static() ? std::to_string(d.as_int()) : "") +
                    "); only dynamic dims have names");
  PT2ONNX_CHECK(d.as_expr()->op == ir::SymOp::kSymbol, ErrorCode::kUsage,
                "dim name " + what + ": " + key + " is " + ir::to_string(d.as_expr()) +
                    ", computed from other dims; name the symbols it is made of");
  return d.as_expr()->name;
}

}  // namespace

std::map<std::string, std::string> resolve_dim_names(const ir::Program& program,
                                                     const std::map<std::string, std::string>& requests) {
  std::map<std::string, std::string> names;     // symbol -> new name
  std::map<std::string, std::string> requested;  // symbol -> the request that named it, for messages
  std::map<std::string, std::string> claimed;    // new name -> symbol
  if (requests.empty()) return names;
  const std::vector<std::string> symbols = ir::program_symbols(program);
  for (const auto& [key, name] : requests) {
    const std::string what = key + "=" + name;
    PT2ONNX_CHECK(is_identifier(name), ErrorCode::kUsage,
                  "dim name " + what + ": '" + name + "' is not an identifier (letters, digits and '_', not starting with a digit)");
    const std::string symbol = symbol_of(program, symbols, key, what);
    if (const auto it = names.find(symbol); it != names.end())
      PT2ONNX_CHECK(it->second == name, ErrorCode::kUsage,
                    "dim name " + what + ": " + symbol + " is already named " + it->second + " by " + requested[symbol]);
    if (const auto it = claimed.find(name); it != claimed.end())
      PT2ONNX_CHECK(it->second == symbol, ErrorCode::kUsage,
                    "dim name " + what + ": " + name + " already names " + it->second + " (" + requested[it->second] +
                        "); two dims with one name would be declared equal");
    names[symbol] = name;
    requested[symbol] = what;
    claimed[name] = symbol;
  }
  for (const auto& [name, symbol] : claimed)
    PT2ONNX_CHECK(name == symbol || names.count(name) || !std::binary_search(symbols.begin(), symbols.end(), name),
                  ErrorCode::kUsage,
                  "dim name " + requested[symbol] + ": " + name + " is already a symbol of the program; rename it too or choose another name");
  return names;
}

}  // namespace pt2onnx::api
