/*
 * The thread registry (threads.c) against the mock JVM (mock_jvm.h): states made at a thread's
 * start, at its first event and by the enumeration of an attach; ended, evicted in victims.h's
 * order when the cap needs room, retired rather than freed while a snapshot pins them. The
 * orders that matter for memory safety are driven on purpose (an event after ThreadEnd whose
 * state is gone, an eviction during a snapshot, two unpins of one retired state), and the
 * registry's claims of thread safety are exercised with OS threads starting, ending and
 * snapshotting at once at a small cap. AddressSanitizer turns any use of a freed state into a
 * failure; the registry's debug assertions (CV_ASSERT: pins never negative, a state freed only
 * unpinned and off the registry) are on in this build.
 *
 * The registry is process-wide: each test begins with an empty one (empty_registry evicts every
 * state through the cap itself) and its own budget, counted in states of a fixed size.
 */
#include "arch.h"
#include "check.h"
#include "mock_jvm.h"
#include "objects.h"
#include "snapshot_format.h"
#include "threads.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

static jvmtiEnv *const jvmti = &mock_jvmti_env;
static JNIEnv *const jni = &mock_jni_env;

#define BUFFER_BYTES 512   /* a ring of a few records */

static cv_thread_totals totals(void) {
    cv_thread_totals t;
    memset(&t, 0, sizeof(t));
    threads_totals(&t);
    return t;
}

/* Bytes of one state named with NAME_LEN characters (its block and its name). */
static uint64_t state_bytes;

static void init(uint64_t budget) {
    CHECK_EQ_INT(threads_init(jni, budget, BUFFER_BYTES, 0, 0, 0), 0);
}

/* No state left: every one ended (the tests end theirs), then a cap of 0 makes the next start
 * evict them all and find no room for itself. */
static void empty_registry(void) {
    static fake_obj sweeper;
    if (objects_capacity() == 0) CHECK_EQ_INT(objects_init(1 << 20), 0);
    init(0);
    mock_thread(&sweeper, "sweep", 9999);
    mock_current = &sweeper;
    CHECK(threads_on_start(jvmti, jni, as_jobject(&sweeper)) == NULL);
    mock_current = NULL;
    CHECK_EQ_U64(totals().threads, 0);
    CHECK_EQ_U64(totals().memory, 0);
}

static cv_thread *start(fake_obj *t, const char *name, jlong tid) {
    mock_thread(t, name, tid);
    mock_current = t;
    cv_thread *s = threads_on_start(jvmti, jni, as_jobject(t));
    mock_current = NULL;
    return s;
}

static void end(fake_obj *t, cv_thread *s) {
    mock_current = t;
    threads_on_end(jvmti, jni, as_jobject(t), s);
    mock_current = NULL;
}

static void write_one(cv_thread *s, uint64_t ts) {
    cv_record r = {ts, cv_record_meta(EVENT_MONITOR_WAIT, 0, 0), 1, 0, 0};
    threads_write(jni, s, &r);
}

/* Whether a snapshot's views name a state of this Java thread id; NULL if none. */
static cv_thread_view *view_of(cv_thread_view *v, size_t n, int64_t tid) {
    for (size_t i = 0; i < n; i++) {
        if (v[i].java_tid == tid) return &v[i];
    }
    return NULL;
}

static int registered(int64_t tid) {
    size_t n = 0;
    cv_thread_view *v = threads_pin_all(&n);
    int found = view_of(v, n, tid) != NULL;
    threads_unpin(jni, v, n);
    return found;
}

static void measure_state_bytes(void) {
    if (state_bytes) return;
    empty_registry();
    init(1 << 20);
    static fake_obj t;
    cv_thread *s = start(&t, "t-00", 100);
    CHECK(s != NULL);
    state_bytes = totals().memory;
    CHECK(state_bytes > sizeof(cv_thread));
    end(&t, s);
}

