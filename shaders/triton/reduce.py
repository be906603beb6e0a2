"""Reductions: column sums of a matrix (a block of columns per program, a loop over rows),
and a whole-array sum, maximum and count of negatives combined across programs with atomics."""

import triton
import triton.language as tl


@triton.jit
def column_sums(x_ptr, out_ptr, n_rows, n_cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    acc = tl.zeros((BLOCK_R, BLOCK_C), dtype=tl.float32)
    for r in range(0, n_rows, BLOCK_R):
        rows = r + tl.arange(0, BLOCK_R)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        acc += tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + cols, tl.sum(acc, axis=0), mask=cols < n_cols)


@triton.jit
def global_stats(x_ptr, sum_ptr, max_ptr, neg_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(sum_ptr, tl.sum(x, axis=0))
    tl.atomic_max(max_ptr, tl.max(tl.where(mask, x, -2147483648), axis=0))
    tl.atomic_add(neg_ptr, tl.sum((x < 0).to(tl.int32), axis=0))
