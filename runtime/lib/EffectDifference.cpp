//===- EffectDifference.cpp - Scenario minus baseline in a chunk ----------===//
#include "aimz/run/EffectDifference.h"

#include <cstring>

namespace aimz::run {

namespace {

template <class T>
void subtractRun(uint8_t *Out, const uint8_t *Base, int64_t Count,
                 int64_t Stride) {
  for (int64_t I = 0; I < Count; ++I) {
    T A, B;
    std::memcpy(&A, Out + I * Stride * sizeof(T), sizeof(T));
    std::memcpy(&B, Base + I * Stride * sizeof(T), sizeof(T));
    T D = static_cast<T>(A - B);
    std::memcpy(Out + I * Stride * sizeof(T), &D, sizeof(T));
  }
}

} // namespace

void subtractInBox(io::DType Type, void *Out, const void *Base,
                   const std::vector<int64_t> &Strides, const ChunkBox &Box) {
  const size_t W = io::dtypeSize(Type);
  forEachRun(Strides, Box, [&](int64_t Off, int64_t Count, int64_t S) {
    auto *O = static_cast<uint8_t *>(Out) + Off * W;
    const auto *B = static_cast<const uint8_t *>(Base) + Off * W;
    switch (Type) {
    case io::DType::Float32:
      subtractRun<float>(O, B, Count, S);
      break;
    case io::DType::Float64:
      subtractRun<double>(O, B, Count, S);
      break;
    case io::DType::Int64:
      subtractRun<int64_t>(O, B, Count, S);
      break;
    case io::DType::Int32:
      subtractRun<int32_t>(O, B, Count, S);
      break;
    default: // Bool / Int8: one byte each
      subtractRun<int8_t>(O, B, Count, S);
      break;
    }
  });
}

void copyInBox(size_t ElemBytes, void *Out, const void *From,
               const std::vector<int64_t> &Strides, const ChunkBox &Box) {
  forEachRun(Strides, Box, [&](int64_t Off, int64_t Count, int64_t S) {
    auto *O = static_cast<uint8_t *>(Out);
    const auto *F = static_cast<const uint8_t *>(From);
    for (int64_t I = 0; I < Count; ++I)
      std::memcpy(O + (Off + I * S) * ElemBytes, F + (Off + I * S) * ElemBytes,
                  ElemBytes);
  });
}

} // namespace aimz::run