TEST(threads_a_start_makes_one_state_found_again_through_thread_local_storage) {
    measure_state_bytes();
    empty_registry();
    init(4 * state_bytes);
    cv_thread_totals before = totals();
    static fake_obj a;
    cv_thread *s = start(&a, "t-01", 101);
    CHECK(s != NULL);
    CHECK_EQ_INT(s->java_tid, 101);
    CHECK(s->thread_obj != 0);                       /* its Thread object has an id */
    CHECK(a.tls == s);
    mock_current = &a;
    CHECK(threads_current(jvmti, jni, as_jobject(&a)) == s);   /* an event finds it, makes none */
    CHECK(threads_on_start(jvmti, jni, as_jobject(&a)) == s);  /* nor does a second start */
    mock_current = NULL;
    CHECK_EQ_U64(totals().threads_seen - before.threads_seen, 1);
    CHECK_EQ_U64(totals().memory, state_bytes);
    end(&a, s);
    CHECK(s->flags & RING_ENDED);
    /* After ThreadEnd the storage no longer leads to the state: a late event records nothing
     * and makes no second state. */
    mock_current = &a;
    CHECK(threads_current(jvmti, jni, as_jobject(&a)) == NULL);
    mock_current = NULL;
    CHECK_EQ_U64(totals().threads_seen - before.threads_seen, 1);
}

TEST(threads_the_cap_evicts_the_oldest_ended_state_and_reuses_its_memory) {
    measure_state_bytes();
    empty_registry();
    init(3 * state_bytes);
    static fake_obj a, b, c, d, e;
    cv_thread *sa = start(&a, "t-01", 201), *sb = start(&b, "t-02", 202), *sc = start(&c, "t-03", 203);
    CHECK(sa && sb && sc);
    write_one(sb, 1);
    end(&b, sb);   /* b ends first, then a: b is the oldest ended */
    end(&a, sa);
    uint64_t evicted = totals().evicted;
    cv_thread *sd = start(&d, "t-04", 204);
    CHECK(sd == sb);                                 /* b's block, taken over */
    CHECK_EQ_U64(totals().evicted - evicted, 1);
    CHECK(!registered(202) && registered(201) && registered(203) && registered(204));
    CHECK_EQ_U64(totals().memory, 3 * state_bytes);
    /* b's late event after its ThreadEnd, its state evicted and its block reused by d: nothing
     * leads to the old state any more (the storage holds the ended marker). */
    mock_current = &b;
    CHECK(threads_current(jvmti, jni, as_jobject(&b)) == NULL);
    mock_current = NULL;
    /* A live thread is never evicted: with a and d's predecessor gone, c and d live, e takes a. */
    cv_thread *se = start(&e, "t-05", 205);
    CHECK(se != NULL);
    CHECK(!registered(201) && registered(203) && registered(204) && registered(205));
    /* No room at all: every state belongs to a live thread; the new one gets none, counted. */
    static fake_obj f;
    uint64_t no_ring = threads_dropped_no_ring();
    CHECK(start(&f, "t-06", 206) == NULL);
    CHECK_EQ_U64(threads_dropped_no_ring() - no_ring, 1);
    mock_current = &f;
    CHECK(threads_current(jvmti, jni, as_jobject(&f)) == NULL);   /* its events: dropped, counted */
    mock_current = NULL;
    CHECK_EQ_U64(threads_dropped_no_ring() - no_ring, 2);
    end(&c, sc);
    end(&d, sd);
    end(&e, se);
}

TEST(threads_a_state_evicted_while_pinned_is_retired_and_freed_by_the_last_unpin) {
    measure_state_bytes();
    empty_registry();
    init(2 * state_bytes);
    static fake_obj a, b, c;
    cv_thread *sa = start(&a, "t-01", 301), *sb = start(&b, "t-02", 302);
    CHECK(sa && sb);
    write_one(sa, 7);
    end(&a, sa);
    size_t n1 = 0, n2 = 0;
    cv_thread_view *v1 = threads_pin_all(&n1);   /* two snapshots pin a */
    cv_thread_view *v2 = threads_pin_all(&n2);
    CHECK_EQ_U64(n1, 2);
    cv_thread_totals before = totals();
    cv_thread *sc = start(&c, "t-03", 303);      /* needs a's room: a is retired, not freed */
    CHECK(sc != NULL && sc != sa);
    CHECK_EQ_U64(totals().retired - before.retired, 1);
    CHECK(!registered(301));
    CHECK_EQ_U64(totals().memory, 2 * state_bytes);   /* retired: out of the cap */
    cv_thread_view *va = view_of(v1, n1, 301);
    CHECK(va != NULL && va->t == sa);
    CHECK_EQ_U64(ring_written(va->t->ring), 1);  /* still readable through the pin */
    threads_unpin(jni, v1, n1);
    CHECK_EQ_U64(ring_written(view_of(v2, n2, 301)->t->ring), 1);   /* the other pin keeps it */
    threads_unpin(jni, v2, n2);                  /* the last unpin frees it (ASan: once) */
    end(&b, sb);
    end(&c, sc);
}

