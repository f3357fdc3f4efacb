#include "capture.h"
#include "arch.h"
#include "capture_frames.h"
#include "frames.h"
#include "threads.h"
#include "vmstructs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*agct_fn)(agct_trace *trace, jint depth, void *ucontext);

/* Why a capture took GetStackTrace (INFO stacks.capture, in this order). */
enum {
    FB_GC,          /* num_frames -2: a GC pause under way (or a method not valid) */
    FB_DEOPT,       /* -9: in the deoptimization handler */
    FB_NOT_WALKED,  /* any other negative num_frames */
    FB_EMPTY,       /* no frame */
    FB_NO_METHOD,   /* a frame whose method has no jmethodID yet */
    FB_NO_BCI,      /* a Java frame without a bytecode index */
    FB_TRUNCATED,   /* a stack that ended above the thread's bottom frame: cut short */
    FB_VIRTUAL,     /* a virtual thread */
    FB_FORCED,      /* the test oracle's "force" */
    FB_COUNT
};

static const char *const FB_NAMES[FB_COUNT] = {
    "gc", "deopt", "notwalkable", "empty", "nomethod", "nobci", "truncated", "virtual", "forced",
};

enum { ORACLE_OFF = 0, ORACLE_COMPARE = 1, ORACLE_FORCE = 2 };
#define ORACLE_EXAMPLES 4

static struct {
    int mode;                 /* CAPTURE_*, in effect */
    agct_fn agct;
    const char *refused;      /* async asked for but not possible: why */
    uint64_t fallback[FB_COUNT];  /* relaxed adds: only on the (slow) fallback path */
    uint64_t skipped_gc;          /* a holder of the monitor met a GC pause: no stack */
    uint64_t prepare_errors;      /* GetClassMethods failures other than "not prepared" */
    uint64_t preloaded;           /* classes whose jmethodIDs capture_preload made */
    int oracle;
    uint64_t equal, different, oracle_failed;   /* oracle only */
    char examples[ORACLE_EXAMPLES][288];
    int nexamples;
} cap;

static pthread_mutex_t oracle_lock = PTHREAD_MUTEX_INITIALIZER;

/* The stack cache (stackcache.h over frames.h). Counters: relaxed adds on the miss path only. */
static struct {
    int on;
    char off[160];                       /* why it is off */
    int interpreted;                     /* chains through interpreted frames are read */
    uint64_t stored;
    uint64_t refused[FRAMES_REFUSALS];
    uint64_t equal, different;           /* oracle: hits against GetStackTrace */
} sc;

int capture_init(JNIEnv *jni, jvmtiEnv *jvmti, int mode) {
    (void)jvmti;
    const char *oracle = getenv("CONVOY_TEST_STACK_ORACLE");
    if (oracle && strcmp(oracle, "1") == 0) cap.oracle = ORACLE_COMPARE;
    if (oracle && strcmp(oracle, "force") == 0) cap.oracle = ORACLE_FORCE;
    if (cap.oracle) {
        cv_log_warn("test oracle: stacks checked against GetStackTrace (CONVOY_TEST_STACK_ORACLE=%s)", oracle);
    }
    cap.mode = CAPTURE_JVMTI;
    if (mode != CAPTURE_ASYNC) return cap.mode;
    void *f = vmstructs_jvm_symbol(jni, "AsyncGetCallTrace");
    if (!f) {
        cap.refused = "this JVM exports no AsyncGetCallTrace";
        cv_log_warn("stacks=async: %s; stacks are captured with GetStackTrace", cap.refused);
        return cap.mode;
    }
    cap.agct = (agct_fn)f;
    cap.mode = CAPTURE_ASYNC;
    return cap.mode;
}

int capture_async(void) {
    return cap.mode == CAPTURE_ASYNC;
}

static void make_method_ids(jvmtiEnv *jvmti, jclass klass) {
    jint n = 0;
    jmethodID *methods = NULL;
    jvmtiError e = (*jvmti)->GetClassMethods(jvmti, klass, &n, &methods);
    if (e == JVMTI_ERROR_NONE) {
        if (methods) (*jvmti)->Deallocate(jvmti, (unsigned char *)methods);
    } else if (e != JVMTI_ERROR_CLASS_NOT_PREPARED) {
        /* Left to the fallback, which makes the ids of the frames it returns. */
        fetch_add_relaxed(&cap.prepare_errors, 1);
    }
}

