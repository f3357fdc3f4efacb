#include "frames.h"
#include "arch.h"
#include "vmstructs.h"

#include <string.h>

/* x86_64 frame layout (HotSpot frame_x86.hpp), in words from fp: the ones VMStructs exports are
 * checked against these in frames_init; the method and bytecode pointer slots are not exported
 * and are validated against GetStackTrace instead. */
#define FP_LINK          0
#define FP_RETURN        1
#define FP_SENDER_SP    (-1)   /* frame::interpreter_frame_sender_sp_offset */
#define FP_LAST_SP      (-2)   /* frame::interpreter_frame_last_sp_offset */
#define FP_METHOD       (-3)
#define FP_BCP          (-8)
#define FP_CALL_WRAPPER (-6)   /* frame::entry_frame_call_wrapper_offset */
#define MAX_HEAPS 8
#define MAX_FRAME_WORDS (1 << 20)

static struct {
    int ok, interpreted;
    intptr_t env_offset;                 /* JNIEnv* - JavaThread* */
    int64_t anchor, a_sp, a_pc, a_fp;    /* JavaThread::_anchor, JavaFrameAnchor::_last_Java_* */
    int64_t stack_base;                  /* JavaThread::_stack_base */
    int64_t wrapper_anchor;              /* JavaCallWrapper::_anchor */
    struct {
        uintptr_t low;                   /* _memory._low_boundary */
        uintptr_t high_boundary;         /* _memory._high_boundary */
        const uintptr_t *committed;      /* &_memory._high */
        uintptr_t segmap;                /* _segmap._low */
        const uintptr_t *segmap_committed; /* &_segmap._high */
        unsigned log2;
    } heaps[MAX_HEAPS];
    int nheaps;
    uint64_t block_header;               /* sizeof(HeapBlock) */
    int64_t used;                        /* HeapBlock::Header::_used */
    int64_t cb_size, cb_frame_size, cb_name, cb_kind, nm_compile_id;
    int kind_nmethod, kind_stub;         /* CodeBlobKind values (cb_kind >= 0) */
    uintptr_t interp_lo, interp_hi;      /* the interpreter's code */
    uintptr_t call_stub_return;
    int64_t m_const, cm_constants, cm_idnum, cp_holder, ik_jmids;
    uint64_t cm_size;                    /* sizeof(ConstMethod): the bytecodes follow it */
} fr;

static const char *const REFUSALS[FRAMES_REFUSALS] = {
    "nojava", "bounds", "unknown", "stub", "deep", "nomethod", "interpreted",
};

const char *frames_refusal_name(int refusal) {
    return refusal < 0 && refusal >= -FRAMES_REFUSALS ? REFUSALS[-refusal - 1] : "?";
}

static inline uintptr_t word(uintptr_t a) {
    return load_relaxed((const uintptr_t *)a);
}

static inline int in_interpreter(uintptr_t pc) {
    return pc >= fr.interp_lo && pc < fr.interp_hi;
}

/* ---- start-up: every field and constant, checked ---- */

static int field(const char *type, const char *name, const char *want_type, int64_t *off) {
    const char *ts = NULL;
    if (vmstructs_field(type, name, off, &ts) != 0 || *off < 0 || *off > 4096) return -1;
    return want_type && (!ts || strcmp(ts, want_type) != 0) ? -1 : 0;
}

static int constant_is(const char *name, int32_t want) {
    int32_t v;
    return vmstructs_int_constant(name, &v) == 0 && v == want;
}

