/*
 * JNI_OnLoad and the natives of dev.convoy.agent.NativeRecorder, the one Java class that
 * talks to this library. A native failure becomes a Java exception here and nowhere else.
 * Depends on the agent (agent.h) only; nothing depends on this file.
 */
#include <jni.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "agent.h"
#include "buf.h"
#include "counters.h"
#include "dirs.h"
#include "log.h"
#include "snapshot.h"

static int register_natives(JNIEnv *jni);

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    (void)reserved;
    cv_error err;
    memset(&err, 0, sizeof(err));
    if (agent_on_load(vm, &err)) {
        cv_log_warn("%s; recording is impossible", err.message);
        return JNI_VERSION_1_8;
    }
    JNIEnv *jni = NULL;
    if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_8) != JNI_OK || register_natives(jni) != 0) {
        /* Loaded by a class loader that cannot see NativeRecorder: natives bind by name. */
    }
    return JNI_VERSION_1_8;
}

static void throw_new(JNIEnv *jni, const char *class_name, const char *message) {
    jclass ex = (*jni)->FindClass(jni, class_name);
    if (ex) {
        (*jni)->ThrowNew(jni, ex, message);
        (*jni)->DeleteLocalRef(jni, ex);
    }
}

static void throw_error(JNIEnv *jni, const cv_error *err) {
    throw_new(jni, "java/lang/IllegalStateException", err->message);
}

JNIEXPORT void JNICALL
Java_dev_convoy_agent_NativeRecorder_start0(JNIEnv *jni, jclass cls, jlongArray config, jstring repository,
                                            jstring options, jstring version) {
    (void)cls;
    if (!config || (*jni)->GetArrayLength(jni, config) != CV_CONFIG_COUNT) {
        char msg[160];
        snprintf(msg, sizeof(msg), "start0 takes the recorder's numbers in one array of %d (agent.h, "
                 "CV_CONFIG_NUMBERS): the agent jar and libconvoy.so do not match", (int)CV_CONFIG_COUNT);
        throw_new(jni, "java/lang/IllegalArgumentException", msg);
        return;
    }
    jlong n[CV_CONFIG_COUNT];
    (*jni)->GetLongArrayRegion(jni, config, 0, CV_CONFIG_COUNT, n);
    if ((*jni)->ExceptionCheck(jni)) return;
    cv_config c;
    memset(&c, 0, sizeof(c));
    for (int i = 0; i < CV_CONFIG_COUNT; i++) {
        if (n[i] < 0) {
            throw_new(jni, "java/lang/IllegalArgumentException", "start0: a negative number in the recorder's config");
            return;
        }
    }
#define CV_CONFIG_SET(slot, field) c.field = (__typeof__(c.field))n[CV_CONFIG_##slot];
    CV_CONFIG_NUMBERS(CV_CONFIG_SET)
#undef CV_CONFIG_SET
    if (repository) {
        const char *r = (*jni)->GetStringUTFChars(jni, repository, NULL);
        if (!r) return; /* OutOfMemoryError pending */
        size_t n = strlen(r);
        if (n >= sizeof(c.repository)) {
            (*jni)->ReleaseStringUTFChars(jni, repository, r);
            throw_new(jni, "java/lang/IllegalArgumentException", "the repository's path is longer than 1023 bytes");
            return;
        }
        memcpy(c.repository, r, n + 1);
        (*jni)->ReleaseStringUTFChars(jni, repository, r);
    }
    if (options) {
        const char *s = (*jni)->GetStringUTFChars(jni, options, NULL);
        if (!s) return; /* OutOfMemoryError pending */
        strncpy(c.options, s, sizeof(c.options) - 1);
        (*jni)->ReleaseStringUTFChars(jni, options, s);
    }
    if (version) {
        const char *v = (*jni)->GetStringUTFChars(jni, version, NULL);
        if (!v) return; /* OutOfMemoryError pending */
        strncpy(c.version, v, sizeof(c.version) - 1);
        (*jni)->ReleaseStringUTFChars(jni, version, v);
    }
    cv_error err;
    memset(&err, 0, sizeof(err));
    if (agent_start(jni, &c, &err)) throw_error(jni, &err);
}

JNIEXPORT void JNICALL
Java_dev_convoy_agent_NativeRecorder_setRecording0(JNIEnv *jni, jclass cls, jboolean on) {
    (void)cls;
    cv_error err;
    memset(&err, 0, sizeof(err));
    if (agent_set_recording(on == JNI_TRUE, &err)) throw_error(jni, &err);
}

