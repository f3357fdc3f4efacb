#include "check.h"
#include "ownerside.h"
#include "snapshot_format.h"

#include <string.h>

TEST(limiter_allows_the_rate_and_a_burst_no_more) {
    cv_limiter l;
    ownerside_limiter_init(&l, 20, 1000);
    int taken = 0;
    for (int i = 0; i < 30; i++) taken += ownerside_limiter_take(&l, 1000);
    CHECK_EQ_INT(taken, 20);
    /* 50 ms later: one more token */
    CHECK_EQ_INT(ownerside_limiter_take(&l, 1000 + 50000000), 1);
    CHECK_EQ_INT(ownerside_limiter_take(&l, 1000 + 50000000), 0);
    /* a long pause refills to the burst, never beyond */
    taken = 0;
    for (int i = 0; i < 30; i++) taken += ownerside_limiter_take(&l, 10000000000ull);
    CHECK_EQ_INT(taken, 20);
    /* time that goes backwards adds nothing */
    CHECK_EQ_INT(ownerside_limiter_take(&l, 5), 0);
}

TEST(limiter_over_a_second_of_polls_takes_the_rate) {
    cv_limiter l;
    ownerside_limiter_init(&l, 20, 0);
    int taken = 0;
    /* a poll every ms for 10 s: the burst, then 20 a second */
    for (uint64_t ms = 0; ms < 10000; ms++) taken += ownerside_limiter_take(&l, ms * 1000000);
    CHECK(taken >= 20 + 199 && taken <= 20 + 200);
}

static cv_block blk(int64_t tid, uint32_t type, uint32_t flags, uint64_t obj, uint64_t since, int64_t owner) {
    cv_block b;
    memset(&b, 0, sizeof(b));
    b.ring_id = (uint64_t)tid + 100;
    b.java_tid = tid;
    b.type = type;
    b.flags = flags;
    b.obj = obj;
    b.since_ns = since;
    b.owner = owner;
    return b;
}

TEST(select_takes_due_blocks_oldest_first_up_to_cap) {
    cv_block b[6];
    b[0] = blk(1, EVENT_MONITOR_ENTER, FLAG_OWNER, 7, 900, 2);    /* 100 old: not due at 5 ms */
    b[1] = blk(2, EVENT_MONITOR_ENTER, FLAG_OWNER, 7, 100, 3);
    b[2] = blk(3, EVENT_PARK, FLAG_LOCK, 8, 50, 4);
    b[3] = blk(4, EVENT_PARK, 0, 9, 10, -1);                      /* a wait, never due */
    b[4] = blk(5, EVENT_MONITOR_ENTERED, 0, 7, 20, 0);            /* a holder fact */
    b[5] = blk(6, EVENT_MONITOR_ENTER, 0, 7, 300, 0);
    uint64_t now = 1000, threshold = 500;
    size_t out[4];
    size_t n = ownerside_select(b, 6, now, threshold, out, 4);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(out[0], 2);
    CHECK_EQ_INT(out[1], 1);
    CHECK_EQ_INT(out[2], 5);
    n = ownerside_select(b, 6, now, threshold, out, 2);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(out[0], 2);
    CHECK_EQ_INT(out[1], 1);
    b[2].sampled = 1;
    n = ownerside_select(b, 6, now, threshold, out, 4);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(out[0], 1);
    CHECK_EQ_INT(ownerside_select(b, 6, now, threshold, out, 0), 0);
}

TEST(monitor_owner_is_the_newest_exact_fact) {
    cv_block b[6];
    b[0] = blk(1, EVENT_MONITOR_ENTER, FLAG_OWNER, 7, 10, 100);   /* self: owner 100 at 10 */
    b[1] = blk(2, EVENT_MONITOR_ENTER, FLAG_OWNER, 7, 30, 200);   /* later enter: owner 200 at 30 */
    b[2] = blk(3, EVENT_MONITOR_ENTERED, 0, 7, 20, 0);            /* thread 3 got it at 20 */
    b[3] = blk(4, EVENT_MONITOR_ENTER, FLAG_OWNER, 8, 99, 400);   /* another monitor */
    b[4] = blk(5, EVENT_MONITOR_ENTER, FLAG_OWNER, 7, 40, 5);     /* names itself: no fact */
    b[5] = blk(6, EVENT_MONITOR_ENTER, 0, 7, 50, 0);              /* no owner read */
    CHECK_EQ_INT(ownerside_monitor_owner(b, 6, 0), 200);
    b[2].since_ns = 35;
    CHECK_EQ_INT(ownerside_monitor_owner(b, 6, 0), 3);
    /* the blocked thread is never its own owner */
    b[1].owner = 1;   /* names the asking thread 1: skipped for it */
    b[2].since_ns = 5;
    CHECK_EQ_INT(ownerside_monitor_owner(b, 6, 0), 100);   /* its own enter's reading is the newest left */
    /* none known */
    cv_block lone = blk(9, EVENT_MONITOR_ENTER, FLAG_OWNER, 7, 10, -1);
    CHECK_EQ_INT(ownerside_monitor_owner(&lone, 1, 0), 0);
}

