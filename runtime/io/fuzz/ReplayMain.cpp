//===- ReplayMain.cpp - Run a fuzz target without libFuzzer ---------------===//
//
// For the normal (gcc) build and the test suite: feeds every file of a
// corpus to LLVMFuzzerTestOneInput, then that many random mutations of
// each (byte flips, insertions, deletions, truncations, splices with
// another input; a fixed seed, so a failure reproduces). It is a smoke
// test without coverage guidance; the libFuzzer build is the real fuzzer.
//
// Usage: <replay> [--mutations N] [--seed S] FILE|DIR...
//
//===----------------------------------------------------------------------===//
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <sys/stat.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size);

namespace {

using Bytes = std::vector<uint8_t>;

void collect(const std::string &Path, std::vector<std::string> &Files) {
  struct stat St;
  if (::stat(Path.c_str(), &St) != 0)
    return;
  if (!S_ISDIR(St.st_mode)) {
    Files.push_back(Path);
    return;
  }
  if (DIR *D = ::opendir(Path.c_str())) {
    while (struct dirent *E = ::readdir(D))
      if (E->d_name[0] != '.')
        collect(Path + "/" + E->d_name, Files);
    ::closedir(D);
  }
}

void run(const Bytes &B) {
  // A copy of exactly Size bytes, so that ASan sees reads past the end.
  uint8_t *P = static_cast<uint8_t *>(std::malloc(B.size() ? B.size() : 1));
  if (!B.empty())
    std::memcpy(P, B.data(), B.size());
  LLVMFuzzerTestOneInput(P, B.size());
  std::free(P);
}

Bytes mutate(Bytes B, const std::vector<Bytes> &All, std::mt19937_64 &Rng) {
  auto Pick = [&](size_t N) { return N ? size_t(Rng() % N) : size_t(0); };
  int Steps = 1 + int(Rng() % 4);
  for (int S = 0; S < Steps; ++S) {
    switch (Rng() % 6) {
    case 0: // flip a bit
      if (!B.empty())
        B[Pick(B.size())] ^= uint8_t(1u << (Rng() % 8));
      break;
    case 1: { // an interesting value
      static const uint8_t Vals[] = {0, 1, 0x7f, 0x80, 0xff, '}', '(', ','};
      if (!B.empty())
        B[Pick(B.size())] = Vals[Rng() % sizeof Vals];
      break;
    }
    case 2: // insert bytes
      B.insert(B.begin() + Pick(B.size() + 1), 1 + Rng() % 8,
               uint8_t(Rng()));
      break;
    case 3: // delete a run
      if (!B.empty()) {
        size_t At = Pick(B.size());
        B.erase(B.begin() + At,
                B.begin() + std::min(B.size(), At + 1 + Rng() % 16));
      }
      break;
    case 4: // truncate
      B.resize(Pick(B.size() + 1));
      break;
    default: { // splice with another input
      const Bytes &O = All[Pick(All.size())];
      if (!O.empty()) {
        size_t From = Pick(O.size());
        size_t At = Pick(B.size() + 1);
        B.insert(B.begin() + At, O.begin() + From,
                 O.begin() + std::min(O.size(), From + 1 + Rng() % 64));
      }
    }
    }
  }
  return B;
}

} // namespace

int main(int Argc, char **Argv) {
  long Mutations = 1000;
  unsigned long long Seed = 1;
  std::vector<std::string> Files;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    if (A == "--mutations" && I + 1 < Argc)
      Mutations = std::atol(Argv[++I]);
    else if (A == "--seed" && I + 1 < Argc)
      Seed = std::strtoull(Argv[++I], nullptr, 10);
    else
      collect(A, Files);
  }
  if (Files.empty()) {
    std::fprintf(stderr, "usage: %s [--mutations N] [--seed S] FILE|DIR...\n",
                 Argv[0]);
    return 2;
  }
  std::vector<Bytes> Corpus;
  for (const std::string &F : Files) {
    std::ifstream In(F, std::ios::binary);
    Corpus.emplace_back(std::istreambuf_iterator<char>(In),
                        std::istreambuf_iterator<char>());
  }
  for (const Bytes &B : Corpus)
    run(B);
  std::mt19937_64 Rng(Seed);
  for (const Bytes &B : Corpus)
    for (long M = 0; M < Mutations; ++M)
      run(mutate(B, Corpus, Rng));
  std::printf("%zu inputs and %ld mutations of each ran without a crash\n",
              Corpus.size(), Mutations);
  return 0;
}
