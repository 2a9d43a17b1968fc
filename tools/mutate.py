#!/usr/bin/python3
"""Mutation check: does the suite fail when hot code is wrong?

Applies each mutation below (one small, plausible bug in the writer's index
loops, chunk geometry, samplers' constants, log densities, the work split,
the .npy/.npz parsers, the lowering's view/stride arithmetic, the plan...)
to a built tree, rebuilds only the targets that mutation touches, runs the
tests meant to catch it, and reports whether they did ("killed") or not
("SURVIVED"). Every file is restored (and its targets rebuilt) after each
mutation, also on Ctrl-C.

Usage: tools/mutate.py [--build build] [--only ID[,ID...]] [--list | --check]

--check only verifies that every mutation's text is still in its file,
once (ctest runs it, so that a refactor cannot leave a mutant behind).

The build directory must be configured and built (tools/test.sh). The list
and the last result are in docs/testing.md.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Test commands, by what they need ({b}: build dir, {t}: a scratch dir).
E2E = ("/usr/bin/python3 test/e2e/run/test_{0}.py --aimzc {{b}}/bin/aimzc "
       "--aimz-run {{b}}/bin/aimz-run --examples dsl-examples "
       "--models {{t}}/models --tmp {{t}}/tmp {1}")
IO_UNIT = "{b}/test/unit/io/aimz_io_tests --gtest_brief=1"
RUN_UNIT = "{b}/test/unit/run/aimz_run_tests --gtest_brief=1"
MATH = "{{b}}/test/unit/math/aimz_math_tests --gtest_brief=1 '--gtest_filter={0}'"
MODELS = "{b}/test/unit/models/aimz_model_tests --gtest_brief=1"
LIT = ("/usr/bin/python3 /usr/lib/llvm-19/build/utils/lit/lit.py -q "
       "{b}/test/lit")


def e2e(name, select=""):
    return E2E.format(name, select)


IO_TARGETS = ["aimz_io_tests", "aimz-run"]
RUN_TARGETS = ["aimz_run_tests", "aimz-run"]
MATH_TARGETS = ["aimz_math_tests"]
COMPILER_TARGETS = ["aimzc", "aimz_model_tests", "aimz_test_models"]

# (id, file, original text, mutated text, targets, test commands)
MUTATIONS = [
    ("writer-odometer", "runtime/io/ZarrWriter.cpp",
     "if (++Idx[D] < Valid[D])", "if (++Idx[D] < Valid[0])",
     IO_TARGETS, [IO_UNIT, e2e("predict", "RankThreeSites")]),
    ("writer-edge-extent", "runtime/io/ZarrWriter.cpp",
     "std::min(S.Chunks[I], S.Shape[I] - Coords[I] * S.Chunks[I])",
     "S.Chunks[I]", IO_TARGETS, [IO_UNIT]),
    ("npy-truncated", "runtime/io/NpyArray.cpp",
     "if (Have < Want)", "if (Have < Want / 2)", IO_TARGETS, [IO_UNIT]),
    ("npy-trailing-junk", "runtime/io/NpyHeader.cpp",
     "if (Pos != Text.size())", "if (false)", IO_TARGETS,
     [IO_UNIT, e2e("hostile", "-k trailing_junk")]),
    ("npy-fortran", "runtime/io/NpyHeader.cpp",
     "if (*Fortran)", "if (false)", IO_TARGETS, [IO_UNIT]),
    ("npz-stored-crc", "runtime/io/NpzArchive.cpp",
     "if (zip::crc32(0, Bytes->data(), Bytes->size()) != M->Crc32)",
     "if (false)", IO_TARGETS, [IO_UNIT, e2e("hostile", "-k crc")]),
    ("npz-duplicate-names", "runtime/io/NpzArchive.cpp",
     "if (llvm::is_contained(A.Names, N))", "if (false)", IO_TARGETS,
     [IO_UNIT, e2e("hostile", "-k duplicate_member")]),
    ("zip64-extra-id", "runtime/io/ZipReader.cpp",
     "if (Id == 0x0001)", "if (Id == 0x0002)", IO_TARGETS, [IO_UNIT]),
    ("blosc-bitshuffle", "runtime/io/Codec.cpp",
     "    return BLOSC_BITSHUFFLE;", "    return BLOSC_SHUFFLE;", IO_TARGETS,
     [IO_UNIT]),
    ("lock-shared", "runtime/io/OutputLock.cpp",
     "LOCK_EX | LOCK_NB", "LOCK_SH | LOCK_NB", IO_TARGETS,
     [e2e("hostile", "-k locked_output -k concurrent_run")]),
    ("store-accepts-anything", "runtime/io/StoreTree.cpp",
     'if (Name.ends_with(".tmp"))', "if (true)", IO_TARGETS,
     [IO_UNIT, e2e("hostile", "-k foreign")]),
    ("split-every-device-writes-globals", "runtime/include/aimz/run/WorkSplit.h",
     "return !ObsPlan || ObsAligned || Dev + 1 == Devices;", "return true;",
     RUN_TARGETS, [RUN_UNIT]),
    ("split-overlapping-shares", "runtime/include/aimz/run/WorkSplit.h",
     "U0 + Len * (Dev + 1) / Devices}", "U0 + Len * (Dev + 1) / Devices + 1}",
     RUN_TARGETS, [RUN_UNIT]),
    ("batch-count-floor", "runtime/lib/RunPlan.cpp",
     "P.Batches = P.ObsPlan ? (N + B - 1) / B", "P.Batches = P.ObsPlan ? N / B",
     RUN_TARGETS, [e2e("predict", "LinregPartitions")]),
    ("posterior-f32-overflow", "runtime/lib/HostArray.cpp",
     "if (std::isfinite(D) && !std::isfinite(F))", "if (false)", RUN_TARGETS,
     [e2e("hostile", "-k f32_range")]),
    ("data-name-twice", "runtime/lib/Data.cpp",
     "    if (!New)", "    if (false)", RUN_TARGETS,
     [e2e("hostile", "-k data_name_twice")]),
    ("mpi-records-not-compared", "runtime/lib/Runner.cpp",
     "  if (Zero == Mine)\n", "  if (true)\n", RUN_TARGETS,
     [e2e("mpi", "-k disagree")]),
    ("resume-keeps-damaged-chunks", "runtime/io/ZarrWriter.cpp",
     "      if (!Bad) {\n",
     "      if (true) {\n        consumeError(std::move(Bad));\n",
     IO_TARGETS, [e2e("resume", "-k damaged")]),
    ("non-finite-not-counted", "runtime/lib/NonFiniteResults.cpp",
     "Special += (B & F::Exp) == F::Exp;", "Special += 0;",
     RUN_TARGETS + ["aimz_run_check_tests"],
     ["{b}/test/unit/run/aimz_run_check_tests --gtest_brief=1",
      e2e("interventions", "-k support")]),
    ("intervention-f32-range", "runtime/lib/Intervention.cpp",
     "if (Type == io::DType::Float32 && !std::isfinite(static_cast<float>(V)))",
     "if (false)", RUN_TARGETS, [e2e("interventions", "-k precision")]),
    ("truncated-library-loaded", "runtime/lib/ModelLibrary.cpp",
     "  if (Needed > Size)\n", "  if (false)\n", RUN_TARGETS,
     [e2e("hostile", "-k truncated_model")]),
    ("box-muller-angle", "runtime/include/aimz/math/Samplers.h",
     "return r * elementary::cos2pi(u2);", "return r * elementary::cos2pi(T(0.5) * u2);",
     MATH_TARGETS, [MATH.format("Sampler*")]),
    ("gamma-shape-offset", "runtime/include/aimz/math/Samplers.h",
     "mt_gamma(RandomStream& s, T a) {\n  const T d = a - T(1.0 / 3.0);",
     "mt_gamma(RandomStream& s, T a) {\n  const T d = a - T(1.0 / 2.0);",
     MATH_TARGETS, [MATH.format("Sampler*")]),
    ("bernoulli-direction", "runtime/include/aimz/math/BinomialFamilies.h",
     "u < static_cast<double>(probs) ? 1.0 : 0.0",
     "u > static_cast<double>(probs) ? 1.0 : 0.0",
     MATH_TARGETS, [MATH.format("Sampler*")]),
    ("normal-logpdf-scale-term", "runtime/include/aimz/math/NormalFamilies.h",
     "return T(-0.5) * z * z - elementary::log(scale) - T(detail::kLnSqrt2Pi);",
     "return T(-0.5) * z * z - T(detail::kLnSqrt2Pi);",
     MATH_TARGETS, [MATH.format("LogDensity.*")]),
    ("erfc-head-region", "runtime/include/aimz/math/Elementary.h",
     "E.Head = X < 0.84375;", "E.Head = X < 0.9;",
     MATH_TARGETS, [MATH.format("Elementary.*")]),
    ("truncated-no-reflection", "runtime/include/aimz/math/Truncated.h",
     "const double x = below != side.flip ? -z : z;",
     "const double x = below ? -z : z;",
     MATH_TARGETS, [MATH.format("Sampler*")]),
    ("truncated-fold-side", "runtime/include/aimz/math/Truncated.h",
     "(high <= loc ? -std::fabs(t) : t)", "(high <= loc ? std::fabs(t) : t)",
     MATH_TARGETS, [MATH.format("SplitSamplers.*")]),
    ("philox-rounds", "runtime/include/aimz/math/Philox.h",
     "return philox4x32<10>(ctr, key);", "return philox4x32<9>(ctr, key);",
     MATH_TARGETS, [MATH.format("Philox.*:RandomStream.*")]),
    ("gemm-wrong-column", "runtime/include/aimz/math/Gemm.h",
     "Acc[R][J] += A * Bk[J];", "Acc[R][J] += A * Bk[0];",
     MATH_TARGETS, [MATH.format("Gemm*")]),
    ("gemm-k-restart", "runtime/include/aimz/math/Gemm.h",
     "if (K0 == 0 && !Subtract) {", "if (true) {", MATH_TARGETS,
     [MATH.format("Gemm*")]),
    # Issue 51: the blocked Cholesky and the grouped forward substitution.
    ("cholesky-sub-block-update-dropped",
     "runtime/include/aimz/math/BlockedCholesky.h",
     "      cd::update<T, S>(K, U, Ld, S0, Sb, J0, S0);\n", "\n",
     MATH_TARGETS, [MATH.format("Cholesky*")]),
    # The transpositions around the factor, 16 x 16 squares in registers.
    ("square-transpose-lane-swapped",
     "runtime/include/aimz/math/SquareTranspose.h",
     "return Second ? ((c & B) ? Side + c : c + B)",
     "return Second ? ((c & B) ? Side + c : c + B - 1)",
     MATH_TARGETS, [MATH.format("Cholesky*")]),
    ("cholesky-square-symmetry-unchecked",
     "runtime/include/aimz/math/BlockedCholesky.h",
     "    Ok &= RowOk;\n", "    (void)RowOk;\n",
     MATH_TARGETS, [MATH.format("Cholesky*")]),
    ("cholesky-square-upper-left-behind",
     "runtime/include/aimz/math/BlockedCholesky.h",
     "      std::memset(L + (J0 + r) * Ld + I0, 0, Tile * sizeof(T));\n",
     "      ;\n", MATH_TARGETS, [MATH.format("Cholesky*")]),
    ("mvn-solve-group-skips-first-column",
     "runtime/include/aimz/math/EventDistributions.h",
     "for (std::int64_t j = 0; j < i0; ++j) {\n        const T y = x[j];",
     "for (std::int64_t j = 1; j < i0; ++j) {\n        const T y = x[j];",
     MATH_TARGETS, [MATH.format("Cholesky*")]),
    ("lower-broadcast-stride", "compiler/lib/Conversion/LowerViews.cpp",
     "V.Strides[To] = In.Strides[I];", "V.Strides[To] = idx(0);",
     COMPILER_TARGETS, [MODELS, e2e("predict", "RankThreeSites")]),
    ("lower-buffer-strides", "compiler/lib/Conversion/EntryBuilder.cpp",
     "S = B->create<arith::MulIOp>(Loc, S, Alloc[I]);", "S = Alloc[I];",
     COMPILER_TARGETS, [MODELS, e2e("predict", "RankThreeSites")]),
    ("sema-plan-always-obs", "compiler/lib/Sema/Classification.cpp",
     "Info.ChosenPlan = Info.PlanReason.empty() ? Plan::Obs : Plan::Draw;",
     "Info.ChosenPlan = Plan::Obs;", ["aimzc"], [LIT]),
    # Issues 35 and 39: shape arithmetic, slices, hurdles, log_prob and
    # the truncations by CDF.
    ("dim-arith-sign-dropped", "runtime/include/aimz/DimExpr.h",
     "Sign = Text[I] == '-' ? -1 : 1;", "Sign = 1;",
     COMPILER_TARGETS + ["aimz-run"], [LIT, e2e("slices")]),
    ("sema-slice-range-unchecked", "compiler/lib/Sema/Slices.cpp",
     "if ((InRange && !*InRange) || (EndOk && !*EndOk)) {", "if (false) {",
     ["aimzc"], [LIT]),
    ("lower-slice-start-ignored", "compiler/lib/Conversion/LowerViews.cpp",
     "B->create<arith::MulIOp>(Loc, S, In.Strides[I])",
     "B->create<arith::MulIOp>(Loc, idx(0), In.Strides[I])",
     COMPILER_TARGETS, [e2e("slices")]),
    ("hurdle-not-renormalized", "runtime/include/aimz/math/Hurdle.h",
     "return detail::hurdle_count(c, valid, gate, base, log1mexp(a * elementary::log1p(m / a)));",
     "return detail::hurdle_count(c, valid, gate, base, T(0));",
     MATH_TARGETS, [MATH.format("LogDensity.*")]),
    ("hurdle-inversion-from-zero", "runtime/include/aimz/math/Hurdle.h",
     "double k = 1.0, F = q;", "double k = 0.0, F = q;",
     MATH_TARGETS, [MATH.format("Sampler*Hurdle*")]),
    ("truncated-cdf-lower-side-only", "runtime/include/aimz/math/TruncatedByCdf.h",
     "return low > base.lo() && base.log_cdf(low) > -0.6931471805599453;",
     "return false;", MATH_TARGETS, [MATH.format("LogDensity.*")]),
    ("incomplete-gamma-series-term", "runtime/include/aimz/math/TruncatedByCdf.h",
     "term *= x / (a + n);", "term *= x / (a + n + 1);",
     MATH_TARGETS, [MATH.format("LogDensity.*")]),
    ("log-prob-value-is-a-parameter", "compiler/lib/MLIRGen/MLIRGen.cpp",
     "    V = Aligned(X, X.Ty.Type);", "    V = Params.front();",
     COMPILER_TARGETS, [e2e("log_likelihood", "-k log_prob")]),
    ("outline-nothing-recomputed", "compiler/lib/Conversion/OutlineLargeBlocks.cpp",
     "(Outer && isRematerializable(Def))", "(false && isRematerializable(Def))",
     COMPILER_TARGETS + ["aimz-opt"], [LIT]),
    ("folded-density-one-side", "runtime/include/aimz/math/Folded.h",
     "LOG_PROB<T>(-x, AIMZ_FOLDED_ARGS_##ARITY)", "LOG_PROB<T>(x, AIMZ_FOLDED_ARGS_##ARITY)",
     COMPILER_TARGETS, [e2e("distribution_families", "LogDensities")]),
    ("folded-cdf-one-tail", "runtime/include/aimz/math/Folded.h",
     "    S.add(base.log_cdf(-x));\n",
     "",
     COMPILER_TARGETS, [e2e("censored", "LogCdf")]),
    ("masked-scores-unmasked", "compiler/lib/Conversion/LowerSites.cpp",
     "arith::CmpFPredicate::UNE, M,", "arith::CmpFPredicate::OEQ, M,",
     COMPILER_TARGETS, [e2e("masked")]),
    ("statistic-rounds-ignored", "compiler/lib/Sema/TransformedData.cpp",
     "  D.Round = dataRound(*Arg);", "  D.Round = 0;",
     COMPILER_TARGETS, [e2e("transformed_data", "StatisticsOfExpressions")]),
    ("statistic-rows-unchecked", "compiler/lib/Sema/TransformedData.cpp",
     "if (A.Dims.empty() || A.Dims[0] != Obs ||", "if (A.Dims.empty() ||",
     COMPILER_TARGETS, [LIT]),
    ("inverse-without-pivoting", "runtime/include/aimz/math/EventDistributions.h",
     "      if (std::fabs(work(i, k)) > std::fabs(work(p, k)))",
     "      if (false && std::fabs(work(i, k)) > std::fabs(work(p, k)))",
     COMPILER_TARGETS, [e2e("functions", "MatrixFunctions")]),
    ("masked-log-prob-inverted", "compiler/lib/Sema/LogProb.cpp",
     "Cond = binary(BinaryOp::Ne, Cond, number(Mask->Loc, 0));",
     "Cond = binary(BinaryOp::Eq, Cond, number(Mask->Loc, 0));",
     COMPILER_TARGETS, [e2e("vector_log_prob", "CompositeLogProb")]),
    ("wishart-trace-halved", "runtime/include/aimz/math/MatrixFamilies.h",
     "return weighted_log_diag(K, c, nu - 1.0, -1.0) - 0.5 * trace",
     "return weighted_log_diag(K, c, nu - 1.0, -1.0) - 0.25 * trace",
     COMPILER_TARGETS, [e2e("distribution_families", "Matrices")]),
    ("inverse-wishart-bartlett-reversed", "runtime/include/aimz/math/MatrixFamilies.h",
     "detail::bartlett_factor<T>(s, K, out, nu - double(K) + 1.0, 1.0);",
     "detail::bartlett_factor<T>(s, K, out, nu, -1.0);",
     COMPILER_TARGETS, [e2e("distribution_families", "Matrices")]),
    ("interval-both-as-inside", "runtime/include/aimz/math/Censored.h",
     "if (left == T(0)) return log_interval_of<T>(base, lower, upper);",
     "return log_interval_of<T>(base, lower, upper);",
     COMPILER_TARGETS, [e2e("censored", "IntervalCensoredSurvival")]),
    ("interval-point-as-interval", "runtime/include/aimz/math/Censored.h",
     "if (left == T(0) && point) return density(lower);",
     "if (left == T(0) && point && false) return density(lower);",
     COMPILER_TARGETS, [e2e("censored", "IntervalCensoredSurvival")]),
    ("count-cap-without-its-mass", "runtime/include/aimz/math/Censored.h",
     "return log_ccdf_of<T>(base, T(double(x) - 1.0));",
     "return log_ccdf_of<T>(base, x);",
     COMPILER_TARGETS, [e2e("censored", "CensoredCounts")]),
    ("count-bound-fraction-accepted", "runtime/include/aimz/math/Censored.h",
     "return std::isinf(b) || std::floor(b) == b;",
     "return b == b;",
     COMPILER_TARGETS, [e2e("censored", "CensoredCounts")]),
    ("value-map-without-jacobian", "compiler/lib/Conversion/LowerSites.cpp",
     "          B->create<arith::AddFOp>(Loc, L, LogDet));",
     "          L);",
     COMPILER_TARGETS, [e2e("transformed_values", "DrawsMapForward")]),
    ("value-map-draws-unmapped", "compiler/lib/Conversion/LowerSites.cpp",
     "    if (!D.Map.empty())\n      applyValueMap(D, Out, Prec);",
     "    (void)D.Map;",
     COMPILER_TARGETS, [e2e("transformed_values", "DrawsMapForward Priors")]),
    ("mixture-general-shared-stream",
     "compiler/lib/Conversion/LowerGeneralMixture.cpp",
     "          Loc, Seed, i64(static_cast<int64_t>(componentKey(I))));",
     "          Loc, Seed, i64(0));",
     COMPILER_TARGETS, [e2e("mixtures", "Draws")]),
    ("mixture-general-invalid-unchecked",
     "compiler/lib/Conversion/LowerGeneralMixture.cpp",
     "          convert(B->create<arith::SelectOp>(Loc, Valid, X, Bad),",
     "          convert(B->create<arith::SelectOp>(Loc, Valid, X, X),",
     COMPILER_TARGETS, [e2e("mixtures", "Draws")]),
    ("sine-bivariate-coupling-sign", "runtime/include/aimz/math/Circular.h",
     "const double b = std::atan(ls / d.k2) + von_mises_centred",
     "const double b = std::atan(-ls / d.k2) + von_mises_centred",
     COMPILER_TARGETS, [e2e("torus_angles", "TorusAngles.test_plain_draws")]),
    ("sine-bivariate-norm-first-term", "runtime/include/aimz/math/Circular.h",
     "      if (t < prev && t < max - 40.0) break;",
     "      break;",
     COMPILER_TARGETS, [e2e("torus_angles", "TorusAngles.test_plain_densities")]),
    ("sine-skewed-bivariate-unreflected", "runtime/include/aimz/math/Circular.h",
     "x[i] = wrap_angle(u <= keep ? loc[i] + c[i] : loc[i] - c[i]);",
     "x[i] = wrap_angle(loc[i] + c[i]);",
     COMPILER_TARGETS, [e2e("torus_angles", "TorusAngles.test_ss_model_component_law")]),
    ("matrix-normal-column-factor-transposed",
     "runtime/include/aimz/math/MultivariateFamilies.h",
     "for (std::int64_t k = 0; k <= j; ++k) acc += col(j, k) * out(i, k);",
     "for (std::int64_t k = 0; k <= j; ++k) acc += col(k, j) * out(i, k);",
     COMPILER_TARGETS, [e2e("matrix_normal", "MatrixNormal.test_whitened_draws_are_standard_normal")]),
    ("matrix-normal-row-logdet-by-rows",
     "runtime/include/aimz/math/MultivariateFamilies.h",
     "return T(-0.5) * quad - T(K) * row_logdet",
     "return T(-0.5) * quad - T(R) * row_logdet",
     COMPILER_TARGETS, [e2e("matrix_normal", "MatrixNormal.test_joint_rows_log_density")]),
    ("matrix-normal-rows-passed-as-columns", "compiler/lib/Conversion/LowerSites.cpp",
     "    Args.push_back(toI64(Value0.Sizes[Value0.Sizes.size() - 2]));",
     "    Args.push_back(toI64(Value0.Sizes.back()));",
     COMPILER_TARGETS, [e2e("matrix_normal", "MatrixNormal.test_joint_rows_log_density")]),
    ("zero-inflated-mixture-weights-swapped", "compiler/lib/Sema/GatedComposites.cpp",
     "      L, std::vector<ExprPtr>{Gate.Value, Other});",
     "      L, std::vector<ExprPtr>{Other, Gate.Value});",
     COMPILER_TARGETS, [e2e("gated_counts", "GatedCounts")]),
    ("zero-inflated-counts-cdf-ungated", "runtime/include/aimz/math/TruncatedCounts.h",
     "    *lp = hi + std::log1p(std::exp(lo - hi));",
     "    *lp = log_1mg + bp;",
     COMPILER_TARGETS, [e2e("gated_counts", "GatedCounts.test_truncated_zero_inflated_and_beta_binomial")]),
    ("beta-binomial-cdf-ratio-swapped", "runtime/include/aimz/math/TruncatedCounts.h",
     "      l += std::log(n - j) + std::log(j + a) - std::log(j + 1.0) - std::log(n - j - 1.0 + b);",
     "      l += std::log(n - j) + std::log(j + b) - std::log(j + 1.0) - std::log(n - j - 1.0 + a);",
     COMPILER_TARGETS, [e2e("gated_counts", "GatedCounts.test_truncated_zero_inflated_and_beta_binomial")]),
    ("hurdle-mixture-untruncated", "compiler/lib/Sema/GatedComposites.cpp",
     "  if (Hurdle && !Continuous)\n    Base = call(",
     "  if (false)\n    Base = call(",
     COMPILER_TARGETS, [e2e("gated_counts", "GatedCounts.test_hurdles_and_a_truncated_component")]),
    ("hurdle-atom-adds-density", "compiler/lib/Conversion/LowerGeneralMixture.cpp",
     "if (C.Hurdle && I > 0)",
     "if (false && I > 0)",
     COMPILER_TARGETS, [e2e("gated_counts", "GatedCounts.test_hurdles_over_continuous_bases")]),
    ("sort-unstable", "runtime/include/aimz/math/Sort.h",
     "detail::sorts_before(x[src[j]], x[src[i]]) ? src[j++] : src[i++];",
     "!detail::sorts_before(x[src[i]], x[src[j]]) ? src[j++] : src[i++];",
     COMPILER_TARGETS, [e2e("array_functions", "ArrayFunctions")]),
    ("observe-output-index-ignored", "compiler/lib/Conversion/LowerSites.cpp",
     "viewOfCallArray(FObserved, Op.getOutputIndex(),",
     "viewOfCallArray(FObserved, 0,",
     COMPILER_TARGETS, [e2e("several_outputs")]),
    ("vec-to-tril-diagonal-ignored", "compiler/lib/MLIRGen/MLIRGen.cpp",
     "Value IK = Bin(ir::BinaryFn::Add, I, Int(K));", "Value IK = I;",
     ["aimzc"], [e2e("slices", "-k vec_to_tril")]),
    ("vec-to-tril-length-unchecked", "compiler/lib/Sema/ArrayBuilders.cpp",
     "if (polyOf(V.Ty.Dims[0]).Terms != Length->Terms) {", "if (false) {",
     ["aimzc"], [LIT]),
    ("derived-sd-divides-by-n", "runtime/lib/DerivedInputs.cpp",
     "R[J] = std::sqrt(Q[J].value() / double(Count - 1));",
     "R[J] = std::sqrt(Q[J].value() / double(Count));",
     RUN_TARGETS, [e2e("transformed_data")]),
    ("derived-sum-uncompensated", "runtime/lib/DerivedInputs.cpp",
     "Carry += std::fabs(Sum) >= std::fabs(X) ? (Sum - T) + X : (X - T) + Sum;",
     "Carry += 0;",
     RUN_TARGETS, [e2e("transformed_data")]),
    ("transformed-reads-latents", "compiler/lib/Sema/Expressions.cpp",
     "  if (InTransformed && S.K != Symbol::Kind::Input &&",
     "  if (false && S.K != Symbol::Kind::Input &&",
     ["aimzc"], [LIT]),
    ("dm-beta-rest-is-total", "runtime/include/aimz/math/EventDistributions.h",
     "const double p = beta_sample<double>(s, a, rest);",
     "const double p = beta_sample<double>(s, a, rest + a);",
     ["aimzc"], [e2e("count_vectors")]),
    ("observed-data-first-output-only", "runtime/lib/Data.cpp",
     "  for (size_t O = 0; O < M.Outputs.size(); ++O) {\n    const ManifestArray &OutArray",
     "  for (size_t O = 0; O < 1; ++O) {\n    const ManifestArray &OutArray",
     RUN_TARGETS, [e2e("several_outputs")]),
    # Issue 39.3 / 35.5: the incomplete beta and truncated counts.
    ("incomplete-beta-swap-ignored", "runtime/include/aimz/math/TruncatedByCdf.h",
     "  *(swap ? log_q : log_p) = l;\n  *(swap ? log_p : log_q) = log1m_exp_d(l);",
     "  *log_p = l;\n  *log_q = log1m_exp_d(l);",
     MATH_TARGETS, [MATH.format("LogDensity.*")]),
    ("truncated-count-low-exclusive", "runtime/include/aimz/math/TruncatedCounts.h",
     "return log_diff_exp_d(count_log_cdf(base, U), count_log_cdf(base, L - 1.0));",
     "return log_diff_exp_d(count_log_cdf(base, U), count_log_cdf(base, L));",
     MATH_TARGETS, [MATH.format("LogDensity.*")]),
    ("truncated-count-inversion-side", "runtime/include/aimz/math/TruncatedCounts.h",
     "    return count_bisect([&](double k) { return lq - count_log_sf(base, k); }, L, U);",
     "    return count_bisect([&](double k) { return count_log_sf(base, k) - lq; }, L, U);",
     MATH_TARGETS, [MATH.format("Sampler*TruncatedCounts*")]),
    ("truncated-count-is-real", "compiler/lib/Sema/Composites.cpp",
     "  R.Discrete = NB->Spec->Discrete; // a truncated count is a count",
     "  R.Discrete = false;", ["aimzc"], [LIT]),
    # Issue 35.4: joint sites, their frame, pairwise loops, precision.
    ("joint-site-is-obs-aligned", "compiler/lib/Sema/Classification.cpp",
     "    return SiteClass::Joint;", "    return SiteClass::ObsAligned;",
     ["aimzc"], [LIT]),
    ("joint-model-in-blocks", "compiler/lib/Conversion/EntryBuilder.cpp",
     "    if (Model.getJointObservations()) {\n      // Every observation",
     "    if (false) {\n      // Every observation",
     COMPILER_TARGETS, [MODELS, e2e("joint_sites", "-k latent")]),
    ("joint-part-of-the-observations", "compiler/lib/Conversion/EntryBuilder.cpp",
     "  if (Model.getJointObservations())\n    requireEveryObservation();",
     "  if (false)\n    requireEveryObservation();",
     COMPILER_TARGETS, [MODELS]),
    ("fused-iota-first-axis", "compiler/lib/Conversion/LowerElementwise.cpp",
     "        Ivs[Iota.getAxis()]);", "        Ivs[0]);",
     ["aimzc"], [e2e("joint_sites")]),
    ("precision-reads-upper-triangle", "runtime/include/aimz/math/EventDistributions.h",
     "for (std::int64_t j = i; j < K; ++j) w += precision_tril(j, i) * x[j];",
     "for (std::int64_t j = i; j < K; ++j) w += precision_tril(i, j) * x[j];",
     ["aimzc"], [e2e("joint_sites", "-k precision")]),
    # Issue 54.3: censored likelihoods and CDFs.
    ("right-censored-scores-cdf", "runtime/include/aimz/math/Censored.h",
     "  if (right != T(0)) return log_ccdf_of<T>(base, x);",
     "  if (right != T(0)) return log_cdf_of<T>(base, x);",
     ["aimzc"], [e2e("censored", "-k Weibull")]),
    ("censored-upper-scores-density", "runtime/include/aimz/math/Censored.h",
     "  if (x == upper && upper < inf<T>()) return log_ccdf_of<T>(base, x);",
     "", ["aimzc"], [e2e("censored", "-k LogNormal")]),
    ("censored-draw-not-clipped", "runtime/include/aimz/math/Censored.h",
     "  return x < lower ? lower : (x > upper ? upper : x);",
     "  return x;", ["aimzc"], [e2e("censored", "-k LogNormal")]),
    ("symmetric-cdf-same-side", "runtime/include/aimz/math/Cdf.h",
     "return detail::log_sf(base, (loc - x) / scale); }",
     "return detail::log_sf(base, (x - loc) / scale); }",
     ["aimzc"], [e2e("censored", "-k LogCdf")]),
    # Issue 54.2: the family headers' distributions.
    ("von-mises-one-sided", "runtime/include/aimz/math/Circular.h",
     "      return u3 < 0.5 ? -theta : theta;", "      return theta;",
     ["aimzc"], [e2e("distribution_families", "-k Draws")]),
    ("wald-first-root-only", "runtime/include/aimz/math/PositiveFamilies.h",
     "  const double x = u * (m + y) <= m ? y : m * m / y;", "  const double x = y;",
     ["aimzc"], [e2e("distribution_families", "-k Draws")]),
    ("dagum-tail-power", "runtime/include/aimz/math/PositiveFamilies.h",
     "p * v - (p + 1.0) * softplus(v);", "p * v - p * softplus(v);",
     ["aimzc"], [e2e("distribution_families", "-k LogDensities")]),
    ("triangular-left-quantile-linear", "runtime/include/aimz/math/BoundedFamilies.h",
     "    if (p <= left_mass()) return a + std::sqrt(p * (b - a) * (c - a));",
     "    if (p <= left_mass()) return a + p * (b - a);",
     ["aimzc"], [e2e("distribution_families", "-k Draws")]),
    ("cdf-family-truncation-ignored", "runtime/include/aimz/math/Censored.h",
     "    return detail::truncated_cdf_sample(s, CDF<T>(AIMZ_CENSORED_ARGS_##ARITY), low, high);",
     "    return SAMPLE<T>(s, AIMZ_CENSORED_ARGS_##ARITY);",
     ["aimzc"], [e2e("distribution_families", "-k Draws")]),
    ("discrete-uniform-misses-high", "runtime/include/aimz/math/CountFamilies.h",
     "  const double n = double(high) - double(low) + 1.0;",
     "  const double n = double(high) - double(low);",
     ["aimzc"], [e2e("distribution_families", "-k Draws")]),
    ("random-walk-scores-levels", "runtime/include/aimz/math/MultivariateFamilies.h",
     "    const T step = x[i] - (i ? x[i - 1] : T(0));", "    const T step = x[i];",
     ["aimzc"], [e2e("distribution_families", "-k Vectors")]),
    ("student-t-vector-unmixed", "runtime/include/aimz/math/MultivariateFamilies.h",
     "  const T r = T(1.0 / std::sqrt(w));", "  const T r = T(1);",
     ["aimzc"], [e2e("distribution_families", "-k Vectors")]),
    # Issue 54.1: Owen's T, the Bessel function of real order, and the
    # skew normal's CDF built on them.
    ("owens-t-identity-sign", "runtime/include/aimz/math/SpecialFunctions.h",
     "  return sign * (0.5 * (lower(h) * upper(ahs) + lower(ahs) * upper(h)) - rest);",
     "  return sign * (0.5 * (lower(h) * upper(ahs) + lower(ahs) * upper(h)) + rest);",
     ["aimzc"], [e2e("functions", "-k test_f64")]),
    ("bessel-series-wrong-order", "runtime/include/aimz/math/SpecialFunctions.h",
     "    term *= q / (k * (v + k));", "    term *= q / (k * (1.0 + k));",
     ["aimzc"], [e2e("functions", "-k test_f64")]),
    ("skew-normal-tail-direct", "runtime/include/aimz/math/RealLineFamilies.h",
     "  if (phi > 0.0 && direct >= 0.125 * phi) return std::log(direct);",
     "  if (phi > 0.0) return std::log(direct);",
     ["aimzc"], [e2e("censored", "-k LogCdf")]),
    # Issue 56.5: outputs scored by factors alone.
    ("score-only-read-anywhere", "compiler/lib/Sema/ScoreOnlyOutputs.cpp",
     "  if (StmtReadsScoreOnly.empty())\n    return true;",
     "  return true;", ["aimzc"], [LIT]),
    ("score-only-lag-allowed", "compiler/lib/Sema/ScoreOnlyOutputs.cpp",
     "    if (Ax < Base.size() && Base[Ax] == Dim::symbol(Info.ObsDim) && !A) {",
     "    if (false) {", ["aimzc"], [LIT]),
    ("score-only-predict-allowed", "runtime/lib/RunPlan.cpp",
     "      if (S.ScoreOnly)\n        return error(",
     "      if (false)\n        return error(",
     RUN_TARGETS, [e2e("score_only_outputs", "-k refused")]),
    ("mixing-factor-not-joint", "compiler/lib/Sema/Statements.cpp",
     "    Info.Sites.back().Class = SiteClass::Joint;", "    (void)0;",
     ["aimzc"], [e2e("score_only_outputs", "-k ChangePoint")]),
    # Issue 56.1: user-defined functions.
    ("function-let-not-renamed", "compiler/lib/Sema/Functions.cpp",
     "    Subst[S->Name] = Local(S->Name, S->NameLoc);",
     "    Subst[S->Name] = std::make_shared<NameExpr>(S->NameLoc, S->Name);",
     ["aimzc"], [LIT]),
    ("function-dims-not-unified", "compiler/lib/Sema/InlinedCalls.cpp",
     "    if (!New && It->second != V.Dims[I]) {",
     "    if (false) {", ["aimzc"], [LIT]),
    ("function-default-ignored", "compiler/lib/Sema/Functions.cpp",
     "      Bound[I] = clone(*F.Params[I].Default, {});",
     "      Bound[I] = std::make_shared<NumberExpr>(Call.Loc, 0.0, false);",
     ["aimzc"], [e2e("user_functions", "-k Golf")]),
    # Advanced indexing: NumPy puts adjacent indices' shape where they
    # stand; a block left first would give a transposed value.
    ("mixed-index-at-front", "compiler/lib/Sema/Indexing.cpp",
     "  E.GatherAt = Adjacent ? Advanced.front() : 0;",
     "  E.GatherAt = 0;",
     ["aimzc"], [e2e("indexing_any_axis", "-k Placements")]),
    # The row rule: a value with the observation axis twice pairs
    # observations (x[:, None] - x[None, :] without a joint site).
    ("obs-axis-twice-unchecked", "compiler/lib/Sema/Expressions.cpp",
     "  if (Info.ObsDim.empty() || obsAxisCount(E.Ty.Dims) < 2)",
     "  if (true)",
     ["aimzc"], [LIT]),
    ("concat-offset-fixed", "compiler/lib/Conversion/LowerArrays.cpp",
     "    Offset = B->create<arith::AddIOp>(Loc, Offset, In.Sizes[Axis]);",
     "    Offset = In.Sizes[Axis];",
     COMPILER_TARGETS, [e2e("array_functions", "-k every_form")]),
    ("flip-off-by-one", "compiler/lib/MLIRGen/ArrayFunctions.cpp",
     "                      alignLocal(constant(1, DType::I64), {}, Out)),",
     "                      alignLocal(constant(0, DType::I64), {}, Out)),",
     ["aimzc"], [e2e("array_functions", "-k every_form")]),
    ("cumprod-adds", "compiler/lib/Conversion/LowerArrays.cpp",
     "    Value S = binary(Product ? ir::BinaryFn::Mul : ir::BinaryFn::Add,",
     "    Value S = binary(ir::BinaryFn::Add,",
     COMPILER_TARGETS, [e2e("array_functions")]),
    ("posterior-derived-dims-first", "runtime/lib/Data.cpp",
     "    return S < 0 || llvm::none_of(M.Sites[S].Shape, [](const ManifestDim &D) {",
     "    return S < 0 || llvm::any_of(M.Sites[S].Shape, [](const ManifestDim &D) {",
     RUN_TARGETS, [e2e("posterior_dims", "-k SizesFromThePosterior")]),
    # A global site's support calls (compile time, issue 53 item 8): an
    # array's posterior read from draw 0's row, a number written to the
    # results without the result origin (draw plan: another batch's place).
    ("site-array-given-draw", "runtime/support/ModelSupport.cpp",
     "static_cast<const T *>(v.data) + draw * v.strides[0];",
     "static_cast<const T *>(v.data) + draw;",
     ["aimzc"], [e2e("predict", "-k return_sites_with_latents")]),
    ("site-emit-origin", "runtime/support/ModelSupport.cpp",
     "v.data)[(draw - c->result_draw_origin) * v.strides[0]] = *value;",
     "v.data)[draw * v.strides[0]] = *value;",
     ["aimzc"], [e2e("predict", "-k return_sites_with_latents")]),
]


def sh(cmd, log, **kw):
    p = subprocess.run(cmd, shell=True, cwd=ROOT, stdout=log,
                       stderr=subprocess.STDOUT, **kw)
    return p.returncode


def build(b, targets, log):
    return sh("ninja -C %s %s" % (b, " ".join(targets)), log)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--only", default="")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    todo = [m for m in MUTATIONS
            if not args.only or m[0] in args.only.split(",")]
    if args.list:
        for m in todo:
            print("%-36s %s" % (m[0], m[1]))
        return 0
    if args.check:
        stale = []
        for mid, rel, old, *_ in todo:
            with open(os.path.join(ROOT, rel)) as fh:
                n = fh.read().count(old)
            if n != 1:
                stale.append(mid)
                print("%s: %s holds its text %d times, not once; update "
                      "tools/mutate.py" % (mid, rel, n))
        print("%d of %d mutations apply" % (len(todo) - len(stale), len(todo)))
        return 1 if stale else 0
    b = os.path.abspath(args.build)
    scratch = tempfile.mkdtemp(prefix="aimz-mutate-")
    log_path = os.path.join(scratch, "mutate.log")
    results = []
    with open(log_path, "w") as log:
        for mid, rel, old, new, targets, tests in todo:
            path = os.path.join(ROOT, rel)
            with open(path) as fh:
                original = fh.read()
            if original.count(old) != 1:
                results.append((mid, "STALE (the text to mutate is not "
                                "there once; update tools/mutate.py)"))
                print("%-36s %s" % results[-1], flush=True)
                continue
            t0 = time.time()
            try:
                with open(path, "w") as fh:
                    fh.write(original.replace(old, new))
                log.write("\n=== %s\n" % mid)
                log.flush()
                if build(b, targets, log) != 0:
                    verdict = "did not build (not counted)"
                else:
                    tmp = os.path.join(scratch, mid)
                    os.makedirs(tmp, exist_ok=True)
                    failed = [t for t in tests
                              if sh(t.format(b=b, t=tmp), log,
                                    timeout=900) != 0]
                    verdict = ("killed" if failed else "SURVIVED")
                    shutil.rmtree(tmp, ignore_errors=True)
            finally:
                with open(path, "w") as fh:
                    fh.write(original)
                build(b, targets, log)
            results.append((mid, "%s (%.0f s)" % (verdict, time.time() - t0)))
            print("%-36s %s" % results[-1], flush=True)
    killed = sum(1 for _, v in results if v.startswith("killed"))
    print("\n%d of %d mutants killed; log: %s" % (killed, len(results),
                                                   log_path))
    return 0 if killed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
