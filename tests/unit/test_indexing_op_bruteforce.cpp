// Brute-force checks of per-op and fusion maps against a direct evaluation
// of the op semantics (placeholder; filled in by the op brute-force suite).
#include <catch2/catch.hpp>
