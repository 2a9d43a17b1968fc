//===- NpyHeader.cpp - Parse and build .npy headers -----------------------===//
//
// The header is a Python dict literal, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// This parser accepts exactly what NumPy's writers produce (either quote
// style, optional trailing commas, Python 2 'L' suffixes) and nothing more.
//
//===----------------------------------------------------------------------===//

#include "aimz/io/Npy.h"
#include "aimz/io/Shape.h"

#include "Errors.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"

#include <optional>

using namespace llvm;

namespace aimz::io {

namespace {
constexpr char Magic[] = "\x93NUMPY";
constexpr size_t MagicSize = 6;
constexpr size_t Alignment = 64;

/// Cursor over the dict text; every method reports failure via Error.
class DictParser {
public:
  DictParser(StringRef Text, StringRef Name) : Text(Text), Name(Name) {}

  Expected<NpyHeader> parse() {
    NpyHeader H;
    std::optional<DType> Type;
    std::optional<bool> Fortran;
    std::optional<std::vector<uint64_t>> Shape;
    skipSpace();
    if (!consume('{'))
      return fail("expected '{'");
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      Expected<std::string> Key = parseString();
      if (!Key)
        return Key.takeError();
      skipSpace();
      if (!consume(':'))
        return fail("expected ':' after key '" + *Key + "'");
      skipSpace();
      if (*Key == "descr") {
        if (peek() == '[' || peek() == '{')
          return ioError("'" + Name +
                         "' holds a structured (record) array, which is not "
                         "supported; save each field as its own array");
        Expected<std::string> D = parseString();
        if (!D)
          return D.takeError();
        Expected<DType> T = parseDescr(*D);
        if (!T)
          return ioError("'" + Name + "': " + toString(T.takeError()));
        Type = *T;
      } else if (*Key == "fortran_order") {
        if (Text.substr(Pos).starts_with("True")) {
          Fortran = true;
          Pos += 4;
        } else if (Text.substr(Pos).starts_with("False")) {
          Fortran = false;
          Pos += 5;
        } else {
          return fail("expected True or False for 'fortran_order'");
        }
      } else if (*Key == "shape") {
        Expected<std::vector<uint64_t>> S = parseTuple();
        if (!S)
          return S.takeError();
        Shape = std::move(*S);
      } else {
        return fail("unexpected key '" + *Key + "'");
      }
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume('}'))
        break;
      return fail("expected ',' or '}'");
    }
    // NumPy pads the dict with spaces and ends it with a newline; anything
    // else after it means the header is not what it claims to be.
    skipSpace();
    if (Pos != Text.size())
      return fail("unexpected text after the closing '}'");
    if (!Type || !Fortran || !Shape)
      return fail("the header must have 'descr', 'fortran_order' and 'shape'");
    if (*Fortran)
      return ioError("'" + Name +
                     "' is stored in Fortran (column-major) order, which is "
                     "not supported; save np.ascontiguousarray(arr) instead");
    H.Type = *Type;
    H.Shape = std::move(*Shape);
    return H;
  }

private:
  char peek() const { return Pos < Text.size() ? Text[Pos] : '\0'; }
  bool consume(char C) {
    if (peek() != C)
      return false;
    ++Pos;
    return true;
  }
  void skipSpace() {
    while (Pos < Text.size() && isSpace(Text[Pos]))
      ++Pos;
  }
  Error fail(const Twine &What) const {
    return ioError("'" + Name + "' has a malformed .npy header: " + What +
                   " at column " + Twine(Pos) + " of \"" + Text.rtrim() + "\"");
  }

  Expected<std::string> parseString() {
    char Quote = peek();
    if (Quote != '\'' && Quote != '"')
      return fail("expected a quoted string");
    size_t End = Text.find(Quote, Pos + 1);
    if (End == StringRef::npos)
      return fail("unterminated string");
    std::string S = Text.slice(Pos + 1, End).str();
    Pos = End + 1;
    return S;
  }

