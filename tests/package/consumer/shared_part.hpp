#pragma once
// Implemented in a shared object that links forkjoin (shared_part.cpp).

long sum_in_shared_object(long n);
