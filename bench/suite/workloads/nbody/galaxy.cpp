#include <cmath>
#include <random>

#include "nbody.hpp"

namespace fjb::nbody {

galaxy initial_galaxy(std::size_t bodies) {
  std::mt19937_64 random(1729);
  std::uniform_real_distribution<double> position(-1.0, 1.0);
  std::uniform_real_distribution<double> mass(0.5, 1.5);
  galaxy s{};
  for (auto* field : {&s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz, &s.ax, &s.ay, &s.az, &s.mass}) {
    field->assign(bodies, 0.0);
  }
  for (std::size_t i = 0; i < bodies; ++i) {
    s.x[i] = position(random);
    s.y[i] = position(random);
    s.z[i] = position(random);
    s.mass[i] = mass(random) / static_cast<double>(bodies);
  }
  return s;
}

void verify(const problem& p, const galaxy& computed) {
  galaxy expected = initial_galaxy(p.bodies);
  for (int step = 0; step < p.steps; ++step) {
    for (std::size_t i = 0; i < expected.size(); ++i) {
      accelerate(expected, i);
    }
    for (std::size_t i = 0; i < expected.size(); ++i) {
      move(expected, i);
    }
  }
  for (std::size_t i = 0; i < expected.size(); ++i) {
    for (const auto field : {&galaxy::x, &galaxy::y, &galaxy::z, &galaxy::vx, &galaxy::vy, &galaxy::vz}) {
      // Only differing values are worth a formatted check, but the corruption test hook must reach it.
      if ((computed.*field)[i] != (expected.*field)[i] || corrupt_answers_for_test()) {
        expect_close("nbody: body " + std::to_string(i), (computed.*field)[i], (expected.*field)[i], 1e-12);
      }
    }
  }
}

void accelerate(galaxy& s, std::size_t i) noexcept {
  constexpr double softening_squared = 1e-4;
  double ax = 0;
  double ay = 0;
  double az = 0;
  const std::size_t n = s.size();
  for (std::size_t j = 0; j < n; ++j) {
    const double dx = s.x[j] - s.x[i];
    const double dy = s.y[j] - s.y[i];
    const double dz = s.z[j] - s.z[i];
    const double distance_squared = dx * dx + dy * dy + dz * dz + softening_squared;
    const double inverse = 1.0 / std::sqrt(distance_squared);
    const double strength = s.mass[j] * inverse * inverse * inverse;
    ax += strength * dx;
    ay += strength * dy;
    az += strength * dz;
  }
  s.ax[i] = ax;
  s.ay[i] = ay;
  s.az[i] = az;
}

void move(galaxy& s, std::size_t i) noexcept {
  constexpr double dt = 1e-3;
  s.vx[i] += s.ax[i] * dt;
  s.vy[i] += s.ay[i] * dt;
  s.vz[i] += s.az[i] * dt;
  s.x[i] += s.vx[i] * dt;
  s.y[i] += s.vy[i] * dt;
  s.z[i] += s.vz[i] * dt;
}

}  // namespace fjb::nbody
