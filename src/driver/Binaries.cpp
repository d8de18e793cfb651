// PTX and kernel lists out of CUDA binaries through cuobjdump (see Binaries.h).
#include "driver/Binaries.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "driver/FaultWindows.h"
#include "driver/Process.h"

namespace fenceline::driver {

namespace fs = std::filesystem;

namespace {

std::string readWhole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string trimmed(const std::string& output) {
  std::string text = output;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// What cuobjdump said about its failure: its own "cuobjdump fatal : ..." /
// "cuobjdump error : ..." lines, not the listing it printed before them (which
// is megabytes for a large library, and not the same from run to run when it
// fails); the last line when it printed no such line.
std::string cuobjdumpMessage(const std::string& output) {
  std::string said, last;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) continue;
    last = line;
    if (line.rfind("cuobjdump", 0) == 0) said += (said.empty() ? "" : "\n") + line;
  }
  return said.empty() ? last : said;
}

Outcome runEchoed(const std::vector<std::string>& arguments, const std::string& folder, bool echo,
                  const std::function<void(std::string_view)>& onOutput = {}) {
  if (echo) {
    std::string line;
    for (const auto& argument : arguments) line += (line.empty() ? "" : " ") + argument;
    line += "\n";
    ssize_t ignored = ::write(2, line.data(), line.size());
    (void)ignored;
  }
  return onOutput ? run(arguments, folder, onOutput) : run(arguments, folder);
}

// `.entry NAME(` names in a PTX text.
std::set<std::string> entriesOf(std::string_view ptx, const MappedFile* mapped) {
  std::set<std::string> names;
  auto isNameChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%'; };
  auto next = [&](size_t from) { return mapped ? mapped->find(".entry", from) : ptx.find(".entry", from); };
  for (size_t at = next(0); at != std::string::npos; at = next(at + 6)) {
    size_t begin = ptx.find_first_not_of(" \t\r\n", at + 6);
    if (begin == std::string::npos || begin == at + 6) continue;
    size_t end = begin;
    while (end < ptx.size() && isNameChar(ptx[end])) ++end;
    if (end > begin) names.insert(std::string(ptx.substr(begin, end - begin)));
  }
  return names;
}

// cuobjdump -symbols: "arch = sm_90a" opens each image ("Fatbin elf code:" or
// "Fatbin ptx code:" before it); kernels are "FUNC ... ENTRY ... NAME" lines.
// Read as the listing comes (it is 24 MB for libcusparse.so.12, and it was
// held whole, and copied into a stream, while parsed): each kernel name and
// architecture once, the (name, architecture) pairs in the order they first
// appear.
class SassListing {
 public:
  void feed(std::string_view piece) {
    while (!piece.empty()) {
      const size_t end = piece.find('\n');
      if (end == std::string_view::npos) {
        partial_.append(piece);
        return;
      }
      if (partial_.empty()) {
        line(piece.substr(0, end));
      } else {
        partial_.append(piece.substr(0, end));
        line(partial_);
        partial_.clear();
      }
      piece.remove_prefix(end + 1);
    }
  }
  void finish() {
    if (!partial_.empty()) line(partial_);
    partial_.clear();
  }
  // The kernels whose name `defined` does not hold, in order.
  std::vector<SassOnlyKernel> kernelsNotIn(const std::set<std::string>& defined) const {
    std::vector<SassOnlyKernel> out;
    for (auto [name, arch] : kernels_)
      if (!defined.contains(names_[name])) out.push_back({names_[name], archs_[arch]});
    return out;
  }

 private:
  void line(std::string_view line) {
    if (line.starts_with("Fatbin elf code")) {
      inElf_ = true;
    } else if (line.starts_with("Fatbin ptx code")) {
      inElf_ = false;
    } else if (line.starts_with("arch = ")) {
      arch_ = idOf(archs_, archIds_, line.substr(7));
    } else if (inElf_ && line.starts_with("FUNC") && line.find(" ENTRY ") != std::string_view::npos) {
      // The last word (words are separated by white space, as `>>` reads them).
      auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
      size_t end = line.size();
      while (end > 0 && space(line[end - 1])) --end;
      size_t begin = end;
      while (begin > 0 && !space(line[begin - 1])) --begin;
      const uint32_t name = idOf(names_, nameIds_, line.substr(begin, end - begin));
      if (arch_ == kNone) arch_ = idOf(archs_, archIds_, "");
      if (seen_.insert(uint64_t{name} << 32 | arch_).second) kernels_.emplace_back(name, arch_);
    }
  }
  static uint32_t idOf(std::vector<std::string>& table, std::unordered_map<std::string, uint32_t>& ids,
                       std::string_view text) {
    auto [it, added] = ids.try_emplace(std::string(text), static_cast<uint32_t>(table.size()));
    if (added) table.emplace_back(text);
    return it->second;
  }

  static constexpr uint32_t kNone = UINT32_MAX;
  std::string partial_;
  bool inElf_ = true;  // a bare .cubin has no "Fatbin" headers: it is one ELF image
  uint32_t arch_ = kNone;
  std::vector<std::string> names_, archs_;
  std::unordered_map<std::string, uint32_t> nameIds_, archIds_;
  std::unordered_set<uint64_t> seen_;
  std::vector<std::pair<uint32_t, uint32_t>> kernels_;
};

}  // namespace

bool isBinaryName(const std::string& path) {
  fs::path name(path);
  std::string extension = name.extension().string();
  if (extension == ".cubin" || extension == ".fatbin" || extension == ".o" || extension == ".a" || extension == ".so")
    return true;
  // libfoo.so.12, libfoo.so.12.1
  std::string file = name.filename().string();
  size_t so = file.find(".so.");
  return so != std::string::npos &&
         std::all_of(file.begin() + so + 4, file.end(), [](char c) { return std::isdigit(c) || c == '.'; });
}

