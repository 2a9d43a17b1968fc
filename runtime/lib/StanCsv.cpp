//===- StanCsv.cpp - Posterior draws from CmdStan CSV files ---------------===//
#include "aimz/run/StanCsv.h"
#include "RunError.h"

#include "aimz/io/RegularFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <glob.h>

#include <algorithm>
#include <charconv>
#include <memory>
#include <optional>
#include <set>

namespace aimz::run {
namespace {

/// One chain's file: its header and its post-warmup draws.
struct Chain {
  std::vector<std::string> Columns;
  std::vector<std::vector<double>> Rows;
};

/// The value of `Key = value` in a configuration comment, or None.
std::optional<llvm::StringRef> configValue(llvm::StringRef Comment,
                                           llvm::StringRef Key) {
  size_t At = Comment.find(Key);
  if (At == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef Rest = Comment.substr(At + Key.size()).ltrim();
  if (!Rest.consume_front("="))
    return std::nullopt;
  return Rest.trim();
}

/// `save_warmup = 1` (or `true`).
bool savesWarmup(llvm::StringRef Comment) {
  auto V = configValue(Comment, "save_warmup");
  return V && (V->starts_with("1") || V->starts_with_insensitive("true"));
}

/// `num_warmup = N`, or -1.
int64_t numWarmup(llvm::StringRef Comment) {
  auto V = configValue(Comment, "num_warmup");
  int64_t N = -1;
  if (!V || V->take_while([](char C) { return C >= '0' && C <= '9'; })
                .getAsInteger(10, N))
    return -1;
  return N;
}

bool parseNumber(llvm::StringRef S, double &V) {
  S = S.trim();
  if (S.empty())
    return false;
  // from_chars takes "inf" and "nan" but not a leading '+'.
  if (S.front() == '+')
    S = S.drop_front();
  auto R = std::from_chars(S.data(), S.data() + S.size(), V);
  return R.ec == std::errc() && R.ptr == S.data() + S.size();
}

llvm::Expected<Chain> readChain(const std::string &File) {
  if (llvm::Error E = io::requireRegularFile(
          File, "Stan CSV", "save the draws to a file and give its path"))
    return std::move(E);
  auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/true);
  if (!Buf)
    return error("cannot read Stan CSV '" + File +
                 "': " + Buf.getError().message());
  Chain C;
  bool Warmup = false, SeenHeader = false, Adapted = false;
  int64_t WarmupCount = -1;
  std::vector<std::vector<double>> Before; // rows before "Adaptation terminated"
  llvm::StringRef Text = (*Buf)->getBuffer();
  int64_t LineNo = 0;
  while (!Text.empty()) {
    // CmdStan ends every line; a last one without its newline was cut
    // short (a full disk, a copy that stopped), maybe inside a number that
    // still parses ("0.1234" cut to "0.").
    if (Text.find('\n') == llvm::StringRef::npos &&
        !Text.trim().empty() && !Text.ltrim().starts_with("#"))
      return error("Stan CSV '" + File + "' ends inside line " +
                   llvm::Twine(LineNo + 1) + " (no newline after it): the "
                   "file looks cut short, and its last values may be "
                   "incomplete; rewrite it, or end that line with a newline "
                   "if it is whole");
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    ++LineNo;
    Line = Line.rtrim("\r");
    if (Line.trim().empty())
      continue;
    if (Line.starts_with("#")) {
      if (!SeenHeader) {
        Warmup |= savesWarmup(Line);
        if (int64_t N = numWarmup(Line); N >= 0)
          WarmupCount = N;
      } else if (Line.contains("Adaptation terminated")) {
        Adapted = true;
        Before = std::move(C.Rows);
        C.Rows.clear();
      }
      continue;
    }
    llvm::SmallVector<llvm::StringRef, 64> Fields;
    Line.split(Fields, ',');
    if (!SeenHeader) {
      for (llvm::StringRef F : Fields)
        C.Columns.push_back(F.trim().trim('"').str());
      SeenHeader = true;
      continue;
    }
    if (Fields.size() != C.Columns.size())
      return error("Stan CSV '" + File + "' line " + llvm::Twine(LineNo) +
                   " has " + llvm::Twine(Fields.size()) + " values for " +
                   llvm::Twine(C.Columns.size()) + " columns");
    std::vector<double> Row(Fields.size());
    for (size_t I = 0; I < Fields.size(); ++I)
      if (!parseNumber(Fields[I], Row[I]))
        return error("Stan CSV '" + File + "' line " + llvm::Twine(LineNo) +
                     " column '" + C.Columns[I] + "': '" + Fields[I].str() +
                     "' is not a number");
    C.Rows.push_back(std::move(Row));
  }
  if (!SeenHeader)
    return error("'" + File + "' is not a Stan CSV file: it has no header "
                 "line of column names");
  // Saved warmup draws precede the adaptation's end; without adaptation
  // (fixed_param) the configuration's num_warmup counts them.
  if (Warmup && !Adapted && WarmupCount > 0)
    C.Rows.erase(C.Rows.begin(),
                 C.Rows.begin() +
                     std::min<int64_t>(WarmupCount, C.Rows.size()));
  if (!Warmup && Adapted) // draws on both sides: keep them all
    C.Rows.insert(C.Rows.begin(), Before.begin(), Before.end());
  return C;
}

/// `beta.2.1` -> ("beta", {2, 1}); a name without indices is a scalar.
bool splitColumn(llvm::StringRef Column, std::string &Base,
                 std::vector<int64_t> &Index) {
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Column.split(Parts, '.');
  Base = Parts[0].str();
  Index.clear();
  for (size_t I = 1; I < Parts.size(); ++I) {
    int64_t V = 0;
    if (Parts[I].getAsInteger(10, V) || V < 1)
      return false;
    Index.push_back(V);
  }
  return true;
}

/// One parameter's columns: where each is, and its 1-based indices.
struct Param {
  std::vector<size_t> Columns;
  std::vector<std::vector<int64_t>> Indices;
};

/// A parameter's draws as one (draws, ...) array, from Stan's 1-based,
/// column-major labels to NumPy's row-major order.
llvm::Expected<io::NpyArray> gatherParameter(const std::string &Name,
                                             const Param &P,
                                             const std::vector<Chain> &Chains,
                                             const std::string &File) {
  const std::vector<std::string> &Cols = Chains.front().Columns;
  const size_t Rank = P.Indices.front().size();
  std::set<std::vector<int64_t>> Distinct;
  for (size_t C = 0; C < P.Columns.size(); ++C)
    if (!Distinct.insert(P.Indices[C]).second)
      return error("Stan CSV column '" + Cols[P.Columns[C]] +
                   "' appears twice in '" + File + "'");
  std::vector<uint64_t> Dims(Rank, 0);
  for (const auto &Ix : P.Indices)
    for (size_t K = 0; K < Rank; ++K)
      Dims[K] = std::max<uint64_t>(Dims[K], Ix[K]);
  // Every index is at most its axis' largest and no two columns are equal,
  // so the columns fill the grid only when their count is its size:
  // checked before anything of that size is allocated (a hostile
  // "beta.4294967296.1" must not allocate 2^32 values).
  uint64_t PerDraw = 1;
  bool Overflow = false;
  for (uint64_t D : Dims)
    Overflow |= __builtin_mul_overflow(PerDraw, D, &PerDraw);
  if (Overflow || PerDraw != P.Columns.size())
    return error("Stan CSV '" + File + "' has " +
                 llvm::Twine(P.Columns.size()) + " columns of '" + Name +
                 "' but its largest indices (" +
                 llvm::join(llvm::map_range(Dims,
                                            [](uint64_t D) {
                                              return std::to_string(D);
                                            }),
                            ", ") +
                 ") make " +
                 (Overflow ? std::string("more than 2^64")
                           : std::to_string(PerDraw)) +
                 "; some entries are missing");
  std::vector<uint64_t> Pos(P.Columns.size());
  for (size_t C = 0; C < P.Columns.size(); ++C)
    for (size_t K = 0; K < Rank; ++K)
      Pos[C] = Pos[C] * Dims[K] + static_cast<uint64_t>(P.Indices[C][K] - 1);
  uint64_t Draws = 0;
  for (const Chain &Ch : Chains)
    Draws += Ch.Rows.size();
  std::vector<uint64_t> Shape = {Draws};
  Shape.insert(Shape.end(), Dims.begin(), Dims.end());
  auto Values = std::make_shared<std::vector<double>>(PerDraw * Draws);
  uint64_t Row = 0;
  for (const Chain &Ch : Chains)
    for (const std::vector<double> &R : Ch.Rows) {
      for (size_t C = 0; C < P.Columns.size(); ++C)
        (*Values)[Row * PerDraw + Pos[C]] = R[P.Columns[C]];
      ++Row;
    }
  return io::NpyArray::fromMemory(io::DType::Float64, std::move(Shape),
                                  Values->data(), File + ":" + Name, Values);
}

} // namespace

bool isStanCsvArgument(llvm::StringRef Arg) {
  return Arg.ends_with_insensitive(".csv") ||
         Arg.find_first_of("*?[") != llvm::StringRef::npos;
}

llvm::Expected<std::vector<std::string>>
expandPosteriorFiles(llvm::StringRef Arg) {
  if (Arg.find_first_of("*?[") == llvm::StringRef::npos)
    return std::vector<std::string>{Arg.str()};
  glob_t G;
  std::string Pattern = Arg.str();
  int RC = ::glob(Pattern.c_str(), 0, nullptr, &G);
  std::vector<std::string> Files;
  if (RC == 0)
    for (size_t I = 0; I < G.gl_pathc; ++I)
      Files.push_back(G.gl_pathv[I]);
  ::globfree(&G);
  if (Files.empty())
    return error("--posterior '" + Pattern + "' matches no file");
  std::sort(Files.begin(), Files.end());
  return Files;
}

llvm::Expected<StanCsvDraws>
readStanCsv(const std::vector<std::string> &Files) {
  std::vector<Chain> Chains;
  for (const std::string &F : Files) {
    auto C = readChain(F);
    if (!C)
      return C.takeError();
    if (!Chains.empty() && C->Columns != Chains.front().Columns)
      return error("Stan CSV '" + F + "' has other columns than '" +
                   Files.front() + "'; give the chains of one fit");
    Chains.push_back(std::move(*C));
  }
  // Parameters by base name: each column's index, in header order.
  StanCsvDraws Out;
  std::map<std::string, Param> Params;
  const std::vector<std::string> &Cols = Chains.front().Columns;
  for (size_t I = 0; I < Cols.size(); ++I) {
    if (llvm::StringRef(Cols[I]).ends_with("__"))
      continue; // lp__, accept_stat__, ...: the sampler's, not the model's
    std::string Base;
    std::vector<int64_t> Index;
    if (!splitColumn(Cols[I], Base, Index))
      return error("Stan CSV column '" + Cols[I] + "' in '" + Files.front() +
                   "' is not NAME or NAME.i.j... with 1-based indices");
    auto [It, New] = Params.try_emplace(Base);
    if (New)
      Out.Names.push_back(Base);
    if (!It->second.Indices.empty() &&
        It->second.Indices.front().size() != Index.size())
      return error("Stan CSV columns of '" + Base + "' in '" + Files.front() +
                   "' have different numbers of indices");
    It->second.Columns.push_back(I);
    It->second.Indices.push_back(std::move(Index));
  }
  int64_t Draws = 0;
  for (const Chain &C : Chains)
    Draws += static_cast<int64_t>(C.Rows.size());
  for (const std::string &Name : Out.Names) {
    auto A = gatherParameter(Name, Params[Name], Chains, Files.front());
    if (!A)
      return A.takeError();
    Out.Arrays.emplace(Name, std::move(*A));
  }
  // Chains of unequal lengths have no (chain, draw) grid: unknown.
  bool Equal = llvm::all_of(Chains, [&](const Chain &C) {
    return C.Rows.size() == Chains.front().Rows.size();
  });
  Out.Chains = Equal ? static_cast<int64_t>(Chains.size()) : 0;
  Out.Draws = Draws;
  return Out;
}

} // namespace aimz::run
