//===- AbiSymbols.h - Names of abi.h's symbols, from AbiSymbols.def -*- C++ -*-===//
//
// The compiler and the runtime spell every entry point, exported constant
// and support function through these (no string literals of their own), so
// the two sides cannot drift apart.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_ABISYMBOLS_H
#define AIMZ_ABISYMBOLS_H

#include <string>
#include <string_view>

namespace aimz {
namespace abi {

enum class EntryPoint {
#define AIMZ_ENTRY_POINT(ID, SYMBOL) ID,
#include "aimz/AbiSymbols.def"
};
inline constexpr const char *EntryPointNames[] = {
#define AIMZ_ENTRY_POINT(ID, SYMBOL) #SYMBOL,
#include "aimz/AbiSymbols.def"
};
/// The GPU kernel of each entry point, in the same order.
inline constexpr const char *KernelNames[] = {
#define AIMZ_ENTRY_POINT(ID, SYMBOL) #SYMBOL "_kernel",
#include "aimz/AbiSymbols.def"
};
inline constexpr int NumEntryPoints =
    sizeof(EntryPointNames) / sizeof(EntryPointNames[0]);
inline constexpr const char *name(EntryPoint E) {
  return EntryPointNames[static_cast<int>(E)];
}

#define AIMZ_HOST_ENTRY_POINT(ID, SYMBOL)                                      \
  inline constexpr const char *ID##Entry = #SYMBOL;
#include "aimz/AbiSymbols.def"

enum class DataSymbol {
#define AIMZ_DATA_SYMBOL(ID, SYMBOL) ID,
#include "aimz/AbiSymbols.def"
};
inline constexpr const char *DataSymbolNames[] = {
#define AIMZ_DATA_SYMBOL(ID, SYMBOL) #SYMBOL,
#include "aimz/AbiSymbols.def"
};
inline constexpr const char *name(DataSymbol D) {
  return DataSymbolNames[static_cast<int>(D)];
}

enum class SupportFamily {
#define AIMZ_SUPPORT_FAMILY(ID, PREFIX) ID,
#include "aimz/AbiSymbols.def"
};
inline constexpr const char *SupportPrefixes[] = {
#define AIMZ_SUPPORT_FAMILY(ID, PREFIX) #PREFIX,
#include "aimz/AbiSymbols.def"
};
/// PREFIX<What>_<Precision>: aimz_rt_sample_normal_f32, aimz_rt_exp_f64,
/// aimz_rt_matmul_f32 (What empty).
inline std::string supportFunction(SupportFamily F, std::string_view What,
                                   std::string_view Precision) {
  std::string S = SupportPrefixes[static_cast<int>(F)];
  S.append(What);
  S += '_';
  S.append(Precision);
  return S;
}

} // namespace abi
} // namespace aimz

#endif // AIMZ_ABISYMBOLS_H
