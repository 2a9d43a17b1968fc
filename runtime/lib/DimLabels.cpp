//===- DimLabels.cpp - The labels of a dim: numbers or text ---------------===//
#include "aimz/run/DimLabels.h"
#include "RunError.h"

#include "aimz/io/RegularFile.h"
#include "aimz/io/Shape.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <memory>

namespace aimz::run {

llvm::Expected<DimLabels> numberLabels(const std::string &Dim,
                                       const io::NpyArray &A) {
  if (A.shape().size() != 1)
    return error("coordinate '" + Dim + "' has shape " +
                 io::formatShape(A.shape()) + "; a coordinate is 1-D, one "
                 "label per element of its dim");
  if (A.dtype() == io::DType::Bool || A.dtype() == io::DType::Float16)
    return error("coordinate '" + Dim + "' holds " + numpyName(A.dtype()) +
                 " values; labels are integers, floats or text");
  auto H = asHostArray(A, A.dtype(), "coordinate '" + Dim + "'",
                       Conversion::Widening);
  if (!H)
    return H.takeError();
  DimLabels L;
  L.Values = std::move(*H);
  return L;
}

llvm::Expected<DimLabels> textLabels(const std::string &Dim,
                                     llvm::ArrayRef<std::string> Labels) {
  std::vector<std::vector<llvm::UTF32>> Points(Labels.size());
  size_t Width = 1; // NumPy's <U0 is no dtype a reader takes
  for (size_t I = 0; I < Labels.size(); ++I) {
    const std::string &S = Labels[I];
    Points[I].resize(S.size());
    const auto *From = reinterpret_cast<const llvm::UTF8 *>(S.data());
    llvm::UTF32 *To = Points[I].data();
    if (llvm::ConvertUTF8toUTF32(&From, From + S.size(), &To,
                                 To + Points[I].size(),
                                 llvm::strictConversion) !=
        llvm::conversionOK)
      return error("label " + std::to_string(I) + " of coordinate '" + Dim +
                   "' is not valid UTF-8; give labels as UTF-8 text");
    Points[I].resize(To - Points[I].data());
    Width = std::max(Width, Points[I].size());
  }
  if (Width > (uint32_t(1) << 20))
    return error("a label of coordinate '" + Dim + "' has " +
                 std::to_string(Width) + " characters; labels are names, "
                 "at most 2^20 characters");
  auto Buf = std::make_shared<std::vector<uint32_t>>(Labels.size() * Width, 0);
  for (size_t I = 0; I < Points.size(); ++I)
    std::copy(Points[I].begin(), Points[I].end(), Buf->begin() + I * Width);
  DimLabels L;
  L.TextWidth = static_cast<uint32_t>(Width);
  L.Values.Name = Dim;
  L.Values.Type = io::DType::UInt32;
  L.Values.Shape = {Labels.size(), Width};
  L.Values.Data = Buf->data();
  L.Values.Keep = std::move(Buf);
  return L;
}

llvm::Expected<DimLabels> readLabelsFile(const std::string &Dim,
                                         const std::string &Path) {
  if (llvm::Error E = io::requireRegularFile(Path, "--coords file",
                                             "give a .npy or a text file"))
    return std::move(E);
  if (llvm::StringRef(Path).ends_with(".npy")) {
    auto A = io::NpyArray::open(Path);
    if (!A)
      return A.takeError();
    return numberLabels(Dim, *A);
  }
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf)
    return error("cannot read --coords file '" + Path + "': " +
                 Buf.getError().message());
  llvm::StringRef Text = (*Buf)->getBuffer();
  if (Text.contains('\0'))
    return error("--coords file '" + Path + "' is not text (it holds NUL "
                 "bytes); give one label per line, or a .npy of numbers");
  std::vector<std::string> Labels;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Labels.push_back(Line.rtrim('\r').str());
    Text = Rest;
  }
  return textLabels(Dim, Labels);
}

llvm::Expected<Coordinates>
parseCoordsArgs(llvm::ArrayRef<std::string> Args) {
  Coordinates Out;
  for (const std::string &A : Args) {
    auto [Dim, Path] = llvm::StringRef(A).split('=');
    if (Dim.empty() || Path.empty())
      return error("--coords '" + A + "': expected DIM=FILE (a text file "
                   "with one label per line, or a .npy of numbers)");
    if (Out.count(Dim.str()))
      return error("--coords gives dim '" + Dim + "' twice");
    auto L = readLabelsFile(Dim.str(), Path.str());
    if (!L)
      return L.takeError();
    L->From = "--coords " + A;
    Out.emplace(Dim.str(), std::move(*L));
  }
  return Out;
}

} // namespace aimz::run
