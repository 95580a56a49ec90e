// Reads a --config file into a Config, checking every field as it goes. Unknown keys are errors
// (a misspelt key would otherwise be ignored silently); each message names the JSON path.
#include <cctype>
#include <cmath>
#include <limits>
#include <fstream>
#include <map>
#include <set>
#include <type_traits>
#include <variant>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/limits.h"
#include "config/config.h"
#include "config/onnx_text.h"
#include "config/option_table.h"
#include "hierarchy/function_naming.h"

namespace pt2onnx::config {

namespace {

using Json = nlohmann::json;

// A JSON value and where it is in the document.
struct Field {
  const Json& value;
  std::string path;

  Field at(const std::string& key) const { return {value.at(key), path + "." + key}; }
  Field item(size_t i) const { return {value.at(i), path + "[" + std::to_string(i) + "]"}; }
  bool has(const std::string& key) const { return value.contains(key); }
};

[[noreturn]] void bad(const Field& f, const std::string& what) { fail(ErrorCode::kUsage, f.path + ": " + what); }

const char* kind_of(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "an integer";
    case Json::value_t::number_float: return "a number";
    default: return "an unexpected value";
  }
}

void expect_object(const Field& f, const std::set<std::string>& allowed) {
  if (!f.value.is_object()) bad(f, std::string("expected an object, found ") + kind_of(f.value));
  for (const auto& [key, v] : f.value.items()) {
    if (allowed.count(key)) continue;
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    bad({v, f.path + "." + key}, "unknown key (allowed here: " + list + ")");
  }
}

std::string get_string(const Field& f) {
  if (!f.value.is_string()) bad(f, std::string("expected a string, found ") + kind_of(f.value));
  return f.value.get<std::string>();
}

std::string get_nonempty_string(const Field& f) {
  std::string s = get_string(f);
  if (s.empty()) bad(f, "must not be empty");
  return s;
}

int64_t get_int(const Field& f, int64_t min, int64_t max) {
  if (!f.value.is_number_integer()) bad(f, std::string("expected an integer, found ") + kind_of(f.value));
  const int64_t v = f.value.get<int64_t>();
  if (v < min || v > max) bad(f, std::to_string(v) + " is out of range (" + std::to_string(min) + " to " + std::to_string(max) + ")");
  return v;
}

bool get_bool(const Field& f) {
  if (!f.value.is_boolean()) bad(f, std::string("expected true or false, found ") + kind_of(f.value));
  return f.value.get<bool>();
}

std::vector<std::string> get_strings(const Field& f, bool allow_empty_items) {
  if (!f.value.is_array()) bad(f, std::string("expected an array of strings, found ") + kind_of(f.value));
  std::vector<std::string> out;
  for (size_t i = 0; i < f.value.size(); ++i)
    out.push_back(allow_empty_items ? get_string(f.item(i)) : get_nonempty_string(f.item(i)));
  return out;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::filesystem::path resolve(const std::filesystem::path& config, const std::string& p) {
  const std::filesystem::path path(p);
  return path.is_absolute() ? path : config.parent_path() / path;
}

// A value of the row's own rule (option_table.h), or refused naming the field.
std::string checked(const OptionSpec& spec, const Field& f, std::string value) {
  if (spec.check)
    if (const std::string error = spec.check(value); !error.empty()) bad(f, error);
  return value;
}

// One option of the table, read from its key as the field's type says.
void read_option(const OptionSpec& spec, const Field& f, Config& config) {
  std::visit(
      [&](auto* field) {
        using T = std::remove_pointer_t<decltype(field)>;
        if constexpr (std::is_same_v<T, bool>) {
          *field = get_bool(f);
        } else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, uint64_t>) {
          const bool ranged = spec.min < spec.max;
          const int64_t min = ranged ? spec.min : std::is_same_v<T, int> ? std::numeric_limits<int>::min() : 0;
          const int64_t max = ranged ? spec.max : std::numeric_limits<int>::max();
          *field = static_cast<T>(get_int(f, min, max));
        } else if constexpr (std::is_same_v<T, std::string>) {
          if (spec.kind == OptionKind::kFlagValue && f.value.is_boolean()) *field = f.value.get<bool>() ? spec.flag_value : "";
          else *field = checked(spec, f, get_nonempty_string(f));
        } else if constexpr (std::is_same_v<T, std::filesystem::path>) {
          *field = resolve(config.path, checked(spec, f, get_nonempty_string(f)));
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          *field = get_strings(f, /*allow_empty_items=*/false);
          for (size_t i = 0; i < field->size(); ++i) checked(spec, f.item(i), (*field)[i]);
        } else {  // KEY: NAME; keys and names are checked against the program (api/dim_names.h)
          if (!f.value.is_object()) bad(f, std::string("expected an object, found ") + kind_of(f.value));
          for (const auto& [key, v] : f.value.items()) (*field)[key] = get_nonempty_string(f.at(key));
        }
      },
      field_of(spec, config.options));
  config.given.push_back(&spec);
}

// The keys allowed in the object at `prefix` ("" for the top level, "functions." for a group):
// the next part of each config key under it.
std::set<std::string> option_keys(const std::string& prefix) {
  std::set<std::string> keys;
  for (const OptionSpec& spec : option_table())
    if (!spec.config_key.empty() && spec.config_key.compare(0, prefix.size(), prefix) == 0) {
      const std::string rest = spec.config_key.substr(prefix.size());
      keys.insert(rest.substr(0, rest.find('.')));
    }
  return keys;
}

// The options in the object at `prefix`, groups ("functions") read recursively. Keys other than
// options (rules, $schema, comment at the top) are the caller's.
void read_options(const Field& object, const std::string& prefix, Config& config) {
  for (const auto& [key, v] : object.value.items()) {
    const std::string full = prefix + key;
    if (const OptionSpec* spec = option_by_config_key(full)) {
      read_option(*spec, object.at(key), config);
    } else if (const std::set<std::string> inner = option_keys(full + "."); !inner.empty()) {
      const Field group = object.at(key);
      expect_object(group, inner);
      read_options(group, full + ".", config);
    }
  }
}

// A custom domain: not the standard ones, dotted identifiers ("com.example.ops").
std::string get_domain(const Field& f) {
  const std::string d = get_nonempty_string(f);
  if (const std::string error = domain_error(d); !error.empty()) bad(f, error);
  return d;
}

// An op_type of a custom node: an identifier that is no standard op name, since TensorRT picks
// its builtin op by op_type alone, whatever the domain.
std::string get_op_type(const Field& f) {
  const std::string t = get_nonempty_string(f);
  if (!is_identifier(t)) bad(f, "'" + t + "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)");
  if (hierarchy::is_standard_op_name(t))
    bad(f, "'" + t + "' is the name of a standard ONNX op; TensorRT would run its builtin op in place of this node "
               "(it dispatches by op_type and ignores the domain), so choose another name");
  return t;
}

// A number as an ONNX float attribute: one that float cannot hold is refused, not made infinite.
float get_float(const Field& f, const Json& v) {
  const double d = v.get<double>();
  if (std::isfinite(d) && std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max()))
    bad(f, v.dump() + " does not fit in a float attribute");
  return static_cast<float>(d);
}

