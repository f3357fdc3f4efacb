#include "sampler.h"
#include "agent.h"
#include "arch.h"
#include "objects.h"
#include "ownerside.h"
#include "snapshot_format.h"
#include "threads.h"
#include "timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

#define ACC_STATIC       0x0008
#define ACC_SYNCHRONIZED 0x0020
#define ACC_NATIVE       0x0100
#define ACC_ABSTRACT     0x0400

/* Blocks looked at per poll, and sampled per poll at most. */
#define MAX_BLOCKS 1024
#define MAX_DUE    64
/* Due blocks already counted as left for the rate limit (so each counts once). */
#define LIMITED_SEEN 256
/* Bytes of depth maps the method cache keeps at most. */
#define CACHE_BYTES (1u << 20)

/* A method as the holding-frame test needs it: its modifiers and the monitorenter depth before
 * each bytecode index (NULL: none known, e.g. native, or the bytecodes could not be read). */
typedef struct {
    jmethodID method;
    jint      modifiers;
    uint32_t  len;
    uint8_t  *depth;
} method_info;

static struct {
    const char *off;            /* NULL while on */
    uint64_t threshold_ns;
    uint32_t stack_depth;
    cv_stacks *stacks;
    int have_bytecodes;
    jclass aos;                 /* java.util.concurrent.locks.AbstractOwnableSynchronizer, global */
    jfieldID aos_owner;         /* its exclusiveOwnerThread */
    jvmtiFrameInfo *frames;     /* stack_depth + 1 */
    uint8_t *judged;            /* stack_depth */
    cv_block *blocks;           /* MAX_BLOCKS */
    method_info cache[CV_SAMPLER_CACHE];
    uint64_t cache_bytes;
    uint64_t limited_seen[LIMITED_SEEN][2];   /* ring id, block start */
    size_t nlimited_seen;
    /* outcomes, atomic: read by snapshots (sampler_info) */
    uint64_t taken, ended, noowner, notheld, failed, limited;
} S = {.off = "off: option ownerstacks=off"};

void sampler_off(const char *reason) {
    S.off = reason;
}

int sampler_init(jvmtiEnv *jvmti, JNIEnv *jni, uint64_t threshold_ns, uint32_t stack_depth, cv_stacks *stacks,
                 int have_bytecodes) {
    (void)jvmti;
    S.threshold_ns = threshold_ns;
    S.stack_depth = stack_depth;
    S.stacks = stacks;
    S.have_bytecodes = have_bytecodes;
    S.frames = calloc((size_t)stack_depth + 1, sizeof(jvmtiFrameInfo));
    S.judged = calloc((size_t)stack_depth + 1, 1);
    S.blocks = calloc(MAX_BLOCKS, sizeof(cv_block));
    if (!S.frames || !S.judged || !S.blocks) {
        sampler_off("off: no memory for the sampler");
        return -1;
    }
    jclass aos = (*jni)->FindClass(jni, "java/util/concurrent/locks/AbstractOwnableSynchronizer");
    if (aos) {
        S.aos_owner = (*jni)->GetFieldID(jni, aos, "exclusiveOwnerThread", "Ljava/lang/Thread;");
        if (S.aos_owner) S.aos = (*jni)->NewGlobalRef(jni, aos);
        (*jni)->DeleteLocalRef(jni, aos);
    }
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);   /* no such class or field: locks get no owner */
    S.off = NULL;
    return 0;
}

void sampler_info(char *buf, size_t cap) {
    if (S.off) {
        snprintf(buf, cap, "%s", S.off);
        return;
    }
    snprintf(buf, cap,
             "threshold=%llums rate=%u/s frames=%s taken=%llu ended=%llu noowner=%llu notheld=%llu failed=%llu "
             "limited=%llu",
             (unsigned long long)(S.threshold_ns / 1000000), CV_OWNER_RATE,
             S.have_bytecodes ? "bytecodes" : "synchronized-methods",
             (unsigned long long)load_relaxed(&S.taken), (unsigned long long)load_relaxed(&S.ended),
             (unsigned long long)load_relaxed(&S.noowner), (unsigned long long)load_relaxed(&S.notheld),
             (unsigned long long)load_relaxed(&S.failed), (unsigned long long)load_relaxed(&S.limited));
}

/* ---- the holding frame ---- */

