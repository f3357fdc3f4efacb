/*
 * The snapshot encoder (snapshot.c) from a synthetic recording: the thread registry and its
 * history (threads.c) with one thread's records, the object table, a stack table and a GC ring,
 * over the mock JVM. The file is decoded here as schema/snapshot-format.md describes it, with a
 * CRC-32 of the test's own: the header, every section in the specification's order with its
 * length and CRC, END last; the thread's entry and records, the GC pseudo-thread, the INFO keys
 * the specification lists for every file, the object and its class, a stack and its method.
 * The registry is process-wide, so the test runs in a child process (cv_alone).
 */
#include "arch.h"
#include "buf.h"
#include "check.h"
#include "mock_jvm.h"
#include "objects.h"
#include "owners.h"
#include "snapshot.h"
#include "snapshot_format.h"
#include "threads.h"

#include <stdlib.h>
#include <string.h>

static jvmtiEnv *const jvmti = &mock_jvmti_env;
static JNIEnv *const jni = &mock_jni_env;

/* CRC-32 (ISO-HDLC: reflected, polynomial 0xEDB88320), bit by bit. */
static uint32_t crc32_of(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

/* A little-endian reader over one section's payload; `bad` once it would read past its end. */
typedef struct {
    const uint8_t *p;
    size_t n, at;
    int bad;
} rd;

static uint64_t le(rd *r, size_t bytes) {
    uint64_t v = 0;
    if (r->at + bytes > r->n) {
        r->bad = 1;
        return 0;
    }
    for (size_t i = 0; i < bytes; i++) v |= (uint64_t)r->p[r->at + i] << (8 * i);
    r->at += bytes;
    return v;
}

/* A str into out (cut to cap - 1). */
static void str(rd *r, char *out, size_t cap) {
    size_t len = (size_t)le(r, 4);
    if (r->at + len > r->n) {
        r->bad = 1;
        len = 0;
    }
    size_t keep = len < cap - 1 ? len : cap - 1;
    memcpy(out, r->p + r->at, keep);
    out[keep] = 0;
    r->at += len;
}

/* The synthetic recording: a worker thread that blocked on a lock (its enter with a stack and
 * an owner, its entered) and one GC record. */
typedef struct {
    cv_snapshot_source src;
    cv_ring *gc;
    uint32_t gc_capacity, stack;
    uint64_t start, lock_id;
    cv_record enter, entered, gc_start;
} fixture;

static void record_fixture(fixture *f) {
    CHECK_EQ_INT(objects_init(1 << 20), 0);
    CHECK_EQ_INT(threads_init(jni, 1 << 20, 1024, 8, 0, 0), 0);
    uint32_t gc_capacity = 16;
    cv_ring *gc = aligned_alloc(64, (ring_bytes(gc_capacity) + 63) & ~(size_t)63);
    ring_init(gc, gc_capacity);
    uint64_t start = cv_now_ns();
    threads_history_init(1 << 20, 0, gc, start);
    cv_stacks *stacks = stacks_create(1 << 16);
    CHECK(stacks != NULL);

    static fake_obj worker, lock, lock_class = {.hash = 0xC1A55};
    mock_thread(&worker, "worker", 21);
    lock.hash = 0x10C4;
    lock.cls = &lock_class;
    mock_current = &worker;
    cv_thread *t = threads_on_start(jvmti, jni, as_jobject(&worker));
    CHECK(t != NULL);
    uint64_t lock_id = objects_id(jvmti, jni, as_jobject(&lock), OBJ_PLAIN);
    CHECK(lock_id != 0);
    cv_frame frames[2] = {{0x1000, 7}, {0x2000, -1}};
    uint32_t stack = stacks_intern(stacks, frames, 2, 0);
    CHECK(stack != 0);
    cv_record enter = {cv_now_ns(), cv_record_meta(EVENT_MONITOR_ENTER, FLAG_OWNER, stack), lock_id, 0, 22};
    threads_write(jni, t, &enter);
    cv_record entered = {cv_now_ns(), cv_record_meta(EVENT_MONITOR_ENTERED, 0, 0), lock_id, 0, 0};
    threads_write(jni, t, &entered);
    cv_record gc_start = {cv_now_ns(), cv_record_meta(EVENT_GC_START, 0, 0), 0, 0, 0};
    ring_write(gc, &gc_start);

    cv_snapshot_source src;
    memset(&src, 0, sizeof(src));
    src.jvmti = jvmti;
    src.agent_version = "0.0-test";
    src.options = "stackdepth=8";
    src.id_cache = "shared";
    src.held_off = "off: test";
    src.stack_depth = 8;
    src.buffer_bytes = 1024;
    src.buffer_capacity = ring_capacity_for(1024);
    src.memory_cap = 1 << 24;
    src.start_mono = start;
    src.start_epoch = 1700000000000000000ull;
    src.gc_ring = gc;
    src.stacks = stacks;
    f->src = src;
    f->gc = gc;
    f->gc_capacity = gc_capacity;
    f->stack = stack;
    f->start = start;
    f->lock_id = lock_id;
    f->enter = enter;
    f->entered = entered;
    f->gc_start = gc_start;
}

static void encode_and_decode(void) {
    fixture f;
    record_fixture(&f);
    uint32_t gc_capacity = f.gc_capacity, stack = f.stack;
    uint64_t start = f.start, lock_id = f.lock_id;
    cv_record enter = f.enter, entered = f.entered, gc_start = f.gc_start;
    cv_snapshot_source src = f.src;
    cv_monitor_states none = {0, NULL, NULL, NULL, NULL};
    cv_buf out;
    buf_init(&out);
    cv_error err;
    memset(&err, 0, sizeof(err));
    CHECK_EQ_INT(snapshot_encode(jni, &src, &none, &out, &err), 0);

    /* Header: magic, version, flags. */
    CHECK(out.len >= 16 && memcmp(out.data, "CVYSNAP\0", 8) == 0);
    rd h = {out.data, out.len, 8, 0};
    CHECK_EQ_INT(le(&h, 2), VERSION_MAJOR);
    CHECK_EQ_INT(le(&h, 2), VERSION_MINOR);
    CHECK_EQ_INT(le(&h, 4), 0);

    /* Sections: each once, in the specification's order, each CRC over its payload, END last. */
    static const uint32_t order[] = {SECTION_THREADS, SECTION_INFO,     SECTION_STACKS, SECTION_METHODS,
                                     SECTION_CLASSES, SECTION_OBJECTS,  SECTION_MONITORS, SECTION_LOSSES,
                                     SECTION_TOTALS,  SECTION_END};
    rd section[10];
    size_t at = 16, k = 0;
    while (k < 10 && at + 16 <= out.len) {
        rd s = {out.data, out.len, at, 0};
        uint32_t tag = (uint32_t)le(&s, 4), crc = (uint32_t)le(&s, 4);
        uint64_t len = le(&s, 8);
        CHECK_EQ_INT(tag, order[k]);
        CHECK(at + 16 + len <= out.len);
        if (at + 16 + len > out.len) break;
        CHECK_EQ_U64(crc, crc32_of(out.data + at + 16, (size_t)len));
        section[k] = (rd){out.data + at + 16, (size_t)len, 0, 0};
        at += 16 + (size_t)len;
        k++;
    }
    CHECK_EQ_INT(k, 10);
    CHECK_EQ_U64(at, out.len);            /* nothing after END */
    if (k < 10) goto done;
    CHECK_EQ_U64(section[9].n, 0);        /* END is empty */

    /* THREADS: the worker with its two records, then the GC ring. */
    rd *r = &section[0];
    CHECK_EQ_INT(le(r, 4), 2);
    uint64_t ring_id = le(r, 8);
    CHECK_EQ_INT((int64_t)le(r, 8), 21);
    CHECK(le(r, 8) != 0);                 /* its Thread object's id */
    CHECK_EQ_INT(le(r, 4), 0);            /* flags: alive, met at its start */
    CHECK(le(r, 8) >= start);
    CHECK_EQ_U64(le(r, 8), 0);            /* not ended */
    CHECK_EQ_U64(le(r, 8), 2);            /* written */
    CHECK_EQ_U64(le(r, 8), 0);            /* overwritten */
    CHECK_EQ_U64(le(r, 8), 0);            /* dropped */
    CHECK_EQ_U64(le(r, 8), 0);            /* torn */
    char name[64];
    str(r, name, sizeof(name));
    CHECK(strcmp(name, "worker") == 0);
    str(r, name, sizeof(name));
    str(r, name, sizeof(name));
    CHECK_EQ_INT(le(r, 4), ring_capacity_for(1024));
    CHECK_EQ_INT(le(r, 4), 2);
    CHECK_EQ_U64(le(r, 8), enter.ts);
    CHECK_EQ_INT(le(r, 1), EVENT_MONITOR_ENTER);
    CHECK_EQ_INT(le(r, 1), FLAG_OWNER);
    CHECK_EQ_INT(le(r, 2), 0);
    CHECK_EQ_INT(le(r, 4), stack);
    CHECK_EQ_U64(le(r, 8), lock_id);
    CHECK_EQ_INT((int64_t)le(r, 8), 0);
    CHECK_EQ_INT((int64_t)le(r, 8), 22);  /* the owner */
    CHECK_EQ_U64(le(r, 8), entered.ts);
    CHECK_EQ_INT(le(r, 1), EVENT_MONITOR_ENTERED);
    r->at += CV_RECORD_BYTES - 9;          /* the rest of the record */
    CHECK(le(r, 8) != ring_id);            /* the GC ring */
    CHECK_EQ_INT((int64_t)le(r, 8), -1);
    CHECK_EQ_U64(le(r, 8), 0);
    CHECK_EQ_INT(le(r, 4), RING_SYSTEM);
    r->at += 8 * 6;
    str(r, name, sizeof(name));
    CHECK(strcmp(name, "GC") == 0);
    str(r, name, sizeof(name));
    str(r, name, sizeof(name));
    CHECK_EQ_INT(le(r, 4), gc_capacity);
    CHECK_EQ_INT(le(r, 4), 1);
    CHECK_EQ_U64(le(r, 8), gc_start.ts);
    CHECK_EQ_INT(le(r, 1), EVENT_GC_START);
    r->at += CV_RECORD_BYTES - 9;
    CHECK(!r->bad && r->at == r->n);

    /* INFO: every key the specification gives every file, the values this source says. */
    static const char *const keys[] = {
        "agent.version",   "pid",           "jvm.name",           "jvm.version",       "java.command",
        "options",         "monitor.owners", "monitor.releasers", "owners.samples",    "objects.idcache",
        "start.monotonic.ns", "start.epoch.ns", "snapshot.monotonic.ns", "snapshot.epoch.ns", "stack.depth",
        "buffer.bytes",    "memory.cap.bytes", "records.written", "records.overwritten", "records.dropped",
        "records.torn",    "records.aged",  "history",            "threads.evicted",   "threads.retired",
        "stacks.dropped",  "stacks.capture", "objects.dropped",   "objects.held"};
    size_t nkeys = sizeof(keys) / sizeof(keys[0]);
    int seen[sizeof(keys) / sizeof(keys[0])] = {0};
    r = &section[1];
    uint32_t n = (uint32_t)le(r, 4);
    for (uint32_t i = 0; i < n && !r->bad; i++) {
        char key[64], value[1024];
        str(r, key, sizeof(key));
        str(r, value, sizeof(value));
        for (size_t j = 0; j < nkeys; j++) {
            if (strcmp(key, keys[j]) == 0) seen[j]++;
        }
        if (strcmp(key, "agent.version") == 0) CHECK(strcmp(value, "0.0-test") == 0);
        if (strcmp(key, "jvm.name") == 0) CHECK(strcmp(value, "Mock VM") == 0);
        if (strcmp(key, "monitor.owners") == 0) CHECK(strcmp(value, owners_mode()) == 0);
        if (strcmp(key, "start.monotonic.ns") == 0) CHECK_EQ_U64(strtoull(value, NULL, 10), start);
        if (strcmp(key, "records.written") == 0) CHECK_EQ_U64(strtoull(value, NULL, 10), 3);
        if (strcmp(key, "objects.held") == 0) CHECK(strcmp(value, "off: test") == 0);
    }
    CHECK(!r->bad && r->at == r->n);
    for (size_t j = 0; j < nkeys; j++) {
        if (seen[j] != 1) fprintf(stderr, "  INFO %s: %d times\n", keys[j], seen[j]);
        CHECK_EQ_INT(seen[j], 1);
    }

    /* STACKS: the one stack, top frame first; METHODS: its two methods (the mock knows none). */
    r = &section[2];
    CHECK_EQ_INT(le(r, 4), 1);
    CHECK_EQ_INT(le(r, 4), stack);
    CHECK_EQ_INT(le(r, 4), 0);
    CHECK_EQ_INT(le(r, 4), 2);
    CHECK_EQ_U64(le(r, 8), 0x1000);
    CHECK_EQ_INT((int64_t)le(r, 8), 7);
    CHECK_EQ_U64(le(r, 8), 0x2000);
    CHECK_EQ_INT((int64_t)le(r, 8), -1);
    CHECK(!r->bad && r->at == r->n);
    r = &section[3];
    CHECK_EQ_INT(le(r, 4), 2);
    for (uint64_t m = 0x1000; m <= 0x2000; m += 0x1000) {   /* in id order */
        char text[32];
        CHECK_EQ_U64(le(r, 8), m);
        CHECK_EQ_U64(le(r, 8), 0);        /* its class unknown */
        str(r, text, sizeof(text));
        CHECK(strcmp(text, "<unknown>") == 0);
        str(r, text, sizeof(text));
        CHECK_EQ_INT((int32_t)le(r, 4), -1);   /* no line number table */
    }
    CHECK(!r->bad && r->at == r->n);

    /* OBJECTS: the lock (and the worker's Thread, and their classes); CLASSES: the lock's. */
    r = &section[5];
    n = (uint32_t)le(r, 4);
    int found = 0;
    uint64_t class_id = 0;
    for (uint32_t i = 0; i < n && !r->bad; i++) {
        uint64_t id = le(r, 8);
        uint32_t hash = (uint32_t)le(r, 4), kind = (uint32_t)le(r, 4);
        uint64_t cls = le(r, 8);
        if (id == lock_id) {
            found++;
            CHECK_EQ_INT(hash, 0x10C4);
            CHECK_EQ_INT(kind, OBJ_PLAIN);
            class_id = cls;
        }
    }
    CHECK(!r->bad && r->at == r->n);
    CHECK_EQ_INT(found, 1);
    r = &section[4];
    n = (uint32_t)le(r, 4);
    found = 0;
    for (uint32_t i = 0; i < n && !r->bad; i++) {
        uint64_t id = le(r, 8);
        char sig[64], source[64];
        str(r, sig, sizeof(sig));
        str(r, source, sizeof(source));
        if (id == class_id) found += strcmp(sig, "Lmock/Cc1a55;") == 0 && source[0] == 0;
    }
    CHECK(!r->bad && r->at == r->n);
    CHECK_EQ_INT(found, 1);

    /* No monitor states asked for, no loss; TOTALS: the one block, from its enter to its entered. */
    CHECK_EQ_INT(le(&section[6], 4), 0);
    CHECK_EQ_INT(le(&section[7], 4), 0);
    r = &section[8];
    CHECK_EQ_INT(le(r, 4), 1);
    CHECK_EQ_U64(le(r, 8), ring_id);
    CHECK_EQ_INT(le(r, 4), 1);            /* TOTAL_BLOCKED */
    CHECK_EQ_U64(le(r, 8), lock_id);
    CHECK_EQ_INT(le(r, 4), stack);
    CHECK_EQ_U64(le(r, 8), 1);
    CHECK_EQ_U64(le(r, 8), entered.ts - enter.ts);
    CHECK_EQ_U64(le(r, 8), entered.ts - enter.ts);
    CHECK(!r->bad && r->at == r->n);
done:
    buf_free(&out);
}

TEST(snapshot_encodes_a_recording_as_the_format_specifies) {
    CHECK(cv_alone(encode_and_decode));
}

/* A varint of a packed record (schema/snapshot-format.md, SECTION_RECORDS). */
static uint64_t varint(rd *r) {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        uint64_t b = le(r, 1);
        v |= (b & 0x7F) << shift;
        if (!(b & 0x80)) return v;
    }
    r->bad = 1;
    return 0;
}

