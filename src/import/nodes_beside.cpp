#include "import/nodes_beside.h"

#include <string.h>  // memmem (GNU)

#include <algorithm>
#include <string>
#include <utility>

#include <simdjson.h>

#include "import/fast_graph.h"

namespace pt2onnx::import {

namespace {

namespace od = simdjson::ondemand;

constexpr std::string_view kNodesKey = R"("nodes": [)";
constexpr std::string_view kValuesAfterNodes = R"(], "tensor_values": )";
// Between two nodes: the end of one and the start of the next (a node's first member is its
// target). Only a guess of where a node starts: the caller's parse checks each.
constexpr std::string_view kBetweenNodes = R"(}, {"target": )";

// The offset of the first `needle` in text[from, to), or `to`.
size_t find_in(std::string_view text, size_t from, size_t to, std::string_view needle) {
  const void* at = ::memmem(text.data() + from, to - from, needle.data(), needle.size());
  return at ? static_cast<size_t>(static_cast<const char*>(at) - text.data()) : to;
}

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Pieces of the array's elements: [starts[i], ends[i]) each holds whole nodes if the guessed
// starts are right, and the pieces cover the array's elements in order.
struct Pieces {
  std::vector<const char*> starts;
  std::vector<const char*> ends;
  size_t nodes = 0;  // the guessed starts there are: the list is made that long at once
};

size_t count_in(std::string_view text, size_t from, size_t to, std::string_view needle) {
  size_t count = 0;
  for (size_t at = find_in(text, from, to, needle); at != to; at = find_in(text, at + needle.size(), to, needle)) ++count;
  return count;
}

Pieces cut_pieces(std::string_view text, NodesRange range, size_t piece_bytes) {
  size_t begin = range.begin + 1;  // past '['
  size_t end = range.end - 1;      // at ']'
  while (begin < end && is_space(text[begin])) ++begin;
  while (end > begin && is_space(text[end - 1])) --end;
  Pieces pieces;
  if (begin < end) pieces.nodes = count_in(text, begin, end, kBetweenNodes) + 1;
  while (begin < end) {
    const size_t cut =
        end - begin > piece_bytes ? find_in(text, begin + piece_bytes, end, kBetweenNodes) : end;
    pieces.starts.push_back(text.data() + begin);
    if (cut == end) {
      pieces.ends.push_back(text.data() + end);
      break;
    }
    pieces.ends.push_back(text.data() + cut + 1);  // past the '}'
    begin = cut + 3;                               // at the next '{'
  }
  return pieces;
}

// Reads each piece as an array of its own ('[' piece ']', copied with simdjson's padding), all into
// one list through one reader.
void read_pieces(const Pieces& pieces, ReadOnceText* release, bool node_metadata, size_t max_depth,
                 std::vector<ir::Node>& out) {
  FastNodesReader reader(node_metadata);
  // Grown by doubling, the list would leave its outgrown copies with this thread's allocator, where
  // the caller's cannot reuse them.
  out.reserve(pieces.nodes);
  od::parser parser;
  std::string buffer;
  for (size_t i = 0; i < pieces.starts.size(); ++i) {
    const std::string_view piece(pieces.starts[i], static_cast<size_t>(pieces.ends[i] - pieces.starts[i]));
    buffer.clear();
    buffer.reserve(piece.size() + 2 + simdjson::SIMDJSON_PADDING);
    buffer.append("[").append(piece).append("]");
    if (parser.capacity() < buffer.size())
      if (simdjson::error_code error = parser.allocate(buffer.size(), max_depth)) throw simdjson::simdjson_error(error);
    od::document document = parser.iterate(simdjson::padded_string_view(buffer.data(), buffer.size(), buffer.capacity()));
    od::value nodes;
    if (simdjson::error_code error = document.get_value().get(nodes)) throw simdjson::simdjson_error(error);
    reader.read(nodes, out, &parser, nullptr);
    const char* rest = nullptr;
    if (document.current_location().get(rest) == simdjson::SUCCESS) throw FastGraphDeclined{};  // more than one array
    if (release) release->release_before(pieces.ends[i]);
  }
}

}  // namespace

std::optional<NodesRange> guess_nodes_range(std::string_view text, size_t min_bytes) {
  const size_t key = find_in(text, 0, text.size(), kNodesKey);
  if (key == text.size()) return std::nullopt;
  NodesRange range;
  range.begin = key + kNodesKey.size() - 1;
  const size_t after = find_in(text, range.begin, text.size(), kValuesAfterNodes);
  if (after == text.size()) return std::nullopt;
  range.end = after + 1;
  range.values_at = after + kValuesAfterNodes.size();
  if (range.end - range.begin < std::max<size_t>(min_bytes, 2)) return std::nullopt;
  if (find_in(text, range.begin, range.end, kNodesKey) != range.end) return std::nullopt;
  return range;
}

void ReadOnceWindow::release_before(const char* p) {
  const char* from = released_ ? released_ : begin_;
  const char* to = std::min(p, end_);
  if (to <= from) return;
  whole_.release_range(from, to);
  released_ = to;
}

void ReadOnceWindow::release_range(const char* begin, const char* end) {
  const char* from = std::max(begin, begin_);
  const char* to = std::min(end, end_);
  if (to > from) whole_.release_range(from, to);
}

bool NodesBesideRead::matches(const std::vector<const char*>& element_starts) const {
  if (element_starts.empty() || piece_starts.empty()) return element_starts.empty() && piece_starts.empty();
  if (piece_starts.front() != element_starts.front()) return false;
  if (!error && nodes.size() != element_starts.size()) return false;
  size_t e = 0;
  for (const char* start : piece_starts) {  // both in text order
    while (e < element_starts.size() && element_starts[e] < start) ++e;
    if (e == element_starts.size() || element_starts[e] != start) return false;
  }
  return true;
}

NodesBeside::NodesBeside(std::string_view text, NodesRange range, ReadOnceText* release, bool node_metadata,
                         size_t max_depth, const NodesBesideOptions& options)
    : window_(release ? std::optional<ReadOnceWindow>(std::in_place, *release, text.data() + range.begin,
                                                      text.data() + range.end)
                      : std::nullopt),
      task_(
          [this, text, range, node_metadata, max_depth, piece_bytes = std::max<size_t>(options.piece_bytes, 1)] {
            NodesBesideRead read;
            const Pieces pieces = cut_pieces(text, range, piece_bytes);
            read.piece_starts = pieces.starts;
            try {
              read_pieces(pieces, window_ ? &*window_ : nullptr, node_metadata, max_depth, read.nodes);
            } catch (...) {
              read.error = std::current_exception();
            }
            return read;
          },
          options.run) {}

}  // namespace pt2onnx::import
