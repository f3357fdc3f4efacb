#include "ownerside.h"
#include "snapshot_format.h"

#include <string.h>

/* JVMTI thread state bits (jvmti.h; fixed by the JVMTI specification). */
#define JS_ALIVE               0x0001
#define JS_RUNNABLE            0x0004
#define JS_BLOCKED             0x0400
#define JS_WAITING             0x0080
#define JS_SLEEPING            0x0040
#define JS_IN_OBJECT_WAIT      0x0100
#define JS_PARKED              0x0200
#define JS_IN_NATIVE           0x400000

void ownerside_limiter_init(cv_limiter *l, uint32_t rate, uint64_t now_ns) {
    l->rate = rate;
    l->tokens = rate;
    l->last_ns = now_ns;
}

int ownerside_limiter_take(cv_limiter *l, uint64_t now_ns) {
    if (now_ns > l->last_ns) {
        l->tokens += (double)(now_ns - l->last_ns) * l->rate / 1e9;
        if (l->tokens > l->rate) l->tokens = l->rate;
        l->last_ns = now_ns;
    }
    if (l->tokens < 1.0) return 0;
    l->tokens -= 1.0;
    return 1;
}

int ownerside_due(const cv_block *b, uint64_t now_ns, uint64_t threshold_ns) {
    int block = b->type == EVENT_MONITOR_ENTER || (b->type == EVENT_PARK && (b->flags & FLAG_LOCK));
    return block && !b->sampled && now_ns >= b->since_ns && now_ns - b->since_ns >= threshold_ns;
}

size_t ownerside_select(const cv_block *blocks, size_t n, uint64_t now_ns, uint64_t threshold_ns, size_t *out,
                        size_t cap) {
    size_t m = 0;
    if (cap == 0) return 0;
    for (size_t i = 0; i < n; i++) {
        if (!ownerside_due(&blocks[i], now_ns, threshold_ns)) continue;
        /* the cap oldest, kept sorted by insertion (the list is short) */
        if (m == cap) {
            if (blocks[out[m - 1]].since_ns <= blocks[i].since_ns) continue;
            m--;   /* the youngest makes room */
        }
        size_t at = m++;
        while (at > 0 && blocks[out[at - 1]].since_ns > blocks[i].since_ns) {
            out[at] = out[at - 1];
            at--;
        }
        out[at] = i;
    }
    return m;
}

int64_t ownerside_monitor_owner(const cv_block *blocks, size_t n, size_t self) {
    const cv_block *b = &blocks[self];
    int64_t best = 0;
    uint64_t best_ts = 0;
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        const cv_block *x = &blocks[i];
        if (x->obj != b->obj) continue;
        int64_t who = 0;
        if (x->type == EVENT_MONITOR_ENTER && (x->flags & FLAG_OWNER) && x->owner > 0 && x->owner != x->java_tid) {
            who = x->owner;
        } else if (x->type == EVENT_MONITOR_ENTERED) {
            who = x->java_tid;
        }
        if (who <= 0 || who == b->java_tid) continue;
        if (!found || x->since_ns > best_ts) {
            best = who;
            best_ts = x->since_ns;
            found = 1;
        }
    }
    return best;
}

uint32_t ownerside_state(int32_t s) {
    if (!(s & JS_ALIVE)) return OSTATE_UNKNOWN;
    if (s & JS_BLOCKED) return OSTATE_BLOCKED;
    if (s & JS_PARKED) return OSTATE_PARKED;
    if (s & JS_SLEEPING) return OSTATE_SLEEPING;
    if (s & (JS_IN_OBJECT_WAIT | JS_WAITING)) return OSTATE_WAITING;
    if (s & JS_RUNNABLE) return (s & JS_IN_NATIVE) ? OSTATE_NATIVE : OSTATE_RUNNING;
    return OSTATE_UNKNOWN;
}

/* ---- bytecodes ---- */

static inline int32_t s16(const uint8_t *p) {
    return (int16_t)((uint16_t)p[0] << 8 | p[1]);
}

static inline int32_t s32(const uint8_t *p) {
    return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
}

/* Length of the fixed-size instructions, 0 for the variable ones (switches, wide) and the
 * opcodes the JVM specification does not define. */