std::string findCuobjdump(const std::string& requested, const std::string& nvcc) {
  if (!requested.empty()) return requested.find('/') != std::string::npos ? requested : searchPath(requested);
  if (std::string found = searchPath("cuobjdump"); !found.empty()) return found;
  if (!nvcc.empty()) {
    fs::path besideNvcc = fs::path(nvcc).parent_path() / "cuobjdump";
    if (isExecutable(besideNvcc)) return besideNvcc.string();
  }
  if (isExecutable("/usr/local/cuda/bin/cuobjdump")) return "/usr/local/cuda/bin/cuobjdump";
  return {};
}

BinaryContents readBinary(const std::string& path, const std::string& cuobjdump, bool echo) {
  BinaryContents contents;
  if (cuobjdump.empty()) {
    contents.error =
        "cannot find cuobjdump to read this binary: none on PATH, next to nvcc or in /usr/local/cuda/bin "
        "(pass --cuobjdump PATH; pip's nvidia-cuda-cuobjdump ships one)";
    return contents;
  }
  auto shared = std::make_shared<TemporaryFolder>();
  TemporaryFolder& folder = *shared;
  contents.folder = shared;
  if (folder.path().empty()) {
    contents.error = "cannot create a temporary folder";
    return contents;
  }
  std::error_code error;
  std::string absolute = fs::absolute(path, error).string();

  // The kernels of each SASS image; fails on a file that is no CUDA binary.
  SassListing listed;
  Outcome listing = runEchoed({cuobjdump, "-symbols", absolute}, "", echo,
                              [&listed](std::string_view piece) { listed.feed(piece); });
  listed.finish();
  if (listing.execErrno) {
    contents.error = fmt::format("cannot run cuobjdump '{}': {}", cuobjdump, std::strerror(listing.execErrno));
    return contents;
  }
  if (!succeeded(listing) && listing.output.find("does not contain device code") != std::string::npos) {
    contents.ok = true;  // a host-only object or library: nothing to check, not an error
    return contents;
  }
  const bool listedAll = succeeded(listing);

  // The embedded PTX, one file per image. "No PTX file found" is not an error.
  // Run even when the listing failed: cuobjdump stops at the first image it
  // cannot read ("Invalid ELF"), and what it extracted before that is checked.
  Outcome extracted = runEchoed({cuobjdump, "-xptx", "all", absolute}, folder.path(), echo);
  const bool extractedAll =
      succeeded(extracted) || extracted.output.find("No PTX file found") != std::string::npos;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(folder.path(), error))
    if (entry.path().extension() == ".ptx") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  if (!listedAll || !extractedAll) {
    const Outcome& failed = !listedAll ? listing : extracted;
    const std::string said = fmt::format("{}: {}", describeStatus(failed.status), cuobjdumpMessage(failed.output));
    if (files.empty()) {
      contents.error = !listedAll ? fmt::format("not a CUDA binary that cuobjdump can read ({})", said)
                                  : fmt::format("cuobjdump could not extract the PTX ({})", said);
      return contents;
    }
    contents.incomplete = fmt::format(
        "cuobjdump stopped partway through this binary ({}): checked the {} PTX image{} it extracted before it "
        "stopped; the images after that point were not checked{}",
        said, files.size(), files.size() == 1 ? "" : "s",
        listedAll ? "" : ", nor is it known which kernels are only SASS");
  }
  std::set<std::string> defined;
  for (const auto& file : files) {
    const MappedFile mapped(file.string());  // not read into the heap (see PtxSources.cpp)
    auto names = mapped.ok() ? entriesOf(mapped.text(), &mapped) : entriesOf(readWhole(file), nullptr);
    defined.insert(names.begin(), names.end());
    contents.ptx.push_back({file.filename().string(), file.string()});
  }
  contents.sassOnly = listed.kernelsNotIn(defined);
  contents.ok = true;
  return contents;
}

std::string readWholeFile(const std::string& path) { return readWhole(path); }

MappedFile::MappedFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat info {};
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
    size_ = static_cast<size_t>(info.st_size);
    if (size_ == 0) {
      ok_ = true;  // an empty image: an empty view
    } else {
      void* data = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (data != MAP_FAILED) {
        data_ = data;
        ok_ = true;
        limitFaultWindows(data, size_);
      }
    }
  }
  ::close(fd);
  if (!ok_) size_ = 0;
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

void MappedFile::drop() const {
  if (data_) ::madvise(data_, size_, MADV_DONTNEED);
  dropped_ = 0;
}

size_t MappedFile::find(std::string_view needle, size_t from) const {
  const std::string_view all = text();
  constexpr size_t kWindow = size_t(1) << 20;
  for (size_t start = from; start < all.size(); start += kWindow) {
    const size_t found = all.substr(start, kWindow + needle.size() - 1).find(needle);
    if (found != std::string_view::npos) {
      dropBefore(start + found);
      return start + found;
    }
    dropBefore(start + kWindow);
  }
  return std::string_view::npos;
}

void MappedFile::dropBefore(size_t offset) const {
  if (!data_) return;
  if (offset < dropped_) dropped_ = 0;  // a new pass from the start
  const size_t end = std::min(offset, size_) & ~size_t(4095);
  if (end < dropped_ + (size_t(1) << 20)) return;
  ::madvise(static_cast<char*>(data_) + dropped_, end - dropped_, MADV_DONTNEED);
  dropped_ = end;
}

}  // namespace fenceline::driver
