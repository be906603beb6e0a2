"""Work queued on a stream (asynchronous copies, a kernel) bracketed by events: the result
matches numpy and the events report a positive elapsed time."""

import sys

import numpy as np
from numba import cuda


@cuda.jit
def scale(x, k):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = x[i] * k + 1.0


n = 1 << 18
x = np.random.default_rng(5).random(n).astype(np.float32)
stream = cuda.stream()
start, end = cuda.event(timing=True), cuda.event(timing=True)
host_in = cuda.pinned_array(n, dtype=np.float32)
host_in[:] = x
start.record(stream)
d_x = cuda.to_device(host_in, stream=stream)
for _ in range(10):
    scale[(n + 255) // 256, 256, stream](d_x, np.float32(0.5))
host_out = cuda.pinned_array(n, dtype=np.float32)
d_x.copy_to_host(host_out, stream=stream)
end.record(stream)
end.synchronize()
stream.synchronize()

want = x.copy()
for _ in range(10):
    want = want * np.float32(0.5) + np.float32(1.0)
if not np.allclose(host_out, want, rtol=1e-6, atol=0):
    sys.exit(f"stream result: max error {np.abs(host_out - want).max()}")
ms = cuda.event_elapsed_time(start, end)
if not ms > 0:
    sys.exit(f"elapsed time {ms} ms is not positive")
if not end.query():
    sys.exit("the end event is not complete after synchronize")
print(f"stream_events: ok ({ms:.3f} ms)")
