"""Row-wise softmax, one program per row, the row held in registers."""

import triton
import triton.language as tl


@triton.jit
def softmax(x_ptr, y_ptr, n_cols, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * row_stride + cols, mask=cols < n_cols, other=float("-inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    y = e / tl.sum(e, axis=0)
    tl.store(y_ptr + row * row_stride + cols, y, mask=cols < n_cols)
