// Entry point of the multi-process halo suite, run under weftrun: every rank runs every case
// in the same order on one context. Cases pick their meshes from the world size, so every
// case runs in every launch.
#include "tests/support/world.hpp"

int main(int argc, char** argv) { return weft_test::RunWorldTests(argc, argv); }
