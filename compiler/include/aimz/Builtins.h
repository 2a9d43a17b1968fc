//===- Builtins.h - The functions a model may call --------------*- C++ -*-===//
//
// The table of Builtins.def: what each function name means to the checker
// and to code generation.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_BUILTINS_H
#define AIMZ_BUILTINS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace llvm {
class raw_ostream;
}

namespace aimz {

enum class BuiltinFamily {
  Elementwise, // f(x), elementwise
  Pair,        // f(a, b), broadcast together
  Clip,        // clip(x, lo, hi)
  Where,       // where(cond, a, b)
  Reduction,   // over all axes or axis=; with two arguments, a Pair
  Softmax,     // along one axis (default the last), shape-preserving
  CumSum,      // running sums along one axis
  Constructor, // an array from dimensions: ones, zeros, full, eye, arange
  Transpose,   // transpose(A): A.T
  Outer,       // outer(a, b): a[:, None] * b[None, :]
  Diag,        // diag(v): a diagonal matrix; diag(M): its diagonal
  VecToTril,   // vec_to_tril(v, R, C): a lower triangle filled from v
  Factorization, // cholesky(A), inverse(A): of the last two axes
  Sort,        // sort, argsort: along one axis (default the last)
  LogProb,     // log_prob(Dist(...), x): a distribution's log density at x
  Join,        // stack, concatenate: a list or tuple of arrays along an axis
  Pad,         // pad(x, widths, constant_values=c)
  BroadcastTo, // broadcast_to(x, shape)
  Reorder,     // flip, repeat, tile, take: a gather along axes
};

enum class BuiltinResult {
  Float,      // the model's floating precision
  Same,       // the argument's type
  Arithmetic, // the arguments' arithmetic promotion
  Sum,        // the argument's type; bool counts as i32
  Index,      // i64 positions (argsort)
};

struct Builtin {
  llvm::StringRef Name;
  BuiltinFamily Family;
  unsigned MinArgs, MaxArgs;
  BuiltinResult Result;
  /// The aimz op's function keyword ("none" when the family needs none).
  llvm::StringRef IrName;

  /// Whether `axis=` is accepted.
  bool takesAxis() const {
    return Family == BuiltinFamily::Reduction ||
           Family == BuiltinFamily::Softmax || Family == BuiltinFamily::CumSum ||
           Family == BuiltinFamily::Sort;
  }
};

/// The builtin called `Name`, or null.
const Builtin *lookupBuiltin(llvm::StringRef Name);

/// Every builtin, in Builtins.def's order.
llvm::ArrayRef<Builtin> allBuiltins();

/// "exp, log, ..., cumsum": for the unknown-function message.
std::string builtinNameList();

/// aimzc --list-functions: the table as the Markdown of docs/functions.md.
void printFunctionCatalogue(llvm::raw_ostream &OS);

} // namespace aimz

#endif // AIMZ_BUILTINS_H