static uint8_t fixed_length(uint8_t op) {
    if (op <= 0x0f) return 1;
    switch (op) {
    case 0x10: case 0x12: case 0xa9: case 0xbc: return 2;          /* bipush, ldc, ret, newarray */
    case 0x11: case 0x13: case 0x14: case 0x84: return 3;          /* sipush, ldc_w, ldc2_w, iinc */
    case 0xb9: case 0xba: case 0xc8: case 0xc9: return 5;          /* invokeinterface/dynamic, goto_w, jsr_w */
    case 0xc5: return 4;                                           /* multianewarray */
    default: break;
    }
    if (op >= 0x15 && op <= 0x19) return 2;                        /* xload */
    if (op >= 0x1a && op <= 0x35) return 1;
    if (op >= 0x36 && op <= 0x3a) return 2;                        /* xstore */
    if (op >= 0x3b && op <= 0x83) return 1;
    if (op >= 0x85 && op <= 0x98) return 1;
    if (op >= 0x99 && op <= 0xa8) return 3;                        /* if*, goto, jsr */
    if (op >= 0xac && op <= 0xb1) return 1;                        /* returns */
    if (op >= 0xb2 && op <= 0xb8) return 3;                        /* fields, invokes */
    if (op == 0xbb || op == 0xbd || op == 0xc0 || op == 0xc1) return 3;
    if (op == 0xbe || op == 0xbf || op == 0xc2 || op == 0xc3) return 1;
    if (op == 0xc6 || op == 0xc7) return 3;                        /* ifnull, ifnonnull */
    return 0;
}

/* Visits bci at `depth`: pushed on the work stack the first time. 0 if out of range. */
static int reach(uint32_t target, uint8_t d, uint32_t len, uint8_t *depth, uint8_t *seen, uint32_t *work,
                 uint32_t *nwork) {
    if (target >= len) return 0;
    if (!seen[target]) {
        seen[target] = 1;
        depth[target] = d;
        work[(*nwork)++] = target;
    }
    return 1;
}

int ownerside_monitor_depths(const uint8_t *code, uint32_t len, uint8_t *depth) {
    memset(depth, CV_DEPTH_UNKNOWN, len);
    if (len == 0) return -1;
    /* seen and the work stack: len bytes and len words, within the caller's depth buffer's
     * lifetime; on the sampler's thread only, so plain static scratch would do, but the size
     * varies: the stack holds each index once at most. */
    uint8_t seen_small[1024];
    uint32_t work_small[1024];
    uint8_t *seen = len <= 1024 ? seen_small : NULL;
    uint32_t *work = len <= 1024 ? work_small : NULL;
    if (!seen) {
        /* Bytecodes are at most 65535 bytes long (the class file format). */
        static uint8_t seen_big[65536];
        static uint32_t work_big[65536];
        if (len > 65535) return -1;
        seen = seen_big;
        work = work_big;
    }
    memset(seen, 0, len);
    uint32_t nwork = 0;
    reach(0, 0, len, depth, seen, work, &nwork);
    while (nwork > 0) {
        uint32_t at = work[--nwork];
        uint8_t d = depth[at];
        uint8_t op = code[at];
        uint32_t n = fixed_length(op);
        if (op == 0xc4) {                               /* wide */
            if (at + 1 >= len) goto bad;
            n = code[at + 1] == 0x84 ? 6 : 4;
        } else if (op == 0xaa || op == 0xab) {          /* tableswitch, lookupswitch */
            uint32_t p = (at + 4) & ~3u;
            if (p + 8 > len) goto bad;
            int32_t dflt = s32(code + p);
            if (!reach((uint32_t)((int64_t)at + dflt), d, len, depth, seen, work, &nwork)) goto bad;
            if (op == 0xaa) {
                if (p + 12 > len) goto bad;
                int32_t low = s32(code + p + 4), high = s32(code + p + 8);
                if (high < low || (int64_t)high - low >= 65536 || p + 12 + 4 * ((uint64_t)high - low + 1) > len) goto bad;
                for (int64_t k = 0; k <= (int64_t)high - low; k++) {
                    if (!reach((uint32_t)((int64_t)at + s32(code + p + 12 + 4 * k)), d, len, depth, seen, work, &nwork)) {
                        goto bad;
                    }
                }
            } else {
                int32_t pairs = s32(code + p + 4);
                if (pairs < 0 || pairs > 65536 || p + 8 + 8 * (uint64_t)pairs > len) goto bad;
                for (int32_t k = 0; k < pairs; k++) {
                    if (!reach((uint32_t)((int64_t)at + s32(code + p + 12 + 8 * k)), d, len, depth, seen, work, &nwork)) {
                        goto bad;
                    }
                }
            }
            continue;                                   /* no fall-through */
        }
        if (n == 0 || at + n > len) goto bad;
        for (uint32_t k = 1; k < n; k++) {
            if (!seen[at + k]) depth[at + k] = CV_DEPTH_UNKNOWN;   /* inside an instruction */
        }
        uint8_t next = d;
        if (op == 0xc2) {                               /* monitorenter */
            next = d < 126 ? d + 1 : 126;
            depth[at] = d | CV_DEPTH_ENTER;
        }
        if (op == 0xc3) next = d > 0 ? d - 1 : 0;       /* monitorexit */
        if ((op >= 0x99 && op <= 0xa8) || op == 0xc6 || op == 0xc7) {
            if (!reach((uint32_t)((int64_t)at + s16(code + at + 1)), next, len, depth, seen, work, &nwork)) goto bad;
            if (op == 0xa7) continue;                   /* goto */
        } else if (op == 0xc8 || op == 0xc9) {
            if (!reach((uint32_t)((int64_t)at + s32(code + at + 1)), next, len, depth, seen, work, &nwork)) goto bad;
            if (op == 0xc8) continue;                   /* goto_w */
        } else if ((op >= 0xac && op <= 0xb1) || op == 0xbf || op == 0xa9) {
            continue;                                   /* returns, athrow, ret */
        }
        if (at + n < len) reach(at + n, next, len, depth, seen, work, &nwork);
    }
    return 0;
bad:
    memset(depth, CV_DEPTH_UNKNOWN, len);
    return -1;
}