TEST(threads_a_state_whose_thread_ended_before_publication_is_discarded) {
    measure_state_bytes();
    empty_registry();
    init(2 * state_bytes);
    static fake_obj a;
    mock_thread(&a, "t-01", 401);
    a.ended = 1;   /* SetThreadLocalStorage refuses: the thread is gone */
    cv_thread_totals before = totals();
    mock_current = &a;
    CHECK(threads_current(jvmti, jni, as_jobject(&a)) == NULL);
    mock_current = NULL;
    CHECK_EQ_U64(totals().threads_seen, before.threads_seen);
    CHECK_EQ_U64(totals().memory, 0);
    CHECK_EQ_U64(load_relaxed(&violations), 0);   /* its weak reference deleted once */
}

/* ---- Attach: threads already running, enumerated while they post their first events ---- */

#define ATTACHED 6

static fake_obj attached[ATTACHED];
static cv_thread *own_state[ATTACHED];
static int go;

static void *first_event(void *p) {
    int i = (int)(intptr_t)p;
    mock_current = &attached[i];
    while (!load_acquire(&go)) cpu_relax();
    own_state[i] = threads_current(jvmti, jni, as_jobject(&attached[i]));
    mock_current = NULL;
    return NULL;
}

/* The enumerator and a thread's own first event may each hold a block for it until one of them
 * publishes (threads.c, create_state): the cap leaves room for every thread's state and for the
 * duplicate each of the ATTACHED / 2 posting threads may hold meanwhile, so that no thread is
 * refused a state for want of room; the paths taken at the cap are driven one by one below. */
TEST(threads_attach_gives_each_running_thread_one_state_while_it_posts_its_first_event) {
    measure_state_bytes();
    for (int round = 0; round < 20; round++) {
        empty_registry();
        init((ATTACHED + ATTACHED / 2) * state_bytes);
        uint64_t no_ring = threads_dropped_no_ring();
        static const char *names[ATTACHED] = {"a-01", "a-02", "a-03", "a-04", "a-05", "a-06"};
        mock_nrunning = ATTACHED;
        for (int i = 0; i < ATTACHED; i++) {
            mock_thread(&attached[i], names[i], 500 + i);
            mock_running[i] = &attached[i];
            own_state[i] = NULL;
        }
        cv_thread_totals before = totals();
        pthread_t th[ATTACHED / 2];
        store_release(&go, 0);
        for (int i = 0; i < ATTACHED / 2; i++) pthread_create(&th[i], NULL, first_event, (void *)(intptr_t)(2 * i));
        store_release(&go, 1);
        threads_enumerate(jvmti, jni);
        for (int i = 0; i < ATTACHED / 2; i++) pthread_join(th[i], NULL);
        mock_nrunning = 0;
        CHECK_EQ_U64(totals().threads_seen - before.threads_seen, ATTACHED);
        CHECK_EQ_U64(totals().threads, ATTACHED);
        CHECK_EQ_U64(threads_dropped_no_ring() - no_ring, 0);
        int failures = cv_check_failures;
        int has_state[ATTACHED];
        size_t n = 0;
        cv_thread_view *v = threads_pin_all(&n);
        for (int i = 0; i < ATTACHED; i++) {
            cv_thread *s = attached[i].tls;
            cv_thread_view *view = view_of(v, n, 500 + i);
            has_state[i] = view != NULL && view->t == s;   /* a state on the registry, not a marker */
            CHECK(has_state[i] && (s->flags & RING_LATE));
            if (i % 2 == 0) CHECK(own_state[i] == s);   /* the thread's own event found the same */
        }
        threads_unpin(jni, v, n);
        /* Only states are ended: a marker is no state (the agent's ThreadEnd never gets one). */
        for (int i = 0; i < ATTACHED; i++) {
            if (has_state[i]) end(&attached[i], attached[i].tls);
        }
        if (cv_check_failures != failures) return;   /* once is enough */
    }
}

/* The attach's enumerator reads the names of a thread that meanwhile posts its first event and
 * takes the last room of the cap: the enumerator finds no room, and must leave the thread the
 * state it has, not mark it as a thread without one (its events dropped, its end never recorded). */
static fake_obj racer;
static cv_thread *racer_state;

