//===- FileFixture.h - A test's own directory of small files ----*- C++ -*-===//
#ifndef AIMZ_TEST_UNIT_RUN_FILEFIXTURE_H
#define AIMZ_TEST_UNIT_RUN_FILEFIXTURE_H

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <string>

namespace aimz::test {

/// A fresh directory per test, removed after it; write() puts a file in it.
class FileFixture : public ::testing::Test {
protected:
  llvm::SmallString<128> Dir;
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("aimz-test", Dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }
  std::string write(const std::string &Name, const std::string &Text) {
    llvm::SmallString<128> P(Dir);
    llvm::sys::path::append(P, Name);
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC);
    OS << Text;
    return std::string(P);
  }
};

} // namespace aimz::test

#endif // AIMZ_TEST_UNIT_RUN_FILEFIXTURE_H
