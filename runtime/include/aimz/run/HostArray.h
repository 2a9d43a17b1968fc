//===- HostArray.h - Arrays handed to a model's kernels ---------*- C++ -*-===//
//
// Kernels read C-contiguous arrays of exactly the manifest's dtype. An input
// file already of that dtype is used in place (memory-mapped, never read
// whole); a lossless widening (i32 -> i64, f32 -> f64, ...) makes one
// converted copy in memory; anything else is refused.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_HOSTARRAY_H
#define AIMZ_RUN_HOSTARRAY_H

#include "aimz/io/Npy.h"

#include <memory>
#include <string>
#include <vector>

namespace aimz::run {

struct HostArray {
  std::string Name;
  io::DType Type = io::DType::Float32;
  std::vector<uint64_t> Shape;
  const void *Data = nullptr;
  std::shared_ptr<const void> Keep; // the mapping or the converted copy
  /// The leading (draw) axis repeats one draw: its stride is 0 and Data
  /// holds one draw's elements (an intervention's value).
  bool DrawBroadcast = false;

  /// Element strides of the C-contiguous layout (0 for a broadcast draw
  /// axis).
  std::vector<int64_t> strides() const;
  /// Elements stored: one draw's when DrawBroadcast.
  uint64_t numElements() const;
};

enum class Conversion {
  Widening,      // only lossless conversions (model inputs)
  FloatPrecision // also f64 <-> f32 and checked i64 -> i32 (posteriors)
};

/// Element I of a C-order array of dtype T, converted (Float16 included).
double readAsDouble(const void *P, io::DType T, uint64_t I);
/// The same as an integer (int64 exactly; others through double).
int64_t readAsInt(const void *P, io::DType T, uint64_t I);

/// NaN and infinite values among the first N elements of a float array.
struct NonFinite {
  uint64_t Count = 0;
  uint64_t First = 0; ///< Flat index of the first one.
};
NonFinite countNonFinite(const HostArray &H, uint64_t N);

/// `A` as `To`, converting when `Rule` allows; `What` names the array in
/// errors ("input 'X'").
llvm::Expected<HostArray> asHostArray(const io::NpyArray &A, io::DType To,
                                      const std::string &What,
                                      Conversion Rule);

/// NumPy's name for a dtype: float32, int64, bool, ...
std::string numpyName(io::DType T);

} // namespace aimz::run

#endif // AIMZ_RUN_HOSTARRAY_H
