// Kernels in binaries: .cubin, .fatbin, .o, .a (an archive of objects, as a
// static device library ships) and ELF .so files (a wheel's kernels). A fat
// binary may carry PTX next to its SASS; fenceline checks the PTX, which is
// what the checks read. cuobjdump extracts it (`-xptx all`, in a private
// folder) and lists the kernels each SASS image holds (`-symbols`), so a
// kernel that comes only as SASS is named, not skipped in silence. cuobjdump
// is found by --cuobjdump, on PATH, next to nvcc, or in /usr/local/cuda/bin;
// pip's nvidia-cuda-cuobjdump ships one.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "driver/Process.h"

namespace fenceline::driver {

// Whether the file name says binary: .cubin, .fatbin, .o, .a (a static library of objects), .so, .so.N.
bool isBinaryName(const std::string& path);

struct EmbeddedPtx {
  std::string name;  // cuobjdump's name for it: "kernel.1.sm_90a.ptx"
  std::string file;  // where it lies (in BinaryContents::folder), read when its turn comes
};

struct SassOnlyKernel {
  std::string name;  // as in the ELF (mangled)
  std::string arch;  // "sm_90a", or "" when cuobjdump does not say
};

struct BinaryContents {
  bool ok = false;
  std::string error;                   // when not ok: cuobjdump missing, not a CUDA binary, ...
  std::vector<EmbeddedPtx> ptx;
  // The private folder holding the extracted PTX, removed when the last owner
  // lets go: the images are read one at a time, so that memory holds one
  // image, not the library's hundreds of MB of PTX.
  std::shared_ptr<TemporaryFolder> folder;
  std::vector<SassOnlyKernel> sassOnly;  // kernels of a SASS image that no PTX defines
  // When cuobjdump stopped partway through the binary (an image it cannot
  // read: "Invalid ELF") after extracting some PTX: what it said. The images
  // it extracted are checked; the rest of the binary is not, which the run
  // reports as an error (the report is not complete).
  std::string incomplete;
};

// The cuobjdump to run, or "" when none is found.
std::string findCuobjdump(const std::string& requested, const std::string& nvcc);

BinaryContents readBinary(const std::string& path, const std::string& cuobjdump, bool echo);

// The whole of a file ("" when it cannot be read).
std::string readWholeFile(const std::string& path);

// A file mapped read-only (a binary's PTX image, a private file of our own
// that nothing truncates while it is read): its pages are read from the page
// cache as the parser touches them, and drop() gives the resident ones back,
// so that the image's text is not held in memory while its functions are
// checked one by one (docs/performance.md, issue 35). The parser reads a body
// again through the same view when it is loaded. ok() is false when the file
// could not be mapped (the caller then reads it whole).
class MappedFile {
 public:
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  bool ok() const { return ok_; }
  std::string_view text() const { return {static_cast<const char*>(data_), size_}; }
  // Returns the pages read so far (they are read again if touched).
  void drop() const;
  // For a pass over the text: returns the pages wholly before `offset`, once
  // they are 1 MiB or more (an offset below the last one starts a new pass),
  // so that a scan holds about a MiB of the image, not the whole of it (a
  // system call per MiB scanned; at 4 MiB, the module's first pass of CuPy's
  // 27.7 MB thrust image was 2 MB of the run's peak).
  void dropBefore(size_t offset) const;
  // text().find(needle, from), a MiB at a time, giving back the pages before
  // the match as it goes (dropBefore; a search that crosses a 20 MB image
  // finds nothing for most of it: the whole image would be resident at its
  // end).
  size_t find(std::string_view needle, size_t from) const;

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
  bool ok_ = false;
  mutable size_t dropped_ = 0;  // dropBefore: pages before this are given back
};

}  // namespace fenceline::driver