static int read_heaps(void) {
    uintptr_t heaps_addr;
    const char *ts = NULL;
    int64_t len_off, data_off, memory, segmap, log2, low_b, high_b, low, high;
    if (vmstructs_static_field("CodeCache", "_heaps", &heaps_addr, &ts) || !ts ||
        strcmp(ts, "GrowableArray<CodeHeap*>*") != 0 || field("GrowableArrayBase", "_len", "int", &len_off) ||
        field("GrowableArray<int>", "_data", NULL, &data_off) || field("CodeHeap", "_memory", "VirtualSpace", &memory) ||
        field("CodeHeap", "_segmap", "VirtualSpace", &segmap) || field("CodeHeap", "_log2_segment_size", "int", &log2) ||
        field("VirtualSpace", "_low_boundary", "char*", &low_b) ||
        field("VirtualSpace", "_high_boundary", "char*", &high_b) || field("VirtualSpace", "_low", "char*", &low) ||
        field("VirtualSpace", "_high", "char*", &high)) {
        return -1;
    }
    uintptr_t array = word(heaps_addr);
    if (!array || (array & 7)) return -1;
    int n = (int)load_relaxed((const int32_t *)(array + (uint64_t)len_off));
    uintptr_t data = word(array + (uint64_t)data_off);
    if (n <= 0 || n > MAX_HEAPS || !data || (data & 7)) return -1;
    for (int i = 0; i < n; i++) {
        uintptr_t h = word(data + 8 * (uint64_t)i);
        if (!h || (h & 7)) return -1;
        int l2 = (int)load_relaxed((const int32_t *)(h + (uint64_t)log2));
        uintptr_t lo = word(h + (uint64_t)(memory + low_b)), hi = word(h + (uint64_t)(memory + high_b));
        uintptr_t seg = word(h + (uint64_t)(segmap + low));
        if (l2 < 4 || l2 > 16 || !lo || hi <= lo || !seg) return -1;
        fr.heaps[i].low = lo;
        fr.heaps[i].high_boundary = hi;
        fr.heaps[i].committed = (const uintptr_t *)(h + (uint64_t)(memory + high));
        fr.heaps[i].segmap = seg;
        fr.heaps[i].segmap_committed = (const uintptr_t *)(h + (uint64_t)(segmap + high));
        fr.heaps[i].log2 = (unsigned)l2;
    }
    fr.nheaps = n;
    return 0;
}

