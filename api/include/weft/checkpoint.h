/* Weft C ABI: distributed checkpoints (docs/checkpoint.md).
 *
 * A checkpoint is a directory: one safetensors file per writing rank and index.json, which
 * lists per tensor its dtype, global shape, the layout it was saved in, and its boxes (global
 * offset and shape) with the file, byte offset and crc32c of each. A save writes each block
 * once (one holder of replicated data, holders taking turns), reducing Partial placements
 * first. A load reads, on each rank, only the byte ranges that meet its destination block, in
 * any layout on any mesh and world size.
 *
 * Save and load are collective over the world of `ctx`: every rank calls them with the same
 * path, the same names in the same order, and layouts with equal meshes, shapes and dtypes
 * per tensor. Errors are agreed: when any rank fails (a bad argument, a missing or mismatched
 * tensor, a short or corrupt file), every rank returns an error and the message of the first
 * failing rank, which names the tensor, the file and the box. The file system at `path` must be
 * shared by all ranks (one node, or a network file system). */
#ifndef WEFT_CHECKPOINT_H_
#define WEFT_CHECKPOINT_H_

#include "weft/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weft_checkpoint weft_checkpoint_t; /* an opened checkpoint's index */

/* overwrite: 0 fails with WEFT_ERR_INVALID_USAGE when `path` exists; 1 replaces it atomically
 * (the old checkpoint stays whole under `path` until the new one takes its place).
 * timeout_ms: deadline of each collective step, as in weft_call_options_t (0: the context's
 * default, negative: none).
 * stream: for tensors in CUDA device memory, the cudaStream_t their blocks are read on, after
 * the work the caller enqueued there before the call (NULL: the legacy default stream). The
 * call waits for those reads: when it returns the buffers may be reused. A caller built against
 * a header without this field passes a 16-byte struct, which means NULL. */
typedef struct weft_checkpoint_save_options {
  uint32_t struct_size;
  int32_t overwrite;
  int64_t timeout_ms;
  void* stream;
} weft_checkpoint_save_options_t;

#define WEFT_CHECKPOINT_SAVE_OPTIONS_INIT \
  { sizeof(weft_checkpoint_save_options_t), 0, 0, NULL }

/* verify: 0 checks the crc32c of every box read whole (a box read in part is not checked: its
 * checksum covers bytes this rank does not read); 1 also reads in full every box read in part,
 * to check it. timeout_ms as for saves.
 * stream: for destinations in CUDA device memory, the cudaStream_t their blocks are written on
 * (NULL: the legacy default stream); the call returns once those writes are done. A 16-byte
 * struct means NULL, as for saves. */
typedef struct weft_checkpoint_load_options {
  uint32_t struct_size;
  int32_t verify;
  int64_t timeout_ms;
  void* stream;
} weft_checkpoint_load_options_t;

#define WEFT_CHECKPOINT_LOAD_OPTIONS_INIT \
  { sizeof(weft_checkpoint_load_options_t), 0, 0, NULL }

/* One tensor of a checkpoint: its dtype, global shape and the layout it was saved in (mesh
 * shape and placements: WEFT_REPLICATE or WEFT_SHARD; Partial was reduced when saved), the
 * number of its boxes and their bytes. */
typedef struct weft_checkpoint_tensor_info {
  uint32_t struct_size;
  int32_t ndim;
  DLDataType dtype;
  int32_t mesh_ndim;
  int64_t num_boxes;
  int64_t nbytes;
  int64_t shape[WEFT_MAX_TENSOR_NDIM];
  int64_t mesh_shape[WEFT_MAX_MESH_NDIM];
  weft_placement_t placements[WEFT_MAX_MESH_NDIM];
} weft_checkpoint_tensor_info_t;

#define WEFT_CHECKPOINT_TENSOR_INFO_INIT                                      \
  {                                                                           \
    sizeof(weft_checkpoint_tensor_info_t), 0, {0, 0, 0}, 0, 0, 0, {0}, {0}, { \
      { 0, 0, 0, 0 }                                                          \
    }                                                                         \
  }

