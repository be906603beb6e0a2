"""Flash-attention forward for one head: O = softmax(Q K^T * scale) V, computed a block of keys
at a time with the running maximum and sum of the online softmax."""

import triton
import triton.language as tl


@triton.jit
def attention(q_ptr, k_ptr, v_ptr, o_ptr, n_ctx, scale,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    start_m = tl.program_id(0) * BLOCK_M
    rm = start_m + tl.arange(0, BLOCK_M)
    rd = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + rm[:, None] * HEAD_DIM + rd[None, :], mask=rm[:, None] < n_ctx, other=0.0)
    m_i = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    for start_n in range(0, n_ctx, BLOCK_N):
        rn = start_n + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + rn[None, :] * HEAD_DIM + rd[:, None], mask=rn[None, :] < n_ctx, other=0.0)
        s = tl.dot(q, k) * scale
        s = tl.where(rn[None, :] < n_ctx, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + rn[:, None] * HEAD_DIM + rd[None, :], mask=rn[:, None] < n_ctx, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + rm[:, None] * HEAD_DIM + rd[None, :], out.to(o_ptr.dtype.element_ty),
             mask=rm[:, None] < n_ctx)
