#include "fib.hpp"

namespace fjb::fib {
namespace {

std::string parameters(scale s) { return "n=" + std::to_string(argument(s)); }

const workload_registrar registrar{
    {"fib", "libfork Table I", "recursive Fibonacci, no cutoff", 10, parameters, every_scale}};

}  // namespace
}  // namespace fjb::fib
