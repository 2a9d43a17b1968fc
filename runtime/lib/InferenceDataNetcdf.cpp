//===- InferenceDataNetcdf.cpp - Posteriors from ArviZ netCDF -------------===//
#include "aimz/run/InferenceDataNetcdf.h"
#include "RunError.h"

#include "aimz/io/RegularFile.h"
#include "aimz/io/Shape.h"
#include "aimz/io/SpillBuffer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

#include <netcdf.h>

#include <dlfcn.h>
#include <map>
#include <memory>
#include <new>
#include <optional>

namespace aimz::run {

namespace {

/// The libnetcdf functions aimz-run calls, listed once for the table and
/// its binding.
#define AIMZ_NETCDF_FUNCTIONS(X)                                              \
  X(nc_open) X(nc_close) X(nc_strerror) X(nc_inq_grp_ncid) X(nc_inq_varids)  \
  X(nc_inq_var) X(nc_inq_dim) X(nc_inq_varid) X(nc_get_var_string)          \
  X(nc_free_string)                                                          \
  X(nc_get_vara_float) X(nc_get_vara_double) X(nc_get_vara_int)             \
  X(nc_get_vara_longlong) X(nc_get_vara_uchar)

/// libnetcdf's functions, from a dlopen on the first .nc posterior: linked,
/// it and HDF5 with their dozens of libraries loaded at every start of
/// aimz-run (5 ms of a run that may take 50).
struct Netcdf {
#define AIMZ_NETCDF_POINTER(F) decltype(&::F) F;
  AIMZ_NETCDF_FUNCTIONS(AIMZ_NETCDF_POINTER)
#undef AIMZ_NETCDF_POINTER
  std::string Error; ///< Why it could not be loaded; empty when loaded.
};

Netcdf loadNetcdf() {
  Netcdf N{};
  void *H = nullptr;
  for (const char *Name : {AIMZ_NETCDF_SONAME, "libnetcdf.so"})
    if ((H = ::dlopen(Name, RTLD_NOW | RTLD_LOCAL)))
      break;
  if (!H) {
    N.Error = std::string("reading an ArviZ .nc posterior needs libnetcdf "
                          "(" AIMZ_NETCDF_SONAME "; Debian: apt-get install "
                          "libnetcdf19), which could not be loaded: ") +
              ::dlerror();
    return N;
  }
  bool Missing = false;
  auto Bind = [&](auto &Fn, const char *Symbol) {
    Fn = reinterpret_cast<std::remove_reference_t<decltype(Fn)>>(
        ::dlsym(H, Symbol));
    if (!Fn && !Missing) {
      Missing = true;
      N.Error = std::string("the libnetcdf that was loaded has no '") +
                Symbol + "'; install the netCDF-C library aimz-run was built "
                "with (" AIMZ_NETCDF_SONAME ")";
    }
  };
#define AIMZ_NETCDF_BIND(F) Bind(N.F, #F);
  AIMZ_NETCDF_FUNCTIONS(AIMZ_NETCDF_BIND)
#undef AIMZ_NETCDF_BIND
  return N;
}

/// Loaded once per process (thread-safe static initialization); never
/// unloaded.
const Netcdf &netcdf() {
  static const Netcdf N = loadNetcdf();
  return N;
}

/// Closes the file on every path out.
struct NcFile {
  const Netcdf &Nc;
  int Id = -1;
  ~NcFile() {
    if (Id >= 0)
      Nc.nc_close(Id);
  }
};

struct NcType {
  io::DType Type;
  bool Ok;
};

NcType dtypeOf(nc_type T) {
  switch (T) {
  case NC_FLOAT:
    return {io::DType::Float32, true};
  case NC_DOUBLE:
    return {io::DType::Float64, true};
  case NC_INT:
    return {io::DType::Int32, true};
  case NC_INT64:
    return {io::DType::Int64, true};
  case NC_UBYTE: // h5netcdf's bool
  case NC_BYTE:
    return {io::DType::Bool, true};
  default:
    return {io::DType::Float64, false};
  }
}

/// One posterior variable: where it is and what it declares.
struct NcVariable {
  int Id = -1;
  NcType Type{io::DType::Float64, false};
  std::vector<uint64_t> Extents;
  /// The dims after (chain, draw); for a coordinate, its one dim.
  std::vector<std::string> Dims;
  /// A coordinate (chain, draw, school: labels, not draws).
  bool Coordinate = false;
};

/// An open file, one of its groups (the posterior, or the group of an
/// input) and its variables, read on demand.
struct NcGroup {
  std::string Path;
  NcFile File;
  int Group = -1;
  uint64_t FileBytes = 0;
  std::map<std::string, NcVariable> Vars;

