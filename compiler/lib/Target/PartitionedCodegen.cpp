//===- PartitionedCodegen.cpp - Machine code on several threads -----------===//
//
// The module is written once as bitcode, with its use-list order; each
// thread reads it lazily into its own LLVMContext, keeping the bodies of
// its partition's functions and declaring the rest. LLVM's SplitModule
// clones the module per partition instead, which reorders use lists and
// with them the register allocation, and balances partitions by the number
// of functions; a model has a few large entry points and samplers, so this
// split balances instruction counts.
//
//===----------------------------------------------------------------------===//
#include "aimz/Target/PartitionedCodegen.h"
#include "aimz/Target/ModelLibrary.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>

namespace aimz {

static llvm::Error makeError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

unsigned defaultCodegenPartitions() {
  unsigned Threads = llvm::hardware_concurrency().compute_thread_count();
  return std::clamp(Threads, 1u, 4u);
}

namespace {

/// Which partition each defined function of a module goes to, and each
/// partition's instruction count.
struct Partitioning {
  std::vector<std::pair<const llvm::Function *, unsigned>> Of;
  std::vector<uint64_t> Instructions;
};

} // namespace

/// M's defined functions in at most Partitions partitions: largest first,
/// each to the lightest partition so far, by instruction count.
/// Deterministic; the partitions in use are numbered 0, 1, ... in the order
/// of their largest function.
static Partitioning assignPartitions(const llvm::Module &M,
                                     unsigned Partitions) {
  std::vector<std::pair<const llvm::Function *, unsigned>> Sized;
  for (const llvm::Function &F : M)
    if (!F.isDeclaration())
      Sized.push_back({&F, F.getInstructionCount()});
  llvm::stable_sort(Sized, [](const auto &A, const auto &B) {
    return A.second > B.second;
  });
  std::vector<uint64_t> Load(std::max(Partitions, 1u), 0);
  std::vector<std::optional<unsigned>> Number(Load.size());
  Partitioning Out;
  for (auto [F, Size] : Sized) {
    unsigned P = std::min_element(Load.begin(), Load.end()) - Load.begin();
    Load[P] += Size;
    if (!Number[P]) {
      Number[P] = Out.Instructions.size();
      Out.Instructions.push_back(0);
    }
    Out.Of.push_back({F, *Number[P]});
    Out.Instructions[*Number[P]] += Size;
  }
  return Out;
}

/// Whether M can be split: no aliases, ifuncs or appending globals
/// (llvm.used and the like), which a partition could not declare. Models
/// have none; anything else is emitted whole.
static bool splittable(const llvm::Module &M) {
  return M.alias_empty() && M.ifunc_empty() &&
         llvm::none_of(M.globals(), [](const llvm::GlobalVariable &G) {
           return G.hasAppendingLinkage();
         });
}

/// Local functions and mutable globals become hidden globals, so that
/// another partition can refer to them (hidden: the library exports what it
/// did). Local constants stay local: each partition that uses one copies it.
static void externalize(llvm::Module &M) {
  unsigned Unnamed = 0;
  auto Externalize = [&](llvm::GlobalValue &G) {
    G.setLinkage(llvm::GlobalValue::ExternalLinkage);
    G.setVisibility(llvm::GlobalValue::HiddenVisibility);
    if (!G.hasName())
      G.setName("aimz.partitioned." + llvm::Twine(Unnamed++));
  };
  for (llvm::Function &F : M)
    if (!F.isDeclaration() && F.hasLocalLinkage())
      Externalize(F);
  for (llvm::GlobalVariable &G : M.globals())
    if (G.hasLocalLinkage() && !G.isConstant())
      Externalize(G);
}

/// Removes the local constants no function of Part uses.
static void dropUnusedLocals(llvm::Module &Part) {
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (llvm::GlobalVariable &G :
         llvm::make_early_inc_range(Part.globals())) {
      if (!G.hasLocalLinkage())
        continue;
      G.removeDeadConstantUsers();
      if (G.use_empty()) {
        G.eraseFromParent();
        Changed = true;
      }
    }
  }
}

