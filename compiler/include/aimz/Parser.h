//===- Parser.h - .aimz source to AST ---------------------------*- C++ -*-===//
#ifndef AIMZ_PARSER_H
#define AIMZ_PARSER_H

#include "aimz/AST.h"

#include "llvm/ADT/StringRef.h"

#include <memory>

namespace aimz {

class Diagnostics;

/// Parses one model from `Source` (which must stay alive as long as the AST:
/// locations point into it). Syntax errors are reported to `Diags`; returns
/// null when there was one.
std::unique_ptr<Model> parseModel(llvm::StringRef Source, Diagnostics &Diags);

/// Deepest nesting of brackets the parser accepts, and the deepest
/// expression tree; deeper input is rejected with a diagnostic rather than
/// risking the stack.
constexpr unsigned MaxNesting = 200;
constexpr unsigned MaxExprDepth = 1000;

} // namespace aimz

#endif // AIMZ_PARSER_H
