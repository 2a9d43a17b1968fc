//===- Builtins.cpp - The functions a model may call ----------------------===//
#include "aimz/Builtins.h"

#include "llvm/ADT/ArrayRef.h"

namespace aimz {

static const Builtin Table[] = {
#define AIMZ_BUILTIN(Name, Family, MinArgs, MaxArgs, Result, IrName)          \
  {#Name,  BuiltinFamily::Family,  MinArgs,                                    \
   MaxArgs, BuiltinResult::Result, #IrName},
#include "aimz/Builtins.def"
};

llvm::ArrayRef<Builtin> allBuiltins() { return Table; }

const Builtin *lookupBuiltin(llvm::StringRef Name) {
  for (const Builtin &B : Table)
    if (B.Name == Name)
      return &B;
  return nullptr;
}

std::string builtinNameList() {
  std::string S;
  for (const Builtin &B : Table) {
    if (!S.empty())
      S += ", ";
    S += B.Name.str();
  }
  return S;
}

} // namespace aimz
