// graph.nodes and graph.tensor_values from simdjson On-Demand (fast_graph.h says when it declines).
// Each reader mirrors one general reader (read_graph.cpp, read_argument.cpp, read_tensor_meta.cpp)
// on the inputs that reader accepts; where the general one would fail, or where the encoding is
// one this file does not take, it declines instead.
#include "import/fast_graph.h"

#include <algorithm>
#include <iterator>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "common/error.h"
#include "common/limits.h"
#include "import/fill_defaults.h"
#include "import/import_program.h"
#include "import/read_argument.h"
#include "import/read_graph.h"
#include "import/read_tensor_meta.h"

namespace pt2onnx::import {

namespace {

namespace od = simdjson::ondemand;

constexpr int64_t kKeywordKind = 2;  // ArgumentKind.KEYWORD, as read_graph.cpp reads it

[[noreturn]] void decline() { throw FastGraphDeclined{}; }

template <typename T>
T take(simdjson::simdjson_result<T>&& result) {
  T value;
  if (std::move(result).get(value) != simdjson::SUCCESS) decline();
  return value;
}

od::json_type type_of(od::value& value) { return take(value.type()); }
// A null, its literal checked (a value is taken as null only once the general parse would).
bool is_null(od::value& value) {
  if (type_of(value) != od::json_type::null) return false;
  if (!take(value.is_null())) decline();
  return true;
}

// Strings are read without simdjson's string buffer where they can be: On-Demand unescapes every
// key and string into one buffer that only grows while a document is walked (every key, name
// and stack trace of the graph: a large share of the import's peak). A string without a
// backslash is its own text, viewed in place (the text stays readable: ReadOnceText); one with
// escapes (stack traces) is unescaped by the same parser into a buffer reused string by string.
struct StringScratch {
  const od::parser* parser = nullptr;  // null: the parser's own buffer, as get_string() does
  std::vector<uint8_t> bytes;
};
thread_local StringScratch* string_scratch = nullptr;

// Installs a scratch buffer for the readers below while one of the entry points runs.
class ScratchScope {
 public:
  explicit ScratchScope(const od::parser* parser) : previous_(string_scratch) {
    scratch_.parser = parser;
    string_scratch = &scratch_;
  }
  ~ScratchScope() { string_scratch = previous_; }
  ScratchScope(const ScratchScope&) = delete;
  ScratchScope& operator=(const ScratchScope&) = delete;