static int read_layout(const char **why) {
#if !defined(__x86_64__) || !defined(__linux__)
    *why = "frames are read on x86_64 Linux only";
    return -1;
#else
    uint64_t jt_size;
    if (vmstructs_type_size("JavaThread", &jt_size) ||
        field("JavaThread", "_anchor", "JavaFrameAnchor", &fr.anchor) ||
        field("JavaFrameAnchor", "_last_Java_sp", "intptr_t*", &fr.a_sp) ||
        field("JavaFrameAnchor", "_last_Java_pc", "address", &fr.a_pc) ||
        field("JavaFrameAnchor", "_last_Java_fp", "intptr_t*", &fr.a_fp) ||
        field("JavaThread", "_stack_base", "address", &fr.stack_base) ||
        field("JavaCallWrapper", "_anchor", "JavaFrameAnchor", &fr.wrapper_anchor) ||
        (uint64_t)(fr.anchor + fr.a_fp) + 8 > jt_size || (uint64_t)fr.stack_base + 8 > jt_size) {
        *why = "this JVM's VMStructs do not describe the frame anchor (JavaThread, JavaFrameAnchor, JavaCallWrapper)";
        return -1;
    }
    if (!constant_is("frame::interpreter_frame_sender_sp_offset", FP_SENDER_SP) ||
        !constant_is("frame::interpreter_frame_last_sp_offset", FP_LAST_SP) ||
        !constant_is("frame::entry_frame_call_wrapper_offset", FP_CALL_WRAPPER) ||
        !constant_is("frame::pc_return_offset", 0)) {
        *why = "this JVM's frame layout constants are not the x86_64 ones this reader knows";
        return -1;
    }
    int64_t hdr = 0, len = 0;
    const char *ts = NULL;
    if (vmstructs_type_size("HeapBlock", &fr.block_header) || fr.block_header < 8 || fr.block_header > 64 ||
        field("HeapBlock", "_header", "HeapBlock::Header", &hdr) ||
        field("HeapBlock::Header", "_used", "bool", &fr.used) || hdr != 0 ||
        vmstructs_field("HeapBlock::Header", "_length", &len, &ts) || read_heaps() != 0) {
        *why = "this JVM's VMStructs do not describe the code heaps (CodeCache::_heaps, CodeHeap, HeapBlock)";
        return -1;
    }
    if (field("CodeBlob", "_size", "int", &fr.cb_size) || field("CodeBlob", "_frame_size", "int", &fr.cb_frame_size) ||
        field("CodeBlob", "_name", "const char*", &fr.cb_name) || field("nmethod", "_compile_id", "int", &fr.nm_compile_id)) {
        *why = "this JVM's VMStructs do not describe CodeBlob and nmethod (_size, _frame_size, _name, _compile_id)";
        return -1;
    }
    fr.cb_kind = -1;
    int32_t k_nm, k_stub;
    if (field("CodeBlob", "_kind", "CodeBlobKind", &fr.cb_kind) == 0) {
        if (vmstructs_int_constant("CodeBlobKind::Nmethod", &k_nm) ||
            vmstructs_int_constant("CodeBlobKind::RuntimeStub", &k_stub)) {
            *why = "CodeBlob::_kind is exported without its values";
            return -1;
        }
        fr.kind_nmethod = k_nm;
        fr.kind_stub = k_stub;
    } else {
        fr.cb_kind = -1;
    }
    uintptr_t code_addr, csr_addr;
    int64_t buf_off, limit_off;
    if (vmstructs_static_field("AbstractInterpreter", "_code", &code_addr, &ts) || !ts || strcmp(ts, "StubQueue*") ||
        field("StubQueue", "_stub_buffer", "address", &buf_off) || field("StubQueue", "_buffer_limit", "int", &limit_off) ||
        vmstructs_static_field("StubRoutines", "_call_stub_return_address", &csr_addr, &ts) || !ts ||
        strcmp(ts, "address") != 0) {
        *why = "this JVM's VMStructs do not give the interpreter's code and the call stub";
        return -1;
    }
    uintptr_t queue = word(code_addr);
    if (!queue || (queue & 7)) {
        *why = "the interpreter's code is not there";
        return -1;
    }
    fr.interp_lo = word(queue + (uint64_t)buf_off);
    int32_t limit = load_relaxed((const int32_t *)(queue + (uint64_t)limit_off));
    fr.interp_hi = fr.interp_lo + (uint64_t)(limit > 0 ? limit : 0);
    fr.call_stub_return = word(csr_addr);
    if (!fr.interp_lo || fr.interp_hi <= fr.interp_lo || !fr.call_stub_return) {
        *why = "the interpreter's code or the call stub is not there";
        return -1;
    }
    if (field("Method", "_constMethod", "ConstMethod*", &fr.m_const) ||
        field("ConstMethod", "_constants", "ConstantPool*", &fr.cm_constants) ||
        field("ConstMethod", "_method_idnum", "u2", &fr.cm_idnum) ||
        field("ConstantPool", "_pool_holder", "InstanceKlass*", &fr.cp_holder) ||
        field("InstanceKlass", "_methods_jmethod_ids", "jmethodID*", &fr.ik_jmids) ||
        vmstructs_type_size("ConstMethod", &fr.cm_size) || fr.cm_size < 16 || fr.cm_size > 1024) {
        *why = "this JVM's VMStructs do not describe a method's jmethodID (Method, ConstMethod, InstanceKlass)";
        return -1;
    }
    return 0;
#endif
}

/* ---- lookups ---- */

/* The code blob holding pc, or 0. Reads only committed code heap and segment map memory. */
static uintptr_t find_blob(uintptr_t pc) {
    for (int i = 0; i < fr.nheaps; i++) {
        uintptr_t low = fr.heaps[i].low;
        if (pc < low || pc >= fr.heaps[i].high_boundary) continue;
        if (pc >= load_acquire(fr.heaps[i].committed)) return 0;
        uint64_t seg = (pc - low) >> fr.heaps[i].log2;
        const uint8_t *map = (const uint8_t *)fr.heaps[i].segmap;
        uintptr_t map_end = load_acquire(fr.heaps[i].segmap_committed);
        if ((uintptr_t)(map + seg) >= map_end) return 0;
        uint8_t hop = load_relaxed(&map[seg]);
        for (int n = 0; hop != 0; n++) {
            if (hop == 0xFF || hop > seg || n > (1 << 16)) return 0;   /* free, or not a block */
            seg -= hop;
            hop = load_relaxed(&map[seg]);
        }
        uintptr_t block = low + (seg << fr.heaps[i].log2);
        if (!load_relaxed((const uint8_t *)(block + (uint64_t)fr.used))) return 0;
        uintptr_t blob = block + fr.block_header;
        int32_t size = load_relaxed((const int32_t *)(blob + (uint64_t)fr.cb_size));
        return size > 0 && pc >= blob && pc < blob + (uint64_t)size ? blob : 0;
    }
    return 0;
}