/* Enabled only for AsyncGetCallTrace, which walks nothing while no ClassLoad is enabled. */
void JNICALL capture_on_class_load(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass) {
    (void)jvmti; (void)jni; (void)thread; (void)klass;
}

void JNICALL capture_on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass) {
    (void)jni; (void)thread;
    make_method_ids(jvmti, klass);
}

void capture_preload(jvmtiEnv *jvmti, JNIEnv *jni) {
    jint n = 0;
    jclass *classes = NULL;
    jvmtiError e = (*jvmti)->GetLoadedClasses(jvmti, &n, &classes);
    if (e != JVMTI_ERROR_NONE) {
        cv_log_warn("stacks=async: GetLoadedClasses failed (%s); methods of classes loaded before the recorder "
                    "are captured by GetStackTrace until it has seen them", cv_jvmti_error_name(e));
        return;
    }
    for (jint i = 0; i < n; i++) {
        make_method_ids(jvmti, classes[i]);
        (*jni)->DeleteLocalRef(jni, classes[i]);
    }
    store_relaxed(&cap.preloaded, (uint64_t)n);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
}

/* GetStackTrace on the current thread: the frames captured (at most depth + 1), 0 for none. */
static int get_stack_trace(jvmtiEnv *jvmti, jint skip, uint32_t depth, cv_frame *frames) {
    jint count = 0;
    jvmtiError e = (*jvmti)->GetStackTrace(jvmti, NULL, skip, (jint)depth + 1, (jvmtiFrameInfo *)frames, &count);
    return e == JVMTI_ERROR_NONE && count > 0 ? (int)count : 0;
}

static int fallback(jvmtiEnv *jvmti, int why, jint skip, uint32_t depth, cv_frame *frames) {
    fetch_add_relaxed(&cap.fallback[why], 1);
    return get_stack_trace(jvmti, skip, depth, frames);
}

