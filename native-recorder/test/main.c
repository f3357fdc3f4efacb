#include "check.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_TESTS 256

static const char *names[MAX_TESTS];
static cv_test_fn fns[MAX_TESTS];
static int count;
int cv_check_failures;

void cv_register_test(const char *name, cv_test_fn fn) {
    if (count < MAX_TESTS) {
        names[count] = name;
        fns[count++] = fn;
    }
}

int cv_aborts(void (*fn)(void *), void *ctx) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return 0;
    if (pid == 0) {
        fn(ctx);
        _exit(0);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return 0;
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

int cv_alone(void (*fn)(void)) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return 0;
    if (pid == 0) {
        int before = cv_check_failures;
        fn();
        fflush(NULL);
        _exit(cv_check_failures == before ? 0 : 1);
    }
    int status = 0;
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* With arguments, runs only the tests whose names begin with one of them (e.g. `threads_`). */
static int selected(const char *name, int argc, char **argv) {
    if (argc < 2) return 1;
    for (int a = 1; a < argc; a++) {
        if (strncmp(name, argv[a], strlen(argv[a])) == 0) return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    int passed = 0, failed = 0;
    for (int i = 0; i < count; i++) {
        if (!selected(names[i], argc, argv)) continue;
        int before = cv_check_failures;
        fns[i]();
        if (cv_check_failures == before) {
            passed++;
            printf("ok   %s\n", names[i]);
        } else {
            failed++;
            printf("FAIL %s\n", names[i]);
        }
    }
    printf("native: %d passed, %d failed\n", passed, failed);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
