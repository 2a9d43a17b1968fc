//===- TestUtil.cpp - Helpers shared by the AimzIO unit tests -------------===//

#include "TestUtil.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

namespace aimz::io::test {

TempDir::TempDir() {
  std::string Tmpl = std::string(AIMZ_IO_TEST_TMP) + "/aimz-io-XXXXXX";
  llvm::sys::fs::create_directories(AIMZ_IO_TEST_TMP);
  std::vector<char> Buf(Tmpl.begin(), Tmpl.end());
  Buf.push_back('\0');
  if (!::mkdtemp(Buf.data()))
    ADD_FAILURE() << "mkdtemp failed for " << Tmpl;
  Path = Buf.data();
}

TempDir::~TempDir() { llvm::sys::fs::remove_directories(Path); }

std::vector<uint8_t> readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(In), {});
}

void writeFile(const std::string &Path, const void *Data, size_t Size) {
  std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
  Out.write(static_cast<const char *>(Data), std::streamsize(Size));
}

bool exists(const std::string &Path) { return llvm::sys::fs::exists(Path); }

std::vector<std::string> listTree(const std::string &Root) {
  std::vector<std::string> Names;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Root, EC), End;
       It != End && !EC; It.increment(EC))
    Names.push_back(It->path().substr(Root.size() + 1));
  std::sort(Names.begin(), Names.end());
  return Names;
}

int runPython(const std::vector<std::string> &Args, std::string *Output) {
  std::string Cmd = "/usr/bin/python3";
  for (const std::string &A : Args)
    Cmd += " '" + A + "'";
  Cmd += " 2>&1";
  FILE *P = ::popen(Cmd.c_str(), "r");
  if (!P)
    return -1;
  std::array<char, 4096> Buf;
  std::string Out;
  size_t N;
  while ((N = std::fread(Buf.data(), 1, Buf.size(), P)) > 0)
    Out.append(Buf.data(), N);
  int Status = ::pclose(P);
  if (Output)
    *Output = Out;
  return WIFEXITED(Status) ? WEXITSTATUS(Status) : -1;
}

bool havePythonNumpy() {
  static int Have = -1;
  if (Have < 0)
    Have = ::access("/usr/bin/python3", X_OK) == 0 &&
           runPython({"-c", "import numpy"}, nullptr) == 0;
  return Have == 1;
}

std::string scriptPath(const std::string &Name) {
  return std::string(AIMZ_IO_TEST_SOURCE_DIR) + "/" + Name;
}

std::string fixturesDir() {
  static std::string Dir = [] {
    // Keyed by the script's mtime: an edited script gets a fresh directory,
    // and nothing is ever deleted under a concurrently running test.
    llvm::sys::fs::file_status St;
    if (llvm::sys::fs::status(scriptPath("make_fixtures.py"), St))
      return std::string();
    std::string D =
        std::string(AIMZ_IO_TEST_TMP) + "/fixtures-" +
        std::to_string(llvm::sys::toTimeT(St.getLastModificationTime()));
    if (exists(D + "/STAMP"))
      return D;
    if (!havePythonNumpy())
      return std::string();
    std::string Out;
    if (runPython({scriptPath("make_fixtures.py"), D}, &Out) != 0 ||
        !exists(D + "/STAMP")) {
      ADD_FAILURE() << "make_fixtures.py failed:\n" << Out;
      return std::string();
    }
    return D;
  }();
  return Dir;
}

std::string errorText(llvm::Error E) {
  return E ? llvm::toString(std::move(E)) : std::string();
}

template <> float ruleValue<float>(uint64_t I) { return float(I) * 0.5f - 3; }
template <> double ruleValue<double>(uint64_t I) { return double(I) * 0.5 - 3; }
template <> int32_t ruleValue<int32_t>(uint64_t I) {
  return int32_t(I) * 7 - 100;
}
template <> int64_t ruleValue<int64_t>(uint64_t I) {
  return int64_t(I) * 7 - 100;
}
template <> bool ruleValue<bool>(uint64_t I) { return I % 3 == 0; }
template <> uint8_t ruleValue<uint8_t>(uint64_t I) { return uint8_t(I % 251); }

} // namespace aimz::io::test
