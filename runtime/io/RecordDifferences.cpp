//===- RecordDifferences.cpp - What two run records disagree on -----------===//
#include "aimz/io/RecordDifferences.h"

#include <set>

namespace aimz::io {
namespace {
using nlohmann::json;

std::set<std::string> keysOf(const json &A, const json &B) {
  std::set<std::string> Keys;
  for (const json *J : {&A, &B})
    if (J->is_object())
      for (const auto &[K, V] : J->items())
        Keys.insert(K);
  return Keys;
}

json member(const json &J, const std::string &K) {
  return J.is_object() && J.contains(K) ? J[K] : json();
}

/// "seed (3 then, 4 now)" for short values, else the key alone.
std::string describe(const std::string &Key, const json &A, const json &B,
                     llvm::StringRef ALabel, llvm::StringRef BLabel) {
  std::string TA = A.is_null() ? "none" : A.dump();
  std::string TB = B.is_null() ? "none" : B.dump();
  if (TA.size() + TB.size() > 80)
    return Key;
  return Key + " (" + TA + " " + ALabel.str() + ", " + TB + " " +
         BLabel.str() + ")";
}

} // namespace

std::string recordDifferences(const json &A, const json &B,
                              llvm::StringRef ALabel, llvm::StringRef BLabel) {
  std::string Out;
  for (const std::string &K : keysOf(A, B)) {
    json VA = member(A, K), VB = member(B, K);
    if (VA == VB)
      continue;
    std::string Text;
    if (VA.is_object() && VB.is_object()) {
      // "inputs [X, y]": which members, not the whole object.
      std::string Members;
      for (const std::string &M : keysOf(VA, VB))
        if (member(VA, M) != member(VB, M))
          Members += (Members.empty() ? "" : ", ") + M;
      Text = K + " [" + Members + "]";
    } else {
      Text = describe(K, VA, VB, ALabel, BLabel);
    }
    Out += (Out.empty() ? "" : ", ") + Text;
  }
  return Out;
}

} // namespace aimz::io
