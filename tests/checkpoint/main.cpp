// Entry point of the multi-process checkpoint suite, run under weftrun: every rank runs every
// case in the same order on one context.
#include "tests/support/world.hpp"

int main(int argc, char** argv) { return weft_test::RunWorldTests(argc, argv); }
