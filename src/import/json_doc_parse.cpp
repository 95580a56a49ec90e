// JSON text -> JsonDoc with simdjson's On-Demand API: one pass, no DOM of simdjson's own; the
// structural index (stage 1) runs on the SIMD kernel libsimdjson picks at run time.
//
// Chosen by measurement: On-Demand is as fast as simdjson's DOM walked into the same JsonDoc
// (which holds a second tape in memory) and well ahead of nlohmann's SAX interface.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "common/error.h"
#include "common/limits.h"
#include "import/fast_graph.h"
#include "import/json_doc.h"
#include "import/json_text.h"
#include "import/nodes_beside.h"

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
          if (nodes_at_) walk_split_nodes(nodes);
          else read_fast_nodes(nodes, fast);
          open(JsonType::kArray);
          doc_.end_container();
        }, "tensor_values", [&](od::value values) {
          if (nodes_at_) {  // right after the nodes, where guessed: the nodes end where guessed
            if (nodes_field_ + 1 != fields_ || token_at(values) != values_at_) throw NodesSplitMismatch{};
            split_checked_ = true;
          }
          read_fast_tensor_values(values, fast);
          open(JsonType::kObject);
          doc_.end_container();
        });
      };
      if (fast.module_call_graph) add_object_taking(graph_module, "graph", take_graph);
      else add_object_taking(graph_module, "graph", take_graph, "module_call_graph", [&](od::value calls) { check_unkept(calls); });
    });
    if (nodes_at_ && !split_checked_) throw NodesSplitMismatch{};
  }

  // add_program leaves graph.nodes to a second thread, checking that the nodes member's value
  // starts at `nodes_at` and that tensor_values' follows it directly at `values_at`, and taking
  // where each element starts.
  void expect_split(const char* nodes_at, const char* values_at, ReadOnceText* text) {
    nodes_at_ = nodes_at;
    values_at_ = values_at;
    split_text_ = text;
  }
  const std::vector<const char*>& element_starts() const { return element_starts_; }

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
      ++fields_;
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

  static const char* token_at(od::value& value) { return value.raw_json_token().data(); }

  // The nodes the second thread reads: only where the array and each element start is taken here.
  void walk_split_nodes(od::value nodes) {
    if (token_at(nodes) != nodes_at_) throw NodesSplitMismatch{};
    nodes_field_ = fields_;
    od::array elements;
    if (nodes.get_array().get(elements) != simdjson::SUCCESS) throw NodesSplitMismatch{};
    for (auto element : elements) {
      od::value node;
      if (element.get(node) != simdjson::SUCCESS) throw NodesSplitMismatch{};
      element_starts_.push_back(token_at(node));
      // Walking the elements touches every page of the array: let them go behind it (the second
      // thread faults in the pages of the piece it copies).
      if (split_text_ && element_starts_.size() % 1024 == 0)
        split_text_->release_range(element_starts_[element_starts_.size() - 1024], element_starts_.back());
    }
  }

  JsonDoc& doc_;
  const std::string& source_name_;
  size_t depth_above_;
  // The split of expect_split: where the values are expected, and what the parse found.
  const char* nodes_at_ = nullptr;
  const char* values_at_ = nullptr;
  ReadOnceText* split_text_ = nullptr;  // the whole text, given back as the elements are walked (or null)
  size_t fields_ = 0;  // members met by add_object_taking so far
  size_t nodes_field_ = 0;
  bool split_checked_ = false;
  std::vector<const char*> element_starts_;
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
  // simdjson's own depth bound must not cut below ours (--limit nesting may raise it).
  const size_t max_depth = std::max<size_t>(simdjson::DEFAULT_MAX_DEPTH, limits().nesting + 2);
  // A large program's nodes go to a second thread (nodes_beside.h); this parse gives back only
  // the pages after them, and checks where they lie.
  std::optional<NodesRange> split;
  if (fast && input.padded) split = guess_nodes_range(text, fast->nodes_beside.min_bytes);
  ReadOnceText* const whole_text = fast ? fast->text : nullptr;
  std::optional<ReadOnceWindow> rest_window;
  std::optional<NodesBeside> nodes_beside;
  if (split) {
    if (whole_text) rest_window.emplace(*whole_text, text.data() + split->end, text.data() + text.size());
    builder.expect_split(text.data() + split->begin, text.data() + split->values_at, whole_text);
    nodes_beside.emplace(text, *split, whole_text, fast->node_metadata, max_depth, fast->nodes_beside);
  }
  ReadOnceText* const release = rest_window ? &*rest_window : whole_text;
  // The parse gives back through `release`; the caller's `fast` keeps its own text after it.
  struct RestoreText {
    FastGraph* fast;
    ReadOnceText* text;
    ~RestoreText() {
      if (fast) fast->text = text;
    }
  } restore{fast, whole_text};
  try {
    simdjson::error_code error = parser.allocate(view.length(), max_depth);
    if (error) throw simdjson::simdjson_error(error);
    od::document document = parser.iterate(view);
    // The structural index is built: the text is read once more, front to back, and the fast
    // readers give it back as they go; what lies ahead of them need not stay resident meanwhile
    // (the nodes too: the second thread refaults the pages of the piece it copies).
    if (whole_text && input.padded) whole_text->evict();
    if (fast) {
      fast->parser = &parser;
      fast->text = release;
    }
    od::json_type type = document.type();
    if (type != od::json_type::object && type != od::json_type::array) {
      doc.add_null();  // a scalar document: the reader refuses it ("expected an ExportedProgram object")
      return;
    }
    if (fast) builder.add_program(document.get_value(), *fast);
    else builder.add_value(document.get_value());
    if (nodes_beside) {
      nodes_beside->help();
      NodesBesideRead read = nodes_beside->get();
      if (!read.matches(builder.element_starts())) throw NodesSplitMismatch{};
      if (read.error) std::rethrow_exception(read.error);
      fast->nodes = std::move(read.nodes);
      fast->nodes_taken = true;
    }
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
  const FastGraph settings = fast;
  for (;;) {
    auto doc = std::make_unique<JsonDoc>();
    try {
      build(text, *doc, source_name, &fast);
      return doc;
    } catch (const NodesSplitMismatch&) {
      // The nodes were not where guessed (nodes_beside.h): read them on this thread instead.
      fast = settings;
      fast.nodes_beside.min_bytes = SIZE_MAX;
      continue;
    } catch (const FastGraphDeclined&) {
    } catch (const LimitError&) {
    } catch (const Error&) {
    }
    break;
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