static void describe_frame(jvmtiEnv *jvmti, const cv_frame *f, char *out, size_t cap_) {
    char *name = NULL, *cls_sig = NULL;
    jclass cls = NULL;
    jmethodID m = (jmethodID)(uintptr_t)f->method;
    if (m && (*jvmti)->GetMethodName(jvmti, m, &name, NULL, NULL) == JVMTI_ERROR_NONE &&
        (*jvmti)->GetMethodDeclaringClass(jvmti, m, &cls) == JVMTI_ERROR_NONE &&
        (*jvmti)->GetClassSignature(jvmti, cls, &cls_sig, NULL) == JVMTI_ERROR_NONE) {
        snprintf(out, cap_, "%s.%s@%lld", cls_sig, name, (long long)f->location);
    } else {
        snprintf(out, cap_, "%p@%lld", (void *)m, (long long)f->location);
    }
    if (name) (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
    if (cls_sig) (*jvmti)->Deallocate(jvmti, (unsigned char *)cls_sig);
}

/* Test oracle: GetStackTrace again, compared frame by frame with what async captured. */
static void oracle_compare(jvmtiEnv *jvmti, JNIEnv *jni, jint skip, uint32_t depth, const cv_frame *got, int n) {
    jvmtiFrameInfo *want = calloc((size_t)depth + 1, sizeof(*want));
    jint count = 0;
    if (!want || (*jvmti)->GetStackTrace(jvmti, NULL, skip, (jint)depth + 1, want, &count) != JVMTI_ERROR_NONE) {
        fetch_add_relaxed(&cap.oracle_failed, 1);
        free(want);
        return;
    }
    int at = -1;
    for (int i = 0; i < n && i < count && at < 0; i++) {
        if (got[i].method != (uint64_t)(uintptr_t)want[i].method || got[i].location != want[i].location) at = i;
    }
    if (at < 0 && n != count) at = n < count ? n : count;
    if (at < 0) {
        fetch_add_relaxed(&cap.equal, 1);
        free(want);
        return;
    }
    fetch_add_relaxed(&cap.different, 1);
    pthread_mutex_lock(&oracle_lock);
    if (cap.nexamples < ORACLE_EXAMPLES) {
        char a[112] = "(none)", b[112] = "(none)";
        if (at < n) describe_frame(jvmti, &got[at], a, sizeof(a));
        if (at < count) {
            cv_frame w = {(uint64_t)(uintptr_t)want[at].method, want[at].location};
            describe_frame(jvmti, &w, b, sizeof(b));
        }
        snprintf(cap.examples[cap.nexamples++], sizeof(cap.examples[0]), "frame %d of %d/%d: async %s jvmti %s",
                 at, n, (int)count, a, b);
    }
    pthread_mutex_unlock(&oracle_lock);
    (void)jni;
    free(want);
}

/* The method of the current thread's bottom frame (GetStackTrace from the bottom), 0 if none. */
static uint64_t bottom_frame(jvmtiEnv *jvmti) {
    jvmtiFrameInfo f;
    jint count = 0;
    if ((*jvmti)->GetStackTrace(jvmti, NULL, -1, 1, &f, &count) != JVMTI_ERROR_NONE || count != 1) return 0;
    return (uint64_t)(uintptr_t)f.method;
}

/* A GetStackTrace capture of n frames: if it is the whole stack, its last frame is the bottom. */
static int learned(uint64_t *bottom, const cv_frame *frames, int n, uint32_t depth) {
    if (bottom && n > 0 && (uint32_t)n <= depth) *bottom = frames[n - 1].method;
    return n;
}

static int fallback_learning(jvmtiEnv *jvmti, int why, jint skip, uint32_t depth, cv_frame *frames,
                             uint64_t *bottom) {
    return learned(bottom, frames, fallback(jvmti, why, skip, depth, frames), depth);
}

int capture_walk(jvmtiEnv *jvmti, JNIEnv *jni, int is_virtual, int holds_monitor, jint skip, uint32_t depth,
                 cv_frame *frames, uint64_t *bottom) {
    if (cap.mode != CAPTURE_ASYNC) return get_stack_trace(jvmti, skip, depth, frames);
    if (CV_UNLIKELY(is_virtual)) return fallback(jvmti, FB_VIRTUAL, skip, depth, frames);
    if (CV_UNLIKELY(cap.oracle == ORACLE_FORCE)) return fallback(jvmti, FB_FORCED, skip, depth, frames);
    agct_trace trace;
    trace.env_id = jni;
    trace.num_frames = 0;
    trace.frames = (agct_frame *)(void *)frames;
    cap.agct(&trace, (jint)(depth + 1 + (uint32_t)skip), NULL);
    int n = trace.num_frames;
    if (CV_UNLIKELY(n <= 0)) {
        if (n == AGCT_GC_ACTIVE && holds_monitor) {
            fetch_add_relaxed(&cap.skipped_gc, 1);
            return 0;
        }
        int why = n == 0 ? FB_EMPTY : n == AGCT_GC_ACTIVE ? FB_GC : n == AGCT_DEOPT ? FB_DEOPT : FB_NOT_WALKED;
        return fallback_learning(jvmti, why, skip, depth, frames, bottom);
    }
    n = capture_convert(frames, n, skip);
    if (CV_UNLIKELY(n < 0)) {
        return fallback_learning(jvmti, n == CONVERT_NO_METHOD ? FB_NO_METHOD : FB_NO_BCI, skip, depth, frames, bottom);
    }
    if (n == 0) return 0;
    /* The whole stack, says AsyncGetCallTrace: then it ends at the thread's bottom frame. It
     * stops early, without a word, at a frame whose caller it cannot find (seen under -Xcomp). */
    if (bottom && (uint32_t)n <= depth) {
        if (CV_UNLIKELY(*bottom == 0)) *bottom = bottom_frame(jvmti);
        if (CV_UNLIKELY(frames[n - 1].method != *bottom)) {
            return fallback_learning(jvmti, FB_TRUNCATED, skip, depth, frames, bottom);
        }
    }
    if (CV_UNLIKELY(cap.oracle == ORACLE_COMPARE)) oracle_compare(jvmti, jni, skip, depth, frames, n);
    return n;
}

uint64_t capture_fallbacks(void) {
    uint64_t n = load_relaxed(&cap.skipped_gc);
    for (int i = 0; i < FB_COUNT; i++) n += load_relaxed(&cap.fallback[i]);
    return n;
}

void capture_describe(char *out, size_t cap_) {
    int len = snprintf(out, cap_, "mode=%s", cap.mode == CAPTURE_ASYNC ? "async" : "jvmti");
    if (cap.refused && len >= 0 && (size_t)len < cap_) {
        len += snprintf(out + len, cap_ - (size_t)len, " refused=\"%s\"", cap.refused);
    }
    if (cap.mode != CAPTURE_ASYNC) return;
    if (len >= 0 && (size_t)len < cap_) {
        len += snprintf(out + len, cap_ - (size_t)len, " preloaded=%llu prepare_errors=%llu skipped.gc=%llu",
                        (unsigned long long)load_relaxed(&cap.preloaded),
                        (unsigned long long)load_relaxed(&cap.prepare_errors),
                        (unsigned long long)load_relaxed(&cap.skipped_gc));
    }
    for (int i = 0; i < FB_COUNT && len >= 0 && (size_t)len < cap_; i++) {
        len += snprintf(out + len, cap_ - (size_t)len, " fallback.%s=%llu", FB_NAMES[i],
                        (unsigned long long)load_relaxed(&cap.fallback[i]));
    }
}

int capture_oracle_describe(char *out, size_t cap_) {
    if (!cap.oracle) return 0;
    pthread_mutex_lock(&oracle_lock);
    int len = snprintf(out, cap_, "equal=%llu different=%llu failed=%llu cached.equal=%llu cached.different=%llu",
                       (unsigned long long)load_relaxed(&cap.equal), (unsigned long long)load_relaxed(&cap.different),
                       (unsigned long long)load_relaxed(&cap.oracle_failed),
                       (unsigned long long)load_relaxed(&sc.equal), (unsigned long long)load_relaxed(&sc.different));
    for (int i = 0; i < cap.nexamples && len >= 0 && (size_t)len < cap_; i++) {
        len += snprintf(out + len, cap_ - (size_t)len, "; %s", cap.examples[i]);
    }
    pthread_mutex_unlock(&oracle_lock);
    return 1;
}

int capture_cache_init(jvmtiEnv *jvmti, JNIEnv *jni, int wanted) {
    if (!wanted) {
        snprintf(sc.off, sizeof(sc.off), "off: option bench.stackcache=off");
        return 0;
    }
    const char *why = NULL;
    if (frames_init(jvmti, jni, &why, &sc.interpreted) != 0) {
        snprintf(sc.off, sizeof(sc.off), "off: %s", why);
        cv_log_warn("stackcache: off, every stack is walked: %s", why);
        return 0;
    }
    sc.on = 1;
    return 1;
}

static int chain_read(void *ctx, frames_check *out, int cap_) {
    return frames_chain((JNIEnv *)ctx, out, cap_);
}

uint32_t capture_cache_find(cv_stack_cache *c, uint32_t skip) {
    return stackcache_find(c, skip);
}

void capture_cache_store(cv_stack_cache *c, JNIEnv *jni, uint32_t skip, uint32_t id) {
    int n = stackcache_put(c, skip, id, chain_read, jni);
    if (n > 0) {
        fetch_add_relaxed(&sc.stored, 1);
    } else if (n < 0 && n >= -FRAMES_REFUSALS) {
        fetch_add_relaxed(&sc.refused[-n - 1], 1);
    }
}

int capture_oracle_compares(void) {
    return cap.oracle == ORACLE_COMPARE;
}

int capture_oracle_cached(jvmtiEnv *jvmti, jint skip, uint32_t depth, cv_frame *frames) {
    return cap.oracle == ORACLE_COMPARE ? get_stack_trace(jvmti, skip, depth, frames) : 0;
}

void capture_oracle_cached_result(jvmtiEnv *jvmti, int equal, const cv_frame *frames, int n) {
    if (equal) {
        fetch_add_relaxed(&sc.equal, 1);
        return;
    }
    fetch_add_relaxed(&sc.different, 1);
    pthread_mutex_lock(&oracle_lock);
    if (cap.nexamples < ORACLE_EXAMPLES) {
        char a[112] = "(none)";
        if (n > 0) describe_frame(jvmti, &frames[0], a, sizeof(a));
        snprintf(cap.examples[cap.nexamples++], sizeof(cap.examples[0]),
                 "cached stack differs from GetStackTrace's (%d frames, top %s)", n, a);
    }
    pthread_mutex_unlock(&oracle_lock);
}

void capture_cache_describe(char *out, size_t cap_) {
    if (!sc.on) {
        snprintf(out, cap_, "%s", sc.off[0] ? sc.off : "off: no stacks");
        return;
    }
    int len = snprintf(out, cap_, "on hits=%llu stored=%llu interpreted=%s", (unsigned long long)threads_stack_hits(),
                       (unsigned long long)load_relaxed(&sc.stored), sc.interpreted ? "read" : "refused");
    for (int i = 0; i < FRAMES_REFUSALS && len >= 0 && (size_t)len < cap_; i++) {
        len += snprintf(out + len, cap_ - (size_t)len, " refused.%s=%llu", frames_refusal_name(-i - 1),
                        (unsigned long long)load_relaxed(&sc.refused[i]));
    }
}