/* The method's entry in the cache, filled on first use; NULL if JVMTI cannot describe it. */
static method_info *method(jvmtiEnv *jvmti, jmethodID m) {
    uintptr_t h = (uintptr_t)m;
    h ^= h >> 17;
    h *= 0x9E3779B97F4A7C15ull;
    method_info *e = &S.cache[(h >> 40) % CV_SAMPLER_CACHE];
    if (e->method == m) return e;
    /* the slot goes to this method: its old depth map is freed */
    S.cache_bytes -= e->len;
    free(e->depth);
    memset(e, 0, sizeof(*e));
    jint mods = 0;
    if ((*jvmti)->GetMethodModifiers(jvmti, m, &mods) != JVMTI_ERROR_NONE) return NULL;
    e->method = m;
    e->modifiers = mods;
    if (!S.have_bytecodes || (mods & (ACC_NATIVE | ACC_ABSTRACT))) return e;
    jint len = 0;
    unsigned char *code = NULL;
    if ((*jvmti)->GetBytecodes(jvmti, m, &len, &code) != JVMTI_ERROR_NONE || !code) return e;
    if (len > 0 && len <= 65535 && S.cache_bytes + (uint64_t)len <= CACHE_BYTES) {
        uint8_t *depth = malloc((size_t)len);
        if (depth && ownerside_monitor_depths(code, (uint32_t)len, depth) == 0) {
            e->depth = depth;
            e->len = (uint32_t)len;
            S.cache_bytes += e->len;
        } else {
            free(depth);
        }
    }
    (*jvmti)->Deallocate(jvmti, code);
    return e;
}

/* Whether frame f of the owner can hold `lock` (CV_HOLD_*). `blocked_top`: f is the top frame of
 * an owner blocked entering a monitor, which it does not hold yet (ownerside_frame_depth): a
 * synchronized method blocked at its start is entering its own monitor. */
static uint8_t judge(jvmtiEnv *jvmti, JNIEnv *jni, const jvmtiFrameInfo *f, jobject lock, int blocked_top) {
    method_info *mi = method(jvmti, f->method);
    if (!mi) return CV_HOLD_NONE;
    uint8_t verdict = CV_HOLD_NONE;
    if ((mi->modifiers & ACC_SYNCHRONIZED) && !(blocked_top && f->location <= 0)) {
        jclass cls = NULL;
        if ((*jvmti)->GetMethodDeclaringClass(jvmti, f->method, &cls) == JVMTI_ERROR_NONE && cls) {
            if (mi->modifiers & ACC_STATIC) {
                if ((*jni)->IsSameObject(jni, cls, lock)) verdict = CV_HOLD_SURE;
            } else if ((*jni)->IsInstanceOf(jni, lock, cls)) {
                verdict = CV_HOLD_MAYBE;
            }
            (*jni)->DeleteLocalRef(jni, cls);
        }
    }
    if (verdict == CV_HOLD_NONE && ownerside_frame_depth(mi->depth, mi->len, f->location, blocked_top) > 0) {
        verdict = CV_HOLD_MAYBE;
    }
    return verdict;
}

/* ---- one sample ---- */

enum { TAKEN, ENDED, NOOWNER, NOTHELD, FAILED };

static int sample_in_frame(jvmtiEnv *jvmti, JNIEnv *jni, const cv_block *blocks, size_t n, size_t i) {
    const cv_block *b = &blocks[i];
    jobject lock = objects_local_ref(jni, b->obj);
    if (!lock) return ENDED;   /* the object is gone, or the table was reset */
    cv_record newest;
    int has_newest = 0;
    int64_t owner_tid;
    jobject owner;
    if (b->type == EVENT_PARK) {
        if (!S.aos || !(*jni)->IsInstanceOf(jni, lock, S.aos)) return NOOWNER;
        jobject t = (*jni)->GetObjectField(jni, lock, S.aos_owner);
        if ((*jni)->ExceptionCheck(jni)) {
            (*jni)->ExceptionClear(jni);
            return FAILED;
        }
        if (!t) return NOOWNER;   /* released, or held shared */
        owner_tid = threads_tid_field(jni, t);
        if (owner_tid <= 0 || owner_tid == b->java_tid) return NOOWNER;
        owner = threads_thread_ref(jni, owner_tid, &newest, &has_newest);
        if (!owner) owner = t;   /* a thread the recorder has no state for */
    } else {
        owner_tid = ownerside_monitor_owner(blocks, n, i);
        if (owner_tid <= 0) return NOOWNER;
        owner = threads_thread_ref(jni, owner_tid, &newest, &has_newest);
        if (!owner) return NOOWNER;
    }
    jint st = 0;
    if ((*jvmti)->GetThreadState(jvmti, owner, &st) != JVMTI_ERROR_NONE) return FAILED;
    if (!(st & JVMTI_THREAD_STATE_ALIVE)) return ENDED;
    uint32_t state = ownerside_state(st);
    uint64_t ts = cv_now_ns();
    jint count = 0;
    if (S.stack_depth > 0) {
        jvmtiError e = (*jvmti)->GetStackTrace(jvmti, owner, 0, (jint)S.stack_depth + 1, S.frames, &count);
        if (e == JVMTI_ERROR_THREAD_NOT_ALIVE) return ENDED;
        if (e != JVMTI_ERROR_NONE || count < 0) return FAILED;
    }
    uint32_t depth = (uint32_t)count > S.stack_depth ? S.stack_depth : (uint32_t)count;
    int frame = -1, exact = 0;
    if (b->type == EVENT_MONITOR_ENTER && depth > 0) {
        for (uint32_t k = 0; k < depth; k++) {
            S.judged[k] = judge(jvmti, jni, &S.frames[k], lock, k == 0 && state == OSTATE_BLOCKED);
        }
        frame = ownerside_holding_frame(S.judged, depth, &exact);
        if (frame < 0) return NOTHELD;
    }
    uint32_t stack = depth > 0 ? stacks_intern(S.stacks, (const cv_frame *)S.frames, depth,
                                               (uint32_t)count > S.stack_depth ? CV_STACK_TRUNCATED : 0)
                               : 0;
    uint64_t on = 0;
    if (has_newest) {
        uint8_t type = (uint8_t)(newest.meta & 0xFF);
        if ((state == OSTATE_BLOCKED && type == EVENT_MONITOR_ENTER) || (state == OSTATE_WAITING && type == EVENT_MONITOR_WAIT) ||
            (state == OSTATE_PARKED && type == EVENT_PARK)) {
            on = newest.obj;
        }
    }
    cv_record r = ownerside_record(ts, b->obj, owner_tid, state, frame, exact, on, stack);
    return threads_append_sample(jni, b->ring_id, b->since_ns, b->obj, &r) ? TAKEN : ENDED;
}

