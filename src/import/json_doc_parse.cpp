// JSON text -> JsonDoc with simdjson's On-Demand API: one pass, no DOM of simdjson's own; the
// structural index (stage 1) runs on the SIMD kernel libsimdjson picks at run time.
//
// Chosen by measurement: On-Demand is as fast as simdjson's DOM walked into the same JsonDoc
// (which holds a second tape in memory) and well ahead of nlohmann's SAX interface.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>

#include <simdjson.h>

#include "common/error.h"
#include "common/limits.h"
#include "import/fast_graph.h"
#include "import/json_doc.h"
#include "import/json_text.h"

namespace pt2onnx::import {

namespace {

namespace od = simdjson::ondemand;

[[noreturn]] void malformed(const std::string& source_name, const std::string& message) {
  fail(ErrorCode::kArchive, source_name + ": malformed JSON: " + message);
}

// simdjson's messages start with the error's name ("TAPE_ERROR: ..."); keep the sentence.
std::string simdjson_text(const char* message) {
  std::string_view text = message;
  if (size_t colon = text.find(": "); colon != std::string_view::npos && colon < 24) text.remove_prefix(colon + 2);
  return std::string(text);
}

class Builder {
 public:
  // `depth_above`: levels of the document above the values this builder adds (a checker's).
  Builder(JsonDoc& doc, const std::string& source_name, size_t depth_above = 0)
      : doc_(doc), source_name_(source_name), depth_above_(depth_above) {}

  void add_value(od::value value) {
    switch (value.type()) {
      case od::json_type::object:
        open(JsonType::kObject);
        for (auto field : value.get_object()) {
          doc_.set_key(field.unescaped_key());
          add_value(field.value());
        }
        doc_.end_container();
        break;
      case od::json_type::array:
        open(JsonType::kArray);
        for (auto element : value.get_array()) add_value(element.value());
        doc_.end_container();
        break;
      case od::json_type::string:
        doc_.add_string(value.get_string());
        break;
      case od::json_type::number:
        add_number(value);
        break;
      case od::json_type::boolean:
        doc_.add_bool(value.get_bool());
        break;
      case od::json_type::null:
        if (!value.is_null()) malformed(source_name_, "invalid literal");
        doc_.add_null();
        break;
    }
  }

  // An ExportedProgram with graph_module.graph.nodes and .tensor_values handed to the fast
  // readers (fast_graph.h) and left empty here; the rest goes into the document as add_value
  // puts it, at the same depths and paths. A key met twice on that way declines.
  // Without fast.module_call_graph, graph_module.module_call_graph is checked and left out too.
  void add_program(od::value value, FastGraph& fast) {
    add_object_taking(value, "graph_module", [&](od::value graph_module) {
      auto take_graph = [&](od::value graph) {
        add_object_taking(graph, "nodes", [&](od::value nodes) {
          read_fast_nodes(nodes, fast);
          open(JsonType::kArray);
          doc_.end_container();
        }, "tensor_values", [&](od::value values) {
          read_fast_tensor_values(values, fast);
          open(JsonType::kObject);
          doc_.end_container();
        });
      };
      if (fast.module_call_graph) add_object_taking(graph_module, "graph", take_graph);
      else add_object_taking(graph_module, "graph", take_graph, "module_call_graph", [&](od::value calls) { check_unkept(calls); });
    });
  }

 private:
  // An object whose member `key` goes to `take` (and `key2` to `take2`) instead of add_value.
  template <typename Take, typename Take2 = std::nullptr_t>
  void add_object_taking(od::value value, std::string_view key, Take&& take, std::string_view key2 = {},
                         Take2&& take2 = nullptr) {
    if (value.type() != od::json_type::object) return add_value(value);
    open(JsonType::kObject);
    bool seen = false;
    bool seen2 = false;
    for (auto field : value.get_object()) {
      const std::string_view name = field.unescaped_key();
      doc_.set_key(name);
      if (name == key) {
        if (std::exchange(seen, true)) throw FastGraphDeclined{};
        take(field.value());
      } else if constexpr (!std::is_same_v<std::decay_t<Take2>, std::nullptr_t>) {
        if (name == key2) {
          if (std::exchange(seen2, true)) throw FastGraphDeclined{};
          take2(field.value());
        } else {
          add_value(field.value());
        }
      } else {
        add_value(field.value());
      }
    }
    doc_.end_container();
  }

  // A value checked as add_value checks it (the same errors, at the same depths), of which the
  // document keeps only its kind: an array stays, empty, anything else becomes null. An array's
  // elements are checked into a scratch document emptied every few thousand, so that what is
  // not kept is never held whole.
  void check_unkept(od::value value) {
    constexpr size_t kElementsPerScratch = 4096;
    if (value.type() != od::json_type::array) {
      JsonDoc scratch;
      Builder(scratch, source_name_, depth_above_ + doc_.depth()).add_value(value);
      doc_.add_null();
      return;
    }
    open(JsonType::kArray);
    auto scratch = std::make_unique<JsonDoc>();
    size_t checked = 0;
    for (auto element : value.get_array()) {
      if (++checked % kElementsPerScratch == 0) scratch = std::make_unique<JsonDoc>();
      Builder(*scratch, source_name_, depth_above_ + doc_.depth()).add_value(element.value());
    }
    doc_.end_container();
  }

  // The readers recurse over the document too: refuse depth here, before either recursion goes deep.
  void open(JsonType type) {
    if (doc_.depth() + depth_above_ >= static_cast<size_t>(limits().nesting))
      limit_exceeded(ErrorCode::kArchive, source_name_ + ": JSON nesting", "nesting");
    doc_.start_container(type);
  }

