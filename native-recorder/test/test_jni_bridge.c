/*
 * jni_bridge.c against a mock JNIEnv and stub agent functions: the arguments of snapshot0
 * are checked (types, nulls, one length) before anything is read, a bad argument becomes
 * a Java exception and never reaches the agent, and counters0 returns the values in the
 * order of counters.h. A jarray is a pointer to a fake_array; a jclass a pointer to a
 * fake_class. Only the JNI functions the tested natives call are filled in.
 */
#include "agent.h"
#include "check.h"
#include "counters.h"

#include <stdlib.h>
#include <string.h>

jbyteArray JNICALL Java_dev_convoy_agent_NativeRecorder_snapshot0(JNIEnv *jni, jclass cls, jlongArray thread_ids,
                                                                   jintArray states, jintArray hashes,
                                                                   jlongArray owners);
jlongArray JNICALL Java_dev_convoy_agent_NativeRecorder_counters0(JNIEnv *jni, jclass cls);
jlongArray JNICALL Java_dev_convoy_agent_NativeRecorder_stalled0(JNIEnv *jni, jclass cls);
jint JNICALL Java_dev_convoy_agent_NativeRecorder_setReleasers0(JNIEnv *jni, jclass cls, jint arm);

typedef struct {
    const char *name;
} fake_class;

typedef struct {
    char   type;        /* 'J', 'I' or 'B' */
    jsize  len;
    void  *data;
} fake_array;

static fake_class long_array_class = {"[J"};
static fake_class int_array_class = {"[I"};
static fake_class exception_classes[] = {
    {"java/lang/IllegalStateException"}, {"java/lang/IllegalArgumentException"},
    {"java/lang/NullPointerException"}, {"java/lang/OutOfMemoryError"},
};

static const char *thrown;            /* class name of the pending exception, or NULL */
static char thrown_message[256];
static fake_array returned;           /* the array a native returned (NewByteArray/NewLongArray) */
static unsigned char returned_bytes[64];
static jlong returned_longs[2048];

/* What the stub agent_snapshot saw. */
static int snapshot_calls;
static size_t seen_limit;               /* the output buffer's limit */
static cv_monitor_states seen;
static int64_t seen_tids[8], seen_owners[8];
static int32_t seen_states[8], seen_hashes[8];

static jclass JNICALL mock_find_class(JNIEnv *env, const char *name) {
    if (strcmp(name, "[J") == 0) return (jclass)(void *)&long_array_class;
    if (strcmp(name, "[I") == 0) return (jclass)(void *)&int_array_class;
    for (size_t i = 0; i < sizeof(exception_classes) / sizeof(exception_classes[0]); i++) {
        if (strcmp(name, exception_classes[i].name) == 0) return (jclass)(void *)&exception_classes[i];
    }
    return NULL;
}

static jint JNICALL mock_throw_new(JNIEnv *env, jclass cls, const char *message) {
    thrown = ((fake_class *)(void *)cls)->name;
    snprintf(thrown_message, sizeof(thrown_message), "%s", message);
    return 0;
}

static jboolean JNICALL mock_exception_check(JNIEnv *env) {
    return thrown ? JNI_TRUE : JNI_FALSE;
}

static void JNICALL mock_delete_local_ref(JNIEnv *env, jobject obj) {
}

static jboolean JNICALL mock_is_instance_of(JNIEnv *env, jobject obj, jclass cls) {
    fake_array *a = (fake_array *)(void *)obj;
    return ((fake_class *)(void *)cls)->name[1] == a->type ? JNI_TRUE : JNI_FALSE;
}

static jsize JNICALL mock_get_array_length(JNIEnv *env, jarray array) {
    return ((fake_array *)(void *)array)->len;
}

static void region(jarray array, char type, size_t size, jsize start, jsize len, void *buf) {
    fake_array *a = (fake_array *)(void *)array;
    CHECK(a->type == type);
    CHECK(start >= 0 && len >= 0 && start + len <= a->len);   /* never out of bounds */
    if (a->type == type && start >= 0 && len > 0 && start + len <= a->len) {
        memcpy(buf, (char *)a->data + (size_t)start * size, (size_t)len * size);
    }
}

