// Cubin ELF reader: section headers, the symbol table and the .nv.info attribute records.
#include "kernels/cubin.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "common/error.h"

namespace pt2onnx::kernels {

namespace {

constexpr uint8_t kFmtSval = 0x04;        // [fmt][attr][u16 size][size bytes]
constexpr uint8_t kAttrParamCbank = 0x0a;
constexpr uint8_t kAttrKparamInfo = 0x17;
constexpr uint8_t kAttrRegcount = 0x2f;

class Reader {
 public:
  explicit Reader(const std::vector<char>& b) : b_(b) {}
  template <typename T>
  T at(uint64_t offset) const {
    PT2ONNX_CHECK(offset + sizeof(T) <= b_.size() && offset + sizeof(T) >= offset, ErrorCode::kCompile,
                  "cubin: read past the end (offset " + std::to_string(offset) + ")");
    T v;
    std::memcpy(&v, b_.data() + offset, sizeof(T));
    return v;
  }
  std::string cstr(uint64_t offset, uint64_t limit) const {
    std::string s;
    while (offset < limit && offset < b_.size() && b_[offset] != '\0') s += b_[offset++];
    return s;
  }
  size_t size() const { return b_.size(); }

 private:
  const std::vector<char>& b_;
};

struct Section {
  std::string name;
  uint32_t type = 0;
  uint64_t offset = 0, size = 0, entsize = 0;
  uint32_t link = 0;
};

}  // namespace

CubinInfo read_cubin(const std::vector<char>& bytes) {
  Reader r(bytes);
  PT2ONNX_CHECK(bytes.size() >= 64 && std::memcmp(bytes.data(), "\x7f" "ELF", 4) == 0, ErrorCode::kCompile,
                "cubin: not an ELF file");
  PT2ONNX_CHECK(bytes[4] == 2 && bytes[5] == 1, ErrorCode::kCompile, "cubin: not a little-endian ELF64 file");
  CubinInfo info;
  info.elf_type = r.at<uint16_t>(16);
  info.machine = r.at<uint16_t>(18);
  info.flags = r.at<uint32_t>(48);
  info.sm = static_cast<int>((info.flags >> 8) & 0xff);
  const uint64_t shoff = r.at<uint64_t>(40);
  const uint16_t shentsize = r.at<uint16_t>(58), shnum = r.at<uint16_t>(60), shstrndx = r.at<uint16_t>(62);
  PT2ONNX_CHECK(shentsize == 64 && shstrndx < shnum, ErrorCode::kCompile, "cubin: malformed section header table");
  std::vector<Section> sections(shnum);
  for (uint16_t i = 0; i < shnum; ++i) {
    const uint64_t h = shoff + uint64_t{i} * 64;
    Section& s = sections[i];
    s.type = r.at<uint32_t>(h + 4);
    s.offset = r.at<uint64_t>(h + 24);
    s.size = r.at<uint64_t>(h + 32);
    s.link = r.at<uint32_t>(h + 40);
    s.entsize = r.at<uint64_t>(h + 56);
    PT2ONNX_CHECK(s.type == 8 /* NOBITS */ || s.offset + s.size <= bytes.size(), ErrorCode::kCompile,
                  "cubin: section " + std::to_string(i) + " lies outside the file");
  }
  const Section& names = sections[shstrndx];
  for (uint16_t i = 0; i < shnum; ++i)
    sections[i].name = r.cstr(names.offset + r.at<uint32_t>(shoff + uint64_t{i} * 64), names.offset + names.size);

  // Symbols: global functions are the kernels.
  std::vector<std::string> symbol_names;  // by symbol index
  std::map<std::string, CubinKernel> kernels;
  for (const Section& s : sections) {
    if (s.type != 2 /* SYMTAB */) continue;
    PT2ONNX_CHECK(s.entsize == 24 && s.link < sections.size(), ErrorCode::kCompile, "cubin: malformed symbol table");
    const Section& strtab = sections[s.link];
    for (uint64_t e = 0; e < s.size / 24; ++e) {
      const uint64_t p = s.offset + e * 24;
      const std::string name = r.cstr(strtab.offset + r.at<uint32_t>(p), strtab.offset + strtab.size);
      symbol_names.push_back(name);
      const uint8_t st_info = r.at<uint8_t>(p + 4);
      if ((st_info & 0xf) == 2 /* FUNC */ && (st_info >> 4) == 1 /* GLOBAL */) kernels[name].symbol = name;
    }
  }
  auto for_each_record = [&](const Section& s, auto&& fn) {
    uint64_t p = s.offset;
    const uint64_t end = s.offset + s.size;
    while (p + 4 <= end) {
      const uint8_t fmt = r.at<uint8_t>(p), attr = r.at<uint8_t>(p + 1);
      if (fmt == kFmtSval) {
        const uint16_t size = r.at<uint16_t>(p + 2);
        PT2ONNX_CHECK(p + 4 + size <= end, ErrorCode::kCompile, "cubin: truncated attribute in " + s.name);
        fn(attr, p + 4, size);
        p += 4 + uint64_t{size};
      } else {
        p += 4;  // NVAL/BVAL/HVAL: the value sits in the 2 bytes after fmt and attr
      }
    }
  };
  for (const Section& s : sections) {
    if (s.name == ".nv.info") {
      for_each_record(s, [&](uint8_t attr, uint64_t p, uint16_t size) {
        if (attr != kAttrRegcount || size < 8) return;
        const uint32_t sym = r.at<uint32_t>(p);
        if (sym < symbol_names.size())
          if (auto it = kernels.find(symbol_names[sym]); it != kernels.end())
            it->second.registers = static_cast<int>(r.at<uint32_t>(p + 4));
      });
    } else if (s.name.rfind(".nv.info.", 0) == 0) {
      auto it = kernels.find(s.name.substr(9));
      if (it == kernels.end()) continue;
      CubinKernel& k = it->second;
      for_each_record(s, [&](uint8_t attr, uint64_t p, uint16_t size) {
        if (attr == kAttrKparamInfo && size >= 12) {
          const uint32_t word = r.at<uint32_t>(p + 8);
          k.params.push_back({r.at<uint16_t>(p + 4), r.at<uint16_t>(p + 6), (word >> 18) & 0x3fff});
        } else if (attr == kAttrParamCbank && size >= 8) {
          k.param_bank_bytes = r.at<uint16_t>(p + 6);
        }
      });
    } else if (s.name.rfind(".nv.shared.", 0) == 0) {
      if (auto it = kernels.find(s.name.substr(11)); it != kernels.end()) it->second.shared_bytes = s.size;
    }
  }
  for (auto& [name, k] : kernels) {
    std::sort(k.params.begin(), k.params.end(), [](const CubinParam& a, const CubinParam& b) { return a.ordinal < b.ordinal; });
    info.kernels.push_back(k);
  }
  return info;
}

}  // namespace pt2onnx::kernels
