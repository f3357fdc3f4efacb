/*
 * Agent lifecycle: the JVMTI environment, capabilities, start (tables within the memory cap,
 * running threads, events, the agent's own threads), recording on/off, reset, counters and
 * snapshots.
 *
 * The library is loaded by the Java agent with System.load, both when the agent jar
 * starts with the JVM and when it is attached later; JNI_OnLoad (jni_bridge.c) only
 * obtains the JVMTI environment, through agent_on_load(). agent_start() then adds
 * capabilities (live phase), allocates the tables within the memory cap, enumerates
 * running threads and enables the events.
 *
 * The rest of the agent is in files of their own (agent_state.h): the callbacks
 * (callbacks.c), event recording (record.h/.c), the probes (probes.c), the drain and the
 * repository (repository.c), the test oracles (oracles.c).
 */
#include "agent_state.h"
#include "capture.h"
#include "history.h"
#include "objects.h"
#include "owners.h"
#include "sampler.h"
#include "snapshot_format.h"
#include "threads.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

cv_agent_state g_cv;

#define GC_RING_RECORDS 4096

/* Serializes agent_set_recording and agent_reset: the `recording` flag and the JVMTI event
 * switch are changed together, so that concurrent callers cannot leave them disagreeing. */
static pthread_mutex_t switch_lock = PTHREAD_MUTEX_INITIALIZER;

int agent_on_load(JavaVM *vm, cv_error *err) {
    jvmtiEnv *jvmti = NULL;
    jint rc = (*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2);
    if (rc != JNI_OK) return cv_fail(err, "JVMTI 1.2 is not available (GetEnv returned %d)", (int)rc);
    g_cv.jvmti = jvmti;
    return 0;
}


static uint64_t ids_memory(void) {
    return g_cv.ids ? sizeof(cv_idcache) : 0;
}

/* The maker of held objects' weak references (objects.h, "Held references"): a round every
 * 10 ms while first sights come, every 100 ms once a round found none, sooner when a shard's
 * entries fill up; until VMDeath. */
static void JNICALL maker_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg) {
    (void)jvmti; (void)arg;
    while (load_acquire(&g_cv.live)) objects_hold_wait(objects_hold_make(jni) ? 10 : 100);
}

/* Starts an agent thread (left out of the recording: is_agent_thread in callbacks.c) named `name` running `run`; its
 * Thread's global reference is stored in *slot first. NULL, or why it could not start. */
static const char *start_agent_thread(jvmtiEnv *jvmti, JNIEnv *jni, const char *name, jvmtiStartFunction run,
                                      jobject *slot) {
    jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");
    jmethodID init = cls ? (*jni)->GetMethodID(jni, cls, "<init>", "(Ljava/lang/String;)V") : NULL;
    jstring jname = init ? (*jni)->NewStringUTF(jni, name) : NULL;
    jobject thread = jname ? (*jni)->NewObject(jni, cls, init, jname) : NULL;
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
    jobject global = thread ? (*jni)->NewGlobalRef(jni, thread) : NULL;
    if (global) store_release(slot, global);   /* before RunAgentThread: its ThreadStart */
    const char *off = NULL;
    if (!global) {
        off = "cannot create the Thread";
    } else {
        jvmtiError e = (*jvmti)->RunAgentThread(jvmti, thread, run, NULL, JVMTI_THREAD_NORM_PRIORITY);
        if (e != JVMTI_ERROR_NONE) off = "RunAgentThread failed";
    }
    if (thread) (*jni)->DeleteLocalRef(jni, thread);
    if (jname) (*jni)->DeleteLocalRef(jni, jname);
    if (cls) (*jni)->DeleteLocalRef(jni, cls);
    return off;
}

/* Starts the maker, an agent thread (left out of the recording), then the held
 * array. NULL, or why first sights keep making their own weak references. */
static const char *start_maker(jvmtiEnv *jvmti, JNIEnv *jni) {
    const char *failed = start_agent_thread(jvmti, jni, "Convoy object references", maker_main, &g_cv.maker);
    if (failed && !load_acquire(&g_cv.maker)) return "off: cannot create the maker's Thread";
    if (failed) return "off: RunAgentThread failed";
    if (objects_hold_start(jni) != 0) return "off: cannot allocate the held array";   /* the maker idles */
    return NULL;
}