  Expected<std::vector<uint64_t>> parseTuple() {
    std::vector<uint64_t> Dims;
    if (!consume('('))
      return fail("expected '(' for 'shape'");
    while (true) {
      skipSpace();
      if (consume(')'))
        return Dims;
      size_t Start = Pos;
      while (Pos < Text.size() && isDigit(Text[Pos]))
        ++Pos;
      uint64_t D;
      if (Text.slice(Start, Pos).getAsInteger(10, D))
        return fail("expected a non-negative dimension");
      Dims.push_back(D);
      consume('L'); // Python 2 long literal.
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume(')'))
        return Dims;
      return fail("expected ',' or ')' in 'shape'");
    }
  }

  StringRef Text;
  StringRef Name;
  size_t Pos = 0;
};
} // namespace

Expected<NpyHeader> parseNpyHeader(ArrayRef<uint8_t> Bytes, StringRef Name) {
  StringRef S(reinterpret_cast<const char *>(Bytes.data()), Bytes.size());
  if (!S.starts_with(StringRef(Magic, MagicSize))) {
    if (S.starts_with("PK\x03\x04"))
      return ioError("'" + Name +
                     "' is not a .npy file: it is a zip archive (an .npz?); "
                     "open it as an archive");
    return ioError("'" + Name +
                   "' is not a .npy file: it does not start with the "
                   "\\x93NUMPY magic");
  }
  if (Bytes.size() < MagicSize + 2)
    return ioError("'" + Name + "' is truncated inside the .npy preamble");
  NpyHeader H;
  H.MajorVersion = Bytes[6];
  H.MinorVersion = Bytes[7];
  if (H.MinorVersion != 0 || H.MajorVersion < 1 || H.MajorVersion > 3)
    return ioError("'" + Name + "' has .npy format version " +
                   Twine(unsigned(H.MajorVersion)) + "." +
                   Twine(unsigned(H.MinorVersion)) +
                   "; supported versions are 1.0, 2.0 and 3.0");
  // 1.0 has a 16-bit header length, 2.0 and 3.0 (UTF-8 text) a 32-bit one.
  size_t LenSize = H.MajorVersion == 1 ? 2 : 4;
  size_t Prefix = MagicSize + 2 + LenSize;
  if (Bytes.size() < Prefix)
    return ioError("'" + Name + "' is truncated inside the .npy preamble");
  uint64_t HeaderLen =
      LenSize == 2 ? support::endian::read16le(Bytes.data() + 8)
                   : uint64_t(support::endian::read32le(Bytes.data() + 8));
  if (Bytes.size() - Prefix < HeaderLen)
    return ioError("'" + Name + "' is truncated: its .npy header claims " +
                   Twine(HeaderLen) + " bytes but the file ends after " +
                   Twine(Bytes.size() - Prefix));
  Expected<NpyHeader> Parsed =
      DictParser(S.substr(Prefix, HeaderLen), Name).parse();
  if (!Parsed)
    return Parsed.takeError();
  Parsed->MajorVersion = H.MajorVersion;
  Parsed->MinorVersion = H.MinorVersion;
  Parsed->DataOffset = Prefix + HeaderLen;
  if (!checkedNumBytes(Parsed->Shape, dtypeSize(Parsed->Type)))
    return ioError("'" + Name + "' has shape " + formatShape(Parsed->Shape) +
                   " whose size in bytes overflows 64 bits");
  return Parsed;
}

std::string makeNpyHeader(DType Type, ArrayRef<uint64_t> Shape) {
  std::string Dict =
      "{'descr': '" + dtypeDescr(Type).str() +
      "', 'fortran_order': False, 'shape': " + formatShape(Shape) + ", }";
  // Pad with spaces and a final newline so the data starts 64-aligned.
  auto Build = [&](unsigned Major) {
    size_t Prefix = Major == 1 ? 10 : 12;
    size_t Total = Prefix + Dict.size() + 1;
    size_t Padded = (Total + Alignment - 1) / Alignment * Alignment;
    std::string Text = Dict + std::string(Padded - Total, ' ') + "\n";
    std::string Out(Magic, MagicSize);
    Out += char(Major);
    Out += char(0);
    char Len[4];
    support::endian::write32le(Len, static_cast<uint32_t>(Text.size()));
    Out.append(Len, Major == 1 ? 2 : 4);
    return Out + Text;
  };
  std::string V1 = Build(1);
  if (V1.size() - 10 <= 0xffff)
    return V1;
  return Build(2);
}

} // namespace aimz::io
