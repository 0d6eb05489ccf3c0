#include "fib.hpp"

namespace fjb::fib {
namespace {

std::string parameters(scale /*s*/, std::int64_t n) { return "n=" + std::to_string(n); }

const workload_registrar registrar{
    {"fib", "libfork Table I", "recursive Fibonacci, no cutoff", 10, problem_size, parameters, every_scale}};

}  // namespace
}  // namespace fjb::fib