static int64_t zigzag(uint64_t v) {
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* A repository chunk: the worker's SECTION_THREADS entry has no record, its records are one
 * packed run in SECTION_RECORDS, right after THREADS, and decode to the records written. */
static void encode_chunk_and_decode(void) {
    fixture f;
    record_fixture(&f);
    threads_drain(jni);
    cv_history *h = threads_history();
    history_lock(h);
    cv_hist_view v;
    CHECK_EQ_INT(history_pin(h, &v), 0);
    history_unlock(h);
    CHECK(v.count >= 1);
    if (v.count < 1) return;
    cv_buf out;
    buf_init(&out);
    cv_error err;
    memset(&err, 0, sizeof(err));
    CHECK_EQ_INT(snapshot_encode_chunk(jni, &f.src, v.chunks[v.count - 1], v.used[v.count - 1], &out, &err), 0);
    history_unpin(h, &v);

    rd s = {out.data, out.len, 16, 0};
    uint64_t ring_id = 0;
    int records_seen = 0;
    while (!s.bad && s.at + 16 <= out.len) {
        uint32_t tag = (uint32_t)le(&s, 4), crc = (uint32_t)le(&s, 4);
        uint64_t len = le(&s, 8);
        CHECK(s.at + len <= out.len);
        if (s.at + len > out.len) break;
        CHECK_EQ_U64(crc, crc32_of(out.data + s.at, (size_t)len));
        rd r = {out.data + s.at, (size_t)len, 0, 0};
        if (tag == SECTION_THREADS) {
            CHECK_EQ_INT(le(&r, 4), 2);   /* the worker and the GC ring, neither with a record here */
            for (int t = 0; t < 2; t++) {
                uint64_t id = le(&r, 8);
                if (t == 0) ring_id = id;
                r.at += 8 + 8 + 4 + 8 * 6;
                char name[64];
                for (int k = 0; k < 3; k++) str(&r, name, sizeof(name));
                r.at += 4;
                CHECK_EQ_INT(le(&r, 4), 0);
            }
            CHECK(!r.bad && r.at == r.n);
        } else if (tag == SECTION_RECORDS) {
            records_seen = 1;
            CHECK_EQ_INT(le(&r, 4), 2);   /* a run each */
            CHECK_EQ_U64(le(&r, 8), ring_id);
            CHECK_EQ_INT(le(&r, 4), 2);
            size_t length = (size_t)le(&r, 4);
            size_t from = r.at;
            const cv_record *want[2] = {&f.enter, &f.entered};
            uint64_t ts = 0, obj = 0;
            for (int k = 0; k < 2; k++) {
                ts += (uint64_t)zigzag(varint(&r));
                uint8_t type = (uint8_t)le(&r, 1), flags = (uint8_t)le(&r, 1);
                uint64_t aux_stack = varint(&r);
                obj += (uint64_t)zigzag(varint(&r));
                int64_t arg = zigzag(varint(&r)), arg2 = zigzag(varint(&r));
                CHECK_EQ_U64(ts, want[k]->ts);
                CHECK_EQ_U64((uint64_t)type | (uint64_t)flags << 8 | aux_stack << 16, want[k]->meta);
                CHECK_EQ_U64(obj, want[k]->obj);
                CHECK_EQ_U64((uint64_t)arg, (uint64_t)want[k]->arg);
                CHECK_EQ_U64((uint64_t)arg2, (uint64_t)want[k]->arg2);
            }
            CHECK_EQ_U64(r.at - from, length);
            CHECK(le(&r, 8) != ring_id);   /* the GC ring's run */
            CHECK_EQ_INT(le(&r, 4), 1);
            r.at += (size_t)le(&r, 4);
            CHECK(!r.bad && r.at == r.n);
        }
        s.at += (size_t)len;
        if (tag == SECTION_END) break;
    }
    CHECK(records_seen);
    buf_free(&out);
}

TEST(snapshot_encodes_a_chunk_with_its_records_packed) {
    CHECK(cv_alone(encode_chunk_and_decode));
}