int ownerside_frame_depth(const uint8_t *depth, uint32_t len, int64_t location, int blocked_top) {
    if (!depth || location < 0 || (uint64_t)location >= len) return -1;
    uint8_t d = depth[location];
    if (blocked_top && location >= 1 && depth[location - 1] != CV_DEPTH_UNKNOWN && (depth[location - 1] & CV_DEPTH_ENTER)) {
        d = depth[location - 1];   /* at its monitorenter, one step on */
    }
    if (d == CV_DEPTH_UNKNOWN) return -1;
    return d & (uint8_t)~CV_DEPTH_ENTER;
}

int ownerside_holding_frame(const uint8_t *judged, size_t n, int *exact) {
    *exact = 0;
    int maybe = -1, count = 0;
    for (size_t i = 0; i < n; i++) {
        if (judged[i] == CV_HOLD_SURE) {
            *exact = 1;
            return (int)i;
        }
        if (judged[i] == CV_HOLD_MAYBE) {
            maybe = (int)i;   /* the outermost so far */
            count++;
        }
    }
    *exact = count == 1;
    return maybe;
}

cv_record ownerside_record(uint64_t ts, uint64_t lock, int64_t owner, uint32_t state, int frame, int exact,
                           uint64_t on, uint32_t stack) {
    cv_record r;
    uint32_t f = frame >= 0 && frame < OWNER_DEPTH_MASK ? (uint32_t)frame + 1 : 0;
    uint32_t aux = (f & OWNER_DEPTH_MASK) | ((state & 0xF) << OWNER_STATE_SHIFT);
    uint8_t flags = f && exact ? FLAG_FRAME_EXACT : 0;
    r.ts = ts;
    r.meta = cv_record_meta(EVENT_OWNER_SAMPLE, flags, stack) | (uint64_t)aux << 16;
    r.obj = lock;
    r.arg = owner;
    r.arg2 = (int64_t)on;
    return r;
}

uint32_t ownerside_record_state(const cv_record *r) {
    return (uint32_t)(r->meta >> 16 & 0xFFFF) >> OWNER_STATE_SHIFT;
}

int ownerside_record_frame(const cv_record *r) {
    return (int)((r->meta >> 16) & OWNER_DEPTH_MASK) - 1;
}
