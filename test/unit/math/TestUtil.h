// Helpers shared by the maths unit tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace aimz_test {

/// Compare a computed value with a reference: NaN must match NaN, infinities
/// must match exactly, finite values within rtol * max(floor, |expect|) (floor = 1 by default).  When the
/// reference exceeds the range of T, T's infinity of the same sign is
/// expected.
template <class T>
::testing::AssertionResult close_to(double got, double expect, double rtol, double* err_out = nullptr, double floor = 1.0) {
  if (std::isnan(expect)) {
    if (std::isnan(got)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "expected NaN, got " << got;
  }
  if (std::isfinite(expect) && std::fabs(expect) > static_cast<double>(std::numeric_limits<T>::max()))
    expect = expect > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  if (std::isinf(expect)) {
    if (got == expect) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "expected " << expect << ", got " << got;
  }
  if (!std::isfinite(got)) return ::testing::AssertionFailure() << "expected " << expect << ", got " << got;
  const double err = std::fabs(got - expect) / std::max(floor, std::fabs(expect));
  if (err_out) *err_out = std::max(*err_out, err);
  if (err <= rtol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << expect << ", got " << got << " (scaled error " << err
                                       << " > " << rtol << ")";
}

template <class T> const char* type_name();
template <> inline const char* type_name<float>() { return "float"; }
template <> inline const char* type_name<double>() { return "double"; }

}  // namespace aimz_test