  void add_number(od::value value) {
    od::number_type type;
    if (value.get_number_type().get(type) == simdjson::SUCCESS) {
      switch (type) {
        case od::number_type::signed_integer:
          if (int64_t i; value.get_int64().get(i) == simdjson::SUCCESS) return doc_.add_int(i);
          break;
        case od::number_type::unsigned_integer:
          if (uint64_t u; value.get_uint64().get(u) == simdjson::SUCCESS) return doc_.add_uint(u);
          break;
        case od::number_type::floating_point_number:
          if (double d; value.get_double().get(d) == simdjson::SUCCESS) return doc_.add_double(d);
          break;
      }
    }
    add_wide_number(value.raw_json_token());
  }

  // A number simdjson refuses: an integer beyond 64 bits becomes a double (as nlohmann read it),
  // one that no double holds is an error.
  void add_wide_number(std::string_view token) {
    while (!token.empty() && std::string_view(" \t\r\n,]}").find(token.back()) != std::string_view::npos)
      token.remove_suffix(1);
    const std::string text(token);
    errno = 0;
    char* end = nullptr;
    double d = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0') malformed(source_name_, "invalid number '" + text + "'");
    if (errno == ERANGE && std::isinf(d)) malformed(source_name_, "number overflow parsing '" + text + "'");
    doc_.add_double(d);
  }

  JsonDoc& doc_;
  const std::string& source_name_;
  size_t depth_above_;
};

// Fills `doc` from `text`; throws Error(kArchive) on malformed text. With `fast`, the program's
// nodes and tensor values go to the fast readers (and FastGraphDeclined may come out).
void build(JsonText input, JsonDoc& doc, const std::string& source_name, FastGraph* fast = nullptr) {
  static_assert(JsonText::kPadding == simdjson::SIMDJSON_PADDING);
  // On-Demand reads up to SIMDJSON_PADDING bytes past the end: copy only when the text lacks them.
  const std::string_view text = input.text;
  doc.reserve(text.size());
  simdjson::padded_string copy;
  simdjson::padded_string_view view(text.data(), text.size(), text.size() + simdjson::SIMDJSON_PADDING);
  if (!input.padded) {
    copy = simdjson::padded_string(text);
    view = copy;
  }
  od::parser parser;
  Builder builder(doc, source_name);
  try {
    // simdjson's own depth bound must not cut below ours (--limit nesting may raise it).
    simdjson::error_code error =
        parser.allocate(view.length(), std::max<size_t>(simdjson::DEFAULT_MAX_DEPTH, limits().nesting + 2));
    if (error) throw simdjson::simdjson_error(error);
    od::document document = parser.iterate(view);
    // The structural index is built: the text is read once more, front to back, and the fast
    // readers give it back as they go; what lies ahead of them need not stay resident meanwhile.
    if (fast && fast->text && input.padded) fast->text->evict();
    if (fast) fast->parser = &parser;
    od::json_type type = document.type();
    if (type != od::json_type::object && type != od::json_type::array) {
      doc.add_null();  // a scalar document: the reader refuses it ("expected an ExportedProgram object")
      return;
    }
    if (fast) builder.add_program(document.get_value(), *fast);
    else builder.add_value(document.get_value());
    // Anything but whitespace after the root value is an error, as in any JSON parser.
    const char* rest = nullptr;
    if (document.current_location().get(rest) == simdjson::SUCCESS) {
      // `rest` points into the buffer parsed (the padded copy when one was made), not into `text`.
      for (const char* end = view.data() + view.length(); rest < end; ++rest)
        if (*rest != ' ' && *rest != '\n' && *rest != '\r' && *rest != '\t')
          malformed(source_name, "unexpected content after the document");
    }
  } catch (const simdjson::simdjson_error& e) {
    malformed(source_name, simdjson_text(e.what()));
  }
}

bool may_have_nonfinite_tokens(std::string_view text) {
  return text.find("Infinity") != std::string_view::npos || text.find("NaN") != std::string_view::npos;
}

}  // namespace

std::unique_ptr<JsonDoc> parse_program_doc_fast(JsonText text, const std::string& source_name, FastGraph& fast) {
  auto doc = std::make_unique<JsonDoc>();
  try {
    build(text, *doc, source_name, &fast);
    return doc;
  } catch (const FastGraphDeclined&) {
  } catch (const LimitError&) {
  } catch (const Error&) {
  }
  fast = FastGraph();  // the general parse reads everything again, and reports what is wrong
  return nullptr;
}

std::unique_ptr<JsonDoc> parse_json_doc(const std::string& text, const std::string& source_name) {
  return parse_json_doc(JsonText(text), source_name);
}

std::unique_ptr<JsonDoc> parse_json_doc(JsonText text, const std::string& source_name) {
  auto doc = std::make_unique<JsonDoc>();
  try {
    build(text, *doc, source_name);
    return doc;
  } catch (const LimitError&) {
    throw;
  } catch (const Error&) {
    // torch 2.3-2.4 wrote bare Infinity/-Infinity/NaN (Python's json.dumps): only then is the
    // text copied with them quoted and read again.
    if (!may_have_nonfinite_tokens(text.text)) throw;
  }
  doc = std::make_unique<JsonDoc>();
  build(quote_nonfinite_tokens(std::string(text.text)), *doc, source_name);
  return doc;
}

}  // namespace pt2onnx::import