 private:
  StringScratch scratch_;
  StringScratch* previous_;
};

// The text of a JSON string that starts at `raw` (after its opening quote), when it holds no
// escape: up to the first quote, with no backslash before it. Stage 1 has found the closing
// quote, so the scan ends within the text.
std::optional<std::string_view> unescaped_in_place(const char* raw) {
  const char* quote = raw;
  while (*quote != '"') ++quote;
  const std::string_view text(raw, static_cast<size_t>(quote - raw));
  if (text.find('\\') != std::string_view::npos) return std::nullopt;
  return text;
}

// A string value, valid until the next string is read (callers copy what they keep).
std::string_view as_view(od::value value) {
  const std::string_view token = value.raw_json_token();  // the string and what follows to the next token
  StringScratch* scratch = string_scratch;
  if (!scratch || !scratch->parser) return take(value.get_string());
  const od::raw_json_string raw = take(value.get_raw_json_string());  // declines on a non-string
  const char* start = reinterpret_cast<const char*>(raw.raw());
  if (std::optional<std::string_view> text = unescaped_in_place(start)) return *text;
  // parse_string writes whole SIMD blocks: room for the padding beyond the (never longer) text.
  scratch->bytes.resize(token.size() + simdjson::SIMDJSON_PADDING);
  uint8_t* out = scratch->bytes.data();
  return take(scratch->parser->unescape(raw, out));
}
std::string as_string(od::value value) { return std::string(as_view(value)); }

// A member's key; keys are views that stay valid while their object is read (in place, or in
// the parser's buffer for a key with escapes, which torch does not write).
std::string_view key_of(od::field& member) {
  if (std::optional<std::string_view> text = unescaped_in_place(reinterpret_cast<const char*>(member.key().raw())))
    return *text;
  return take(member.unescaped_key());
}

constexpr int kSkipDepth = 64;  // deeper values are the general reader's (and its nesting limit's)

// Walks a value this reader does not use, checking it as the general parse does (On-Demand
// would skip it unread, so text the general parse refuses could pass here).
void skip(od::value value, int depth = 0) {
  if (depth > kSkipDepth) decline();
  switch (type_of(value)) {
    case od::json_type::object:
      for (auto field : take(value.get_object())) {
        od::field member = take(std::move(field));
        (void)key_of(member);
        skip(member.value(), depth + 1);
      }
      break;
    case od::json_type::array:
      for (auto element : take(value.get_array())) skip(take(std::move(element)), depth + 1);
      break;
    case od::json_type::string:
      (void)as_view(value);
      break;
    case od::json_type::number:
      switch (take(value.get_number_type())) {
        case od::number_type::signed_integer: (void)take(value.get_int64()); break;
        case od::number_type::unsigned_integer: (void)take(value.get_uint64()); break;
        case od::number_type::floating_point_number: (void)take(value.get_double()); break;
        default: decline();
      }
      break;
    case od::json_type::boolean:
      (void)take(value.get_bool());
      break;
    case od::json_type::null:
      (void)is_null(value);
      break;
  }
}

// JsonNode::as_int: an integer that fits int64 (a float, or a larger one, is an error there).
int64_t as_int(od::value value) {
  if (type_of(value) != od::json_type::number) decline();
  return take(value.get_int64());
}

// JsonNode::as_double on a number; its string forms of non-finite values are left to it.
double as_double(od::value value) {
  if (type_of(value) != od::json_type::number) decline();
  switch (take(value.get_number_type())) {
    case od::number_type::signed_integer: return static_cast<double>(take(value.get_int64()));
    case od::number_type::unsigned_integer: return static_cast<double>(take(value.get_uint64()));
    case od::number_type::floating_point_number: return take(value.get_double());
    default: decline();
  }
}

bool as_bool(od::value value) { return take(value.get_bool()); }

// Calls fn(key, value) for each member of an object, declining on a repeated key (the general
// reader keeps the last; this one takes only files without any) or a non-object. fn returns
// whether it read the value; one it did not is walked by skip().
template <typename Fn>
void for_each_member(od::value value, Fn&& fn) {
  if (type_of(value) != od::json_type::object) decline();
  od::object object = take(value.get_object());
  // Objects here have a handful of keys: a linear scan of the few seen is cheaper than a set.
  std::string_view seen[16];
  size_t count = 0;
  for (auto field : object) {
    od::field member = take(std::move(field));
    const std::string_view key = key_of(member);
    for (size_t i = 0; i < count; ++i)
      if (seen[i] == key) decline();
    if (count == std::size(seen)) decline();
    seen[count++] = key;
    od::value v = member.value();
    if (!fn(key, v)) skip(v);
  }
}

template <typename Fn>
void for_each_element(od::value value, Fn&& fn) {
  if (type_of(value) != od::json_type::array) decline();
  for (auto element : take(value.get_array())) fn(take(std::move(element)));
}

// The one member of a union object ({"as_x": v}); the all-keys encoding of old writers declines.
template <typename Fn>
auto union_member(od::value value, Fn&& fn) {
  std::optional<decltype(fn(std::string_view(), std::declval<od::value>()))> out;
  for_each_member(value, [&](std::string_view key, od::value member) {
    if (out) decline();
    out.emplace(fn(key, member));
    return true;
  });
  if (!out) decline();
  return std::move(*out);
}

// read_tensor_name: {"name": "x"} or "x".
std::string tensor_name(od::value value) {
  if (type_of(value) == od::json_type::string) return as_string(value);
  std::optional<std::string> name;
  for_each_member(value, [&](std::string_view key, od::value member) {
    if (key != "name") return false;
    name = as_string(member);
    return true;
  });
  if (!name) decline();
  return std::move(*name);
}

ir::SymIntArg sym_int(od::value value) {
  return union_member(value, [](std::string_view kind, od::value v) -> ir::SymIntArg {
    if (kind == "as_name") return {as_string(v)};
    if (kind == "as_int") return {as_int(v)};
    decline();
  });
}

std::optional<std::string> optional_tensor(od::value value) {
  return union_member(value, [](std::string_view kind, od::value v) -> std::optional<std::string> {
    if (kind == "as_tensor") return tensor_name(v);
    if (kind == "as_none") {
      skip(v);
      return std::nullopt;
    }
    decline();
  });
}

template <typename T, typename ReadOne>
std::vector<T> list(od::value value, ReadOne read_one) {
  std::vector<T> out;
  for_each_element(value, [&](od::value element) { out.push_back(read_one(element)); });
  return out;
}

ir::DeviceArg device(od::value value) {
  if (type_of(value) == od::json_type::string) decline();  // "cuda:0": the general reader parses it
  ir::DeviceArg out;
  bool typed = false;
  for_each_member(value, [&](std::string_view key, od::value member) {
    if (is_null(member)) return true;
    if (key == "type") {
      out.type = as_string(member);
      typed = true;
    } else if (key == "index") {
      out.index = as_int(member);
    } else {
      return false;
    }
    return true;
  });
  if (!typed) decline();
  return out;
}

template <typename Enum>
Enum enum_value(od::value value, int64_t max_value) {
  const int64_t v = as_int(value);
  if (v < 0 || v > max_value) decline();
  return static_cast<Enum>(v);
}

using Reader = ir::Argument (*)(od::value);

// The argument kinds of ordinary ops (read_argument.cpp's table has the rest: graphs, custom
// objects, operators, nested lists, ...; their files take the general path).
const std::unordered_map<std::string_view, Reader>& readers() {
  static const std::unordered_map<std::string_view, Reader> kReaders = {
      {"as_none",
       [](od::value v) -> ir::Argument {
         skip(v);
         return ir::NoneArg{};
       }},
      {"as_tensor", [](od::value v) -> ir::Argument { return ir::TensorArg{tensor_name(v)}; }},
      {"as_tensors", [](od::value v) -> ir::Argument { return ir::TensorListArg{list<std::string>(v, tensor_name)}; }},
      {"as_int", [](od::value v) -> ir::Argument { return ir::Argument(std::in_place_type<ir::SymIntArg>, as_int(v)); }},
      {"as_ints",
       [](od::value v) -> ir::Argument {
         return ir::SymIntListArg{list<ir::SymIntArg>(v, [](od::value e) { return ir::SymIntArg{as_int(e)}; })};
       }},
      {"as_float",
       [](od::value v) -> ir::Argument { return ir::Argument(std::in_place_type<ir::SymFloatArg>, as_double(v)); }},
      {"as_floats",
       [](od::value v) -> ir::Argument {
         return ir::SymFloatListArg{list<ir::SymFloatArg>(v, [](od::value e) { return ir::SymFloatArg{as_double(e)}; })};
       }},
      {"as_string", [](od::value v) -> ir::Argument { return as_string(v); }},
      {"as_strings", [](od::value v) -> ir::Argument { return list<std::string>(v, as_string); }},
      {"as_sym_int", [](od::value v) -> ir::Argument { return sym_int(v); }},
      {"as_sym_ints", [](od::value v) -> ir::Argument { return ir::SymIntListArg{list<ir::SymIntArg>(v, sym_int)}; }},
      {"as_scalar_type",
       [](od::value v) -> ir::Argument {
         ir::DType dtype = ir::DType::kUnknown;  // an unknown number stays kUnknown, as in read_argument.cpp
         ir::dtype_from_schema(as_int(v), dtype);
         return ir::ScalarTypeArg{dtype};
       }},
      {"as_memory_format",
       [](od::value v) -> ir::Argument { return ir::MemoryFormatArg{enum_value<ir::MemoryFormat>(v, 4)}; }},
      {"as_layout", [](od::value v) -> ir::Argument { return ir::LayoutArg{enum_value<ir::Layout>(v, 7)}; }},
      {"as_device", [](od::value v) -> ir::Argument { return device(v); }},
      {"as_bool", [](od::value v) -> ir::Argument { return ir::Argument(std::in_place_type<ir::SymBoolArg>, as_bool(v)); }},
      {"as_bools",
       [](od::value v) -> ir::Argument {
         return ir::SymBoolListArg{list<ir::SymBoolArg>(v, [](od::value e) { return ir::SymBoolArg{as_bool(e)}; })};
       }},
      {"as_optional_tensors",
       [](od::value v) -> ir::Argument {
         return ir::OptionalTensorListArg{list<std::optional<std::string>>(v, optional_tensor)};
       }},
      {"as_optional_tensor",
       [](od::value v) -> ir::Argument {
         std::optional<std::string> name = optional_tensor(v);
         if (name) return ir::TensorArg{std::move(*name)};
         return ir::NoneArg{};
       }},
  };
  return kReaders;
}

ir::Argument argument(od::value value) {
  return union_member(value, [](std::string_view kind, od::value member) {
    const auto& table = readers();
    auto it = table.find(kind);
    if (it == table.end()) decline();
    return it->second(member);
  });
}

// Metadata texts repeat across nodes (a block's stack trace in every block): one copy each, as
// JsonDoc::shared_string gives the general reader.
class SharedTexts {
 public:
  ir::SharedText get(std::string_view text) {
    auto it = texts_.find(text);
    if (it != texts_.end()) return it->second;
    auto shared = std::make_shared<const std::string>(text);
    texts_.emplace(std::string_view(*shared), shared);
    return shared;
  }

