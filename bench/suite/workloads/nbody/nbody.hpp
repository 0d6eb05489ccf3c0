#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "registry.hpp"
#include "verify.hpp"

// Direct-sum gravitational n-body simulation (seed 004: 100,000 bodies): each step computes every body's
// acceleration from all the others in parallel, synchronises, then moves every body in parallel.
namespace fjb::nbody {

struct problem {
  std::size_t bodies;
  int steps;
};

[[nodiscard]] constexpr problem problem_at(scale s) noexcept {
  return by_scale(s, problem{1'000, 3}, problem{4'000, 3}, problem{100'000, 2});
}

// N is the number of bodies; the number of steps is the scale's.
[[nodiscard]] constexpr std::int64_t default_bodies(scale s) noexcept {
  return static_cast<std::int64_t>(problem_at(s).bodies);
}
inline constexpr size_parameter problem_size{"bodies", default_bodies, 64, 1'000'000};

[[nodiscard]] constexpr problem problem_at(const run_request& request) noexcept {
  return {static_cast<std::size_t>(request.n), problem_at(request.size).steps};
}

// Bodies handed to one task.
inline constexpr std::size_t body_grain = 32;

struct galaxy {
  std::vector<double> x, y, z;
  std::vector<double> vx, vy, vz;
  std::vector<double> ax, ay, az;
  std::vector<double> mass;

  [[nodiscard]] std::size_t size() const noexcept { return mass.size(); }
};

[[nodiscard]] galaxy initial_galaxy(std::size_t bodies);

// Acceleration of body i from all bodies, softened so that close encounters stay finite. Out of line, as
// move(), so that every version runs the same compiled kernel (inlined into a coroutine it may not be
// vectorised).
void accelerate(galaxy& s, std::size_t i) noexcept;

// Semi-implicit Euler step of body i.
void move(galaxy& s, std::size_t i) noexcept;

// Against a serial simulation computed here, outside the timed region.
void verify(const problem& p, const galaxy& computed);

// The OpenMP and TBB versions differ only in their simulation and measure it the same way on their team (an
// omp_team or a tbb_team: built with the worker count, `time(body)` runs the body on the team).
template <class Team, void (*Simulate)(galaxy& s, int steps)>
run_result run_on_team(const run_request& request) {
  const problem p = problem_at(request);
  galaxy s = initial_galaxy(p.bodies);
  Team team(request.workers);
  const double seconds = team.time([&] { Simulate(s, p.steps); });
  verify(p, s);
  return {seconds};
}

}  // namespace fjb::nbody
