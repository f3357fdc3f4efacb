#include "log.h"

#include "arch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef CV_DEBUG
void cv_assert_failed(const char *cond, const char *file, int line) {
    fprintf(stderr, "[convoy] assertion failed: %s at %s:%d\n", cond, file, line);
    abort();
}
#endif

void cv_log_warn(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("[convoy] warning: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int cv_fail(cv_error *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
    err->failed = 1;
    return -1;
}

int cv_fail_jvmti(cv_error *err, jvmtiError code, const char *what, const char *file, int line) {
    return cv_fail(err, "%s failed: %s (%d) at %s:%d", what, cv_jvmti_error_name(code), (int)code,
                   file, line);
}

const char *cv_jvmti_error_name(jvmtiError code) {
    switch (code) {
    case JVMTI_ERROR_NONE: return "JVMTI_ERROR_NONE";
    case JVMTI_ERROR_INVALID_THREAD: return "JVMTI_ERROR_INVALID_THREAD";
    case JVMTI_ERROR_THREAD_NOT_ALIVE: return "JVMTI_ERROR_THREAD_NOT_ALIVE";
    case JVMTI_ERROR_INVALID_OBJECT: return "JVMTI_ERROR_INVALID_OBJECT";
    case JVMTI_ERROR_INVALID_CLASS: return "JVMTI_ERROR_INVALID_CLASS";
    case JVMTI_ERROR_INVALID_METHODID: return "JVMTI_ERROR_INVALID_METHODID";
    case JVMTI_ERROR_NOT_AVAILABLE: return "JVMTI_ERROR_NOT_AVAILABLE";
    case JVMTI_ERROR_MUST_POSSESS_CAPABILITY: return "JVMTI_ERROR_MUST_POSSESS_CAPABILITY";
    case JVMTI_ERROR_NULL_POINTER: return "JVMTI_ERROR_NULL_POINTER";
    case JVMTI_ERROR_ABSENT_INFORMATION: return "JVMTI_ERROR_ABSENT_INFORMATION";
    case JVMTI_ERROR_NATIVE_METHOD: return "JVMTI_ERROR_NATIVE_METHOD";
    case JVMTI_ERROR_OUT_OF_MEMORY: return "JVMTI_ERROR_OUT_OF_MEMORY";
    case JVMTI_ERROR_WRONG_PHASE: return "JVMTI_ERROR_WRONG_PHASE";
    case JVMTI_ERROR_INTERNAL: return "JVMTI_ERROR_INTERNAL";
    case JVMTI_ERROR_UNATTACHED_THREAD: return "JVMTI_ERROR_UNATTACHED_THREAD";
    case JVMTI_ERROR_INVALID_ENVIRONMENT: return "JVMTI_ERROR_INVALID_ENVIRONMENT";
    case JVMTI_ERROR_ILLEGAL_ARGUMENT: return "JVMTI_ERROR_ILLEGAL_ARGUMENT";
    default: return "JVMTI error";
    }
}
