/* aotune C ABI: the dispatch library for FFI (Python ctypes/cffi, Rust, ...). Plain pointers and
 * 64-bit sizes, dtype and index-type codes, the CUDA stream as void* (NULL: the default stream).
 * Every function returns a status; on failure aotune_last_error() holds a message naming the
 * problem and the value, valid until this thread's next aotune call. Arguments are validated on
 * the host before any CUDA call, so a bad call fails the same way with or without a GPU.
 * From Python with torch tensors, take the stream with torch._C._cuda_getCurrentRawStream(device)
 * (0.11 us a call on the H200 host) rather than torch.cuda.current_stream().cuda_stream (3.9 us:
 * it builds a Stream object), as Triton's launcher does; bench/peers.py's Aotune class is a
 * working ctypes binding. */
#ifndef AOTUNE_C_H
#define AOTUNE_C_H

#include <stdint.h>

/* The version of this header; CMakeLists.txt reads the project's version from these three lines.
 * Before 1.0 a minor release may change the ABI: the soname is libaotune.so.MAJOR.MINOR. */
#define AOTUNE_VERSION_MAJOR 0
#define AOTUNE_VERSION_MINOR 1
#define AOTUNE_VERSION_PATCH 0
#define AOTUNE_VERSION \
  (AOTUNE_VERSION_MAJOR * 10000 + AOTUNE_VERSION_MINOR * 100 + AOTUNE_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t aotune_status;
enum {
  AOTUNE_OK = 0,
  AOTUNE_ERROR_INVALID_ARGUMENT = 1, /* bad sizes, pointers or codes: fix the call */
  AOTUNE_ERROR_CUDA = 2,             /* a CUDA call failed (no GPU, out of memory, a fault) */
  AOTUNE_ERROR_INTERNAL = 3          /* a bug in aotune: please report it */
};

typedef int32_t aotune_dtype;
enum { AOTUNE_DTYPE_F32 = 0, AOTUNE_DTYPE_BF16 = 1, AOTUNE_DTYPE_F16 = 2 };

typedef int32_t aotune_index_type;
enum { AOTUNE_INDEX_I32 = 0, AOTUNE_INDEX_I64 = 1 };

/* out[b, :] = sum of values[offsets[b] .. offsets[b+1]); values [nnz, M], out [B, M].
 * max_len: the longest row (at least nnz / B rounded up, at most nnz), or -1 when unknown. */
aotune_status aotune_jagged_sum(const void* values, const void* offsets, void* out, int64_t B,
                                int64_t M, int64_t nnz, int64_t max_len, aotune_dtype dtype,
                                aotune_index_type index_type, void* stream);

/* Per-row means over each row's first feature_counts[b] columns (NULL: all M, and jagged_sum's
   heuristic picks the config, as the work is jagged_sum's); 0 elsewhere. */
aotune_status aotune_jagged_mean(const void* values, const void* offsets,
                                 const void* feature_counts, void* out, int64_t B, int64_t M,
                                 int64_t nnz, int64_t max_len, aotune_dtype dtype,
                                 aotune_index_type index_type, void* stream);

/* out[b, n] = y[b, n] + x[offsets[b] + n] within row b's length, y[b, n] beyond; y, out [B, N]. */
aotune_status aotune_jagged_dense_add(const void* x, const void* offsets, const void* y, void* out,
                                      int64_t B, int64_t N, int64_t nnz, int64_t max_len,
                                      aotune_dtype dtype, aotune_index_type index_type,
                                      void* stream);

/* out[b, d, t] = mean of x[b, d, max(0, t-cf+1) .. t]; x, out [B, D, T], cf >= 1. */
aotune_status aotune_causal_trailing_mean(const void* x, void* out, int64_t B, int64_t D, int64_t T,
                                          int64_t cf, aotune_dtype dtype, void* stream);

/* The message of this thread's last failed call; "" after a successful one. Never NULL. */
const char* aotune_last_error(void);

/* "ok", "invalid argument", "CUDA error", "internal error" or "unknown status". */
const char* aotune_status_string(aotune_status status);

/* Re-reads the heuristics in $AOTUNE_HEURISTIC_DIR over the compiled ones. */
aotune_status aotune_reload_heuristics(void);

/* Frees the scratch the library keeps for jagged_sum and jagged_mean calls: one buffer per device
 * and stream, as large as the largest call that needed one (B x M floats and a counter per row or
 * tile, for the configs that split rows across blocks). cudaFree waits for the device's queued
 * work. A later call that needs scratch allocates it again. Safe while other threads make calls:
 * it waits for those between choosing their scratch and enqueuing their launch. This also frees
 * the scratch of calls captured into CUDA graphs (each has its own): destroy those graphs first. */
aotune_status aotune_release_workspaces(void);

/* The loaded library's AOTUNE_VERSION. A caller that loads it at run time (ctypes, dlopen) compares
 * this with the version it was written for: the same major and minor keep the ABI. */
int32_t aotune_version(void);

#ifdef __cplusplus
}
#endif

#endif /* AOTUNE_C_H */
