// Brute-force property tests: filled in by the next commit.
#include <catch2/catch.hpp>