static int is_named(uintptr_t blob, const char *a, const char *b) {
    const char *name = (const char *)word(blob + (uint64_t)fr.cb_name);
    return name && (strcmp(name, a) == 0 || (b && strcmp(name, b) == 0));
}

/* The monitor-enter stubs of C2 and C1 (the top frame of a contended enter from compiled code). */
static int is_monitor_stub(uintptr_t blob) {
    const char *name = (const char *)word(blob + (uint64_t)fr.cb_name);
    return name && (strstr(name, "complete_monitor_locking") != NULL || strstr(name, "monitorenter") != NULL);
}

enum { BLOB_OTHER, BLOB_NMETHOD, BLOB_MONITOR_STUB };

static int blob_kind(uintptr_t blob) {
    if (fr.cb_kind >= 0) {
        int k = load_relaxed((const uint8_t *)(blob + (uint64_t)fr.cb_kind));
        if (k == fr.kind_nmethod) return BLOB_NMETHOD;
        return k == fr.kind_stub && is_monitor_stub(blob) ? BLOB_MONITOR_STUB : BLOB_OTHER;
    }
    if (is_named(blob, "nmethod", "native nmethod")) return BLOB_NMETHOD;
    return is_monitor_stub(blob) ? BLOB_MONITOR_STUB : BLOB_OTHER;
}

/* The jmethodID the VM gives `method` (InstanceKlass::jmethod_id_or_null), or 0. */
static uint64_t jmethod_id(uintptr_t method) {
    uintptr_t cm = word(method + (uint64_t)fr.m_const);
    if (!cm || (cm & 7)) return 0;
    uintptr_t cp = word(cm + (uint64_t)fr.cm_constants);
    if (!cp || (cp & 7)) return 0;
    uintptr_t ik = word(cp + (uint64_t)fr.cp_holder);
    if (!ik || (ik & 7)) return 0;
    uintptr_t ids = load_acquire((const uintptr_t *)(ik + (uint64_t)fr.ik_jmids));
    if (!ids || (ids & 7)) return 0;
    uint64_t idnum = load_relaxed((const uint16_t *)(cm + (uint64_t)fr.cm_idnum));
    uint64_t length = word(ids);
    return length > idnum ? word(ids + 8 * (idnum + 1)) : 0;
}

/* ---- the chain ---- */

typedef struct {
    frames_check *out;
    int n, cap;
    uintptr_t lo, hi;
    /* validation at start-up: interpreted frames' ids and bytecode indexes, top first */
    uint64_t *jmids;
    int64_t *bcis;
    int ninterp, interp_cap, interp_run;   /* interp_run: 1 while every frame so far was interpreted */
} walk;

static inline int put(walk *w, uintptr_t addr, uint64_t value, int kind) {
    if (w->n >= w->cap) return FRAMES_DEEP;
    w->out[w->n].addr = addr | (uintptr_t)kind;
    w->out[w->n].value = value;
    w->n++;
    return 0;
}

static inline int in_stack(const walk *w, uintptr_t a, uint64_t bytes) {
    return a >= w->lo && a + bytes <= w->hi && (a & 7) == 0;
}

/* Reads a word of the stack into *v and checks it. */
static inline int stack_word(walk *w, uintptr_t a, uintptr_t *v) {
    if (!in_stack(w, a, 8)) return FRAMES_BOUNDS;
    *v = word(a);
    return put(w, a, *v, FRAMES_WORD);
}

#define TRY(x)               \
    do {                     \
        int rc_ = (x);       \
        if (rc_ < 0) return rc_; \
    } while (0)