static void JNICALL mock_get_long_array_region(JNIEnv *env, jlongArray array, jsize start, jsize len, jlong *buf) {
    region(array, 'J', sizeof(jlong), start, len, buf);
}

static void JNICALL mock_get_int_array_region(JNIEnv *env, jintArray array, jsize start, jsize len, jint *buf) {
    region(array, 'I', sizeof(jint), start, len, buf);
}

static jbyteArray JNICALL mock_new_byte_array(JNIEnv *env, jsize len) {
    CHECK((size_t)len <= sizeof(returned_bytes));
    returned.type = 'B';
    returned.len = len;
    returned.data = returned_bytes;
    return (jbyteArray)(void *)&returned;
}

static void JNICALL mock_set_byte_array_region(JNIEnv *env, jbyteArray array, jsize start, jsize len,
                                               const jbyte *buf) {
    CHECK(start == 0 && (size_t)len <= sizeof(returned_bytes));
    memcpy(returned_bytes, buf, (size_t)len);
}

static jlongArray JNICALL mock_new_long_array(JNIEnv *env, jsize len) {
    CHECK((size_t)len <= sizeof(returned_longs) / sizeof(jlong));
    returned.type = 'J';
    returned.len = len;
    returned.data = returned_longs;
    return (jlongArray)(void *)&returned;
}

static void JNICALL mock_set_long_array_region(JNIEnv *env, jlongArray array, jsize start, jsize len,
                                               const jlong *buf) {
    CHECK(start == 0 && (size_t)len <= sizeof(returned_longs) / sizeof(jlong));
    memcpy(returned_longs, buf, (size_t)len * sizeof(jlong));
}

static struct JNINativeInterface_ mock_jni_functions = {
    .FindClass = mock_find_class,
    .ThrowNew = mock_throw_new,
    .ExceptionCheck = mock_exception_check,
    .DeleteLocalRef = mock_delete_local_ref,
    .IsInstanceOf = mock_is_instance_of,
    .GetArrayLength = mock_get_array_length,
    .GetLongArrayRegion = mock_get_long_array_region,
    .GetIntArrayRegion = mock_get_int_array_region,
    .NewByteArray = mock_new_byte_array,
    .SetByteArrayRegion = mock_set_byte_array_region,
    .NewLongArray = mock_new_long_array,
    .SetLongArrayRegion = mock_set_long_array_region,
};

static JNIEnv mock_jni_env = &mock_jni_functions;
static JNIEnv *const jni = &mock_jni_env;

/* The agent, stubbed: what the bridge may call. */
int agent_on_load(JavaVM *vm, cv_error *err) { return 0; }
int agent_start(JNIEnv *env, const cv_config *config, cv_error *err) { return 0; }
int agent_set_recording(int on, cv_error *err) { return 0; }
int agent_is_recording(void) { return 0; }
int agent_is_live(void) { return 0; }   /* sampler.c's thread loop (sampler_main, never run here) */
int agent_reset(JNIEnv *jni, cv_error *err) { return 0; }
int agent_restart_timing(cv_error *err) { return 0; }

static int releasers_answer;   /* what the stubbed agent_set_releasers answers */
static int releasers_arm = 99; /* and what it was asked */
int agent_set_releasers(JNIEnv *env, int arm, cv_error *err) {
    releasers_arm = arm;
    if (releasers_answer == -2) snprintf(err->message, sizeof(err->message), "the recorder is not started");
    return releasers_answer;
}
int agent_bind_probes(JNIEnv *env, jclass probes, cv_error *err) { return 0; }

void agent_counters(JNIEnv *env, int64_t out[CV_COUNTER_COUNT]) {
    for (int i = 0; i < CV_COUNTER_COUNT; i++) out[i] = 100 + i;
}

/* The stub's stalled threads: stalled_count of them, entry i with Java id 1000 + i. */
static size_t stalled_count;
static int stalled_calls;
size_t agent_stalled(cv_stalled *out, size_t cap) {
    stalled_calls++;
    for (size_t i = 0; i < stalled_count && i < cap; i++) {
        out[i] = (cv_stalled){(int64_t)(1000 + i), 3, 8, 77 + i, 5000 + i, -1};
    }
    return stalled_count;
}
uint64_t agent_now_ns(void) { return 42; }