JNIEXPORT jint JNICALL
Java_dev_convoy_agent_NativeRecorder_setReleasers0(JNIEnv *jni, jclass cls, jint arm) {
    (void)cls;
    cv_error err;
    memset(&err, 0, sizeof(err));
    int rc = agent_set_releasers(jni, arm, &err);
    if (rc < -1) throw_error(jni, &err);
    return rc;
}

JNIEXPORT void JNICALL
Java_dev_convoy_agent_NativeRecorder_reset0(JNIEnv *jni, jclass cls) {
    (void)cls;
    cv_error err;
    memset(&err, 0, sizeof(err));
    if (agent_reset(jni, &err)) throw_error(jni, &err);
}

JNIEXPORT void JNICALL
Java_dev_convoy_agent_NativeRecorder_restartTiming0(JNIEnv *jni, jclass cls) {
    (void)cls;
    cv_error err;
    memset(&err, 0, sizeof(err));
    if (agent_restart_timing(&err)) throw_error(jni, &err);
}

JNIEXPORT void JNICALL
Java_dev_convoy_agent_NativeRecorder_bindProbes0(JNIEnv *jni, jclass cls, jclass probes) {
    (void)cls;
    cv_error err;
    memset(&err, 0, sizeof(err));
    if (agent_bind_probes(jni, probes, &err)) throw_error(jni, &err);
}

/* Defines a class in the bootstrap class loader (JNI DefineClass with a NULL loader): the
 * instrumentation's Probes class becomes visible to every class loader that delegates to
 * the boot loader, without appending to the boot class path (which disables class data
 * sharing for application classes and makes the JVM print a warning). */
JNIEXPORT jclass JNICALL
Java_dev_convoy_agent_NativeRecorder_defineBootClass0(JNIEnv *jni, jclass cls, jstring name, jbyteArray bytes) {
    (void)cls;
    const char *n = (*jni)->GetStringUTFChars(jni, name, NULL);
    if (!n) return NULL;
    jsize len = (*jni)->GetArrayLength(jni, bytes);
    jbyte *b = (*jni)->GetByteArrayElements(jni, bytes, NULL);
    jclass defined = NULL;
    if (b) {
        defined = (*jni)->DefineClass(jni, n, NULL, b, len);
        (*jni)->ReleaseByteArrayElements(jni, bytes, b, JNI_ABORT);
    }
    (*jni)->ReleaseStringUTFChars(jni, name, n);
    return defined; /* NULL with the JVM's exception pending (e.g. LinkageError) */
}

JNIEXPORT jboolean JNICALL
Java_dev_convoy_agent_NativeRecorder_isRecording0(JNIEnv *jni, jclass cls) {
    (void)jni; (void)cls;
    return agent_is_recording() ? JNI_TRUE : JNI_FALSE;
}

/* Whether `array` is a Java array of the given type descriptor ("[J", "[I"); throws
 * IllegalArgumentException (or NullPointerException) naming `what` if not. */
static int check_array(JNIEnv *jni, jarray array, const char *descriptor, const char *what) {
    char message[128];
    if (!array) {
        snprintf(message, sizeof(message), "snapshot0: %s is null", what);
        throw_new(jni, "java/lang/NullPointerException", message);
        return -1;
    }
    jclass type = (*jni)->FindClass(jni, descriptor);
    if (!type) return -1; /* exception pending */
    jboolean ok = (*jni)->IsInstanceOf(jni, array, type);
    (*jni)->DeleteLocalRef(jni, type);
    if (!ok) {
        snprintf(message, sizeof(message), "snapshot0: %s is not a %s array", what,
                 descriptor[1] == 'J' ? "long" : "int");
        throw_new(jni, "java/lang/IllegalArgumentException", message);
        return -1;
    }
    return 0;
}

/* The monitor states of NativeRecorder.MonitorStates, four parallel arrays, copied into
 * `out` (free with free_monitor_states). Throws and returns -1 unless they are arrays of
 * the expected types and of one length. */
