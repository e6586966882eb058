/* Tiny unit-test helpers for the C core: CHECK keeps going and counts
 * failures; each test binary ends with TEST_SUMMARY(), which prints the
 * plain "N passed, N failed" line and returns non-zero on any failure. */
#ifndef JBOF_TESTING_H
#define JBOF_TESTING_H
#include <stdio.h>
#include <stdlib.h>

static int t_pass, t_fail;

#define CHECK(cond)                                                         \
    do {                                                                    \
        if (cond) {                                                         \
            t_pass++;                                                       \
        } else {                                                            \
            t_fail++;                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                   \
    } while (0)

#define CHECK_EQ(a, b)                                                      \
    do {                                                                    \
        long long _a = (long long)(a), _b = (long long)(b);                 \
        if (_a == _b) {                                                     \
            t_pass++;                                                       \
        } else {                                                            \
            t_fail++;                                                       \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, %s == %lld\n", \
                    __FILE__, __LINE__, #a, _a, #b, _b);                    \
        }                                                                   \
    } while (0)

#define TEST_SUMMARY()                                                      \
    do {                                                                    \
        printf("%s: %d passed, %d failed\n", __FILE__, t_pass, t_fail);     \
        return t_fail ? 1 : 0;                                              \
    } while (0)

#endif