int agent_snapshot(JNIEnv *env, const cv_monitor_states *states, cv_buf *out, cv_error *err) {
    snapshot_calls++;
    seen_limit = out->limit;
    seen.count = states->count;
    for (size_t i = 0; i < states->count && i < 8; i++) {
        seen_tids[i] = states->thread_ids[i];
        seen_states[i] = states->states[i];
        seen_hashes[i] = states->hashes[i];
        seen_owners[i] = states->owners[i];
    }
    buf_bytes(out, "snap", 4);
    return 0;
}

static void reset_mock(void) {
    thrown = NULL;
    thrown_message[0] = 0;
    snapshot_calls = 0;
    memset(&seen, 0, sizeof(seen));
}

#define ARRAY(var, t, values) fake_array var = {t, (jsize)(sizeof(values) / sizeof(values[0])), values}
#define J(a) ((jlongArray)(void *)&(a))
#define I(a) ((jintArray)(void *)&(a))

TEST(jni_snapshot0_hands_the_monitor_states_to_the_agent) {
    reset_mock();
    jlong tids[] = {7, 9};
    jint states[] = {1, 2};
    jint hashes[] = {-5, 42};
    jlong owners[] = {9, -1};
    ARRAY(a, 'J', tids);
    ARRAY(b, 'I', states);
    ARRAY(c, 'I', hashes);
    ARRAY(d, 'J', owners);
    jbyteArray r = Java_dev_convoy_agent_NativeRecorder_snapshot0(jni, NULL, J(a), I(b), I(c), J(d));
    CHECK(thrown == NULL);
    CHECK(r != NULL);
    CHECK_EQ_U64(snapshot_calls, 1);
    CHECK_EQ_U64(seen.count, 2);
    CHECK(seen_tids[0] == 7 && seen_tids[1] == 9);
    CHECK(seen_states[0] == 1 && seen_states[1] == 2);
    CHECK(seen_hashes[0] == -5 && seen_hashes[1] == 42);
    CHECK(seen_owners[0] == 9 && seen_owners[1] == -1);
    CHECK(returned.len == 4 && memcmp(returned_bytes, "snap", 4) == 0);
    /* The encoder is told the most a byte[] holds, so it refuses a bigger snapshot while
     * building it. */
    CHECK_EQ_U64(seen_limit, CV_SNAPSHOT_MAX_BYTES);
}

TEST(jni_snapshot0_accepts_no_monitor_states) {
    reset_mock();
    fake_array a = {'J', 0, NULL}, b = {'I', 0, NULL}, c = {'I', 0, NULL}, d = {'J', 0, NULL};
    jbyteArray r = Java_dev_convoy_agent_NativeRecorder_snapshot0(jni, NULL, J(a), I(b), I(c), J(d));
    CHECK(thrown == NULL);
    CHECK(r != NULL);
    CHECK_EQ_U64(snapshot_calls, 1);
    CHECK_EQ_U64(seen.count, 0);
}

TEST(jni_snapshot0_refuses_arrays_of_different_lengths) {
    jlong two_longs[] = {1, 2};
    jint two_ints[] = {1, 1};
    jint one_int[] = {3};
    ARRAY(a, 'J', two_longs);
    ARRAY(b, 'I', two_ints);
    ARRAY(short_c, 'I', one_int);
    ARRAY(d, 'J', two_longs);
    ARRAY(short_b, 'I', one_int);
    jlong three_longs[] = {1, 2, 3};
    ARRAY(long_d, 'J', three_longs);
    fake_array *cases[][4] = {
        {&a, &b, &short_c, &d},
        {&a, &short_b, &b, &d},
        {&a, &b, &b, &long_d},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        reset_mock();
        jbyteArray r = Java_dev_convoy_agent_NativeRecorder_snapshot0(jni, NULL, J(*cases[i][0]), I(*cases[i][1]),
                                                                      I(*cases[i][2]), J(*cases[i][3]));
        CHECK(r == NULL);
        CHECK(thrown && strcmp(thrown, "java/lang/IllegalArgumentException") == 0);
        CHECK(strstr(thrown_message, "differ in length") != NULL);
        CHECK_EQ_U64(snapshot_calls, 0);
    }
}