/* The owner's side of long blocks (sampler.h), when the option asks for it; never fails the agent. */
static void start_sampler(jvmtiEnv *jvmti, JNIEnv *jni, const cv_config *config) {
    if (!config->owner_stacks_ns) return;   /* INFO says "off: option ownerstacks=off" */
    if (sampler_init(jvmti, jni, config->owner_stacks_ns, config->stack_depth, g_cv.stacks, g_cv.has_bytecodes)) {
        cv_log_warn("the owner's side of long blocks is off: no memory for its sampler");
        return;
    }
    const char *failed = start_agent_thread(jvmti, jni, "Convoy owner stacks", sampler_main, &g_cv.sampler);
    if (failed) {
        sampler_off("off: its thread did not start");
        cv_log_warn("the owner's side of long blocks is off: its thread did not start (%s)", failed);
    } else {
        threads_owner_watch(config->owner_stacks_ns, sampler_wake);
    }
}

/*
 * JDK 21+: absent from the JDK 17 jvmti.h the library is compiled against (the JVMTI spec fixes
 * its value), the capability can_support_virtual_threads is the bit that follows
 * can_generate_sampled_object_alloc_events (the events: agent_state.h). Used only when
 * GetVersionNumber says 21 or later.
 */
#define CV_JVMTI_VERSION_21 0x30150000

/* The byte and bit of can_support_virtual_threads: the bit after
 * can_generate_sampled_object_alloc_events, found by setting that one (gcc on x86_64 allocates
 * bit-fields from the least significant bit up). 0 if it is the top bit of its unit. */
static int vthread_capability_bit(size_t *byte, uint8_t *mask) {
    jvmtiCapabilities c;
    memset(&c, 0, sizeof(c));
    c.can_generate_sampled_object_alloc_events = 1;
    const uint8_t *p = (const uint8_t *)&c;
    for (size_t i = 0; i < sizeof(c); i++) {
        if (p[i] == 0) continue;
        if (p[i] & 0x80) {
            /* The next bit is in the next byte (bit 0), still in the same 32-bit unit. */
            if ((i + 1) % 4 == 0) return 0;
            *byte = i + 1;
            *mask = 1;
        } else {
            *byte = i;
            *mask = (uint8_t)(p[i] << 1);
        }
        return 1;
    }
    return 0;
}

