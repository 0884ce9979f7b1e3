"""torch.ops.aotune.*: the four kernels as torch custom ops (torch >= 2.4), so torch.compile traces
them (fullgraph too) instead of breaking the graph at a ctypes call. Each op's real implementation
is the matching aotune.* function; its fake one gives the output's shape and dtype, which never
depend on the data. Imported by aotune/__init__.py where torch is importable."""
from typing import Optional

import torch

import aotune

if not hasattr(torch.library, "custom_op"):
    raise ImportError("torch %s has no torch.library.custom_op (2.4 or newer)" % torch.__version__)


@torch.library.custom_op("aotune::jagged_sum", mutates_args=())
def jagged_sum(values: torch.Tensor, offsets: torch.Tensor, max_len: Optional[int] = None) -> torch.Tensor:
    return aotune.jagged_sum(values, offsets, max_len)


@jagged_sum.register_fake
def _(values, offsets, max_len=None):
    return values.new_empty((offsets.shape[0] - 1, values.shape[1]))


@torch.library.custom_op("aotune::jagged_mean", mutates_args=())
def jagged_mean(values: torch.Tensor, offsets: torch.Tensor, feature_counts: Optional[torch.Tensor] = None,
                max_len: Optional[int] = None) -> torch.Tensor:
    return aotune.jagged_mean(values, offsets, feature_counts, max_len)


@jagged_mean.register_fake
def _(values, offsets, feature_counts=None, max_len=None):
    return values.new_empty((offsets.shape[0] - 1, values.shape[1]))


@torch.library.custom_op("aotune::jagged_dense_add", mutates_args=())
def jagged_dense_add(x: torch.Tensor, offsets: torch.Tensor, y: torch.Tensor,
                     max_len: Optional[int] = None) -> torch.Tensor:
    return aotune.jagged_dense_add(x, offsets, y, max_len)


@jagged_dense_add.register_fake
def _(x, offsets, y, max_len=None):
    return torch.empty_like(y)


@torch.library.custom_op("aotune::causal_trailing_mean", mutates_args=())
def causal_trailing_mean(x: torch.Tensor, cf: int) -> torch.Tensor:
    return aotune.causal_trailing_mean(x, cf)


@causal_trailing_mean.register_fake
def _(x, cf):
    return torch.empty_like(x)