  llvm::Expected<io::NpyArray> read(const std::string &Name) const;
};

/// Variable V read in slabs of whole rows of its first axis, each at most
/// SlabBytes (at least one row), into Out: the hyperslab reads netCDF
/// decodes chunk by chunk, so only the slab's chunks are in memory at once.
llvm::Error readVariableBySlabs(const NcGroup &P, const std::string &Name,
                                const NcVariable &V, uint8_t *Out,
                                uint64_t SlabBytes) {
  const Netcdf &Nc = P.File.Nc;
  const size_t Rank = V.Extents.size();
  const uint64_t Rows = Rank ? V.Extents[0] : 1;
  uint64_t RowBytes = io::dtypeSize(V.Type.Type);
  for (size_t A = 1; A < Rank; ++A)
    RowBytes *= V.Extents[A];
  const uint64_t Step =
      std::max<uint64_t>(1, SlabBytes / std::max<uint64_t>(RowBytes, 1));
  std::vector<size_t> Start(Rank, 0), Count(V.Extents.begin(), V.Extents.end());
  for (uint64_t R = 0; R < Rows; R += Step) {
    if (Rank) {
      Start[0] = R;
      Count[0] = std::min(Step, Rows - R);
    }
    void *To = Out + R * RowBytes;
    int St = NC_NOERR;
    switch (V.Type.Type) {
    case io::DType::Float32:
      St = Nc.nc_get_vara_float(P.Group, V.Id, Start.data(), Count.data(),
                                static_cast<float *>(To));
      break;
    case io::DType::Float64:
      St = Nc.nc_get_vara_double(P.Group, V.Id, Start.data(), Count.data(),
                                 static_cast<double *>(To));
      break;
    case io::DType::Int32:
      St = Nc.nc_get_vara_int(P.Group, V.Id, Start.data(), Count.data(),
                              static_cast<int *>(To));
      break;
    case io::DType::Int64:
      St = Nc.nc_get_vara_longlong(P.Group, V.Id, Start.data(), Count.data(),
                                   static_cast<long long *>(To));
      break;
    default:
      St = Nc.nc_get_vara_uchar(P.Group, V.Id, Start.data(), Count.data(),
                                static_cast<unsigned char *>(To));
      break;
    }
    if (St != NC_NOERR)
      return error("'" + P.Path + "': cannot read variable '" + Name +
                   "' (" + Nc.nc_strerror(St) + ")");
  }
  return llvm::Error::success();
}

/// Reads variable V, whole, into memory of its declared shape.
llvm::Expected<std::shared_ptr<uint8_t[]>>
readVariable(const NcGroup &P, const std::string &Name,
             const NcVariable &V);

// HDF5's deflate, netCDF-4's usual filter, packs at most ~1032 bytes into
// one: a variable declaring more than this many bytes per byte of file
// holds unwritten chunks (read as fill values), which a posterior never has,
// or is hostile. Refused before anything is allocated.
constexpr uint64_t MaxExpansion = 1100;

/// The refusal of a variable that declares Bytes (none: more than 2^64),
/// far more than its file can hold.
llvm::Error beyondFile(const NcGroup &P, const std::string &Name,
                       const NcVariable &V, std::optional<uint64_t> Bytes) {
  return error("'" + P.Path + "': variable '" + Name + "' declares shape " +
               io::formatShape(V.Extents) +
               (Bytes ? " (" + std::to_string(*Bytes) + " bytes)" : "") +
               ", far more than the " + std::to_string(P.FileBytes) +
               "-byte file can hold; the file is damaged, or its variable "
               "was never written");
}

llvm::Expected<std::shared_ptr<uint8_t[]>>
readVariable(const NcGroup &P, const std::string &Name,
             const NcVariable &V) {
  // A file's dims may claim more than memory holds: an error, never an
  // overflow or a failed new.
  std::optional<uint64_t> Bytes =
      io::checkedNumBytes(V.Extents, io::dtypeSize(V.Type.Type));
  if (Bytes && *Bytes / MaxExpansion > P.FileBytes)
    return beyondFile(P, Name, V, Bytes);
  std::shared_ptr<uint8_t[]> Buf;
  if (Bytes && *Bytes <= SIZE_MAX)
    Buf.reset(new (std::nothrow) uint8_t[*Bytes ? *Bytes : 1]);
  if (!Buf)
    return error("'" + P.Path + "': variable '" + Name +
                 "' has shape " + io::formatShape(V.Extents) +
                 ", too large to read into memory");
  if (llvm::Error E = readVariableBySlabs(P, Name, V, Buf.get(), UINT64_MAX))
    return std::move(E);
  return Buf;
}

llvm::Expected<io::NpyArray> NcGroup::read(const std::string &Name) const {
  const NcVariable &V = Vars.at(Name);
  auto Buf = readVariable(*this, Name, V);
  if (!Buf)
    return Buf.takeError();
  // (chain, draw, ...) -> (chain * draw, ...): C order, chain-major.
  std::vector<uint64_t> Shape = {V.Extents[0] * V.Extents[1]};
  Shape.insert(Shape.end(), V.Extents.begin() + 2, V.Extents.end());
  return io::NpyArray::fromMemory(V.Type.Type, std::move(Shape), Buf->get(),
                                  Path + ":posterior/" + Name, *Buf);
}

/// What variable Id of group P declares: its name, type, extents and
/// dims. A 1-D variable named after its dim is a coordinate.
llvm::Expected<NcVariable> describeDims(const NcGroup &P, int Id,
                                        std::string &Name,
                                        std::vector<std::string> &DimNames) {
  const Netcdf &Nc = P.File.Nc;
  char Buf[NC_MAX_NAME + 1] = {0};
  nc_type Type;
  int Rank = 0;
  int DimIds[NC_MAX_VAR_DIMS];
  if (int St = Nc.nc_inq_var(P.Group, Id, Buf, &Type, &Rank, DimIds, nullptr);
      St != NC_NOERR)
    return error("'" + P.Path + "': cannot read a posterior variable (" +
                 Nc.nc_strerror(St) + ")");
  Name = Buf;
  NcVariable V;
  V.Id = Id;
  V.Type = dtypeOf(Type);
  for (int D = 0; D < Rank; ++D) {
    char DimName[NC_MAX_NAME + 1] = {0};
    size_t Len = 0;
    if (int St = Nc.nc_inq_dim(P.Group, DimIds[D], DimName, &Len);
        St != NC_NOERR)
      return error("'" + P.Path + "': cannot read the dims of '" + Name +
                   "' (" + Nc.nc_strerror(St) + ")");
    DimNames.push_back(DimName);
    V.Extents.push_back(Len);
  }
  V.Coordinate = Rank == 1 && DimNames[0] == Name;
  if (!V.Type.Ok && !V.Coordinate)
    return error("'" + P.Path + "': variable '" + Name +
                 "' has a netCDF type (" + std::to_string(Type) +
                 ") that is not a number aimz-run reads (float, double, "
                 "int, int64, bool)");
  return V;
}

/// What variable Id of the posterior group declares. A coordinate
/// (chain, draw, beta_dim_0: labels, not draws) comes back as one, with
/// Type.Ok false unless its labels are numbers.
llvm::Expected<NcVariable> describeVariable(const NcGroup &P, int Id,
                                            std::string &Name) {
  std::vector<std::string> DimNames;
  auto V = describeDims(P, Id, Name, DimNames);
  if (!V || V->Coordinate) {
    if (V)
      V->Dims = DimNames;
    return V;
  }
  if (DimNames.size() < 2 || DimNames[0] != "chain" || DimNames[1] != "draw")
    return error("'" + P.Path + "': posterior variable '" + Name +
                 "' has dims (" + llvm::join(DimNames, ", ") +
                 "); an InferenceData posterior has (chain, draw, ...)");
  V->Dims.assign(DimNames.begin() + 2, DimNames.end());
  return V;
}

} // namespace

bool isNetcdfArgument(llvm::StringRef Path) {
  return Path.ends_with(".nc") || Path.ends_with(".netcdf");
}

namespace {

/// Opens a netCDF file (`What` says which, for messages), its root group
/// selected.
llvm::Expected<std::shared_ptr<NcGroup>> openNetcdf(const std::string &Path,
                                                    const char *What) {
  const Netcdf &Nc = netcdf();
  if (!Nc.Error.empty())
    return error("'" + Path + "': " + Nc.Error);
  if (llvm::Error E = io::requireRegularFile(
          Path, What, "save it to a file and give its path"))
    return std::move(E);
  auto P = std::make_shared<NcGroup>(NcGroup{Path, NcFile{Nc}, -1, 0, {}});
  uint64_t Size = 0;
  if (!llvm::sys::fs::file_size(Path, Size))
    P->FileBytes = Size;
  if (int St = Nc.nc_open(Path.c_str(), NC_NOWRITE, &P->File.Id);
      St != NC_NOERR)
    return error("'" + Path + "': cannot read it as netCDF (" +
                 Nc.nc_strerror(St) + ")");
  P->Group = P->File.Id;
  return P;
}

/// The names of group G's variables, for a message.
std::string variableNames(const Netcdf &Nc, int G) {
  int N = 0;
  if (Nc.nc_inq_varids(G, &N, nullptr) != NC_NOERR || N == 0)
    return "none";
  std::vector<int> Ids(N);
  Nc.nc_inq_varids(G, &N, Ids.data());
  std::vector<std::string> Names;
  for (int Id : Ids) {
    char Buf[NC_MAX_NAME + 1] = {0};
    if (Nc.nc_inq_var(G, Id, Buf, nullptr, nullptr, nullptr, nullptr) ==
        NC_NOERR)
      Names.push_back(Buf);
  }
  return llvm::join(Names, ", ");
}

} // namespace

llvm::Expected<io::NpyArray> readNetcdfInput(const std::string &Path,
                                             const std::string &Var,
                                             const io::InputMemory &Mem) {
  auto P = openNetcdf(Path, "an input");
  if (!P)
    return P.takeError();
  const Netcdf &Nc = (*P)->File.Nc;
  // "group/.../name", or a bare name: the root group's, else an
  // InferenceData's constant_data or observed_data group's.
  llvm::SmallVector<llvm::StringRef> Parts;
  llvm::StringRef(Var).split(Parts, '/');
  std::vector<std::vector<llvm::StringRef>> Tries;
  if (Parts.size() == 1)
    Tries = {{}, {"constant_data"}, {"observed_data"}};
  else
    Tries = {std::vector<llvm::StringRef>(Parts.begin(), Parts.end() - 1)};
  const std::string Name = Parts.back().str();
  for (const auto &Groups : Tries) {
    int G = (*P)->File.Id;
    bool Found = true;
    for (llvm::StringRef Sub : Groups)
      Found = Found && Nc.nc_inq_grp_ncid(G, Sub.str().c_str(), &G) == NC_NOERR;
    int Id = -1;
    if (!Found || Nc.nc_inq_varid(G, Name.c_str(), &Id) != NC_NOERR)
      continue;
    (*P)->Group = G;
    std::string Got;
    std::vector<std::string> DimNames;
    auto V = describeDims(**P, Id, Got, DimNames);
    if (!V)
      return V.takeError();
    if (!V->Type.Ok)
      return error("'" + Path + "': variable '" + Var + "' holds labels, "
                   "not numbers; give a variable of numbers");
    auto Bytes = io::checkedNumBytes(V->Extents, io::dtypeSize(V->Type.Type));
    if (!Bytes || *Bytes / MaxExpansion > (*P)->FileBytes)
      return beyondFile(**P, Var, *V, Bytes);
    auto Out = io::allocateSpillable(*Bytes, Mem.ArrayBytes,
                                     "'" + Path + "': variable '" + Var + "'");
    if (!Out)
      return Out.takeError();
    // Slabs of at most 64 MiB, and within the input's memory bound (one
    // row at least).
    uint64_t Slab = std::min(uint64_t(64) << 20, Mem.ArrayBytes);
    if (Mem.ChunkBytes)
      Slab = std::min(Slab, Mem.ChunkBytes);
    if (llvm::Error E =
            readVariableBySlabs(**P, Var, *V, Out->Data.get(), Slab))
      return std::move(E);
    return io::NpyArray::fromMemory(V->Type.Type, V->Extents, Out->Data.get(),
                                    Path + ":" + Var, Out->Data);
  }
  return error("'" + Path + "' has no variable '" + Var + "'" +
               (Parts.size() == 1 ? " (looked in the root group, "
                                    "constant_data and observed_data)"
                                  : "") +
               "; its root group's variables: " +
               variableNames(Nc, (*P)->File.Id) +
               "; name one with --data NAME=FILE.nc:VARIABLE");
}

namespace {

/// The labels of coordinate variable Id: numbers (chain, draw, a numbered
/// dim) or text (NC_STRING, as ArviZ writes coords={"county": names});
/// none for a type that is neither (bool, char arrays).
llvm::Expected<std::optional<DimLabels>>
readLabels(const NcGroup &P, int Id, const std::string &Name,
           const NcVariable &V) {
  const Netcdf &Nc = P.File.Nc;
  nc_type Type = 0;
  Nc.nc_inq_var(P.Group, Id, nullptr, &Type, nullptr, nullptr, nullptr);
  if (Type == NC_STRING) {
    const uint64_t N = V.Extents[0];
    // Pointers, 8 bytes each, and at least a byte of text per label.
    if (N > P.FileBytes)
      return error("'" + P.Path + "': coordinate '" + Name + "' declares " +
                   std::to_string(N) + " labels, more than the file holds");
    std::vector<char *> Raw(N, nullptr);
    if (int St = Nc.nc_get_var_string(P.Group, Id, Raw.data()); St != NC_NOERR)
      return error("'" + P.Path + "': cannot read coordinate '" + Name +
                   "' (" + Nc.nc_strerror(St) + ")");
    std::vector<std::string> Text;
    for (char *C : Raw)
      Text.push_back(C ? C : "");
    Nc.nc_free_string(N, Raw.data());
    auto L = textLabels(Name, Text);
    if (!L)
      return L.takeError();
    return std::optional<DimLabels>(std::move(*L));
  }
  if (!V.Type.Ok || V.Type.Type == io::DType::Bool)
    return std::optional<DimLabels>();
  auto Buf = readVariable(P, Name, V);
  if (!Buf)
    return Buf.takeError();
  auto L = numberLabels(
      Name, io::NpyArray::fromMemory(V.Type.Type, V.Extents, Buf->get(),
                                     P.Path + ":posterior/" + Name, *Buf));
  if (!L)
    return L.takeError();
  return std::optional<DimLabels>(std::move(*L));
}

} // namespace

llvm::Expected<InferenceDataDraws>
readInferenceDataNetcdf(const std::string &Path) {
  auto Opened = openNetcdf(Path, "the posterior");
  if (!Opened)
    return Opened.takeError();
  std::shared_ptr<NcGroup> P = std::move(*Opened);
  const Netcdf &Nc = P->File.Nc;
  auto Fail = [&](const llvm::Twine &What, int Status) {
    return error("'" + Path + "': " + What + " (" + Nc.nc_strerror(Status) +
                 ")");
  };
  if (int St = Nc.nc_inq_grp_ncid(P->File.Id, "posterior", &P->Group);
      St != NC_NOERR)
    return error("'" + Path + "' has no 'posterior' group; write one with "
                 "ArviZ: idata.to_netcdf(path) for an InferenceData whose "
                 "posterior holds the draws (az.from_numpyro(mcmc), "
                 "pm.sample(...))");
  int NumVars = 0;
  if (int St = Nc.nc_inq_varids(P->Group, &NumVars, nullptr); St != NC_NOERR)
    return Fail("cannot list the posterior's variables", St);
  std::vector<int> Ids(NumVars);
  Nc.nc_inq_varids(P->Group, &NumVars, Ids.data());

  InferenceDataDraws Out;
  for (int Id : Ids) {
    std::string Name;
    auto V = describeVariable(*P, Id, Name);
    if (!V)
      return V.takeError();
    if (V->Coordinate) {
      auto L = readLabels(*P, Id, Name, *V);
      if (!L)
        return L.takeError();
      if (*L)
        Out.Coords.emplace(Name, std::move(**L));
      continue;
    }
    int64_t Chains = static_cast<int64_t>(V->Extents[0]);
    int64_t Draws = static_cast<int64_t>(V->Extents[1]);
    if (Out.Names.empty()) {
      Out.Chains = Chains;
      Out.DrawsPerChain = Draws;
    } else if (Chains != Out.Chains || Draws != Out.DrawsPerChain) {
      return error("'" + Path + "': posterior variable '" + Name + "' has " +
                   std::to_string(Chains) + " chains x " +
                   std::to_string(Draws) + " draws, but '" + Out.Names[0] +
                   "' has " + std::to_string(Out.Chains) + " x " +
                   std::to_string(Out.DrawsPerChain));
    }
    Out.Dims.emplace(Name, V->Dims);
    P->Vars.emplace(Name, std::move(*V));
    Out.Names.push_back(Name);
  }
  if (Out.Names.empty())
    return error("'" + Path + "': the posterior group holds no variables");
  // Only the variables the model reads are ever read.
  Out.Read = [P](const std::string &Name) { return P->read(Name); };
  return Out;
}

} // namespace aimz::run
