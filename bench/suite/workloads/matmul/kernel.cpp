#include "matmul.hpp"

namespace fjb::matmul {

void multiply_add_leaf(block c, block a, block b, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    float* c_row = c.data + i * c.stride;
    for (std::size_t k = 0; k < n; ++k) {
      const float a_ik = a.data[i * a.stride + k];
      const float* b_row = b.data + k * b.stride;
      for (std::size_t j = 0; j < n; ++j) {
        c_row[j] += a_ik * b_row[j];
      }
    }
  }
}

}  // namespace fjb::matmul
