//===- TestUtil.h - Helpers shared by the AimzIO unit tests -----*- C++ -*-===//

#ifndef AIMZ_IO_TEST_TESTUTIL_H
#define AIMZ_IO_TEST_TESTUTIL_H

#include "llvm/Support/Error.h"
#include "gtest/gtest.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aimz::io::test {

/// A fresh directory under the build tree, removed with its contents.
class TempDir {
public:
  TempDir();
  ~TempDir();
  const std::string &path() const { return Path; }
  std::string operator/(const std::string &Name) const {
    return Path + "/" + Name;
  }

private:
  std::string Path;
};

std::vector<uint8_t> readFile(const std::string &Path);
void writeFile(const std::string &Path, const void *Data, size_t Size);
inline void writeFile(const std::string &Path, const std::string &S) {
  writeFile(Path, S.data(), S.size());
}
bool exists(const std::string &Path);
/// Names in a directory tree, relative to Root, sorted.
std::vector<std::string> listTree(const std::string &Root);

/// True if /usr/bin/python3 with numpy is usable.
bool havePythonNumpy();
/// Runs /usr/bin/python3 with Args; returns its exit status and output.
int runPython(const std::vector<std::string> &Args, std::string *Output);
/// Directory with make_fixtures.py's output, generated on first use; empty
/// if Python/NumPy are unavailable.
std::string fixturesDir();
/// Path of a script next to the tests' sources.
std::string scriptPath(const std::string &Name);

/// The message of an error (consuming it), or "" for success.
std::string errorText(llvm::Error E);
template <typename T> std::string errorText(llvm::Expected<T> &E) {
  return E ? std::string() : llvm::toString(E.takeError());
}

/// make_fixtures.py's value rules, for expected values.
template <typename T> T ruleValue(uint64_t I);

} // namespace aimz::io::test

#define ASSERT_OK(E)                                                           \
  do {                                                                         \
    std::string Msg_ = ::aimz::io::test::errorText(E);                         \
    ASSERT_TRUE(Msg_.empty()) << Msg_;                                         \
  } while (0)

#define ASSERT_EXPECTED(E)                                                     \
  ASSERT_TRUE(static_cast<bool>(E)) << llvm::toString(E.takeError())

#endif // AIMZ_IO_TEST_TESTUTIL_H
