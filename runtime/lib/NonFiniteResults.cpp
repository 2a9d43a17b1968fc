//===- NonFiniteResults.cpp - NaN and infinities a run computed -----------===//
#include "aimz/run/NonFiniteResults.h"

#include <algorithm>
#include <cstring>

namespace aimz::run {
namespace {

/// Bits of an IEEE float: its exponent field, and the sign.
template <class Bits> struct Ieee;
template <> struct Ieee<uint32_t> {
  static constexpr uint32_t Exp = 0x7f800000u, Mant = 0x007fffffu,
                            Sign = 0x80000000u;
};
template <> struct Ieee<uint64_t> {
  static constexpr uint64_t Exp = 0x7ff0000000000000ull,
                            Mant = 0x000fffffffffffffull,
                            Sign = 0x8000000000000000ull;
};

/// Counts over Count elements Stride apart; the common all-finite case is
/// one branch-free pass (it vectorizes), the rest only when it found some.
template <class Bits>
void countRun(const uint8_t *P, int64_t Count, int64_t Stride,
              NonFiniteTally &T) {
  using F = Ieee<Bits>;
  int64_t Special = 0;
  for (int64_t I = 0; I < Count; ++I) {
    Bits B;
    std::memcpy(&B, P + I * Stride * sizeof(Bits), sizeof(Bits));
    Special += (B & F::Exp) == F::Exp;
  }
  if (Special == 0)
    return;
  for (int64_t I = 0; I < Count; ++I) {
    Bits B;
    std::memcpy(&B, P + I * Stride * sizeof(Bits), sizeof(Bits));
    if ((B & F::Exp) != F::Exp)
      continue;
    if (B & F::Mant)
      ++T.NaN;
    else if (B & F::Sign)
      ++T.NegInf;
    else
      ++T.PosInf;
  }
}

/// The invalid-count markers (-1) among Count int32 values Stride apart.
void countMarkers(const uint8_t *P, int64_t Count, int64_t Stride,
                  NonFiniteTally &T) {
  for (int64_t I = 0; I < Count; ++I) {
    int32_t V;
    std::memcpy(&V, P + I * Stride * sizeof V, sizeof V);
    T.Invalid += V == -1;
  }
}

std::string plural(int64_t N, const char *One, const char *Many) {
  return std::to_string(N) + " " + (N == 1 ? One : Many);
}

} // namespace

void NonFiniteTally::add(const NonFiniteTally &O) {
  NaN += O.NaN;
  PosInf += O.PosInf;
  NegInf += O.NegInf;
  Invalid += O.Invalid;
  if (O.FirstDraw >= 0 && (FirstDraw < 0 || O.FirstDraw < FirstDraw))
    FirstDraw = O.FirstDraw;
}

NonFiniteTally countNonFiniteInBox(io::DType Type, const void *Chunk,
                                   const std::vector<int64_t> &Strides,
                                   const ChunkBox &Box, int64_t Draw0,
                                   bool CountDraws) {
  NonFiniteTally T;
  const bool Markers = CountDraws && Type == io::DType::Int32;
  if (Type != io::DType::Float32 && Type != io::DType::Float64 && !Markers)
    return T;
  const size_t W = io::dtypeSize(Type);
  // Per draw, so that the first draw holding one is known.
  ChunkBox Row = Box;
  for (int64_t D = Box.Lo[0]; D < Box.Hi[0]; ++D) {
    Row.Lo[0] = D;
    Row.Hi[0] = D + 1;
    const int64_t Before = T.total();
    forEachRun(Strides, Row, [&](int64_t Off, int64_t Count, int64_t S) {
      const auto *P = static_cast<const uint8_t *>(Chunk) + Off * W;
      if (Markers)
        countMarkers(P, Count, S, T);
      else if (W == 4)
        countRun<uint32_t>(P, Count, S, T);
      else
        countRun<uint64_t>(P, Count, S, T);
    });
    if (T.FirstDraw < 0 && T.total() > Before)
      T.FirstDraw = Draw0 + D;
  }
  return T;
}

std::string describeNonFinite(const std::string &Array,
                              const NonFiniteTally &T, uint64_t Values,
                              bool NegInfIsAValue) {
  const int64_t NegInf = NegInfIsAValue ? 0 : T.NegInf;
  if (T.NaN + T.PosInf + NegInf + T.Invalid == 0)
    return "";
  std::vector<std::string> Parts;
  if (T.Invalid)
    Parts.push_back(plural(T.Invalid, "invalid draw (-1)",
                           "invalid draws (-1)"));
  if (T.NaN)
    Parts.push_back(plural(T.NaN, "NaN", "NaN"));
  if (T.PosInf)
    Parts.push_back(plural(T.PosInf, "+inf", "+inf"));
  if (NegInf)
    Parts.push_back(plural(NegInf, "-inf", "-inf"));
  std::string Text;
  for (size_t I = 0; I < Parts.size(); ++I)
    Text += (I ? (I + 1 == Parts.size() ? " and " : ", ") : "") + Parts[I];
  return "'" + Array + "' holds " + Text + " among its " +
         std::to_string(Values) + " values (from draw " +
         std::to_string(T.FirstDraw) + ")";
}

} // namespace aimz::run
