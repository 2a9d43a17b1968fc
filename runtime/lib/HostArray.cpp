//===- HostArray.cpp - Arrays handed to a model's kernels -----------------===//
#include "aimz/run/HostArray.h"


#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace aimz::run {

using io::DType;

std::vector<int64_t> HostArray::strides() const {
  std::vector<int64_t> S(Shape.size());
  int64_t Step = 1;
  for (size_t I = Shape.size(); I-- > 0;) {
    S[I] = Step;
    Step *= static_cast<int64_t>(Shape[I]);
  }
  if (DrawBroadcast && !S.empty())
    S[0] = 0;
  return S;
}

uint64_t HostArray::numElements() const {
  uint64_t N = 1;
  for (size_t I = DrawBroadcast ? 1 : 0; I < Shape.size(); ++I)
    N *= Shape[I];
  return N;
}

std::string numpyName(DType T) {
  switch (T) {
  case DType::Bool:
    return "bool";
  case DType::Int8:
    return "int8";
  case DType::Int16:
    return "int16";
  case DType::Int32:
    return "int32";
  case DType::Int64:
    return "int64";
  case DType::UInt8:
    return "uint8";
  case DType::UInt16:
    return "uint16";
  case DType::UInt32:
    return "uint32";
  case DType::UInt64:
    return "uint64";
  case DType::Float16:
    return "float16";
  case DType::Float32:
    return "float32";
  case DType::Float64:
    return "float64";
  }
  return "?";
}

namespace {

bool isInt(DType T) {
  return T != DType::Float16 && T != DType::Float32 && T != DType::Float64;
}

bool isSigned(DType T) {
  return T == DType::Int8 || T == DType::Int16 || T == DType::Int32 ||
         T == DType::Int64;
}

/// Magnitude bits a type holds exactly: value bits for integers (sign
/// excluded), significand bits for floats.
int valueBits(DType T) {
  switch (T) {
  case DType::Bool:
    return 1;
  case DType::Int8:
    return 7;
  case DType::UInt8:
    return 8;
  case DType::Int16:
    return 15;
  case DType::UInt16:
    return 16;
  case DType::Int32:
    return 31;
  case DType::UInt32:
    return 32;
  case DType::Int64:
    return 63;
  case DType::UInt64:
    return 64;
  case DType::Float16:
    return 11;
  case DType::Float32:
    return 24;
  case DType::Float64:
    return 53;
  }
  return 0;
}

/// Whether every value of From is exactly a value of To.
bool lossless(DType From, DType To) {
  if (From == To || From == DType::Bool)
    return true;
  if (To == DType::Bool || (!isInt(From) && isInt(To)))
    return false;
  if (isInt(From) && isInt(To) && isSigned(From) && !isSigned(To))
    return false;
  return valueBits(From) <= valueBits(To);
}

} // namespace

double readAsDouble(const void *P, DType T, uint64_t I) {
  switch (T) {
  case DType::Bool:
  case DType::UInt8:
    return static_cast<const uint8_t *>(P)[I];
  case DType::Int8:
    return static_cast<const int8_t *>(P)[I];
  case DType::Int16:
    return static_cast<const int16_t *>(P)[I];
  case DType::UInt16:
    return static_cast<const uint16_t *>(P)[I];
  case DType::Int32:
    return static_cast<const int32_t *>(P)[I];
  case DType::UInt32:
    return static_cast<const uint32_t *>(P)[I];
  case DType::Int64:
    return static_cast<double>(static_cast<const int64_t *>(P)[I]);
  case DType::UInt64:
    return static_cast<double>(static_cast<const uint64_t *>(P)[I]);
  case DType::Float16: {
    uint16_t H;
    std::memcpy(&H, static_cast<const uint8_t *>(P) + 2 * I, 2);
    int Exp = (H >> 10) & 31, Man = H & 1023;
    double V = Exp == 0    ? std::ldexp(Man, -24)
               : Exp == 31 ? (Man ? NAN : INFINITY)
                           : std::ldexp(Man + 1024, Exp - 25);
    return (H & 0x8000) ? -V : V;
  }
  case DType::Float32: {
    float F;
    std::memcpy(&F, static_cast<const uint8_t *>(P) + 4 * I, 4);
    return F;
  }
  case DType::Float64: {
    double D;
    std::memcpy(&D, static_cast<const uint8_t *>(P) + 8 * I, 8);
    return D;
  }
  }
  return 0;
}