// A literal attribute value: integer, number, string, or a non-empty array of numbers.
translate::Attr::Value literal_value(const Field& f) {
  const Json& v = f.value;
  if (v.is_number_integer()) return translate::Attr::Value(v.get<int64_t>());
  if (v.is_number_float()) return translate::Attr::Value(get_float(f, v));
  if (v.is_boolean()) return translate::Attr::Value(int64_t{v.get<bool>() ? 1 : 0});
  if (v.is_string()) return translate::Attr::Value(v.get<std::string>());
  if (v.is_array() && !v.empty()) {
    bool all_ints = true;
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_number()) bad(f.item(i), std::string("expected a number, found ") + kind_of(v[i]));
      all_ints = all_ints && v[i].is_number_integer();
    }
    if (all_ints) return translate::Attr::Value(v.get<std::vector<int64_t>>());
    std::vector<float> floats;
    for (size_t i = 0; i < v.size(); ++i) floats.push_back(get_float(f.item(i), v[i]));
    return translate::Attr::Value(std::move(floats));
  }
  bad(f, std::string("expected an integer, a number, a string, a boolean or a non-empty array of numbers, found ") +
             kind_of(v));
}

std::vector<translate::CustomAttribute> get_attributes(const Field& f, bool allow_args) {
  if (!f.value.is_object()) bad(f, std::string("expected an object of attributes, found ") + kind_of(f.value));
  std::vector<translate::CustomAttribute> out;
  for (const auto& [name, v] : f.value.items()) {
    const Field a = f.at(name);
    if (!is_identifier(name)) bad(a, "'" + name + "' is not an attribute name ([A-Za-z_][A-Za-z0-9_]*)");
    translate::CustomAttribute attr;
    attr.name = name;
    attr.origin = a.path.substr(2);  // without "$."
    expect_object(a, allow_args ? std::set<std::string>{"arg", "value"} : std::set<std::string>{"value"});
    if (a.has("arg") == a.has("value"))
      bad(a, allow_args ? "give exactly one of \"arg\" (an argument of the op) and \"value\" (a literal)"
                        : "give \"value\" (a literal)");
    if (a.has("arg")) attr.from_arg = get_nonempty_string(a.at("arg"));
    else attr.value = literal_value(a.at("value"));
    out.push_back(std::move(attr));
  }
  return out;
}