static int read_monitor_states(JNIEnv *jni, jlongArray thread_ids, jintArray states, jintArray hashes,
                               jlongArray owners, cv_monitor_states *out) {
    memset(out, 0, sizeof(*out));
    if (check_array(jni, thread_ids, "[J", "threadIds") || check_array(jni, states, "[I", "states") ||
        check_array(jni, hashes, "[I", "identityHashes") || check_array(jni, owners, "[J", "ownerIds")) {
        return -1;
    }
    jsize n = (*jni)->GetArrayLength(jni, thread_ids);
    jsize ns = (*jni)->GetArrayLength(jni, states);
    jsize nh = (*jni)->GetArrayLength(jni, hashes);
    jsize no = (*jni)->GetArrayLength(jni, owners);
    if (ns != n || nh != n || no != n) {
        char message[160];
        snprintf(message, sizeof(message),
                 "snapshot0: monitor state arrays differ in length (threadIds %d, states %d, "
                 "identityHashes %d, ownerIds %d)", (int)n, (int)ns, (int)nh, (int)no);
        throw_new(jni, "java/lang/IllegalArgumentException", message);
        return -1;
    }
    size_t count = (size_t)n;
    int64_t *tids = malloc((count ? count : 1) * sizeof(int64_t));
    int32_t *st = malloc((count ? count : 1) * sizeof(int32_t));
    int32_t *hs = malloc((count ? count : 1) * sizeof(int32_t));
    int64_t *ow = malloc((count ? count : 1) * sizeof(int64_t));
    if (!tids || !st || !hs || !ow) {
        free(tids); free(st); free(hs); free(ow);
        throw_new(jni, "java/lang/OutOfMemoryError", "snapshot0: copying the monitor states");
        return -1;
    }
    (*jni)->GetLongArrayRegion(jni, thread_ids, 0, n, (jlong *)tids);
    (*jni)->GetIntArrayRegion(jni, states, 0, n, (jint *)st);
    (*jni)->GetIntArrayRegion(jni, hashes, 0, n, (jint *)hs);
    (*jni)->GetLongArrayRegion(jni, owners, 0, n, (jlong *)ow);
    if ((*jni)->ExceptionCheck(jni)) {
        free(tids); free(st); free(hs); free(ow);
        return -1;
    }
    out->count = count;
    out->thread_ids = tids;
    out->states = st;
    out->hashes = hs;
    out->owners = ow;
    return 0;
}

static void free_monitor_states(cv_monitor_states *s) {
    free((void *)s->thread_ids);
    free((void *)s->states);
    free((void *)s->hashes);
    free((void *)s->owners);
}

JNIEXPORT jbyteArray JNICALL
Java_dev_convoy_agent_NativeRecorder_snapshot0(JNIEnv *jni, jclass cls, jlongArray thread_ids, jintArray states,
                                               jintArray hashes, jlongArray owners) {
    (void)cls;
    cv_monitor_states ms;
    if (read_monitor_states(jni, thread_ids, states, hashes, owners, &ms)) return NULL;
    cv_buf b;
    buf_init(&b);
    b.limit = CV_SNAPSHOT_MAX_BYTES; /* refused while it is built, not after */
    cv_error err;
    memset(&err, 0, sizeof(err));
    jbyteArray result = NULL;
    int rc = agent_snapshot(jni, &ms, &b, &err);
    free_monitor_states(&ms);
    if (rc) {
        throw_error(jni, &err);
    } else {
        result = (*jni)->NewByteArray(jni, (jsize)b.len);
        if (result) (*jni)->SetByteArrayRegion(jni, result, 0, (jsize)b.len, (const jbyte *)b.data);
    }
    buf_free(&b);
    return result;
}

/* snapshotDirect0: as snapshot0, but the snapshot stays in native memory: a direct ByteBuffer over
 * it (not on the Java heap), which freeDirect0 frees (NativeRecorder's Cleaner, once unreachable). */
JNIEXPORT jobject JNICALL
Java_dev_convoy_agent_NativeRecorder_snapshotDirect0(JNIEnv *jni, jclass cls, jlongArray thread_ids,
                                                     jintArray states, jintArray hashes, jlongArray owners) {
    (void)cls;
    cv_monitor_states ms;
    if (read_monitor_states(jni, thread_ids, states, hashes, owners, &ms)) return NULL;
    cv_buf b;
    buf_init(&b);
    b.limit = CV_SNAPSHOT_MAX_BYTES;
    cv_error err;
    memset(&err, 0, sizeof(err));
    int rc = agent_snapshot(jni, &ms, &b, &err);
    free_monitor_states(&ms);
    if (rc) {
        throw_error(jni, &err);
        buf_free(&b);
        return NULL;
    }
    jobject result = (*jni)->NewDirectByteBuffer(jni, b.data, (jlong)b.len);
    if (!result) { /* an exception is pending */
        buf_free(&b);
        return NULL;
    }
    return result; /* b.data now belongs to the buffer: freeDirect0 frees it */
}