/* Saves n tensors (n >= 0) to directory `path` (collective, see above). names[i] is a non-empty
 * UTF-8 name, unique in the call; layouts[i] is tensor i's layout on a mesh of ctx; tensors[i]
 * is this rank's local block of it (as for weft_plan_execute: the local shape, the layout's
 * dtype, host memory; NULL on a rank whose block is empty). The save writes into a temporary
 * directory next to `path`, fsyncs every file and the directories, then rank 0 renames it to
 * `path` once every rank is done: a crash at any moment leaves `path` as it was.
 * opts may be NULL (defaults).
 * work: NULL blocks until the checkpoint is durable under `path` on every rank. Non-NULL makes
 * the save asynchronous: the call still agrees on the arguments, reduces Partial tensors and
 * copies this rank's blocks into staging memory (reused from one save to the next; the
 * tensors may be changed as soon as it returns), gathers the checksums, and returns; a
 * background thread then writes and fsyncs the files and rank 0 publishes the directory.
 * *work (weft/work.h) completes when the checkpoint is durable under `path` (or with the
 * error of the first rank that failed, or WEFT_ERR_TIMEOUT after opts->timeout_ms, 0 meaning
 * ten minutes). The background half never communicates (it meets the other ranks through the
 * temporary directory), so the caller's later collectives are not held up by the disk. Wait
 * for the work before exiting the process: an unfinished save is left unpublished.
 * Errors: WEFT_ERR_INVALID_ARGUMENT naming the argument; WEFT_ERR_INVALID_USAGE (path exists
 * without overwrite); WEFT_ERR_UNSUPPORTED (a dtype safetensors cannot hold);
 * WEFT_ERR_NOT_AVAILABLE (CUDA memory without the CUDA device operations); WEFT_ERR_SYSTEM naming
 * the file; the errors of the collectives. */
WEFT_API weft_status_t weft_checkpoint_save(weft_context_t* ctx, const char* path, int32_t n,
                                            const char* const* names,
                                            const weft_layout_t* const* layouts,
                                            const DLTensor* const* tensors,
                                            const weft_checkpoint_save_options_t* opts,
                                            weft_work_t** work);

/* Loads n tensors from the checkpoint at `path` (collective, see above). layouts[i] is the
 * destination layout of names[i] (any mesh of ctx, any placements and splits; Partial is not
 * allowed) with the saved dtype and global shape; tensors[i] receives this rank's block (may be
 * NULL when it is empty). Each rank reads only the bytes that meet its block.
 * Errors: WEFT_ERR_INVALID_ARGUMENT (a bad argument; a tensor missing from the checkpoint or
 * saved with another dtype or shape, naming it); WEFT_ERR_SYSTEM (a missing, short or corrupt
 * file, naming the tensor, the file and the box); the errors of the collectives. The
 * destination buffers' contents are unspecified after an error. */
WEFT_API weft_status_t weft_checkpoint_load(weft_context_t* ctx, const char* path, int32_t n,
                                            const char* const* names,
                                            const weft_layout_t* const* layouts,
                                            DLTensor* const* tensors,
                                            const weft_checkpoint_load_options_t* opts);

/* Reads the index of the checkpoint at `path` (local, no communication) for listing.
 * Errors: WEFT_ERR_SYSTEM (no index), WEFT_ERR_INVALID_ARGUMENT (a malformed index, saying
 * where), WEFT_ERR_VERSION_MISMATCH (a format this Weft does not read). */
WEFT_API weft_status_t weft_checkpoint_open(const char* path, weft_checkpoint_t** ckpt);
/* Releases the handle; NULL is accepted. */
WEFT_API weft_status_t weft_checkpoint_close(weft_checkpoint_t* ckpt);

WEFT_API weft_status_t weft_checkpoint_num_tensors(const weft_checkpoint_t* ckpt, int32_t* n);
/* *index = the position of tensor `name`, or WEFT_ERR_INVALID_ARGUMENT naming it. */
WEFT_API weft_status_t weft_checkpoint_find(const weft_checkpoint_t* ckpt, const char* name,
                                            int32_t* index);
/* The name of tensor `index`, NUL-terminated into buf when it fits; *needed is always set to
 * the bytes it takes with the NUL (buf NULL and len 0 ask for the size only). */
WEFT_API weft_status_t weft_checkpoint_tensor_name(const weft_checkpoint_t* ckpt, int32_t index,
                                                   char* buf, size_t len, size_t* needed);
/* info->struct_size must be set (WEFT_CHECKPOINT_TENSOR_INFO_INIT). */
WEFT_API weft_status_t weft_checkpoint_tensor_info(const weft_checkpoint_t* ckpt, int32_t index,
                                                   weft_checkpoint_tensor_info_t* info);
/* The sizes of the pieces tensor dim `dim` was saved in; *count is always set to their number
 * and sizes (len entries) is written only when len >= *count. */
WEFT_API weft_status_t weft_checkpoint_tensor_pieces(const weft_checkpoint_t* ckpt, int32_t index,
                                                     int32_t dim, int64_t* sizes, int64_t len,
                                                     int64_t* count);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_CHECKPOINT_H_ */