int64_t readAsInt(const void *P, DType T, uint64_t I) {
  if (T == DType::Int64) {
    int64_t V;
    std::memcpy(&V, static_cast<const uint8_t *>(P) + 8 * I, 8);
    return V;
  }
  return static_cast<int64_t>(readAsDouble(P, T, I));
}

namespace {
std::string fmtG(double D) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%g", D);
  return Buf;
}
} // namespace

NonFinite countNonFinite(const HostArray &H, uint64_t N) {
  NonFinite R;
  auto Scan = [&](auto Tag) {
    using T = decltype(Tag);
    const T *P = static_cast<const T *>(H.Data);
    for (uint64_t I = 0; I < N; ++I) {
      T V;
      std::memcpy(&V, P + I, sizeof V);
      if (!std::isfinite(V) && R.Count++ == 0)
        R.First = I;
    }
  };
  if (H.Type == DType::Float32)
    Scan(float());
  else if (H.Type == DType::Float64)
    Scan(double());
  return R;
}

/// Element I of A (dtype From) as To at Out; an error naming What when
/// the value does not fit (PerRow elements per row of the leading axis).
static llvm::Error convertElement(const io::NpyArray &A, DType From, DType To,
                                  uint64_t I, uint8_t *Out,
                                  const std::string &What, uint64_t PerRow) {
  switch (To) {
  case DType::Float32: {
    double D = readAsDouble(A.data(), From, I);
    float F = static_cast<float>(D);
    // Rounding to nearest is accepted; overflowing to infinity is not.
    if (std::isfinite(D) && !std::isfinite(F))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          What + " holds " + fmtG(D) +
              " (at index " + std::to_string(I / std::max<uint64_t>(1, PerRow)) +
              " of its leading axis), beyond float32's range, which the "
              "model computes in; rescale the value or compile the model "
              "in f64");
    std::memcpy(Out, &F, 4);
    return llvm::Error::success();
  }
  case DType::Float64: {
    double D = readAsDouble(A.data(), From, I);
    std::memcpy(Out, &D, 8);
    return llvm::Error::success();
  }
  case DType::Int32: {
    int64_t V = readAsInt(A.data(), From, I);
    if (V < std::numeric_limits<int32_t>::min() ||
        V > std::numeric_limits<int32_t>::max())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          What + " holds " + std::to_string(V) +
              ", which does not fit the model's int32");
    int32_t W = static_cast<int32_t>(V);
    std::memcpy(Out, &W, 4);
    return llvm::Error::success();
  }
  case DType::Int64: {
    int64_t V = readAsInt(A.data(), From, I);
    std::memcpy(Out, &V, 8);
    return llvm::Error::success();
  }
  case DType::Bool:
    *Out = readAsDouble(A.data(), From, I) != 0;
    return llvm::Error::success();
  default:
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unsupported model dtype");
  }
}

llvm::Expected<HostArray> asHostArray(const io::NpyArray &A, DType To,
                                      const std::string &What,
                                      Conversion Rule) {
  HostArray H;
  H.Name = A.name();
  H.Type = To;
  H.Shape.assign(A.shape().begin(), A.shape().end());
  DType From = A.dtype();
  if (From == To && A.isAligned()) {
    H.Data = A.data();
    H.Keep = std::make_shared<io::NpyArray>(A);
    return H;
  }
  bool Allowed = lossless(From, To) ||
                 (Rule == Conversion::FloatPrecision &&
                  ((!isInt(From) && !isInt(To)) ||
                   (isInt(From) && isInt(To) && To != DType::Bool)));
  if (!Allowed)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        What + " has dtype " + numpyName(From) + " but the model needs " +
            numpyName(To) + ", and converting would lose information; "
            "convert it first, e.g. a.astype(np." + numpyName(To) + ")");
  uint64_t N = A.numElements();
  size_t Size = io::dtypeSize(To);
  auto Buf = std::shared_ptr<uint8_t[]>(new uint8_t[std::max<uint64_t>(1, N * Size)]);
  const uint64_t PerRow =
      H.Shape.empty() || H.Shape[0] == 0 ? 1 : N / H.Shape[0];
  for (uint64_t I = 0; I < N; ++I)
    if (llvm::Error E = convertElement(A, From, To, I, Buf.get() + I * Size,
                                       What, PerRow))
      return std::move(E);
  H.Data = Buf.get();
  H.Keep = std::shared_ptr<const void>(Buf, Buf.get());
  return H;
}

} // namespace aimz::run