// "function": ONNX text, as one string or as an array of lines.
std::string get_text(const Field& f) {
  if (f.value.is_string()) return f.value.get<std::string>();
  if (!f.value.is_array()) bad(f, std::string("expected a string or an array of lines, found ") + kind_of(f.value));
  std::string text;
  for (size_t i = 0; i < f.value.size(); ++i) text += get_string(f.item(i)) + "\n";
  return text;
}

translate::CustomOpRule read_op_rule(const Field& f) {
  expect_object(f, {"op", "domain", "op_type", "version", "inputs", "attributes", "function", "comment"});
  translate::CustomOpRule rule;
  rule.origin = f.path.substr(2);
  rule.op = translate::normalize_op_name(get_nonempty_string(f.at("op")));
  if (std::count(rule.op.begin(), rule.op.end(), '.') < 1)
    bad(f.at("op"), "'" + rule.op + "' is not an op name (namespace::name or namespace.name[.overload])");
  if (f.has("version")) rule.domain_version = get_int(f.at("version"), 1, 1 << 30);
  if (f.has("inputs")) rule.inputs = get_strings(f.at("inputs"), /*allow_empty_items=*/true);
  if (f.has("attributes")) rule.attributes = get_attributes(f.at("attributes"), /*allow_args=*/true);
  if (f.has("domain")) rule.domain = get_domain(f.at("domain"));
  if (f.has("op_type")) rule.op_type = get_op_type(f.at("op_type"));
  if (f.has("function")) {
    const Field text = f.at("function");
    onnx::FunctionProto function = parse_function(get_text(text), text.path);
    const Field where = f.has("op_type") ? f.at("op_type") : text;
    if (!rule.op_type.empty() && rule.op_type != function.name())
      bad(where, "the op_type '" + rule.op_type + "' differs from the function's name '" + function.name() + "'");
    if (!rule.domain.empty() && rule.domain != function.domain())
      bad(f.at("domain"), "the domain '" + rule.domain + "' differs from the function's domain '" + function.domain() + "'");
    if (function.domain().empty()) bad(text, "the function declares no domain (write <domain: \"com.example\", ...> before it)");
    rule.domain = get_domain({Json(function.domain()), text.path + " (its domain)"});
    rule.op_type = get_op_type({Json(function.name()), text.path + " (its name)"});
    rule.function = std::move(function);
  }
  if (rule.domain.empty()) bad(f, "missing \"domain\" (the custom domain of the node)");
  if (rule.op_type.empty()) bad(f, "missing \"op_type\" (the node's op type)");
  return rule;
}

