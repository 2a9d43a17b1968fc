//===- DimLabels.h - The labels of a dim: numbers or text -------*- C++ -*-===//
//
// A result's coordinate variable: the labels xarray shows along a dim
// (chain and draw numbers, county names). They come from the posterior (an
// ArviZ netCDF, an xarray Dataset), from the user (--coords, Python's
// coords=) or from the data (a categorical column's categories, a data
// frame's index), and are written beside every array that has the dim.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_DIMLABELS_H
#define AIMZ_RUN_DIMLABELS_H

#include "aimz/run/HostArray.h"

#include "llvm/ADT/ArrayRef.h"

#include <map>
#include <string>
#include <vector>

namespace aimz::run {

struct DimLabels {
  /// Numbers: 1-D. Text: UTF-32 code points, zero-padded, of shape
  /// (labels, TextWidth) as NumPy's `<U{TextWidth}` holds them.
  HostArray Values;
  uint32_t TextWidth = 0; ///< 0: numbers
  /// Where they came from, for messages ("--coords counties.txt", "the
  /// categories of column 'county'"); empty: the dim's name says it.
  std::string From;
  uint64_t size() const { return Values.Shape.empty() ? 0 : Values.Shape[0]; }
  bool isText() const { return TextWidth != 0; }
};

/// By dim name.
using Coordinates = std::map<std::string, DimLabels>;

/// Numeric labels of Dim from a 1-D array (bool refused: not a label).
llvm::Expected<DimLabels> numberLabels(const std::string &Dim,
                                       const io::NpyArray &A);

/// Text labels of Dim from UTF-8 strings; invalid UTF-8 is an error naming
/// the dim and the label's position.
llvm::Expected<DimLabels> textLabels(const std::string &Dim,
                                     llvm::ArrayRef<std::string> Labels);

/// Labels read from a file for `--coords DIM=FILE`: a `.npy` of numbers
/// (1-D), else a UTF-8 text file with one label per line.
llvm::Expected<DimLabels> readLabelsFile(const std::string &Dim,
                                         const std::string &Path);

/// `--coords DIM=FILE` arguments.
llvm::Expected<Coordinates>
parseCoordsArgs(llvm::ArrayRef<std::string> Args);

} // namespace aimz::run

#endif // AIMZ_RUN_DIMLABELS_H