static void sample(jvmtiEnv *jvmti, JNIEnv *jni, const cv_block *blocks, size_t n, size_t i) {
    threads_mark_sampled(blocks[i].ring_id, blocks[i].since_ns);   /* one attempt per block */
    int outcome = FAILED;
    if ((*jni)->PushLocalFrame(jni, 64) == 0) {
        outcome = sample_in_frame(jvmti, jni, blocks, n, i);
        (*jni)->PopLocalFrame(jni, NULL);
    }
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
    uint64_t *counter = outcome == TAKEN ? &S.taken : outcome == ENDED ? &S.ended : outcome == NOOWNER ? &S.noowner
                      : outcome == NOTHELD ? &S.notheld : &S.failed;
    fetch_add_relaxed(counter, 1);
}

/* A due block left without a token: counted once. */
static void left_for_the_limit(const cv_block *b) {
    for (size_t k = 0; k < S.nlimited_seen; k++) {
        if (S.limited_seen[k][0] == b->ring_id && S.limited_seen[k][1] == b->since_ns) return;
    }
    if (S.nlimited_seen == LIMITED_SEEN) S.nlimited_seen = 0;
    S.limited_seen[S.nlimited_seen][0] = b->ring_id;
    S.limited_seen[S.nlimited_seen][1] = b->since_ns;
    S.nlimited_seen++;
    fetch_add_relaxed(&S.limited, 1);
}

/* The drain's signal (threads_owner_watch): a block is due. */
static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake_cond = PTHREAD_COND_INITIALIZER;
static int woken;

void sampler_wake(void) {
    pthread_mutex_lock(&wake_lock);
    woken = 1;
    pthread_cond_signal(&wake_cond);
    pthread_mutex_unlock(&wake_lock);
}

/* Until the drain says a block is due, or `ms` passed (without the drain: a look every so often). */
static void wait_for_due(uint32_t ms) {
    struct timespec until = cv_deadline_after_ms(ms);
    pthread_mutex_lock(&wake_lock);
    while (!woken && pthread_cond_timedwait(&wake_cond, &wake_lock, &until) == 0) {
    }
    woken = 0;
    pthread_mutex_unlock(&wake_lock);
}

void JNICALL sampler_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg) {
    (void)arg;
    cv_limiter limiter;
    ownerside_limiter_init(&limiter, CV_OWNER_RATE, cv_now_ns());
    size_t due[MAX_DUE];
    uint64_t last = 0;
    while (agent_is_live()) {
        wait_for_due(1000);
        /* at most one look a millisecond, however often the drain signals */
        uint64_t since = cv_now_ns() - last;
        if (since < 1000000) {
            struct timespec pause = {0, (long)(1000000 - since)};
            nanosleep(&pause, NULL);
        }
        last = cv_now_ns();
        if (!agent_is_live() || !agent_is_recording()) continue;
        size_t n = threads_blocks(S.blocks, MAX_BLOCKS);
        if (n > MAX_BLOCKS) n = MAX_BLOCKS;
        uint64_t now = cv_now_ns();
        size_t m = ownerside_select(S.blocks, n, now, S.threshold_ns, due, MAX_DUE);
        for (size_t k = 0; k < m; k++) {
            if (!ownerside_limiter_take(&limiter, cv_now_ns())) {
                for (size_t j = k; j < m; j++) left_for_the_limit(&S.blocks[due[j]]);
                break;
            }
            sample(jvmti, jni, S.blocks, n, due[k]);
        }
    }
}
