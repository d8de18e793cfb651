"""Triton layer-norm backward of the real-code corpus (compiled by generate.py, never run).

The partial weight-gradient reduction of Triton's layer-norm tutorial, written for the corpus:
GROUP rows share one partial-sum buffer in global memory, guarded by a spin lock
(`atomic_cas` until acquired, accumulate with plain loads and stores, `atomic_xchg` to
release), the cross-program hand-off that the ordering checks look at.
"""
import triton
import triton.language as tl


@triton.jit
def layer_norm_bwd_dx_fused(dx_ptr, dy_ptr, dw_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr, lock_ptr,
                            stride, N, GROUP: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(dy_ptr + row * stride + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    wdy = tl.where(mask, w * dy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(dx_ptr + row * stride + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    group = row % GROUP
    lock = lock_ptr + group
    count = lock_ptr + GROUP + group
    dw_ptrs = dw_ptr + group * N + cols
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    first = tl.load(count) == 0
    if first:
        tl.atomic_xchg(count, 1)
    else:
        partial_dw += tl.load(dw_ptrs, mask=mask)
    tl.store(dw_ptrs, partial_dw, mask=mask)
    tl.atomic_xchg(lock, 0)
