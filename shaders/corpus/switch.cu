// Switch statements: dense (a jump table: brx.idx), sparse (comparisons), and a state machine in
// a loop.
#include "ptxvk_cuda.h"

extern "C" __global__ void switch_dense(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = in[i];
  int r;
  switch (x & 15) {
  case 0: r = x + 1; break;
  case 1: r = x * 3; break;
  case 2: r = x ^ 0x55; break;
  case 3: r = x >> 2; break;
  case 4: r = -x; break;
  case 5: r = x * x; break;
  case 6: r = x | 0x100; break;
  case 7: r = x - 1000; break;
  case 8: r = x << 3; break;
  case 9: r = ~x; break;
  case 10: r = x & 0xff0; break;
  case 11: r = x % 7; break;
  case 12: r = x / 5; break;
  case 13: r = 42; break;
  case 14: r = x + i; break;
  default: r = i; break;
  }
  out[i] = r;
}

extern "C" __global__ void switch_sparse(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int r;
  switch (in[i]) {
  case -100: r = 1; break;
  case 3: r = 2; break;
  case 77: r = 3; break;
  case 1000: r = 4; break;
  case 65536: r = 5; break;
  case 123456789: r = 6; break;
  default: r = 0; break;
  }
  out[i] = r;
}

// Counts the words (runs of letters) and numbers (runs of digits) in each line of `len` bytes.
extern "C" __global__ void switch_state_machine(const unsigned char *text, int len, int *words,
                                                int *numbers, int lines) {
  int line = blockIdx.x * blockDim.x + threadIdx.x;
  if (line >= lines) return;
  const unsigned char *p = text + (long)line * len;
  enum { SPACE, WORD, NUMBER } state = SPACE;
  int w = 0, num = 0;
  for (int j = 0; j < len; j++) {
    unsigned char c = p[j];
    int cls = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ? 1 : (c >= '0' && c <= '9') ? 2 : 0;
    switch (state) {
    case SPACE:
      if (cls == 1) { state = WORD; w++; }
      else if (cls == 2) { state = NUMBER; num++; }
      break;
    case WORD:
      if (cls == 0) state = SPACE;
      else if (cls == 2) { state = NUMBER; num++; }
      break;
    case NUMBER:
      if (cls == 0) state = SPACE;
      else if (cls == 1) { state = WORD; w++; }
      break;
    }
  }
  words[line] = w;
  numbers[line] = num;
}