TEST(state_words_map_to_owner_states) {
    CHECK_EQ_INT(ownerside_state(0x0005), OSTATE_RUNNING);                 /* alive, runnable */
    CHECK_EQ_INT(ownerside_state(0x400005), OSTATE_NATIVE);
    CHECK_EQ_INT(ownerside_state(0x0401), OSTATE_BLOCKED);
    CHECK_EQ_INT(ownerside_state(0x0001 | 0x0080 | 0x0010 | 0x0200), OSTATE_PARKED);   /* waiting indefinitely, parked */
    CHECK_EQ_INT(ownerside_state(0x0001 | 0x0080 | 0x0020 | 0x0040), OSTATE_SLEEPING);
    CHECK_EQ_INT(ownerside_state(0x0001 | 0x0080 | 0x0010 | 0x0100), OSTATE_WAITING);
    CHECK_EQ_INT(ownerside_state(0x0002), OSTATE_UNKNOWN);                 /* terminated */
    CHECK_EQ_INT(ownerside_state(0), OSTATE_UNKNOWN);
}

TEST(monitor_depths_follow_a_synchronized_block) {
    /* javac's synchronized (x) { a(); } b(); */
    const uint8_t code[] = {
        0x2a,             /* 0 aload_0 */
        0x59,             /* 1 dup */
        0x4c,             /* 2 astore_1 */
        0xc2,             /* 3 monitorenter */
        0xb8, 0x00, 0x02, /* 4 invokestatic a */
        0x2b,             /* 7 aload_1 */
        0xc3,             /* 8 monitorexit */
        0xa7, 0x00, 0x08, /* 9 goto 17 */
        0x4d,             /* 12 astore_2: the handler, reached only by an exception */
        0x2b,             /* 13 aload_1 */
        0xc3,             /* 14 monitorexit */
        0x2c,             /* 15 aload_2 */
        0xbf,             /* 16 athrow */
        0xb8, 0x00, 0x03, /* 17 invokestatic b */
        0xb1,             /* 20 return */
    };
    uint8_t d[sizeof(code)];
    CHECK_EQ_INT(ownerside_monitor_depths(code, sizeof(code), d), 0);
    CHECK_EQ_INT(d[0], 0);
    CHECK_EQ_INT(d[3], 0 | CV_DEPTH_ENTER);   /* the monitorenter itself: marked */
    CHECK_EQ_INT(d[4], 1);
    CHECK_EQ_INT(d[5], CV_DEPTH_UNKNOWN);   /* inside the invoke */
    CHECK_EQ_INT(d[8], 1);
    CHECK_EQ_INT(d[9], 0);
    CHECK_EQ_INT(d[12], CV_DEPTH_UNKNOWN);
    CHECK_EQ_INT(d[17], 0);
    CHECK_EQ_INT(d[20], 0);
    /* a frame in the invoke holds one; the interpreter reports a thread blocked at the
     * monitorenter (3) at 4: it holds none yet */
    CHECK_EQ_INT(ownerside_frame_depth(d, sizeof(code), 4, 0), 1);
    CHECK_EQ_INT(ownerside_frame_depth(d, sizeof(code), 4, 1), 0);
    CHECK_EQ_INT(ownerside_frame_depth(d, sizeof(code), 3, 1), 0);   /* compiled: at the monitorenter */
    CHECK_EQ_INT(ownerside_frame_depth(d, sizeof(code), 17, 1), 0);
    CHECK_EQ_INT(ownerside_frame_depth(d, sizeof(code), 12, 0), -1);  /* the handler: unknown */
    CHECK_EQ_INT(ownerside_frame_depth(d, sizeof(code), -1, 0), -1);  /* native */
    CHECK_EQ_INT(ownerside_frame_depth(d, sizeof(code), 21, 0), -1);  /* beyond the code */
    CHECK_EQ_INT(ownerside_frame_depth(NULL, 0, 0, 0), -1);
}

TEST(monitor_depths_nest_and_follow_switches) {
    /* tableswitch at 0: low 0, high 1; case 0 -> 24, case 1 -> 27, default -> 27 */
    uint8_t code[30];
    memset(code, 0, sizeof(code));
    code[0] = 0xaa;
    const uint8_t table[] = {0, 0, 0, 27, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 24, 0, 0, 0, 27};
    memcpy(code + 4, table, sizeof(table));
    code[24] = 0xc2;   /* monitorenter */
    code[25] = 0xc2;   /* monitorenter */
    code[26] = 0xb1;   /* return */
    code[27] = 0x00;   /* nop */
    code[28] = 0xc3;   /* monitorexit at depth 0 stays 0 */
    code[29] = 0xb1;
    uint8_t d[sizeof(code)];
    CHECK_EQ_INT(ownerside_monitor_depths(code, sizeof(code), d), 0);
    CHECK_EQ_INT(d[24], 0 | CV_DEPTH_ENTER);
    CHECK_EQ_INT(d[25], 1 | CV_DEPTH_ENTER);
    CHECK_EQ_INT(d[26], 2);
    CHECK_EQ_INT(d[27], 0);
    CHECK_EQ_INT(d[29], 0);
    CHECK_EQ_INT(d[1], CV_DEPTH_UNKNOWN);   /* the switch's operands */
}

