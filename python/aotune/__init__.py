"""aotune from Python: the tuned CUDA kernels of libaotune.so on torch tensors.

    import torch, aotune
    out = aotune.jagged_sum(values, offsets, max_len=512)      # values [nnz, M], offsets [B+1]
    out = aotune.jagged_mean(values, offsets, feature_counts)   # means over each row's first fc[b] columns
    out = aotune.jagged_dense_add(x, offsets, y)                # x [nnz], y [B, N]
    out = aotune.causal_trailing_mean(x, cf=100)                # x [B, D, T]

Each call validates its tensors (CUDA, one device, contiguous; float32, bfloat16 or float16 data,
int32 or int64 offsets), picks the config with the heuristic tuned for the GPU's architecture,
and enqueues on torch's current stream of the tensors' device. `out=` writes into a tensor of
yours. max_len is the longest row when known (a feature of the heuristic); None lets the library
assume equal rows. Errors raise InvalidArgumentError (a ValueError) or CudaError with the
library's message.

With torch >= 2.4 the same functions are registered as torch.ops.aotune.* (aotune/torch_ops.py),
which torch.compile(fullgraph=True) traces; in eager code call aotune.* directly, since torch's
dispatcher adds about 12 µs a call (docs/USAGE.md). Without torch, aotune.library() is the C ABI on raw pointers.

libaotune.so is found through $AOTUNE_LIBRARY, else the loader's search (an installed prefix in
ldconfig's folders, LD_LIBRARY_PATH).
"""
from ._lib import (VERSION, AotuneError, CudaError, InvalidArgumentError, Library,
                   LibraryNotFoundError, library)
from . import _lib

__version__ = "%d.%d.%d" % VERSION
__all__ = ["jagged_sum", "jagged_mean", "jagged_dense_add", "causal_trailing_mean",
           "release_workspaces", "library",
           "Library", "AotuneError", "InvalidArgumentError", "CudaError", "LibraryNotFoundError",
           "__version__"]


_torch_module = None


def _torch():
    global _torch_module
    if _torch_module is None:
        try:
            import torch
        except ImportError as e:
            raise ImportError("aotune's tensor functions need torch; without it, aotune.library() "
                              "calls the C ABI on raw pointers") from e
        _torch_module = torch
    return _torch_module


_DATA_NAMES = {"float32": _lib.DTYPE_F32, "bfloat16": _lib.DTYPE_BF16, "float16": _lib.DTYPE_F16}
_INDEX_NAMES = {"int32": _lib.INDEX_I32, "int64": _lib.INDEX_I64}
_codes = None  # {torch dtype: code} for data and for indices, built at the first call


def _dtype_codes():
    global _codes
    if _codes is None:
        torch = _torch()
        _codes = ({getattr(torch, n): c for n, c in _DATA_NAMES.items()},
                  {getattr(torch, n): c for n, c in _INDEX_NAMES.items()})
    return _codes


def _name(dtype):
    return str(dtype).replace("torch.", "")


def _invalid(message):
    return InvalidArgumentError(_lib.INVALID_ARGUMENT, "aotune: " + message)


# The checks run on every call, so they use the cheap attributes (is_cuda, get_device) and build
# messages only on failure: a call's whole Python side is a few microseconds next to kernels of 5.
def _check_tensor(t, name, dims, device=None):
    """Returns t's device index; `device` is the index the call's other tensors are on."""
    torch = _torch()
    if not isinstance(t, torch.Tensor):
        raise TypeError("aotune: %s must be a torch.Tensor, got %s" % (name, type(t).__name__))
    if not t.is_cuda:
        raise _invalid("%s is on %s; it must be a CUDA tensor" % (name, t.device))
    index = t.get_device()
    if device is not None and index != device:
        raise _invalid("%s is on cuda:%d, the other tensors on cuda:%d" % (name, index, device))
    if t.dim() != dims:
        raise _invalid("%s has %d dimensions %s; %d expected" % (name, t.dim(), tuple(t.shape), dims))
    if not t.is_contiguous():
        raise _invalid("%s (strides %s) must be contiguous: pass %s.contiguous()"
                       % (name, tuple(t.stride()), name))
    return index


def _data_code(t, name):
    code = _dtype_codes()[0].get(t.dtype)
    if code is None:
        raise _invalid("%s is %s; float32, bfloat16 or float16 expected" % (name, _name(t.dtype)))
    return code


def _index_code(t, name):
    code = _dtype_codes()[1].get(t.dtype)
    if code is None:
        raise _invalid("%s is %s; int32 or int64 expected" % (name, _name(t.dtype)))
    return code


def _same_dtype(t, name, like, like_name):
    if t.dtype != like.dtype:
        raise _invalid("%s is %s and %s is %s; they must match"
                       % (name, _name(t.dtype), like_name, _name(like.dtype)))