ModuleRule read_module_rule(const Field& f) {
  expect_object(f, {"module", "domain", "op_type", "version", "attributes", "comment"});
  ModuleRule rule;
  rule.origin = f.path.substr(2);
  rule.type = get_nonempty_string(f.at("module"));
  if (!f.has("domain")) bad(f, "missing \"domain\" (the custom domain of the opaque node)");
  if (!f.has("op_type")) bad(f, "missing \"op_type\" (the opaque node's op type)");
  rule.node.domain = get_domain(f.at("domain"));
  rule.node.op_type = get_op_type(f.at("op_type"));
  if (f.has("version")) rule.node.domain_version = get_int(f.at("version"), 1, 1 << 30);
  if (f.has("attributes"))
    for (const translate::CustomAttribute& a : get_attributes(f.at("attributes"), /*allow_args=*/false))
      rule.node.attributes.push_back(to_attribute_proto(a.name, *a.value));
  return rule;
}

// "line L, column C" of a byte offset, for JSON syntax errors.
std::string position(const std::string& text, size_t byte) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace

Config parse_config(const std::string& text, const std::filesystem::path& path) {
  Json doc;
  check_bracket_nesting(text, "[]{}", ErrorCode::kUsage, path.string() + ": JSON");
  try {
    doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    // nlohmann reports the byte after the fault.
    fail(ErrorCode::kUsage, path.string() + ": not valid JSON at " + position(text, e.byte ? e.byte - 1 : 0));
  } catch (const Json::exception& e) {  // out_of_range: a number such as 1e999
    std::string message = e.what();
    if (size_t bracket = message.find("] "); bracket != std::string::npos) message = message.substr(bracket + 2);
    fail(ErrorCode::kUsage, path.string() + ": not valid JSON: " + message);
  }
  Config config;
  config.path = path;
  try {
    const Field root{doc, "$"};
    std::set<std::string> allowed = option_keys("");
    allowed.insert({"$schema", "comment", "rules"});
    expect_object(root, allowed);
    if (root.has("$schema")) get_string(root.at("$schema"));
    read_options(root, "", config);
    if (root.has("rules")) {
      const Field rules = root.at("rules");
      if (!rules.value.is_array()) bad(rules, std::string("expected an array of rules, found ") + kind_of(rules.value));
      std::map<std::string, std::string> seen;  // op or module -> first rule
      for (size_t i = 0; i < rules.value.size(); ++i) {
        const Field rule = rules.item(i);
        if (!rule.value.is_object()) bad(rule, std::string("expected an object, found ") + kind_of(rule.value));
        if (rule.has("op") == rule.has("module"))
          bad(rule, "give exactly one of \"op\" (an op rule) and \"module\" (an opaque module rule)");
        std::string key;
        if (rule.has("op")) {
          config.op_rules.push_back(read_op_rule(rule));
          key = "op " + config.op_rules.back().op;
        } else {
          config.module_rules.push_back(read_module_rule(rule));
          key = "module " + config.module_rules.back().type;
        }
        auto [it, inserted] = seen.emplace(key, rule.path.substr(2));
        if (!inserted) bad(rule, "a second rule for " + key + " (the first is " + it->second + ")");
      }
    }
  } catch (const Error& e) {
    throw e.with_context(path.string());
  }
  return config;
}

// Reads at most limits().config_bytes (plus one, to tell a file at the limit from a longer one),
// so that /dev/zero or a huge file is refused instead of read whole.
Config load_config(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  PT2ONNX_CHECK(in.good(), ErrorCode::kUsage, path.string() + ": cannot read the config file");
  const uint64_t limit = limits().config_bytes;
  std::string text;
  char buffer[1 << 16];
  while (text.size() <= limit && in.read(buffer, sizeof(buffer)).gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (in.eof()) break;
  }
  PT2ONNX_CHECK(!in.bad(), ErrorCode::kUsage, path.string() + ": cannot read the config file");
  if (text.size() > limit) limit_exceeded(ErrorCode::kUsage, path.string() + ": the config file", "config-bytes");
  return parse_config(text, path);
}

}  // namespace pt2onnx::config
