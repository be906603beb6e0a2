"""print() in a kernel (numba lowers it to vprintf): each thread prints its index and value,
and the host prints the line each should give, as C's %lld and %f write them; the test
compares the two sets of lines."""

import numpy as np
from numba import cuda


@cuda.jit
def speak(x):
    i = cuda.grid(1)
    if i < x.size:
        print("device", i, x[i])


x = np.linspace(-1.0, 2.0, 40)
speak[2, 32](cuda.to_device(x))
cuda.synchronize()
for i, v in enumerate(x):
    print("host", i, "%f" % v, flush=True)
print("print: ok")