static int jvmti_version_at_least(jvmtiEnv *jvmti, jint version) {
    jint v = 0;
    if ((*jvmti)->GetVersionNumber(jvmti, &v) != JVMTI_ERROR_NONE) return 0;
    jint want_major = (version & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR;
    jint major = (v & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR;
    return (v & JVMTI_VERSION_MASK_INTERFACE_TYPE) == JVMTI_VERSION_INTERFACE_JVMTI && major >= want_major;
}

static int add_capabilities(jvmtiEnv *jvmti, cv_error *err) {
    jvmtiCapabilities potential, caps;
    memset(&potential, 0, sizeof(potential));
    CV_JVMTI_OR_FAIL(err, (*jvmti)->GetPotentialCapabilities(jvmti, &potential),
                     "GetPotentialCapabilities");
    memset(&caps, 0, sizeof(caps));
    caps.can_generate_monitor_events = 1;
    caps.can_get_line_numbers = 1;
    caps.can_get_source_file_name = 1;
    if (!potential.can_generate_monitor_events) {
        return cv_fail(err, "this JVM cannot generate monitor events in the live phase");
    }
    caps.can_get_line_numbers = potential.can_get_line_numbers;
    caps.can_get_source_file_name = potential.can_get_source_file_name;
    const char *oracle = getenv("CONVOY_TEST_OWNER_ORACLE");
    if (oracle && strcmp(oracle, "1") == 0 && potential.can_get_monitor_info && potential.can_suspend) {
        caps.can_get_monitor_info = 1;
        caps.can_suspend = 1;
        g_cv.owner_oracle = 1;
        cv_log_warn("test oracle: GetObjectMonitorUsage at every contended enter (CONVOY_TEST_OWNER_ORACLE)");
    }
    caps.can_generate_garbage_collection_events = potential.can_generate_garbage_collection_events;
    /* The owner's side of long blocks reads methods' bytecodes for the frame that holds a monitor. */
    caps.can_get_bytecodes = g_cv.config.owner_stacks_ns && !g_cv.config.empty_callbacks && potential.can_get_bytecodes;
    size_t vt_byte = 0;
    uint8_t vt_mask = 0;
    int want_vthreads = g_cv.config.vthread_events && !g_cv.config.empty_callbacks &&
                        jvmti_version_at_least(jvmti, CV_JVMTI_VERSION_21) &&
                        vthread_capability_bit(&vt_byte, &vt_mask) &&
                        (((const uint8_t *)&potential)[vt_byte] & vt_mask);
    if (want_vthreads) ((uint8_t *)&caps)[vt_byte] |= vt_mask;
    jvmtiError added = (*jvmti)->AddCapabilities(jvmti, &caps);
    if (added != JVMTI_ERROR_NONE && want_vthreads) {
        cv_log_warn("can_support_virtual_threads refused (%s): virtual threads' start and end are not recorded",
                    cv_jvmti_error_name(added));
        want_vthreads = 0;
        ((uint8_t *)&caps)[vt_byte] &= (uint8_t)~vt_mask;
        added = (*jvmti)->AddCapabilities(jvmti, &caps);
    }
    CV_JVMTI_OR_FAIL(err, added, "AddCapabilities");
    g_cv.has_vthread_events = want_vthreads && g_cv.config.vthread_events == 1;
    g_cv.has_gc_events = caps.can_generate_garbage_collection_events;
    g_cv.has_bytecodes = caps.can_get_bytecodes;
    if (!g_cv.has_gc_events) cv_log_warn("GC pause events are not available in this JVM; not recorded");
    if (!caps.can_get_line_numbers) cv_log_warn("line numbers are not available; stacks show bytecode indexes only");
    return 0;
}

static int set_event(jvmtiEnv *jvmti, jvmtiEventMode mode, jvmtiEvent ev, const char *name, cv_error *err) {
    jvmtiError e = (*jvmti)->SetEventNotificationMode(jvmti, mode, ev, NULL);
    if (e != JVMTI_ERROR_NONE) return cv_fail_jvmti(err, e, name, __FILE__, __LINE__);
    return 0;
}

static int set_recording_events(int on, cv_error *err) {
    jvmtiEnv *jvmti = g_cv.jvmti;
    jvmtiEventMode mode = on ? JVMTI_ENABLE : JVMTI_DISABLE;
    if (set_event(jvmti, mode, JVMTI_EVENT_MONITOR_CONTENDED_ENTER, "enable MonitorContendedEnter", err) ||
        set_event(jvmti, mode, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, "enable MonitorContendedEntered", err) ||
        set_event(jvmti, mode, JVMTI_EVENT_MONITOR_WAIT, "enable MonitorWait", err) ||
        set_event(jvmti, mode, JVMTI_EVENT_MONITOR_WAITED, "enable MonitorWaited", err)) {
        return -1;
    }
    if (g_cv.has_gc_events && !g_cv.config.empty_callbacks &&
        (set_event(jvmti, mode, JVMTI_EVENT_GARBAGE_COLLECTION_START, "enable GarbageCollectionStart", err) ||
         set_event(jvmti, mode, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, "enable GarbageCollectionFinish", err))) {
        return -1;
    }
    return 0;
}

static int set_recording_locked(int on, cv_error *err) {
    if (on) {
        fetch_add_relaxed(&g_cv.epoch, 1);
        store_release(&g_cv.recording, 1);
        if (set_recording_events(1, err) == 0) {
            /* From here on every pause is counted: the id cache may be used in this epoch. */
            if (g_cv.has_gc_events) store_release(&g_cv.gc_tracked, load_relaxed(&g_cv.epoch));
            return 0;
        }
        /* Not every event could be enabled: back to off, so flag and events agree. */
        store_release(&g_cv.recording, 0);
        cv_error ignored;
        set_recording_events(0, &ignored);
        return -1;
    }
    store_release(&g_cv.recording, 0);
    return set_recording_events(0, err);
}

int agent_set_recording(int on, cv_error *err) {
    if (!load_acquire(&g_cv.started)) return cv_fail(err, "the recorder is not started");
    pthread_mutex_lock(&switch_lock);
    int rc = set_recording_locked(on, err);
    pthread_mutex_unlock(&switch_lock);
    return rc;
}

int agent_set_releasers(JNIEnv *jni, int arm, cv_error *err) {
    if (!load_acquire(&g_cv.started)) {
        cv_fail(err, "the recorder is not started");
        return -2;
    }
    return owners_releasers_arm(g_cv.jvmti, jni, arm);
}

int agent_reset(JNIEnv *jni, cv_error *err) {
    if (!load_acquire(&g_cv.started) || g_cv.config.empty_callbacks) {
        return cv_fail(err, "the recorder is not started");
    }
    pthread_mutex_lock(&switch_lock);
    /* Writers are never stopped: the rings keep their records and snapshots skip the old
     * ones. The object table is emptied first (objects.h, Reset): an id a writer looked up
     * before is stale from then on and names no object; the time is taken after, so every
     * record a snapshot keeps was timestamped after the table was emptied. A new epoch stops
     * an end event from reusing the id its begin looked up before the reset. */
    objects_reset(jni);
    threads_history_clear();
    uint32_t epoch = fetch_add_relaxed(&g_cv.epoch, 1) + 1;
    /* Recording goes on with its GC events enabled: the id cache carries on in the new epoch. */
    if (load_acquire(&g_cv.recording) && g_cv.has_gc_events) store_release(&g_cv.gc_tracked, epoch);
    store_release(&g_cv.reset_mono, cv_now_ns());
    pthread_mutex_unlock(&switch_lock);
    return 0;
}

int agent_restart_timing(cv_error *err) {
    if (!load_acquire(&g_cv.started)) return cv_fail(err, "the recorder is not started");
    if (!g_cv.config.timing) return cv_fail(err, "callback timing is off (agent option bench.timing=on turns it on)");
    threads_timing_restart();
    return 0;
}

/* bench.timing=on: the origin of the tick-to-ns conversion, and what one stamp costs (the mean of
 * a run of back-to-back reads; the stamps' cost is inside the stages they delimit). */
static void timing_calibrate_start(void) {
    enum { STAMPS = 4096 };
    uint64_t first = cv_ticks(), last = first;
    for (int i = 0; i < STAMPS; i++) last = cv_ticks();
    g_cv.stamp_ticks = (double)(last - first) / STAMPS;
    g_cv.timing_ticks0 = cv_ticks();
    g_cv.timing_mono0 = cv_now_ns();
}

/* Nanoseconds per tick, measured over the time since timing_calibrate_start. */
static double timing_ns_per_tick(void) {
#if defined(__x86_64__) || defined(__i386__)
    uint64_t ticks = cv_ticks() - g_cv.timing_ticks0;
    uint64_t ns = cv_now_ns() - g_cv.timing_mono0;
    return ticks ? (double)ns / (double)ticks : 0;
#else
    return 1.0; /* cv_ticks is the monotonic clock */
#endif
}

static uint64_t clamp(uint64_t v, uint64_t lo, uint64_t hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

int agent_start(JNIEnv *jni, const cv_config *config, cv_error *err) {
    if (g_cv.started) return cv_fail(err, "the recorder is already started in this JVM");
    jvmtiEnv *jvmti = g_cv.jvmti;
    if (!jvmti) return cv_fail(err, "no JVMTI environment (JVMTI 1.2 unavailable)");
    g_cv.config = *config;

    if (add_capabilities(jvmti, err)) return -1;
    int stack_cache = 0;
    if (!config->empty_callbacks && config->stack_depth > 0) {
        capture_init(jni, jvmti, config->stack_capture);
        stack_cache = capture_cache_init(jvmti, jni, config->stack_cache);
        g_cv.stack_oracle = capture_oracle_compares();
    }
    g_cv.id_cache = config->id_cache == 1 && g_cv.has_gc_events;
    if (g_cv.id_cache && !config->empty_callbacks) {
        /* Never freed: callbacks may still read it while the agent stops. */
        if (!g_cv.ids) {
            g_cv.ids = calloc(1, sizeof(cv_idcache));
            cv_commit(g_cv.ids, sizeof(cv_idcache));
        }
        if (!g_cv.ids) g_cv.id_cache = 0;
    }

    if (!config->empty_callbacks) {
        uint64_t cap = config->memory_cap;
        uint64_t stack_bytes = config->stack_depth ? clamp(cap / 8, 64 * 1024, 32ull << 20) : 4096;
        uint64_t object_bytes = clamp(cap / 16, 64 * 1024, 16ull << 20);
        g_cv.gc_capacity = GC_RING_RECORDS;
        uint64_t gc_bytes = ring_bytes(g_cv.gc_capacity);
        if (stack_bytes + object_bytes + gc_bytes + config->buffer_bytes > cap) {
            return cv_fail(err, "memory cap of %llu bytes is too small for the tables and one ring",
                           (unsigned long long)cap);
        }
        g_cv.stacks = stacks_create(stack_bytes);
        g_cv.gc_ring = malloc(gc_bytes);
        cv_commit(g_cv.gc_ring, gc_bytes);
        if (!g_cv.stacks || !g_cv.gc_ring || objects_init(object_bytes)) {
            return cv_fail(err, "cannot allocate the recorder's tables");
        }
        ring_init(g_cv.gc_ring, g_cv.gc_capacity);
        owners_init(jvmti, jni, config->vm_owners, cap);
        uint64_t used = stacks_memory(g_cv.stacks) + objects_memory() + gc_bytes + owners_memory() + ids_memory();
        threads_init(jni, cap > used ? cap - used : 0, config->buffer_bytes, config->stack_depth, config->timing,
                     stack_cache);
        if (config->timing) timing_calibrate_start();
    }

    g_cv.start_mono = cv_now_ns();
    g_cv.start_epoch = cv_epoch_ns();
    if (!config->empty_callbacks) {
        threads_history_init(config->history_bytes, config->history_age_ns, g_cv.gc_ring, g_cv.start_mono);
        if (config->repository[0]) {
            if (repository_open(config->repository, config->disk_bytes, config->history_age_ns, err)) return -1;
        }
    }
    store_release(&g_cv.live, 1);

    if (callbacks_set(jvmti, config->empty_callbacks, config->timing && !config->empty_callbacks, err)) return -1;
    if (!config->empty_callbacks) {
        if (set_event(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, "enable VMDeath", err) ||
            set_event(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_START, "enable ThreadStart", err) ||
            set_event(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_END, "enable ThreadEnd", err)) {
            return -1;
        }
        if (g_cv.has_vthread_events &&
            (set_event(jvmti, JVMTI_ENABLE, CV_EVENT_VIRTUAL_THREAD_START, "enable VirtualThreadStart", err) ||
             set_event(jvmti, JVMTI_ENABLE, CV_EVENT_VIRTUAL_THREAD_END, "enable VirtualThreadEnd", err))) {
            return -1;
        }
        if (capture_async()) {
            /* ClassPrepare first: a class prepared while the loaded ones are listed is not missed. */
            if (set_event(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_LOAD, "enable ClassLoad", err) ||
                set_event(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_PREPARE, "enable ClassPrepare", err)) {
                return -1;
            }
            capture_preload(jvmti, jni);
        }
        threads_enumerate(jvmti, jni);
        owners_register_running(jvmti, jni);
        /* After the enumeration: the maker is not one of the program's threads (no state, no ring). */
        g_cv.held_off = config->held_refs ? start_maker(jvmti, jni) : "off: option bench.heldrefs=off";
        start_sampler(jvmti, jni, config);   /* before the drain, which wakes it */
        /* The writer before the drain, which wakes it. */
        if (repository_on()) {
            const char *no_writer = start_agent_thread(jvmti, jni, "Convoy repository", writer_main, &g_cv.writer);
            if (no_writer) {
                cv_log_warn("the repository's writer thread did not start (%s): the drain writes the files itself",
                            no_writer);
            } else {
                repository_writer_started();
            }
        }
        const char *no_drain = start_agent_thread(jvmti, jni, "Convoy history", drain_main, &g_cv.drainer);
        if (no_drain) {
            /* Snapshots still drain: the history holds what the rings still had then. */
            cv_log_warn("the history's drain thread did not start (%s): records a ring overwrites before a "
                        "snapshot are lost, and counted", no_drain);
        }
    }
    store_release(&g_cv.started, 1);
    if (config->recording) return agent_set_recording(1, err);
    return 0;
}

int agent_is_recording(void) {
    return load_acquire(&g_cv.recording);
}

int agent_is_live(void) {
    return load_acquire(&g_cv.live);
}

void agent_counters(JNIEnv *jni, int64_t out[CV_COUNTER_COUNT]) {
    memset(out, 0, CV_COUNTER_COUNT * sizeof(out[0]));
    if (!g_cv.started || g_cv.config.empty_callbacks) return;
    objects_sweep(jni);   /* objects in use: the live ones */
    cv_thread_totals t;
    threads_totals(&t);
    out[CV_COUNTER_RECORDS_WRITTEN] = (int64_t)(t.written + ring_written(g_cv.gc_ring));
    out[CV_COUNTER_RECORDS_OVERWRITTEN] = (int64_t)t.overwritten;
    out[CV_COUNTER_RECORDS_AGED] = (int64_t)t.aged;
    out[CV_COUNTER_HISTORY_BYTES] = (int64_t)t.history_bytes;
    out[CV_COUNTER_RECORDS_DROPPED] = (int64_t)(t.dropped + threads_dropped_no_ring());
    out[CV_COUNTER_THREADS_RECORDED] = (int64_t)t.threads;
    out[CV_COUNTER_THREADS_SEEN] = (int64_t)t.threads_seen;
    out[CV_COUNTER_THREADS_EVICTED] = (int64_t)t.evicted;
    out[CV_COUNTER_MEMORY_IN_USE] = (int64_t)(t.memory + stacks_memory(g_cv.stacks) + objects_memory() +
                                              ring_bytes(g_cv.gc_capacity) + owners_memory() + ids_memory());
    out[CV_COUNTER_START_EPOCH_NS] = (int64_t)g_cv.start_epoch;
    out[CV_COUNTER_STACKS_DROPPED] = (int64_t)stacks_dropped(g_cv.stacks);
    out[CV_COUNTER_OBJECTS_DROPPED] = (int64_t)objects_dropped();
    out[CV_COUNTER_OBJECTS_IN_USE] = (int64_t)objects_count();
    out[CV_COUNTER_OBJECTS_CAPACITY] = (int64_t)objects_capacity();
    out[CV_COUNTER_STACK_FALLBACKS] = (int64_t)capture_fallbacks();
}

size_t agent_stalled(cv_stalled *out, size_t cap) {
    if (!g_cv.started || g_cv.config.empty_callbacks) return 0;
    return threads_stalled(out, cap);
}

uint64_t agent_now_ns(void) {
    return cv_now_ns();
}

/* What the encoder needs of the agent (snapshot.h). */
void agent_fill_source(cv_snapshot_source *src) {
    memset(src, 0, sizeof(*src));
    src->jvmti = g_cv.jvmti;
    src->agent_version = g_cv.config.version[0] ? g_cv.config.version : "unknown";
    src->options = g_cv.config.options;
    src->id_cache = g_cv.id_cache ? "on"
                    : g_cv.config.id_cache == 0 ? "off: option bench.idcache=off"
                    : g_cv.config.id_cache == 2 ? "off: the collector moves objects outside its pauses"
                                                : "off: no GC events";
    src->held_off = g_cv.held_off;
    src->stack_depth = g_cv.config.stack_depth;
    src->buffer_bytes = g_cv.config.buffer_bytes;
    src->buffer_capacity = ring_capacity_for(g_cv.config.buffer_bytes);
    src->drain_nice = load_relaxed(&g_cv.drain_nice);
    src->repository = g_cv.config.repository[0] ? g_cv.config.repository : NULL;
    src->repository_writer = repository_writer_runs();
    src->memory_cap = g_cv.config.memory_cap;
    src->start_mono = g_cv.start_mono;
    src->start_epoch = g_cv.start_epoch;
    src->reset_mono = load_acquire(&g_cv.reset_mono);
    src->gc_ring = g_cv.gc_ring;
    src->stacks = g_cv.stacks;
    if (g_cv.config.timing) {
        src->timing = 1;
        src->timing_ticks0 = g_cv.timing_ticks0;
        src->timing_mono0 = g_cv.timing_mono0;
        src->timing_ns_per_tick = timing_ns_per_tick();
        src->timing_seconds = (double)(cv_now_ns() - g_cv.timing_mono0) / 1e9;
        src->timing_stamp_ns = g_cv.stamp_ticks * src->timing_ns_per_tick;
    }
}

int agent_snapshot(JNIEnv *jni, const cv_monitor_states *states, cv_buf *out, cv_error *err) {
    if (!g_cv.started || g_cv.config.empty_callbacks) {
        return cv_fail(err, "the recorder is not started (or runs with empty callbacks)");
    }
    cv_snapshot_source src;
    agent_fill_source(&src);
    return snapshot_encode(jni, &src, states, out, err);
}
