// The C ABI: each function converts codes, calls the C++ API and turns exceptions into a status
// plus a thread-local message. No exception crosses the boundary.
#include <cuda_runtime_api.h>

#include <new>
#include <string>

#include "aotune/aotune_c.h"
#include "aotune/causal_trailing_mean.h"
#include "aotune/heuristic_store.h"
#include "aotune/jagged_dense_add.h"
#include "aotune/jagged_mean.h"
#include "aotune/jagged_sum.h"
#include "aotune/workspace.h"

namespace {

std::string& last_error() {
  thread_local std::string message;
  return message;
}

template <typename Call>
aotune_status guarded(Call&& call) noexcept {
  try {
    call();
    last_error().clear();
    return AOTUNE_OK;
  } catch (const aotune::InvalidArgument& e) {
    last_error() = e.what();
    return AOTUNE_ERROR_INVALID_ARGUMENT;
  } catch (const aotune::CudaError& e) {
    last_error() = e.what();
    return AOTUNE_ERROR_CUDA;
  } catch (const std::bad_alloc&) {
    last_error() = "out of host memory";
    return AOTUNE_ERROR_INTERNAL;
  } catch (const std::exception& e) {
    last_error() = std::string("internal error: ") + e.what();
    return AOTUNE_ERROR_INTERNAL;
  } catch (...) {
    last_error() = "internal error: unknown exception";
    return AOTUNE_ERROR_INTERNAL;
  }
}

aotune::DType to_dtype(aotune_dtype code) {
  switch (code) {
    case AOTUNE_DTYPE_F32:
      return aotune::DType::f32;
    case AOTUNE_DTYPE_BF16:
      return aotune::DType::bf16;
    case AOTUNE_DTYPE_F16:
      return aotune::DType::f16;
  }
  throw aotune::InvalidArgument(
      "dtype code " + std::to_string(code) +
      " is not AOTUNE_DTYPE_F32 (0), AOTUNE_DTYPE_BF16 (1) or AOTUNE_DTYPE_F16 (2)");
}

aotune::IndexType to_index_type(aotune_index_type code) {
  switch (code) {
    case AOTUNE_INDEX_I32:
      return aotune::IndexType::i32;
    case AOTUNE_INDEX_I64:
      return aotune::IndexType::i64;
  }
  throw aotune::InvalidArgument("index type code " + std::to_string(code) +
                                " is not AOTUNE_INDEX_I32 (0) or AOTUNE_INDEX_I64 (1)");
}

cudaStream_t to_stream(void* stream) { return static_cast<cudaStream_t>(stream); }

}  // namespace

extern "C" {

aotune_status aotune_jagged_sum(const void* values, const void* offsets, void* out, int64_t B,
                                int64_t M, int64_t nnz, int64_t max_len, aotune_dtype dtype,
                                aotune_index_type index_type, void* stream) {
  return guarded([&] {
    aotune::ops::jagged_sum(values, offsets, out, B, M, nnz, max_len, to_dtype(dtype),
                            to_index_type(index_type), to_stream(stream));
  });
}

aotune_status aotune_jagged_mean(const void* values, const void* offsets,
                                 const void* feature_counts, void* out, int64_t B, int64_t M,
                                 int64_t nnz, int64_t max_len, aotune_dtype dtype,
                                 aotune_index_type index_type, void* stream) {
  return guarded([&] {
    aotune::ops::jagged_mean(values, offsets, feature_counts, out, B, M, nnz, max_len,
                             to_dtype(dtype), to_index_type(index_type), to_stream(stream));
  });
}

aotune_status aotune_jagged_dense_add(const void* x, const void* offsets, const void* y, void* out,
                                      int64_t B, int64_t N, int64_t nnz, int64_t max_len,
                                      aotune_dtype dtype, aotune_index_type index_type,
                                      void* stream) {
  return guarded([&] {
    aotune::ops::jagged_dense_add(x, offsets, y, out, B, N, nnz, max_len, to_dtype(dtype),
                                  to_index_type(index_type), to_stream(stream));
  });
}

aotune_status aotune_causal_trailing_mean(const void* x, void* out, int64_t B, int64_t D, int64_t T,
                                          int64_t cf, aotune_dtype dtype, void* stream) {
  return guarded([&] {
    aotune::ops::causal_trailing_mean(x, out, B, D, T, cf, to_dtype(dtype), to_stream(stream));
  });
}

const char* aotune_last_error(void) { return last_error().c_str(); }

const char* aotune_status_string(aotune_status status) {
  switch (status) {
    case AOTUNE_OK:
      return "ok";
    case AOTUNE_ERROR_INVALID_ARGUMENT:
      return "invalid argument";
    case AOTUNE_ERROR_CUDA:
      return "CUDA error";
    case AOTUNE_ERROR_INTERNAL:
      return "internal error";
  }
  return "unknown status";
}

aotune_status aotune_reload_heuristics(void) {
  return guarded([] { aotune::dispatch::reload_heuristics(); });
}

aotune_status aotune_release_workspaces(void) {
  return guarded([] { aotune::dispatch::release_workspaces(); });
}

int32_t aotune_version(void) { return AOTUNE_VERSION; }

}  // extern "C"
