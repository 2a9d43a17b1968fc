//===- DimExpr.h - Arithmetic on dimensions ---------------------*- C++ -*-===//
//
// A dimension written as arithmetic on names and integers (`K - 1`,
// `n * k`, `2 * J + 1`) is a polynomial with integer coefficients. Its
// canonical text is what the compiler puts in types and in the manifest, so
// two dimensions are equal exactly when their texts are; the runtime and the
// lowering parse the text back and evaluate it from the bound dimensions.
// Header-only and free of LLVM: abi-level code on both sides uses it.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_DIMEXPR_H
#define AIMZ_DIMEXPR_H

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace aimz {

/// sum of Coefficient * product(names); the empty product is the constant.
struct DimPoly {
  using Monomial = std::vector<std::string>; // sorted names, repeats allowed
  std::map<Monomial, int64_t> Terms;          // no zero coefficients

  static DimPoly constant(int64_t C) {
    DimPoly P;
    if (C)
      P.Terms[{}] = C;
    return P;
  }
  static DimPoly symbol(const std::string &S) {
    DimPoly P;
    P.Terms[{S}] = 1;
    return P;
  }

  bool isConstant() const {
    return Terms.empty() || (Terms.size() == 1 && Terms.begin()->first.empty());
  }
  int64_t constantValue() const {
    auto It = Terms.find({});
    return It == Terms.end() ? 0 : It->second;
  }
  /// A single name with coefficient 1: a plain dimension.
  bool isSymbol() const {
    return Terms.size() == 1 && Terms.begin()->first.size() == 1 &&
           Terms.begin()->second == 1;
  }
  /// Every name the polynomial mentions, once each.
  std::vector<std::string> names() const {
    std::vector<std::string> Out;
    for (const auto &[M, C] : Terms)
      for (const std::string &S : M)
        if (std::find(Out.begin(), Out.end(), S) == Out.end())
          Out.push_back(S);
    return Out;
  }

  // Arithmetic; false on 64-bit overflow of a coefficient.
  bool add(const DimPoly &O, int64_t Sign = 1) {
    for (const auto &[M, C] : O.Terms) {
      int64_t &Mine = Terms[M];
      int64_t Scaled;
      if (__builtin_mul_overflow(C, Sign, &Scaled) ||
          __builtin_add_overflow(Mine, Scaled, &Mine))
        return false;
      if (Mine == 0)
        Terms.erase(M);
    }
    return true;
  }
  bool mul(const DimPoly &O) {
    DimPoly R;
    for (const auto &[MA, CA] : Terms)
      for (const auto &[MB, CB] : O.Terms) {
        Monomial M = MA;
        M.insert(M.end(), MB.begin(), MB.end());
        std::sort(M.begin(), M.end());
        int64_t C;
        if (__builtin_mul_overflow(CA, CB, &C))
          return false;
        DimPoly T;
        T.Terms[M] = C;
        if (!R.add(T))
          return false;
      }
    *this = std::move(R);
    return true;
  }
  /// Division by a constant, only where every coefficient divides.
  bool divideExactly(int64_t D) {
    if (D == 0)
      return false;
    for (const auto &[M, C] : Terms)
      if (C % D != 0)
        return false;
    for (auto &[M, C] : Terms)
      C /= D;
    return true;
  }

  /// Canonical text: names' terms in order, the constant last;
  /// `K - 1`, `2*J + 1`, `k*n`.
  std::string str() const {
    if (Terms.empty())
      return "0";
    std::string S;
    auto Emit = [&](const Monomial &M, int64_t C) {
      bool First = S.empty();
      uint64_t Abs = C < 0 ? 0 - static_cast<uint64_t>(C)
                           : static_cast<uint64_t>(C);
      if (First)
        S += C < 0 ? "-" : "";
      else
        S += C < 0 ? " - " : " + ";
      std::string Names;
      for (const std::string &N : M)
        Names += (Names.empty() ? "" : "*") + N;
      if (M.empty())
        S += std::to_string(Abs);
      else if (Abs == 1)
        S += Names;
      else
        S += std::to_string(Abs) + "*" + Names;
    };
    for (const auto &[M, C] : Terms)
      if (!M.empty())
        Emit(M, C);
    if (auto It = Terms.find({}); It != Terms.end())
      Emit({}, It->second);
    return S;
  }

  /// The value given each name's; nullopt when a name is unbound (Lookup
  /// returns nullopt) or on overflow.
  std::optional<int64_t> evaluate(
      const std::function<std::optional<int64_t>(const std::string &)> &Lookup)
      const {
    int64_t Sum = 0;
    for (const auto &[M, C] : Terms) {
      int64_t T = C;
      for (const std::string &N : M) {
        auto V = Lookup(N);
        if (!V || __builtin_mul_overflow(T, *V, &T))
          return std::nullopt;
      }
      if (__builtin_add_overflow(Sum, T, &Sum))
        return std::nullopt;
    }
    return Sum;
  }

  /// Parses text as str() writes it (and, more loosely, any sum of
  /// products of names and integers with optional blanks).
  static std::optional<DimPoly> parse(const std::string &Text) {
    size_t I = 0;
    auto Skip = [&] {
      while (I < Text.size() && Text[I] == ' ')
        ++I;
    };
    DimPoly Sum;
    bool First = true;
    while (true) {
      Skip();
      int64_t Sign = 1;
      if (I < Text.size() && (Text[I] == '+' || Text[I] == '-')) {
        Sign = Text[I] == '-' ? -1 : 1;
        ++I;
        Skip();
      } else if (!First) {
        return std::nullopt;
      }
      First = false;
      DimPoly Term = constant(1);
      while (true) {
        Skip();
        size_t Start = I;
        if (I < Text.size() && std::isdigit(static_cast<unsigned char>(Text[I]))) {
          while (I < Text.size() && std::isdigit(static_cast<unsigned char>(Text[I])))
            ++I;
          errno = 0;
          long long V = std::strtoll(Text.substr(Start, I - Start).c_str(),
                                     nullptr, 10);
          if (errno == ERANGE || !Term.mul(constant(V)))
            return std::nullopt;
        } else if (I < Text.size() &&
                   (std::isalpha(static_cast<unsigned char>(Text[I])) ||
                    Text[I] == '_')) {
          while (I < Text.size() &&
                 (std::isalnum(static_cast<unsigned char>(Text[I])) ||
                  Text[I] == '_'))
            ++I;
          if (!Term.mul(symbol(Text.substr(Start, I - Start))))
            return std::nullopt;
        } else {
          return std::nullopt;
        }
        Skip();
        if (I < Text.size() && Text[I] == '*') {
          ++I;
          continue;
        }
        break;
      }
      if (!Sum.add(Term, Sign))
        return std::nullopt;
      Skip();
      if (I == Text.size())
        return Sum;
    }
  }
};

} // namespace aimz

#endif // AIMZ_DIMEXPR_H
