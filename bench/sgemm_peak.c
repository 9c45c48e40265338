/* Single-threaded OpenBLAS sgemm throughput, the denominator of bench.py's
 * "fraction of peak". Links the same libopenblas the compiled executables use
 * (build/runtime/autodist-runtime-link.txt). Run with OPENBLAS_NUM_THREADS=1.
 *
 *   cc -O2 bench/sgemm_peak.c -I/usr/include/x86_64-linux-gnu/openblas-pthread -lopenblas -o sgemm_peak
 *   OPENBLAS_NUM_THREADS=1 ./sgemm_peak [n=1024] [seconds=2]
 *
 * Prints one JSON line: {"n": n, "gflops_best": .., "gflops_median": .., "reps": ..}
 * (C[n,n] = A[n,n] * B[n,n], 2*n^3 flops per call; best and median over calls
 * after one warm-up call). */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  double budget = argc > 2 ? atof(argv[2]) : 2.0;
  float *a = malloc(sizeof(float) * n * n), *b = malloc(sizeof(float) * n * n),
        *c = malloc(sizeof(float) * n * n);
  for (long i = 0; i < (long)n * n; ++i) {
    a[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
    b[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
    c[i] = 0;
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n,
              b, n, 0.0f, c, n); /* warm-up */
  double times[4096];
  int reps = 0;
  double start = now();
  while (reps < 4096 && (reps < 3 || now() - start < budget)) {
    double t0 = now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n,
                b, n, 0.0f, c, n);
    times[reps++] = now() - t0;
  }
  qsort(times, reps, sizeof(double), cmp);
  double flops = 2.0 * n * n * n;
  printf("{\"n\": %d, \"gflops_best\": %.3f, \"gflops_median\": %.3f, "
         "\"reps\": %d, \"checksum\": %.3f}\n",
         n, flops / times[0] * 1e-9, flops / times[reps / 2] * 1e-9, reps,
         (double)c[n + 1]);
  free(a);
  free(b);
  free(c);
  return 0;
}