static int chain(JNIEnv *jni, walk *w) {
    uintptr_t jt = (uintptr_t)jni - (uintptr_t)fr.env_offset;
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    w->lo = here;
    w->hi = word(jt + (uint64_t)fr.stack_base);
    if (w->hi <= w->lo) return FRAMES_BOUNDS;
    uintptr_t anchor = jt + (uint64_t)fr.anchor;
    uintptr_t sp, pc, fp;
    /* The anchor's fields are the thread's own and stable while it is in native. */
    sp = word(anchor + (uint64_t)fr.a_sp);
    TRY(put(w, anchor + (uint64_t)fr.a_sp, sp, FRAMES_WORD));
    if (!sp) return FRAMES_NO_JAVA;
    pc = word(anchor + (uint64_t)fr.a_pc);
    TRY(put(w, anchor + (uint64_t)fr.a_pc, pc, FRAMES_WORD));
    uintptr_t fp_addr = anchor + (uint64_t)fr.a_fp;   /* where the frame's fp came from */
    fp = word(fp_addr);
    int top = 1;
    for (;;) {
        if (!in_stack(w, sp, 8)) return FRAMES_BOUNDS;
        if (!pc) TRY(stack_word(w, sp - 8, &pc));
        if (in_interpreter(pc)) {
            if (!fr.interpreted && !w->jmids) return FRAMES_INTERPRETED;
            /* The fp this frame uses: the anchor's, or the word its callee saved. */
            if (fp_addr) TRY(put(w, fp_addr, fp, FRAMES_WORD));
            if (!in_stack(w, fp + 8 * FP_BCP, 8 * (FP_RETURN - FP_BCP + 1)) || fp < sp) return FRAMES_BOUNDS;
            uintptr_t method, bcp, link, ret, sender_sp;
            TRY(stack_word(w, fp + 8 * FP_METHOD, &method));
            TRY(stack_word(w, fp + 8 * FP_BCP, &bcp));
            if (!method || (method & 7)) return FRAMES_UNKNOWN;
            uintptr_t cm = word(method + (uint64_t)fr.m_const);
            TRY(put(w, method + (uint64_t)fr.m_const, cm, FRAMES_WORD));
            uint64_t id = jmethod_id(method);
            if (!id) return FRAMES_NO_METHOD;
            TRY(put(w, method, id, FRAMES_JMID));
            if (w->jmids && w->interp_run && w->ninterp < w->interp_cap) {
                w->jmids[w->ninterp] = id;
                w->bcis[w->ninterp] = (int64_t)bcp - (int64_t)(cm + fr.cm_size);
                w->ninterp++;
            }
            TRY(stack_word(w, fp + 8 * FP_RETURN, &ret));
            TRY(stack_word(w, fp + 8 * FP_SENDER_SP, &sender_sp));
            link = word(fp + 8 * FP_LINK);
            fp_addr = fp + 8 * FP_LINK;
            if (sender_sp <= sp) return FRAMES_BOUNDS;
            sp = sender_sp;
            fp = link;
            pc = ret;
        } else if (pc == fr.call_stub_return) {
            w->interp_run = 0;
            if (top) return FRAMES_UNKNOWN;
            if (fp_addr) TRY(put(w, fp_addr, fp, FRAMES_WORD));
            uintptr_t wrapper;
            TRY(stack_word(w, fp + 8 * FP_CALL_WRAPPER, &wrapper));
            uintptr_t a = wrapper + (uint64_t)fr.wrapper_anchor;
            if (!in_stack(w, a, (uint64_t)fr.a_fp + 8) || wrapper < sp) return FRAMES_BOUNDS;
            uintptr_t next_sp;
            TRY(stack_word(w, a + (uint64_t)fr.a_sp, &next_sp));
            if (!next_sp) return w->n;   /* the first Java call of the thread: the chain is whole */
            TRY(stack_word(w, a + (uint64_t)fr.a_pc, &pc));
            fp_addr = a + (uint64_t)fr.a_fp;
            fp = word(fp_addr);
            if (next_sp <= sp) return FRAMES_BOUNDS;
            sp = next_sp;
            top = 1;
            continue;
        } else {
            w->interp_run = 0;
            uintptr_t blob = find_blob(pc);
            if (!blob) return FRAMES_UNKNOWN;
            int kind = blob_kind(blob);
            if (kind == BLOB_NMETHOD) {
                int32_t id = load_relaxed((const int32_t *)(blob + (uint64_t)fr.nm_compile_id));
                TRY(put(w, blob + (uint64_t)fr.nm_compile_id, (uint32_t)id, FRAMES_INT));
            } else if (kind != BLOB_MONITOR_STUB || !top) {
                return FRAMES_STUB;
            }
            int32_t words = load_relaxed((const int32_t *)(blob + (uint64_t)fr.cb_frame_size));
            if (words <= 0 || words > MAX_FRAME_WORDS) return FRAMES_UNKNOWN;
            uintptr_t sender_sp = sp + 8 * (uint64_t)words;
            TRY(stack_word(w, sender_sp - 8, &pc));
            /* The saved fp: checked only if the caller uses it (interpreted or entry frame). */
            if (!in_stack(w, sender_sp - 16, 8)) return FRAMES_BOUNDS;
            fp_addr = sender_sp - 16;
            fp = word(fp_addr);
            sp = sender_sp;
        }
        top = 0;
        /* The fp of a compiled caller is not used: only interpreted and entry frames check it. */
        if (!in_interpreter(pc) && pc != fr.call_stub_return) fp_addr = 0;
    }
}

