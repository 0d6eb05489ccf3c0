#include "sssp.hpp"

namespace fjb::sssp {
namespace {

std::string grid_parameters(scale /*s*/, std::int64_t n) {
  return std::to_string(n) + " x " + std::to_string(n) + " grid, " + std::to_string(n * n) +
         " vertices, weights 1.." + std::to_string(grid_max_weight) + ", delta " +
         std::to_string(delta_for(graph_kind::grid));
}

std::string rmat_parameters(scale /*s*/, std::int64_t n) {
  return "R-MAT 2^" + std::to_string(n) + " vertices, " + std::to_string(rmat_edge_factor) +
         " edges each, a=.57 b=.19 c=.19, weights 1.." + std::to_string(rmat_max_weight) + ", delta " +
         std::to_string(delta_for(graph_kind::rmat));
}

const workload_registrar grid{{"sssp-grid", "seed 001 (issue 24)", "shortest paths, road-like weighted grid",
                               120, grid_size, grid_parameters, every_scale}};
const workload_registrar rmat{{"sssp-rmat", "seed 001 (issue 24)",
                               "shortest paths, R-MAT (GAP Kronecker) graph", 121, rmat_size, rmat_parameters,
                               every_scale}};

}  // namespace
}  // namespace fjb::sssp