static void racer_posts_its_first_event(void) {
    fake_obj *enumerator = mock_current;
    mock_current = &racer;
    racer_state = threads_current(jvmti, jni, as_jobject(&racer));
    mock_current = enumerator;
}

TEST(threads_attach_leaves_a_thread_the_state_it_published_while_the_enumerator_found_no_room) {
    measure_state_bytes();
    empty_registry();
    init(state_bytes);   /* one state */
    mock_thread(&racer, "a-01", 601);
    mock_running[0] = &racer;
    mock_nrunning = 1;
    racer_state = NULL;
    uint64_t no_ring = threads_dropped_no_ring();
    during_next_thread_info = racer_posts_its_first_event;   /* while the enumerator reads its names */
    threads_enumerate(jvmti, jni);
    mock_nrunning = 0;
    CHECK(racer_state != NULL && registered(601));
    CHECK(racer.tls == racer_state);
    mock_current = &racer;
    CHECK(racer_state && threads_current(jvmti, jni, as_jobject(&racer)) == racer_state);   /* its next event */
    mock_current = NULL;
    CHECK_EQ_U64(threads_dropped_no_ring() - no_ring, 0);
    CHECK_EQ_U64(totals().threads, 1);
    if (racer_state) end(&racer, racer_state);
}

/* The other order: the thread's first event holds the last room while it makes its references,
 * and meanwhile the enumerator finds no room for it and marks it as a thread without a state. The
 * thread publishes its state all the same: room for it was there. */
static void enumerate_now(void) {
    threads_enumerate(jvmti, jni);
}

TEST(threads_attach_a_thread_holding_the_last_room_publishes_its_state_over_the_enumerators_no_room_mark) {
    measure_state_bytes();
    empty_registry();
    init(state_bytes);   /* one state */
    mock_thread(&racer, "a-01", 602);
    mock_running[0] = &racer;
    mock_nrunning = 1;
    mock_current = &racer;
    during_next_weak_ref = enumerate_now;   /* after its room is reserved, before it is published */
    cv_thread *s = threads_current(jvmti, jni, as_jobject(&racer));
    during_next_weak_ref = NULL;
    mock_nrunning = 0;
    CHECK(s != NULL && racer.tls == s);
    CHECK(s && threads_current(jvmti, jni, as_jobject(&racer)) == s);
    mock_current = NULL;
    CHECK(registered(602));
    CHECK_EQ_U64(totals().threads, 1);
    if (s) end(&racer, s);
}

/* ---- Concurrency: starts, events, ends and snapshots at once, at a cap of a few states ---- */

#define WORKERS 4
#define LIVES 300

static int finished;   /* workers done (atomic) */
static int snapshot_read;   /* a snapshot has read a pinned state (atomic) */

static void *worker(void *p) {
    int w = (int)(intptr_t)p;
    fake_obj *t = calloc(LIVES, sizeof(fake_obj));
    char name[16];
    for (int k = 0; k < LIVES; k++) {
        /* Halfway, until a snapshot has read states the workers made: on a loaded machine the
         * workers could otherwise be done before the snapshotting thread first ran. */
        if (k == LIVES / 2) {
            while (!load_acquire(&snapshot_read)) sched_yield();
        }
        snprintf(name, sizeof(name), "w%d-%03d", w, k);
        mock_thread(&t[k], strdup(name), 10000 + w * LIVES + k);
        mock_current = &t[k];
        cv_thread *s = threads_on_start(jvmti, jni, as_jobject(&t[k]));
        if (s) {
            for (int r = 0; r < 5; r++) write_one(s, (uint64_t)k * 10 + (uint64_t)r);
            CHECK(threads_current(jvmti, jni, as_jobject(&t[k])) == s);
            threads_on_end(jvmti, jni, as_jobject(&t[k]), s);
        }
        /* An event after the end: its state may already be evicted by another thread. */
        CHECK(threads_current(jvmti, jni, as_jobject(&t[k])) == NULL);
        mock_current = NULL;
    }
    fetch_add_relaxed(&finished, 1);
    return t;   /* the names stay referenced by the states until the registry is emptied */
}