int frames_chain(JNIEnv *jni, frames_check *out, int cap) {
    if (!fr.ok) return FRAMES_UNKNOWN;
    walk w;
    memset(&w, 0, sizeof(w));
    w.out = out;
    w.cap = cap;
    return chain(jni, &w);
}

int frames_hold(const frames_check *c, int n) {
    for (int i = 0; i < n; i++) {
        uintptr_t a = c[i].addr & ~(uintptr_t)3;
        switch (c[i].addr & 3) {
        case FRAMES_WORD:
            if (word(a) != c[i].value) return 0;
            break;
        case FRAMES_INT:
            if ((uint32_t)load_relaxed((const int32_t *)a) != (uint32_t)c[i].value) return 0;
            break;
        default:
            if (jmethod_id(a) != c[i].value) return 0;
            break;
        }
    }
    return 1;
}

/* The interpreter's method and bytecode pointer slots, against GetStackTrace: the leading
 * interpreted frames of this thread's own stack must be GetStackTrace's first frames. */
static int validate_interpreter(jvmtiEnv *jvmti, JNIEnv *jni) {
    enum { CHECKS = 512, FRAMES = 16 };
    static frames_check checks[CHECKS];
    uint64_t jmids[FRAMES];
    int64_t bcis[FRAMES];
    walk w;
    memset(&w, 0, sizeof(w));
    w.out = checks;
    w.cap = CHECKS;
    w.jmids = jmids;
    w.bcis = bcis;
    w.interp_cap = FRAMES;
    w.interp_run = 1;
    /* GetStackTrace first: it makes the jmethodIDs the chain looks up. */
    jvmtiFrameInfo st[FRAMES];
    jint count = 0;
    (*jvmti)->GetStackTrace(jvmti, NULL, 0, FRAMES, st, &count);
    chain(jni, &w);
    if (w.ninterp < 2 || (*jvmti)->GetStackTrace(jvmti, NULL, 0, FRAMES, st, &count) != JVMTI_ERROR_NONE ||
        count < w.ninterp) {
        return 0;
    }
    int bcis_seen = 0;
    for (int i = 0; i < w.ninterp; i++) {
        if ((uint64_t)(uintptr_t)st[i].method != jmids[i]) return 0;
        if (st[i].location >= 0) {
            if (st[i].location != bcis[i]) return 0;
            bcis_seen++;
        }
    }
    return bcis_seen > 0;
}

int frames_init(jvmtiEnv *jvmti, JNIEnv *jni, const char **why, int *interpreted) {
    uintptr_t jt;
    if (vmstructs_current_thread(jvmti, jni, &jt, &fr.env_offset, why) != 0 || read_layout(why) != 0) return -1;
    fr.ok = 1;
    fr.interpreted = validate_interpreter(jvmti, jni);
    *interpreted = fr.interpreted;
    return 0;
}
