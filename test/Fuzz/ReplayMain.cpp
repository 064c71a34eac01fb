//===- ReplayMain.cpp - run a fuzz target without libFuzzer ---------------===//
//
// Builds without EJK_FUZZ link this main instead of libFuzzer: it calls
// LLVMFuzzerTestOneInput once on every file named on the command line and
// every file (recursively) in every directory named, so the regressions and
// seed corpus replay in the normal build too. Arguments starting with '-'
// (libFuzzer flags such as -runs=0) are ignored, so one command line serves
// both builds.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int *argc,
                                                          char ***argv);

namespace {

/// Runs the target on \p path; false when it cannot be read.
bool runFile(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  // A copy of exactly `size` bytes, so reading past the input is caught by
  // the sanitizers as it is under libFuzzer.
  std::vector<uint8_t> input(bytes.begin(), bytes.end());
  LLVMFuzzerTestOneInput(input.empty() ? nullptr : input.data(), input.size());
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  namespace fs = std::filesystem;
  size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!arg.empty() && arg[0] == '-')
      continue;
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<fs::path> files;
      for (const auto &entry : fs::recursive_directory_iterator(arg, ec))
        if (entry.is_regular_file())
          files.push_back(entry.path());
      std::sort(files.begin(), files.end());
      for (const fs::path &file : files) {
        if (!runFile(file)) {
          std::fprintf(stderr, "replay: cannot read '%s'\n", file.c_str());
          return 1;
        }
        ++count;
      }
    } else if (fs::exists(arg, ec)) {
      if (!runFile(arg)) {
        std::fprintf(stderr, "replay: cannot read '%s'\n", arg.c_str());
        return 1;
      }
      ++count;
    }
    // A directory that does not exist (no regressions yet) holds nothing.
  }
  std::printf("replay: %zu inputs ran\n", count);
  // Nothing to run means a wrong path, not a pass.
  if (count == 0) {
    std::fprintf(stderr, "replay: no inputs found\n");
    return 1;
  }
  return 0;
}