/* freeDirect0(address): frees the memory of a buffer snapshotDirect0 made. */
JNIEXPORT void JNICALL Java_dev_convoy_agent_NativeRecorder_freeDirect0(JNIEnv *jni, jclass cls, jlong address) {
    (void)jni; (void)cls;
    free((void *)(intptr_t)address);
}

/* addressOf0(buffer): the address of a direct buffer's memory, 0 for another buffer. */
JNIEXPORT jlong JNICALL Java_dev_convoy_agent_NativeRecorder_addressOf0(JNIEnv *jni, jclass cls, jobject buffer) {
    (void)cls;
    void *a = buffer ? (*jni)->GetDirectBufferAddress(jni, buffer) : NULL;
    return (jlong)(intptr_t)a;
}

/* The values of counters.h's list, in its order (NativeRecorder.Counters). */
JNIEXPORT jlongArray JNICALL
Java_dev_convoy_agent_NativeRecorder_counters0(JNIEnv *jni, jclass cls) {
    (void)cls;
    int64_t v[CV_COUNTER_COUNT];
    agent_counters(jni, v);
    _Static_assert(sizeof(jlong) == sizeof(int64_t), "jlong");
    jlongArray arr = (*jni)->NewLongArray(jni, CV_COUNTER_COUNT);
    if (arr) (*jni)->SetLongArrayRegion(jni, arr, 0, CV_COUNTER_COUNT, (const jlong *)v);
    return arr; /* NULL with OutOfMemoryError pending */
}

/* nowNs0(): the recorder's monotonic clock (records' time), ns. */
JNIEXPORT jlong JNICALL Java_dev_convoy_agent_NativeRecorder_nowNs0(JNIEnv *jni, jclass cls) {
    (void)jni; (void)cls;
    return (jlong)agent_now_ns();
}

/* stalled0(): threads_stalled as a long[] of 6 values a thread: Java thread id, type, flags, object
 * id, since (monotonic ns), owner; empty when the recorder is not started. */
JNIEXPORT jlongArray JNICALL
Java_dev_convoy_agent_NativeRecorder_stalled0(JNIEnv *jni, jclass cls) {
    (void)cls;
    size_t cap = 256;
    cv_stalled *v = NULL;
    size_t n = 0;
    for (;;) {
        free(v);
        v = malloc(cap * sizeof(cv_stalled));
        if (!v) {
            throw_new(jni, "java/lang/OutOfMemoryError", "stalled0");
            return NULL;
        }
        n = agent_stalled(v, cap);
        if (n <= cap) break;
        cap = n + n / 2;
    }
    jlong *flat = malloc((n ? n : 1) * 6 * sizeof(jlong));
    if (!flat) {
        free(v);
        throw_new(jni, "java/lang/OutOfMemoryError", "stalled0");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        flat[6 * i] = v[i].java_tid;
        flat[6 * i + 1] = v[i].type;
        flat[6 * i + 2] = v[i].flags;
        flat[6 * i + 3] = (jlong)v[i].obj;
        flat[6 * i + 4] = (jlong)v[i].since_ns;
        flat[6 * i + 5] = v[i].owner;
    }
    jlongArray arr = (*jni)->NewLongArray(jni, (jsize)(6 * n));
    if (arr) (*jni)->SetLongArrayRegion(jni, arr, 0, (jsize)(6 * n), flat);
    free(flat);
    free(v);
    return arr;
}

/* openDirectory0(int parent, String name, boolean create): cv_dir_open (parent < 0) or
 * cv_dir_open_at; a failure throws an IOException naming the directory and the reason:
 * NotDirectoryException for a link or a file in the way, NoSuchFileException for a missing one. */
