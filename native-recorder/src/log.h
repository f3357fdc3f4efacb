/*
 * Logging and the error value that travels up from native code to the one place
 * (jni_bridge.c) that turns it into a Java exception.
 */
#ifndef CONVOY_LOG_H
#define CONVOY_LOG_H

#include <jvmti.h>

typedef struct {
    int  failed;
    char message[512];
} cv_error;

void cv_log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Records a failure and returns -1. `what` names the operation that failed. */
int cv_fail(cv_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cv_fail_jvmti(cv_error *err, jvmtiError code, const char *what, const char *file, int line);

#define CV_JVMTI_OR_FAIL(err, call, what) \
    do { \
        jvmtiError e_ = (call); \
        if (e_ != JVMTI_ERROR_NONE) return cv_fail_jvmti((err), e_, (what), __FILE__, __LINE__); \
    } while (0)

const char *cv_jvmti_error_name(jvmtiError code);

#endif
