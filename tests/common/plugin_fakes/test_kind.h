/* A plugin kind that exists only in tests (tests/common/plugin_loader_test.cpp): a second ABI,
 * unlike the backend one in its entry symbol, file names, major version, fields and adapters,
 * so that loading it through common/plugin_loader.hpp proves the loader generic.
 *
 *   2.0  answer (mandatory)
 *   2.1  twice          absent: the host's default
 *   2.2  motto, flags   absent: "none given", 0
 */
#ifndef WEFT_TESTS_TEST_KIND_H_
#define WEFT_TESTS_TEST_KIND_H_

#include <stddef.h>
#include <stdint.h>

#define WEFT_TESTKIND_MAJOR 2
#define WEFT_TESTKIND_MINOR 2
#define WEFT_TESTKIND_VERSION ((WEFT_TESTKIND_MAJOR << 16) | WEFT_TESTKIND_MINOR)

typedef struct weft_testkind_plugin {
  uint32_t struct_size;
  uint32_t abi_version;
  const char* name;
  int32_t (*answer)(void);
  int32_t (*twice)(int32_t x); /* 2.1 */
  const char* motto;           /* 2.2 */
  uint64_t flags;              /* 2.2 */
} weft_testkind_plugin_t;

#define WEFT_TESTKIND_V2_0_SIZE offsetof(weft_testkind_plugin_t, twice)
#define WEFT_TESTKIND_V2_1_SIZE offsetof(weft_testkind_plugin_t, motto)

#endif /* WEFT_TESTS_TEST_KIND_H_ */