JNIEXPORT jint JNICALL Java_dev_convoy_agent_NativeRecorder_openDirectory0(JNIEnv *jni, jclass cls, jint parent,
                                                                           jstring name, jboolean create) {
    (void)cls;
    if (!name) {
        throw_new(jni, "java/lang/NullPointerException", "directory name");
        return -1;
    }
    const char *n = (*jni)->GetStringUTFChars(jni, name, NULL);
    if (!n) return -1; /* OutOfMemoryError pending */
    int fd = parent < 0 ? cv_dir_open(n) : cv_dir_open_at(parent, n, create == JNI_TRUE);
    if (fd < 0) {
        char msg[512];
        const char *why = fd == -ELOOP ? "it is a symbolic link, which dumps never follow"
                        : fd == -ENOTDIR ? "it is not a directory (or a symbolic link, which dumps never follow)"
                        : strerror(-fd);
        snprintf(msg, sizeof msg, "cannot open the directory '%s': %s", n, why);
        (*jni)->ReleaseStringUTFChars(jni, name, n);
        /* java.nio.file types the Java side tells apart: a link or a file in the way is a
         * refused path, a folder removed meanwhile is a failed write. */
        throw_new(jni, fd == -ELOOP || fd == -ENOTDIR ? "java/nio/file/NotDirectoryException"
                       : fd == -ENOENT ? "java/nio/file/NoSuchFileException" : "java/io/IOException", msg);
        return -1;
    }
    (*jni)->ReleaseStringUTFChars(jni, name, n);
    return fd;
}

JNIEXPORT void JNICALL Java_dev_convoy_agent_NativeRecorder_closeDirectory0(JNIEnv *jni, jclass cls, jint fd) {
    (void)jni;
    (void)cls;
    cv_dir_close(fd);
}

/* Binds the natives explicitly when the library is loaded. JDK 24 and later warn when a
 * native method of a class without native access is bound by name lookup; explicit
 * registration is how the agent avoids that (see NativeLibraryLoader). RegisterNatives
 * also checks every signature against NativeRecorder's declarations. */
static int register_natives(JNIEnv *jni) {
    static const JNINativeMethod methods[] = {
        {"start0", "([JLjava/lang/String;Ljava/lang/String;Ljava/lang/String;)V",
         (void *)Java_dev_convoy_agent_NativeRecorder_start0},
        {"setRecording0", "(Z)V", (void *)Java_dev_convoy_agent_NativeRecorder_setRecording0},
        {"isRecording0", "()Z", (void *)Java_dev_convoy_agent_NativeRecorder_isRecording0},
        {"setReleasers0", "(I)I", (void *)Java_dev_convoy_agent_NativeRecorder_setReleasers0},
        {"reset0", "()V", (void *)Java_dev_convoy_agent_NativeRecorder_reset0},
        {"restartTiming0", "()V", (void *)Java_dev_convoy_agent_NativeRecorder_restartTiming0},
        {"bindProbes0", "(Ljava/lang/Class;)V", (void *)Java_dev_convoy_agent_NativeRecorder_bindProbes0},
        {"defineBootClass0", "(Ljava/lang/String;[B)Ljava/lang/Class;",
         (void *)Java_dev_convoy_agent_NativeRecorder_defineBootClass0},
        {"snapshot0", "([J[I[I[J)[B", (void *)Java_dev_convoy_agent_NativeRecorder_snapshot0},
        {"snapshotDirect0", "([J[I[I[J)Ljava/nio/ByteBuffer;",
         (void *)Java_dev_convoy_agent_NativeRecorder_snapshotDirect0},
        {"freeDirect0", "(J)V", (void *)Java_dev_convoy_agent_NativeRecorder_freeDirect0},
        {"addressOf0", "(Ljava/nio/ByteBuffer;)J", (void *)Java_dev_convoy_agent_NativeRecorder_addressOf0},
        {"counters0", "()[J", (void *)Java_dev_convoy_agent_NativeRecorder_counters0},
        {"stalled0", "()[J", (void *)Java_dev_convoy_agent_NativeRecorder_stalled0},
        {"nowNs0", "()J", (void *)Java_dev_convoy_agent_NativeRecorder_nowNs0},
        {"openDirectory0", "(ILjava/lang/String;Z)I", (void *)Java_dev_convoy_agent_NativeRecorder_openDirectory0},
        {"closeDirectory0", "(I)V", (void *)Java_dev_convoy_agent_NativeRecorder_closeDirectory0},
    };
    jclass cls = (*jni)->FindClass(jni, "dev/convoy/agent/NativeRecorder");
    if (!cls) {
        (*jni)->ExceptionClear(jni);
        return -1;
    }
    jint rc = (*jni)->RegisterNatives(jni, cls, methods, (jint)(sizeof(methods) / sizeof(methods[0])));
    (*jni)->DeleteLocalRef(jni, cls);
    if (rc != JNI_OK) {
        (*jni)->ExceptionClear(jni);
        return -1;
    }
    return 0;
}