TEST(monitor_depths_refuse_malformed_code) {
    uint8_t d[8];
    const uint8_t undefined_op[] = {0x00, 0xcb, 0xb1};
    CHECK_EQ_INT(ownerside_monitor_depths(undefined_op, sizeof(undefined_op), d), -1);
    CHECK_EQ_INT(d[0], CV_DEPTH_UNKNOWN);
    const uint8_t branch_out[] = {0xa7, 0x00, 0x40};    /* goto 64 */
    CHECK_EQ_INT(ownerside_monitor_depths(branch_out, sizeof(branch_out), d), -1);
    const uint8_t cut_short[] = {0x00, 0xb8, 0x00};     /* an invoke missing a byte */
    CHECK_EQ_INT(ownerside_monitor_depths(cut_short, sizeof(cut_short), d), -1);
    const uint8_t bad_switch[] = {0xaa, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 1};   /* high < low */
    uint8_t d16[16];
    CHECK_EQ_INT(ownerside_monitor_depths(bad_switch, sizeof(bad_switch), d16), -1);
    CHECK_EQ_INT(ownerside_monitor_depths(undefined_op, 0, d), -1);
    /* a long method goes through the large scratch buffers */
    static uint8_t big[40000], dbig[40000];
    memset(big, 0x00, sizeof(big));
    big[100] = 0xc2;
    big[sizeof(big) - 1] = 0xb1;
    CHECK_EQ_INT(ownerside_monitor_depths(big, sizeof(big), dbig), 0);
    CHECK_EQ_INT(dbig[100], CV_DEPTH_ENTER);
    CHECK_EQ_INT(dbig[101], 1);
    CHECK_EQ_INT(dbig[sizeof(big) - 1], 1);
}

TEST(holding_frame_prefers_sure_then_the_only_then_the_outermost) {
    int exact = -1;
    const uint8_t none[] = {CV_HOLD_NONE, CV_HOLD_NONE};
    CHECK_EQ_INT(ownerside_holding_frame(none, 2, &exact), -1);
    CHECK_EQ_INT(exact, 0);
    const uint8_t one[] = {CV_HOLD_NONE, CV_HOLD_MAYBE, CV_HOLD_NONE};
    CHECK_EQ_INT(ownerside_holding_frame(one, 3, &exact), 1);
    CHECK_EQ_INT(exact, 1);
    const uint8_t two[] = {CV_HOLD_MAYBE, CV_HOLD_NONE, CV_HOLD_MAYBE, CV_HOLD_NONE};
    CHECK_EQ_INT(ownerside_holding_frame(two, 4, &exact), 2);
    CHECK_EQ_INT(exact, 0);
    const uint8_t sure[] = {CV_HOLD_MAYBE, CV_HOLD_SURE, CV_HOLD_MAYBE};
    CHECK_EQ_INT(ownerside_holding_frame(sure, 3, &exact), 1);
    CHECK_EQ_INT(exact, 1);
}

TEST(owner_sample_record_round_trips) {
    cv_record r = ownerside_record(123, 0x100000005ull, 42, OSTATE_SLEEPING, 3, 1, 0x200000009ull, 77);
    CHECK_EQ_U64(r.ts, 123);
    CHECK_EQ_INT(r.meta & 0xFF, EVENT_OWNER_SAMPLE);
    CHECK_EQ_INT((r.meta >> 8) & 0xFF, FLAG_FRAME_EXACT);
    CHECK_EQ_U64(r.meta >> 32, 77);
    CHECK_EQ_U64(r.obj, 0x100000005ull);
    CHECK_EQ_INT(r.arg, 42);
    CHECK_EQ_U64((uint64_t)r.arg2, 0x200000009ull);
    CHECK_EQ_INT(ownerside_record_state(&r), OSTATE_SLEEPING);
    CHECK_EQ_INT(ownerside_record_frame(&r), 3);
    /* the aux bits are the u16 after the flags in the snapshot's encoding */
    uint8_t enc[CV_RECORD_BYTES];
    ring_encode(&r, enc);
    CHECK_EQ_INT(enc[10] | enc[11] << 8, 4 | OSTATE_SLEEPING << OWNER_STATE_SHIFT);
    /* no frame: no exact flag, depth -1 */
    cv_record n = ownerside_record(1, 5, 42, OSTATE_RUNNING, -1, 1, 0, 0);
    CHECK_EQ_INT((n.meta >> 8) & 0xFF, 0);
    CHECK_EQ_INT(ownerside_record_frame(&n), -1);
    CHECK_EQ_INT(ownerside_record_state(&n), OSTATE_RUNNING);
    /* a depth beyond the field is none */
    cv_record deep = ownerside_record(1, 5, 42, OSTATE_RUNNING, 5000, 0, 0, 0);
    CHECK_EQ_INT(ownerside_record_frame(&deep), -1);
}
