//===- SyntaxBuilders.h - Syntax that Sema's rewrites build -----*- C++ -*-===//
//
// Small constructors of unanalyzed syntax for the rewrites that turn one
// form into another before it is analyzed (distribution sugar, a matrix
// product over the observation axis in transformed data).
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_SEMA_SYNTAXBUILDERS_H
#define AIMZ_SEMA_SYNTAXBUILDERS_H

#include "aimz/AST.h"

#include <algorithm>

namespace aimz {
namespace sema {

/// The argument at `Position` (when given by position) or under `Keyword`,
/// or null.
inline ExprPtr argumentAt(const std::vector<Arg> &Args, size_t Position,
                          llvm::StringRef Keyword) {
  for (size_t I = 0; I < Args.size(); ++I)
    if (Args[I].Keyword == Keyword ||
        (Args[I].Keyword.empty() && I == Position))
      return Args[I].Value;
  return nullptr;
}

inline ExprPtr number(SMLoc Loc, double V) {
  return std::make_shared<NumberExpr>(Loc, V, false);
}

inline ExprPtr binary(BinaryOp Op, ExprPtr L, ExprPtr R) {
  auto Node = std::make_shared<BinaryExpr>(L->Loc, Op, L, R);
  Node->Depth = std::max(L->Depth, R->Depth) + 1;
  return Node;
}

inline ExprPtr call(SMLoc Loc, const char *Callee, std::vector<Arg> Args) {
  auto Node = std::make_shared<CallExpr>(Loc, Callee, std::move(Args));
  for (const Arg &A : Node->Args)
    Node->Depth = std::max(Node->Depth, A.Value->Depth + 1);
  return Node;
}

/// `Base[:, :, None]`: one index per character of `Pattern`, ':' keeping
/// an axis and 'N' inserting one.
inline ExprPtr axes(ExprPtr Base, llvm::StringRef Pattern) {
  std::vector<ExprPtr> Indices;
  for (char C : Pattern)
    Indices.push_back(std::make_shared<AxisExpr>(Base->Loc, C == 'N'));
  auto Node = std::make_shared<IndexExpr>(Base->Loc, Base, std::move(Indices));
  Node->Depth = Base->Depth + 1;
  return Node;
}

} // namespace sema
} // namespace aimz

#endif // AIMZ_SEMA_SYNTAXBUILDERS_H