/// Partition P's module, read from the whole module's Bitcode into Ctx:
/// the functions Of assigns to P defined, the others declared (their
/// bodies are never read), the externally visible data defined in
/// partition 0 only, and the local constants its functions use. Reading
/// the bitcode with its use-list order keeps each function's IR exactly as
/// it was, so the code generator makes the same code for it as for the
/// whole module (cloning reorders use lists, and with them the register
/// allocation).
static llvm::Expected<std::unique_ptr<llvm::Module>>
readPartition(llvm::StringRef Bitcode, const llvm::StringMap<unsigned> &Of,
              unsigned P, llvm::LLVMContext &Ctx) {
  auto Part = llvm::getLazyBitcodeModule(
      llvm::MemoryBufferRef(Bitcode, "partition"), Ctx);
  if (!Part)
    return Part.takeError();
  for (llvm::Function &F : **Part)
    if (!F.isDeclaration() && Of.lookup(F.getName()) != P)
      F.deleteBody();
  if (llvm::Error E = (*Part)->materializeAll())
    return std::move(E);
  if (P != 0)
    for (llvm::GlobalVariable &G : (*Part)->globals())
      if (!G.isDeclaration() && !G.hasLocalLinkage()) {
        G.setInitializer(nullptr);
        G.setLinkage(llvm::GlobalValue::ExternalLinkage);
      }
  dropUnusedLocals(**Part);
  return Part;
}

/// The object code of partition P, in a context of its own.
static std::string emitPartition(llvm::StringRef Bitcode,
                                 const llvm::StringMap<unsigned> &Of,
                                 unsigned P, llvm::TargetMachine &TM,
                                 llvm::SmallString<0> &Object) {
  llvm::LLVMContext Ctx;
  auto Part = readPartition(Bitcode, Of, P, Ctx);
  if (!Part)
    return llvm::toString(Part.takeError());
  llvm::raw_svector_ostream OS(Object);
  if (llvm::Error E = emitMachineCode(**Part, TM, OS, /*Assembly=*/false))
    return llvm::toString(std::move(E));
  return "";
}

/// The whole of M as one object.
static llvm::Expected<PartitionedObjects>
emitWhole(llvm::Module &M, const TargetMachineFactory &MakeTM) {
  PartitionedObjects Out;
  Out.Instructions = {M.getInstructionCount()};
  auto TM = MakeTM();
  if (!TM)
    return TM.takeError();
  llvm::raw_svector_ostream OS(Out.Objects.emplace_back());
  if (llvm::Error E = emitMachineCode(M, **TM, OS, /*Assembly=*/false))
    return std::move(E);
  return std::move(Out);
}

llvm::Expected<PartitionedObjects>
emitPartitionedObjects(llvm::Module &M, unsigned Partitions,
                       const TargetMachineFactory &MakeTM) {
  Partitioning Parts = assignPartitions(M, Partitions);
  unsigned Used = Parts.Instructions.size();
  if (Used <= 1 || !splittable(M))
    return emitWhole(M, MakeTM);
  externalize(M);
  // By name (all named now): each thread reads its own copy.
  llvm::StringMap<unsigned> Of;
  for (const auto &[F, P] : Parts.Of)
    Of[F->getName()] = P;
  llvm::SmallString<0> Bitcode;
  llvm::raw_svector_ostream BS(Bitcode);
  llvm::WriteBitcodeToFile(M, BS, /*ShouldPreserveUseListOrder=*/true);
  // Target machines are made here: only the code generators run in threads.
  std::vector<std::unique_ptr<llvm::TargetMachine>> TMs;
  for (unsigned P = 0; P < Used; ++P) {
    auto TM = MakeTM();
    if (!TM)
      return TM.takeError();
    TMs.push_back(std::move(*TM));
  }
  PartitionedObjects Out;
  Out.Objects.resize(Used);
  Out.Instructions = std::move(Parts.Instructions);
  std::vector<std::string> Errors(Used);
  auto Run = [&](unsigned P) {
    Errors[P] = emitPartition(Bitcode, Of, P, *TMs[P], Out.Objects[P]);
  };
  std::vector<std::thread> Threads;
  for (unsigned P = 1; P < Used; ++P)
    Threads.emplace_back(Run, P);
  Run(0);
  for (std::thread &T : Threads)
    T.join();
  for (const std::string &E : Errors)
    if (!E.empty())
      return makeError("internal error: generating machine code: " + E);
  return std::move(Out);
}

} // namespace aimz
