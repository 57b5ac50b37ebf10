/* Shared helpers for the fake NVIDIA libraries. Each fake reads its behaviour from an
 * environment variable on every call, so one build serves every test; FAKE_DEFAULT_MODE (a
 * compile-time string) is the behaviour when the variable is unset. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FAKE_DEFAULT_MODE
#define FAKE_DEFAULT_MODE "normal"
#endif

static const char *fake_mode(const char *var) {
    const char *mode = getenv(var);
    return mode && *mode ? mode : FAKE_DEFAULT_MODE;
}

static int fake_is(const char *var, const char *mode) { return strcmp(fake_mode(var), mode) == 0; }

static void fake_hang(void) {
    for (;;) sleep(1000);
}

/* A real invalid write, as a buggy driver makes. The pointer itself is volatile so that the
 * compiler cannot see it is null and drop the store as undefined behaviour. */
static void fake_segfault(void) {
    volatile int *volatile nowhere = 0;
    *nowhere = 1;
}

/* Appends a line to the file named by $FAKE_LOG, so tests can check call pairing. */
static void fake_log(const char *line) {
    const char *path = getenv("FAKE_LOG");
    if (!path || !*path) return;
    FILE *f = fopen(path, "a");
    if (!f) return;
    fprintf(f, "%s\n", line);
    fclose(f);
}

static long fake_number(const char *var, long fallback) {
    const char *text = getenv(var);
    return text && *text ? strtol(text, NULL, 10) : fallback;
}

static void fake_copy(char *out, unsigned int length, const char *text) {
    if (length == 0) return;
    strncpy(out, text, length - 1);
    out[length - 1] = 0;
}