TEST(threads_concurrent_starts_ends_and_snapshots_at_the_cap_keep_the_registry_sound) {
    measure_state_bytes();
    empty_registry();
    uint64_t budget = 3 * (state_bytes + 8);
    init(budget);
    cv_thread_totals before = totals();
    store_release(&finished, 0);
    store_release(&snapshot_read, 0);
    pthread_t th[WORKERS];
    for (int i = 0; i < WORKERS; i++) pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
    uint64_t snapshots = 0, read = 0;
    while (load_relaxed(&finished) < WORKERS) {
        size_t n = 0;
        cv_thread_view *v = threads_pin_all(&n);
        /* Pinned: every state stays readable, whatever the workers evict meanwhile. */
        for (size_t i = 0; i < n; i++) read += ring_written(v[i].t->ring) + strlen(v[i].name);   /* the names: the views' copies */
        CHECK(totals().memory <= budget);
        threads_unpin(jni, v, n);
        snapshots++;
        if (read > 0) store_release(&snapshot_read, 1);
    }
    void *lives[WORKERS];
    for (int i = 0; i < WORKERS; i++) pthread_join(th[i], &lives[i]);
    cv_thread_totals after = totals();
    CHECK(after.evicted - before.evicted > 0);
    CHECK(after.memory <= budget);
    CHECK(snapshots > 0 && read > 0);
    CHECK_EQ_U64(load_relaxed(&violations), 0);
    empty_registry();
    for (int i = 0; i < WORKERS; i++) {
        fake_obj *t = lives[i];
        for (int k = 0; k < LIVES; k++) free((char *)t[k].name);
        free(t);
    }
}

/* ---- The drain's mark (threads.h, THE DRAIN'S MARK) ---- */

static int sleeper_called;

static void *drain_sleeper(void *arg) {
    (void)arg;
    store_release(&sleeper_called, threads_drain_sleep(60ull * 1000000000ull));
    return NULL;
}

/* In a child process: the history on, one thread, a drain asleep for a minute. The thread's ring
 * reaching half full wakes the drain through the event path's one comparison; the pass drains it
 * all and sets the mark again half a ring further; nothing is lost. */
static void mark_wakes_the_drain(void) {
    empty_registry();
    init(1 << 20);
    threads_history_init(1 << 20, 0, NULL, cv_now_ns());
    static fake_obj a;
    cv_thread *s = start(&a, "burst", 301);
    CHECK(s != NULL);
    if (!s) return;
    uint32_t cap = s->ring->capacity;
    CHECK(cap >= 4);
    uint64_t mark = cap / 2;
    CHECK_EQ_U64(load_relaxed(&s->wake_at), mark);   /* a new state's first mark */
    CHECK_EQ_U64(load_relaxed(&s->grow_at), mark);
    pthread_t sleeper;
    CHECK_EQ_INT(pthread_create(&sleeper, NULL, drain_sleeper, NULL), 0);
    uint64_t ts = 1;
    for (uint64_t i = 0; i < mark; i++) write_one(s, ts++);
    CHECK_EQ_U64(load_relaxed(&s->wake_at), mark);   /* not yet: the mark is the head that wakes */
    write_one(s, ts++);                               /* the record at the mark */
    CHECK_EQ_U64(load_relaxed(&s->wake_at), UINT64_MAX);
    CHECK_EQ_U64(load_relaxed(&s->grow_at), UINT64_MAX);   /* a full-size ring does not grow by itself */
    pthread_join(sleeper, NULL);
    CHECK_EQ_INT(load_acquire(&sleeper_called), 1);   /* woken, not after its minute */
    threads_drain(jni);
    CHECK_EQ_U64(s->hist.drained, mark + 1);
    CHECK_EQ_U64(load_relaxed(&s->wake_at), mark + 1 + mark);   /* half a ring past the cursor */
    /* grow_at at the mark, or 0 if the pass found the ring hot and left it a spare */
    uint64_t g = load_relaxed(&s->grow_at);
    CHECK(g == mark + 1 + mark || (g == 0 && load_relaxed(&s->spare_ready)));
    /* The ring filled again up to the mark and beyond: the drain, called, keeps every record. */
    for (uint64_t i = 0; i < cap - 1; i++) write_one(s, ts++);
    threads_drain(jni);
    CHECK_EQ_U64(s->hist.drained, ts - 1);
    CHECK_EQ_U64(s->hist.lost, 0);
    CHECK_EQ_U64(totals().overwritten, 0);
    CHECK_EQ_INT(threads_drain_sleep(60ull * 1000000000ull), 1);   /* called meanwhile: returns at once */
    end(&a, s);
}

TEST(threads_a_ring_at_the_drains_mark_wakes_the_drain_before_it_wraps) {
    CHECK(cv_alone(mark_wakes_the_drain));
}
