#ifndef DEVCHECK_LINT_ALLOC_H_
#define DEVCHECK_LINT_ALLOC_H_
/* The allocation functions the tree-sitter runtime and grammar devcheck
   compiles call (alloc.cc): the build defines ts_malloc, ts_calloc,
   ts_realloc and ts_free as these, and includes this header first in their
   units. Thread-safe; a block is freed by the thread that allocated it. */
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void* devcheck_ts_malloc(size_t size);
void* devcheck_ts_calloc(size_t count, size_t size);
void* devcheck_ts_realloc(void* block, size_t size);
void devcheck_ts_free(void* block);

#ifdef __cplusplus
}
#endif

#endif /* DEVCHECK_LINT_ALLOC_H_ */