 private:
  std::unordered_map<std::string_view, ir::SharedText> texts_;  // keys view the values
};

// `texts` null: the metadata other than the module stack is checked and dropped.
ir::Node node(od::value value, SharedTexts* texts, ModuleStackReader& stacks) {
  ir::Node out;
  bool has_target = false;
  for_each_member(value, [&](std::string_view key, od::value member) {
    if (is_null(member)) return true;  // a null field is a missing one
    if (key == "target") {
      out.target = strip_torch_ops(as_string(member));
      has_target = true;
    } else if (key == "inputs") {
      for_each_element(member, [&](od::value input) {
        ir::NamedArgument named;
        bool has_arg = false;
        for_each_member(input, [&](std::string_view field, od::value v) {
          if (is_null(v)) return true;
          if (field == "name") {
            named.name = as_string(v);
          } else if (field == "arg") {
            named.arg = argument(v);
            has_arg = true;
          } else if (field == "kind") {
            named.keyword = as_int(v) == kKeywordKind;
          } else {
            return false;
          }
          return true;
        });
        if (!has_arg) decline();
        out.inputs.push_back(std::move(named));
      });
    } else if (key == "outputs") {
      for_each_element(member, [&](od::value output) { out.outputs.push_back(argument(output)); });
    } else if (key == "metadata") {
      for_each_member(member, [&](std::string_view name, od::value v) {
        if (is_null(v)) return true;
        if (type_of(v) != od::json_type::string) decline();  // the general reader dumps it as JSON
        if (name == "nn_module_stack") {
          try {
            out.module_stack = stacks.read(as_view(v));
          } catch (const Error&) {
            decline();
          }
        } else if (texts) {
          out.metadata[std::string(name)] = texts->get(as_view(v));
        } else {
          (void)as_view(v);  // checked, not kept
        }
        return true;
      });
    } else if (key == "name") {
      out.name = as_string(member);
    } else {
      return false;
    }
    return true;
  });
  if (out.name.empty() && !out.outputs.empty()) out.name = first_value_name(out.outputs.front());
  // A node with neither is named by the general reader, which sees every name of the graph.
  if (!has_target || out.name.empty()) decline();
  fill_schema_defaults(out);
  return out;
}

// read_dim on {"as_int": n} and {"as_expr": {"expr_str": text, ...}} (or the bare text).
ir::Dim dim(od::value value) {
  return union_member(value, [](std::string_view kind, od::value v) -> ir::Dim {
    if (kind == "as_int") return {as_int(v)};
    if (kind != "as_expr") decline();
    std::optional<std::string> text;
    if (type_of(v) == od::json_type::string) {
      text = as_string(v);
    } else {
      for_each_member(v, [&](std::string_view key, od::value member) {
        if (key != "expr_str") return false;
        if (!is_null(member)) text = as_string(member);
        return true;
      });
    }
    if (!text) decline();
    try {
      return dim_of_expr_text(*text);
    } catch (const LimitError&) {
      decline();  // the general reader refuses it, naming the field
    }
  });
}

ir::TensorMeta tensor_meta(od::value value) {
  ir::TensorMeta meta;
  bool has_dtype = false;
  for_each_member(value, [&](std::string_view key, od::value member) {
    if (is_null(member)) return true;
    if (key == "dtype") {
      ir::dtype_from_schema(as_int(member), meta.dtype);  // an unknown number stays kUnknown
      has_dtype = true;
    } else if (key == "sizes") {
      meta.sizes = list<ir::Dim>(member, dim);
    } else if (key == "strides") {
      meta.strides = list<ir::Dim>(member, dim);
    } else if (key == "device") {
      meta.device = device(member).type;  // (the general reader reads only its type)
      meta.device = meta.device.substr(0, meta.device.find(':'));  // "cuda:0" -> "cuda"
    } else if (key == "requires_grad") {
      meta.requires_grad = as_bool(member);
    } else {
      return false;
    }
    return true;
  });
  if (!has_dtype) decline();  // the {"meta": ...} wrapping of old files
  // check_static_sizes: no negative dim, a byte size that fits int64.
  int64_t bytes = std::max<int64_t>(ir::dtype_size(meta.dtype), 1);
  for (const ir::Dim& size : meta.sizes)
    if (size.is_static() && (size.as_int() < 0 || __builtin_mul_overflow(bytes, size.as_int(), &bytes))) decline();
  return meta;
}

}  // namespace

struct FastNodesReader::State {
  SharedTexts shared;
  ModuleStackReader stacks;
  bool node_metadata;
};

FastNodesReader::FastNodesReader(bool node_metadata) : state_(std::make_unique<State>()) {
  state_->node_metadata = node_metadata;
}

FastNodesReader::~FastNodesReader() = default;

void FastNodesReader::read(od::value nodes, std::vector<ir::Node>& out, const od::parser* parser, ReadOnceText* text) {
  ScratchScope scratch(parser);
  SharedTexts* texts = state_->node_metadata ? &state_->shared : nullptr;
  size_t count = 0;
  for_each_element(nodes, [&](od::value value) {
    // Every 1,024 nodes the text read so far is let go (a few hundred kB at a time): the nodes
    // are most of the text, and the IR built from them need not share the peak with it.
    if (text && ++count % 1024 == 0) text->release_before(value.raw_json_token().data());
    out.push_back(node(value, texts, state_->stacks));
  });
}

void read_fast_nodes(od::value nodes, FastGraph& out) {
  FastNodesReader(out.node_metadata).read(nodes, out.nodes, out.parser, out.text);
  out.nodes_taken = true;
}

void read_fast_tensor_values(od::value values, FastGraph& out) {
  ScratchScope scratch(out.parser);
  if (type_of(values) != od::json_type::object) decline();
  // The general reader keeps the last of repeated names and skips it when null: a name given
  // twice with values declines, and so does one given with a value and as null.
  std::vector<std::string_view> null_names;  // views into the parser's strings, alive while it is
  size_t count = 0;
  for (auto field : take(values.get_object())) {
    od::field member = take(std::move(field));
    const std::string_view name = key_of(member);
    od::value meta = member.value();
    // As for the nodes: the text read so far is let go every 1,024 values (a quarter of the text).
    if (out.text && ++count % 1024 == 0) out.text->release_before(meta.raw_json_token().data());
    if (is_null(meta)) {
      null_names.push_back(name);
      continue;
    }
    if (!out.tensor_values.emplace(std::string(name), tensor_meta(meta)).second) decline();
  }
  for (std::string_view name : null_names)
    if (out.tensor_values.count(std::string(name))) decline();
  out.values_taken = true;
}

}  // namespace pt2onnx::import