TEST(jni_snapshot0_refuses_null_and_mistyped_arrays) {
    jlong longs[] = {1};
    jint ints[] = {1};
    ARRAY(l, 'J', longs);
    ARRAY(n, 'I', ints);

    reset_mock();
    CHECK(Java_dev_convoy_agent_NativeRecorder_snapshot0(jni, NULL, J(l), NULL, I(n), J(l)) == NULL);
    CHECK(thrown && strcmp(thrown, "java/lang/NullPointerException") == 0);
    CHECK(strstr(thrown_message, "states") != NULL);
    CHECK_EQ_U64(snapshot_calls, 0);

    reset_mock();   /* an int[] where a long[] belongs (natives bound by name are not type-checked) */
    CHECK(Java_dev_convoy_agent_NativeRecorder_snapshot0(jni, NULL, J(l), I(n), I(n), (jlongArray)(void *)&n) == NULL);
    CHECK(thrown && strcmp(thrown, "java/lang/IllegalArgumentException") == 0);
    CHECK(strstr(thrown_message, "ownerIds") != NULL);
    CHECK_EQ_U64(snapshot_calls, 0);
}

TEST(jni_setReleasers0_passes_the_answer_and_throws_only_when_not_started) {
    for (int answer = -1; answer <= 1; answer++) {
        reset_mock();
        releasers_answer = answer;
        CHECK(Java_dev_convoy_agent_NativeRecorder_setReleasers0(jni, NULL, answer == 1 ? 1 : 0) == answer);
        CHECK(releasers_arm == (answer == 1 ? 1 : 0));
        CHECK(thrown == NULL);
    }
    reset_mock();
    releasers_answer = -2;
    Java_dev_convoy_agent_NativeRecorder_setReleasers0(jni, NULL, -1);
    CHECK(releasers_arm == -1);
    CHECK(thrown && strcmp(thrown, "java/lang/IllegalStateException") == 0);
    CHECK(strstr(thrown_message, "not started") != NULL);
}

TEST(jni_counters0_returns_the_counters_in_the_order_of_counters_h) {
    reset_mock();
    jlongArray r = Java_dev_convoy_agent_NativeRecorder_counters0(jni, NULL);
    CHECK(r != NULL);
    CHECK_EQ_U64(returned.len, CV_COUNTER_COUNT);
    for (int i = 0; i < CV_COUNTER_COUNT; i++) CHECK_EQ_U64(returned_longs[i], 100 + i);
    CHECK_EQ_U64(CV_COUNTER_RECORDS_WRITTEN, 0);
    CHECK_EQ_U64(CV_COUNTER_STACK_FALLBACKS, CV_COUNTER_COUNT - 1);
}

TEST(jni_stalled0_returns_every_stalled_thread_even_beyond_its_first_guess) {
    reset_mock();
    stalled_count = 300;   /* more than the first buffer of 256: asked again with room for all */
    stalled_calls = 0;
    jlongArray r = Java_dev_convoy_agent_NativeRecorder_stalled0(jni, NULL);
    CHECK(r != NULL);
    CHECK_EQ_INT(stalled_calls, 2);
    CHECK_EQ_U64(returned.len, 6 * 300);
    if (returned.len == 6 * 300) {
        CHECK_EQ_INT(returned_longs[0], 1000);
        CHECK_EQ_INT(returned_longs[1], 3);
        CHECK_EQ_INT(returned_longs[2], 8);
        CHECK_EQ_INT(returned_longs[3], 77);
        CHECK_EQ_INT(returned_longs[4], 5000);
        CHECK_EQ_INT(returned_longs[5], -1);
        CHECK_EQ_INT(returned_longs[6 * 299], 1299);
    }
    stalled_count = 0;
    r = Java_dev_convoy_agent_NativeRecorder_stalled0(jni, NULL);
    CHECK(r != NULL);
    CHECK_EQ_U64(returned.len, 0);
}
