// A file of one layer, compiled with exactly that layer's include flags by the tests of
// tests/layers/CMakeLists.txt: AOPT_PROBE_ALLOWED names a header the layer may include (so the
// flags are right), AOPT_PROBE_FORBIDDEN one of a layer above it, which must not be found.
#include AOPT_PROBE_ALLOWED
#include AOPT_PROBE_FORBIDDEN
