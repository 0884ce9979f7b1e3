"""The C ABI of libaotune.so (dispatch/include/aotune/aotune_c.h) through ctypes: raw pointers and
sizes, each call's status turned into an exception that carries the library's message. No torch
here; aotune/__init__.py builds the tensor API on it."""
import ctypes
import ctypes.util
import os
import threading

# The C ABI version this binding was written for: the library's major and minor must equal these
# (before 1.0 a minor release may change the ABI; tests/test_python_package.py keeps them equal to
# aotune_c.h's).
VERSION = (0, 1, 0)

OK, INVALID_ARGUMENT, CUDA_ERROR, INTERNAL = 0, 1, 2, 3
DTYPE_F32, DTYPE_BF16, DTYPE_F16 = 0, 1, 2
INDEX_I32, INDEX_I64 = 0, 1


class AotuneError(RuntimeError):
    """A failed aotune call; `status` is the C ABI's code, the message the library's."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class InvalidArgumentError(AotuneError, ValueError):
    """Bad sizes, pointers or codes (AOTUNE_ERROR_INVALID_ARGUMENT): fix the call."""


class CudaError(AotuneError):
    """A CUDA call failed (AOTUNE_ERROR_CUDA): no GPU, out of memory, a fault."""


class LibraryNotFoundError(ImportError):
    """libaotune.so could not be loaded, or is a version this binding cannot use."""


def _candidates():
    env = os.environ.get("AOTUNE_LIBRARY")
    if env:
        return [env], "AOTUNE_LIBRARY=" + env
    names = []
    found = ctypes.util.find_library("aotune")  # the loader cache (ldconfig folders)
    if found:
        names.append(found)
    # The soname through the loader's own search (LD_LIBRARY_PATH, the caller's run path).
    names.append("libaotune.so.%d.%d" % VERSION[:2])
    return names, "the loader's search path (LD_LIBRARY_PATH, ldconfig) for " + ", ".join(names)


class Library:
    """libaotune.so with its functions typed. `path` overrides the search."""

    def __init__(self, path=None):
        names, where = ([path], path) if path else _candidates()
        errors = []
        self._lib = None
        for name in names:
            try:
                self._lib = ctypes.CDLL(name)
                self.path = name
                break
            except OSError as e:
                errors.append(str(e))
        if self._lib is None:
            raise LibraryNotFoundError(
                "aotune: cannot load libaotune.so from %s (%s). Build it (scripts/setup.sh) and set "
                "AOTUNE_LIBRARY to its path, or install it (cmake --install) where the loader finds it."
                % (where, "; ".join(errors)))
        lib = self._lib
        if not hasattr(lib, "aotune_version"):
            raise LibraryNotFoundError("aotune: %s has no aotune_version(): it predates version %d.%d"
                                       % (self.path, VERSION[0], VERSION[1]))
        lib.aotune_version.restype = ctypes.c_int32
        lib.aotune_version.argtypes = []
        v = lib.aotune_version()
        self.version = (v // 10000, v // 100 % 100, v % 100)
        if self.version[:2] != VERSION[:2]:
            raise LibraryNotFoundError(
                "aotune: %s is version %d.%d.%d; this binding needs %d.%d.x (the ABI may change "
                "between minor versions before 1.0)" % ((self.path,) + self.version + VERSION[:2]))
        p, i64, i32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32
        signatures = {
            "aotune_jagged_sum": [p, p, p, i64, i64, i64, i64, i32, i32, p],
            "aotune_jagged_mean": [p, p, p, p, i64, i64, i64, i64, i32, i32, p],
            "aotune_jagged_dense_add": [p, p, p, p, i64, i64, i64, i64, i32, i32, p],
            "aotune_causal_trailing_mean": [p, p, i64, i64, i64, i64, i32, p],
            "aotune_reload_heuristics": [],
            "aotune_release_workspaces": [],
        }
        for name, argtypes in signatures.items():
            f = getattr(lib, name)
            f.argtypes = argtypes
            f.restype = ctypes.c_int32
        lib.aotune_last_error.argtypes = []
        lib.aotune_last_error.restype = ctypes.c_char_p
        lib.aotune_status_string.argtypes = [ctypes.c_int32]
        lib.aotune_status_string.restype = ctypes.c_char_p

    def _check(self, status):
        if status == OK:
            return
        # The message is thread-local in the library and valid until this thread's next call.
        message = self._lib.aotune_last_error().decode(errors="replace")
        kind = {INVALID_ARGUMENT: InvalidArgumentError, CUDA_ERROR: CudaError}.get(status, AotuneError)
        raise kind(status, "aotune: " + message)

    # The C ABI, one method per function: pointers as ints (0 for NULL), sizes as ints, the stream
    # as an int handle (0: the default stream). Each raises on a failed status.
    def jagged_sum(self, values, offsets, out, B, M, nnz, max_len, dtype, index_type, stream=0):
        self._check(self._lib.aotune_jagged_sum(values, offsets, out, B, M, nnz, max_len, dtype,
                                                index_type, stream))

    def jagged_mean(self, values, offsets, feature_counts, out, B, M, nnz, max_len, dtype, index_type,
                    stream=0):
        self._check(self._lib.aotune_jagged_mean(values, offsets, feature_counts, out, B, M, nnz,
                                                 max_len, dtype, index_type, stream))

    def jagged_dense_add(self, x, offsets, y, out, B, N, nnz, max_len, dtype, index_type, stream=0):
        self._check(self._lib.aotune_jagged_dense_add(x, offsets, y, out, B, N, nnz, max_len, dtype,
                                                      index_type, stream))

    def causal_trailing_mean(self, x, out, B, D, T, cf, dtype, stream=0):
        self._check(self._lib.aotune_causal_trailing_mean(x, out, B, D, T, cf, dtype, stream))

    def reload_heuristics(self):
        self._check(self._lib.aotune_reload_heuristics())

    def release_workspaces(self):
        self._check(self._lib.aotune_release_workspaces())

    def status_string(self, status):
        return self._lib.aotune_status_string(status).decode()


_loaded = None
_lock = threading.Lock()


def library():
    """The process's Library, loaded on first use (so importing aotune never fails for want of it)."""
    global _loaded
    if _loaded is not None:  # every call after the first: no lock on the call path
        return _loaded
    with _lock:
        if _loaded is None:
            _loaded = Library()
        return _loaded
