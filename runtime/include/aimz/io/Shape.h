//===- Shape.h - Overflow-checked shape arithmetic --------------*- C++ -*-===//
//
// Shapes come from untrusted headers and user flags; a silent wrap-around in
// an element count would turn into an out-of-bounds read, so every product is
// checked.
//
//===----------------------------------------------------------------------===//

#ifndef AIMZ_IO_SHAPE_H
#define AIMZ_IO_SHAPE_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace aimz::io {

/// Product of the extents, or nullopt on overflow. The empty shape (a scalar)
/// has one element.
std::optional<uint64_t> checkedNumElements(llvm::ArrayRef<uint64_t> Shape);

/// Product of the extents times ElementSize, or nullopt on overflow.
std::optional<uint64_t> checkedNumBytes(llvm::ArrayRef<uint64_t> Shape,
                                        uint64_t ElementSize);

/// "(3, 4)" or "()" -- NumPy's spelling, used in messages.
std::string formatShape(llvm::ArrayRef<uint64_t> Shape);

} // namespace aimz::io

#endif // AIMZ_IO_SHAPE_H
