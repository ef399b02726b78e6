// A module built without weft_plugin(): it exports its entry and one symbol more, which the
// export check (cmake/CheckPluginExports.cmake) must report.
extern "C" __attribute__((visibility("default"))) int weft_leaky_entry(void) { return 1; }
extern "C" __attribute__((visibility("default"))) int weft_leaky_extra(void) { return 2; }