def _output(out, shape, like, device):
    if out is None:
        return like.new_empty(shape)
    _check_tensor(out, "out", len(shape), device)
    if out.shape != shape or out.dtype != like.dtype:
        raise _invalid("out is %s %s; %s %s expected"
                       % (_name(out.dtype), tuple(out.shape), _name(like.dtype), tuple(shape)))
    return out


def _int_arg(value, name, what="an int"):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("aotune: %s must be %s, got %r" % (name, what, value))
    return value


def _max_len(max_len):
    return -1 if max_len is None else _int_arg(max_len, "max_len", "an int or None")


try:  # torch's C fast path for the current stream (Triton's launcher uses it): 0.1 µs, not 4
    from torch._C import _cuda_getCurrentRawStream as _raw_stream
except ImportError:  # no torch, or a torch without it
    _raw_stream = None


def _launch(device, call):
    """Runs `call(stream)` with cuda:`device` current (the library launches on the current device)
    and torch's current stream of that device."""
    torch = _torch()
    stream = _raw_stream(device) if _raw_stream is not None else torch.cuda.current_stream(device).cuda_stream
    if device == torch.cuda.current_device():
        call(stream)
    else:
        with torch.cuda.device(device):
            call(stream)


def jagged_sum(values, offsets, max_len=None, out=None):
    """out[b, :] = sum of values[offsets[b]:offsets[b+1], :], accumulated in float32; [B, M]."""
    device = _check_tensor(values, "values", 2)
    _check_tensor(offsets, "offsets", 1, device)
    dtype, index = _data_code(values, "values"), _index_code(offsets, "offsets")
    longest = _max_len(max_len)
    nnz, M = values.shape
    B = offsets.shape[0] - 1
    out = _output(out, (max(B, 0), M), values, device)
    _launch(device, lambda s: library().jagged_sum(
        values.data_ptr(), offsets.data_ptr(), out.data_ptr(), B, M, nnz, longest, dtype, index,
        s))
    return out


def jagged_mean(values, offsets, feature_counts=None, max_len=None, out=None):
    """out[b, c] = mean of values[offsets[b]:offsets[b+1], c] for c < feature_counts[b] (every
    column when feature_counts is None), 0 elsewhere and on empty rows; [B, M]."""
    device = _check_tensor(values, "values", 2)
    _check_tensor(offsets, "offsets", 1, device)
    dtype, index = _data_code(values, "values"), _index_code(offsets, "offsets")
    longest = _max_len(max_len)
    fc_ptr = 0
    if feature_counts is not None:
        _check_tensor(feature_counts, "feature_counts", 1, device)
        _same_dtype(feature_counts, "feature_counts", offsets, "offsets")
        fc_ptr = feature_counts.data_ptr()
    nnz, M = values.shape
    B = offsets.shape[0] - 1
    out = _output(out, (max(B, 0), M), values, device)
    _launch(device, lambda s: library().jagged_mean(
        values.data_ptr(), offsets.data_ptr(), fc_ptr, out.data_ptr(), B, M, nnz, longest, dtype,
        index, s))
    return out


def jagged_dense_add(x, offsets, y, max_len=None, out=None):
    """out[b, n] = y[b, n] + x[offsets[b] + n] within row b's length, y[b, n] beyond; [B, N]."""
    device = _check_tensor(x, "x", 1)
    _check_tensor(offsets, "offsets", 1, device)
    _check_tensor(y, "y", 2, device)
    dtype, index = _data_code(x, "x"), _index_code(offsets, "offsets")
    longest = _max_len(max_len)
    _same_dtype(y, "y", x, "x")
    B, N = y.shape
    out = _output(out, y.shape, y, device)
    _launch(device, lambda s: library().jagged_dense_add(
        x.data_ptr(), offsets.data_ptr(), y.data_ptr(), out.data_ptr(), B, N, x.shape[0],
        longest, dtype, index, s))
    return out


def causal_trailing_mean(x, cf, out=None):
    """out[b, d, t] = mean of x[b, d, max(0, t-cf+1) : t+1]; x and out [B, D, T], cf >= 1."""
    device = _check_tensor(x, "x", 3)
    dtype = _data_code(x, "x")
    _int_arg(cf, "cf")
    B, D, T = x.shape
    out = _output(out, x.shape, x, device)
    _launch(device, lambda s: library().causal_trailing_mean(
        x.data_ptr(), out.data_ptr(), B, D, T, cf, dtype, s))
    return out


def release_workspaces():
    """Frees the scratch the library keeps for jagged_sum and jagged_mean (one buffer per device
    and stream, as large as the largest call that needed one; up to B x M floats). It waits for
    the device's queued work; a later call that needs scratch allocates it again. Safe while
    other threads make calls. It also frees the scratch of calls captured into CUDA graphs:
    destroy those graphs first."""
    library().release_workspaces()


try:
    from . import torch_ops  # noqa: F401  (registers torch.ops.aotune.* where torch has custom_op)
except ImportError:
    pass
