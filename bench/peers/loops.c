/* Hand-written loops, the peers of loom.recipes on the C executor (bench/recipes.lua compiles this with
 * gcc -O3 -march=native -fopenmp). Usage: loops OP SIZE REPS THREADS; prints the median seconds of one call.
 * The loops are what a careful C programmer writes in a few lines: parallel over rows or chunks, blocked
 * where blocking is the textbook answer (transpose), vectorizable inner loops. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long n;

static void triad(float* restrict a, const float* restrict b, const float* restrict c, float s) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

static void copy(float* restrict out, const float* restrict a) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) out[i] = a[i];
}

/* out = a^T for n x n, in 32 x 32 blocks. */
static void transpose(float* restrict out, const float* restrict a) {
    const long B = 32;
#pragma omp parallel for schedule(static)
    for (long ib = 0; ib < n; ib += B)
        for (long jb = 0; jb < n; jb += B)
            for (long i = ib; i < ib + B && i < n; ++i)
                for (long j = jb; j < jb + B && j < n; ++j) out[j * n + i] = a[i * n + j];
}

static void stencil5(float* restrict out, const float* restrict a) {
#pragma omp parallel for schedule(static)
    for (long i = 1; i < n - 1; ++i)
        for (long j = 1; j < n - 1; ++j)
            out[i * n + j] = a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1] - 4 * a[i * n + j];
}

/* A reduction gcc vectorizes only when told it may reassociate: the pragma says so. */
static float sum(const float* restrict a) {
    float s = 0;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
    for (long i = 0; i < n; ++i) s += a[i];
    return s;
}

/* n products of 8 x 8 matrices. */
static void batched_gemm(float* restrict c, const float* restrict a, const float* restrict b) {
#pragma omp parallel for schedule(static)
    for (long p = 0; p < n; ++p) {
        const float* ap = a + 64 * p;
        const float* bp = b + 64 * p;
        float* cp = c + 64 * p;
        for (int i = 0; i < 8; ++i) {
            float row[8] = {0};
            for (int k = 0; k < 8; ++k)
                for (int j = 0; j < 8; ++j) row[j] += ap[8 * i + k] * bp[8 * k + j];
            for (int j = 0; j < 8; ++j) cp[8 * i + j] = row[j];
        }
    }
}

static int by_value(const void* x, const void* y) {
    const double a = *(const double*)x, b = *(const double*)y;
    return (a > b) - (a < b);
}

int main(int argc, char** argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: loops OP SIZE REPS THREADS\n");
        return 2;
    }
    const char* op = argv[1];
    n = atol(argv[2]);
    const int reps = atoi(argv[3]);
    omp_set_num_threads(atoi(argv[4]));
    const int matrix = !strcmp(op, "transpose") || !strcmp(op, "stencil5");
    const long elems = matrix ? n * n : !strcmp(op, "batched_gemm") ? 64 * n : n;
    float* x = aligned_alloc(64, 4 * elems + 64);
    float* y = aligned_alloc(64, 4 * elems + 64);
    float* z = aligned_alloc(64, 4 * elems + 64);
    for (long i = 0; i < elems; ++i) x[i] = y[i] = z[i] = (float)(i % 7);
    double* t = malloc(sizeof(double) * reps);
    volatile float sink = 0;
    for (int r = -1; r < reps; ++r) { /* one warm-up */
        const double start = omp_get_wtime();
        if (!strcmp(op, "triad")) triad(x, y, z, 3.0f);
        else if (!strcmp(op, "copy")) copy(x, y);
        else if (!strcmp(op, "transpose")) transpose(x, y);
        else if (!strcmp(op, "stencil5")) stencil5(x, y);
        else if (!strcmp(op, "sum")) sink += sum(y);
        else if (!strcmp(op, "batched_gemm")) batched_gemm(x, y, z);
        else {
            fprintf(stderr, "unknown op %s\n", op);
            return 2;
        }
        if (r >= 0) t[r] = omp_get_wtime() - start;
    }
    qsort(t, reps, sizeof(double), by_value);
    printf("%.9f\n", t[reps / 2]);
    return 0;
}
