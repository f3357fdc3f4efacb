/* capture_walk's async path against a fake AsyncGetCallTrace (exported by this test binary, so
 * capture_init finds it as it finds libjvm's) and a mock jvmtiEnv whose GetStackTrace answers
 * from the "true" stack. */
#include "check.h"
#include "capture.h"
#include "capture_frames.h"

#include <stdio.h>
#include <string.h>

#define TRUE_MAX 32

static struct {
    int len;                      /* the true stack, top first */
    uint64_t method[TRUE_MAX];
    int agct_len;                 /* frames the fake AsyncGetCallTrace gives (a prefix) */
    int gst_calls;                /* GetStackTrace calls */
    int gst_from_bottom;          /* of them with a negative start_depth */
} st;

static void set_stack(int len, int agct_len, uint64_t bottom) {
    memset(&st, 0, sizeof(st));
    st.len = len;
    st.agct_len = agct_len;
    for (int i = 0; i < len; i++) st.method[i] = 0x1000 + (uint64_t)i;
    if (bottom) st.method[len - 1] = bottom;
}

/* Found by capture_init through dlsym: HotSpot's exported AsyncGetCallTrace, faked. */
void AsyncGetCallTrace(agct_trace *trace, jint depth, void *ucontext);
void AsyncGetCallTrace(agct_trace *trace, jint depth, void *ucontext) {
    (void)ucontext;
    int n = st.agct_len < depth ? st.agct_len : depth;
    for (int i = 0; i < n; i++) {
        trace->frames[i].lineno = i;
        trace->frames[i].method_id = (jmethodID)(uintptr_t)st.method[i];
    }
    trace->num_frames = n;
}

static jvmtiError JNICALL mock_get_stack_trace(jvmtiEnv *env, jthread thread, jint start_depth, jint max,
                                               jvmtiFrameInfo *out, jint *count) {
    (void)env; (void)thread;
    st.gst_calls++;
    int from = start_depth;
    if (start_depth < 0) {
        st.gst_from_bottom++;
        from = st.len + start_depth;
        if (from < 0) return JVMTI_ERROR_ILLEGAL_ARGUMENT;
    }
    int n = 0;
    for (int i = from; i < st.len && n < max; i++, n++) {
        out[n].method = (jmethodID)(uintptr_t)st.method[i];
        out[n].location = i;
    }
    *count = n;
    return JVMTI_ERROR_NONE;
}

static jint JNICALL mock_get_version(JNIEnv *env) {
    (void)env;
    return JNI_VERSION_1_8;
}

static struct jvmtiInterface_1_ jvmti_fns = {.GetStackTrace = mock_get_stack_trace};
static struct JNINativeInterface_ jni_fns = {.GetVersion = mock_get_version};
static jvmtiEnv jvmti_env = &jvmti_fns;
static JNIEnv jni_env = &jni_fns;

static uint64_t truncated(void) {
    char s[1024];
    capture_describe(s, sizeof(s));
    const char *p = strstr(s, "fallback.truncated=");
    unsigned long long n = 0;
    if (p) sscanf(p, "fallback.truncated=%llu", &n);
    return n;
}

static int walk(uint32_t depth, cv_frame *frames, uint64_t *bottom) {
    CHECK_EQ_INT(capture_init(&jni_env, &jvmti_env, CAPTURE_ASYNC), CAPTURE_ASYNC);
    return capture_walk(&jvmti_env, &jni_env, 0, 0, 0, depth, frames, bottom);
}

static int is_true_stack(const cv_frame *f, int n) {
    if (n != st.len) return 0;
    for (int i = 0; i < n; i++) {
        if (f[i].method != st.method[i] || f[i].location != i) return 0;
    }
    return 1;
}

TEST(capture_a_whole_async_stack_is_kept_once_its_bottom_is_known) {
    cv_frame f[16];
    uint64_t bottom = 0;
    set_stack(5, 5, 0);
    uint64_t before = truncated();
    CHECK_EQ_INT(walk(10, f, &bottom), 5);
    CHECK(is_true_stack(f, 5));
    CHECK_EQ_INT(st.gst_calls, 1);             /* the bottom, read once */
    CHECK_EQ_INT(st.gst_from_bottom, 1);
    CHECK_EQ_U64(bottom, st.method[4]);
    CHECK_EQ_INT(walk(10, f, &bottom), 5);
    CHECK_EQ_INT(st.gst_calls, 1);             /* then no GetStackTrace at all */
    CHECK_EQ_U64(truncated(), before);
}

TEST(capture_an_async_stack_cut_short_is_taken_by_get_stack_trace) {
    cv_frame f[16];
    uint64_t bottom = 0;
    set_stack(10, 2, 0);                        /* AsyncGetCallTrace stops after 2 of 10 */
    uint64_t before = truncated();
    CHECK_EQ_INT(walk(16 - 3, f, &bottom), 10);
    CHECK(is_true_stack(f, 10));
    CHECK_EQ_U64(truncated(), before + 1);
    CHECK_EQ_U64(bottom, st.method[9]);
}

TEST(capture_a_stack_deeper_than_the_depth_is_not_checked) {
    cv_frame f[16];
    uint64_t bottom = 0;
    set_stack(20, 20, 0);
    CHECK_EQ_INT(walk(8, f, &bottom), 9);       /* depth + 1: deeper, the bottom not reached */
    CHECK_EQ_INT(st.gst_calls, 0);
    CHECK_EQ_U64(bottom, 0);
}

TEST(capture_a_new_bottom_is_learned_from_the_fallback) {
    cv_frame f[16];
    uint64_t bottom = 0x77;                     /* a JNI thread that called into Java elsewhere before */
    set_stack(4, 4, 0x99);
    uint64_t before = truncated();
    CHECK_EQ_INT(walk(10, f, &bottom), 4);
    CHECK(is_true_stack(f, 4));
    CHECK_EQ_U64(truncated(), before + 1);
    CHECK_EQ_U64(bottom, 0x99);
    CHECK_EQ_INT(walk(10, f, &bottom), 4);
    CHECK_EQ_U64(truncated(), before + 1);      /* the same bottom again: kept */
    CHECK_EQ_INT(st.gst_calls, 1);
}

TEST(capture_without_a_bottom_pointer_nothing_is_checked) {
    cv_frame f[16];
    set_stack(10, 2, 0);
    CHECK_EQ_INT(walk(10, f, NULL), 2);
    CHECK_EQ_INT(st.gst_calls, 0);
}
