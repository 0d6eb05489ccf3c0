#include "memory_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fjb {
namespace {

constexpr std::size_t minimum_points = 4;
// Near n = 0, P^n is almost constant and trades off against a: exponents below this are not tried.
constexpr double smallest_exponent = 0.1;
constexpr double largest_exponent = 3.0;
constexpr int exponent_steps = 2900;

struct linear_fit {
  double intercept;
  double slope;
  double squared_error;
};

// Ordinary least squares of mib against P^n.
linear_fit fit_for_exponent(const std::vector<memory_point>& points, double n) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& point : points) {
    const double x = std::pow(point.workers, n);
    sx += x;
    sy += point.mib;
    sxx += x * x;
    sxy += x * point.mib;
  }
  const double count = static_cast<double>(points.size());
  const double denominator = count * sxx - sx * sx;
  const double slope = denominator == 0 ? 0 : (count * sxy - sx * sy) / denominator;
  const double intercept = (sy - slope * sx) / count;
  double squared_error = 0;
  for (const auto& point : points) {
    const double residual = point.mib - (intercept + slope * std::pow(point.workers, n));
    squared_error += residual * residual;
  }
  return {intercept, slope, squared_error};
}

}  // namespace

std::optional<memory_fit> fit_memory_scaling(const std::vector<memory_point>& points) {
  const auto one_worker = std::find_if(points.begin(), points.end(),
                                       [](const memory_point& point) { return point.workers == 1; });
  if (points.size() < minimum_points || one_worker == points.end() || one_worker->mib <= 0) {
    return std::nullopt;
  }
  std::optional<linear_fit> best;
  double best_n = std::numeric_limits<double>::quiet_NaN();
  for (int step = 0; step <= exponent_steps; ++step) {
    const double n = smallest_exponent + (largest_exponent - smallest_exponent) * step / exponent_steps;
    const linear_fit candidate = fit_for_exponent(points, n);
    // Memory neither starts below zero nor shrinks with more workers.
    const bool physical = candidate.intercept >= 0 && candidate.slope >= 0;
    if (physical && (!best || candidate.squared_error < best->squared_error)) {
      best = candidate;
      best_n = n;
    }
  }
  if (!best) {
    // No growth to fit: report the mean as a, with no exponent.
    best = fit_for_exponent(points, 0);
  }
  const double rms = std::sqrt(best->squared_error / static_cast<double>(points.size()));
  return memory_fit{{}, best->intercept, best->slope / one_worker->mib, best_n, rms};
}

}  // namespace fjb
