/* The floor under Loom's codegen latency (bench/codegen_latency.lua): CPU time of isl's AST generator alone
 * building the loops of one schedule, the call Loom makes for every kernel. Prints milliseconds per build,
 * the median of ROUNDS rounds of REPEAT builds each.
 *   usage: isl_ast_floor SCHEDULE_MAP CONTEXT_SET [REPEAT [ROUNDS]] */
#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/ctx.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int by_value(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: isl_ast_floor SCHEDULE_MAP CONTEXT_SET [REPEAT [ROUNDS]]\n");
        return 2;
    }
    const int repeat = argc > 3 ? atoi(argv[3]) : 200, rounds = argc > 4 ? atoi(argv[4]) : 9;
    if (repeat < 1 || rounds < 1 || rounds > 99) return 2;
    isl_ctx* ctx = isl_ctx_alloc();
    isl_union_map* schedule = isl_union_map_read_from_str(ctx, argv[1]);
    isl_set* context = isl_set_read_from_str(ctx, argv[2]);
    if (!schedule || !context) {
        fprintf(stderr, "isl_ast_floor: isl could not read the schedule or the context\n");
        return 2;
    }
    double ms[99];
    for (int r = 0; r < rounds; ++r) {
        const clock_t start = clock();
        for (int i = 0; i < repeat; ++i) {
            isl_ast_build* build = isl_ast_build_from_context(isl_set_copy(context));
            isl_ast_node_free(isl_ast_build_node_from_schedule_map(build, isl_union_map_copy(schedule)));
            isl_ast_build_free(build);
        }
        ms[r] = (double)(clock() - start) / CLOCKS_PER_SEC * 1e3 / repeat;
    }
    qsort(ms, (size_t)rounds, sizeof ms[0], by_value);
    printf("%.4f\n", ms[rounds / 2]);
    isl_union_map_free(schedule);
    isl_set_free(context);
    isl_ctx_free(ctx);
    return 0;
}
