package dev.convoy.analysis;

import static dev.convoy.analysis.IntervalTable.*;

import dev.convoy.analysis.Interactions.Kind;
import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;

/**
 * The interactions between threads (the rules of {@link Interactions}) in primitive columns,
 * numbered in derivation order, and what the rules found per interval: the owner at a
 * BLOCKED interval's MONITOR_ENTER and the interaction that ended an interval. Derived from
 * the rings' {@link IntervalTable}s: the start and interrupt rules on the calls sorted into
 * event order, the JOIN_END rule per JOINING interval, then one pass over the records in
 * event order (the {@link MonitorOwnership.Tracker}, handoffs, notify binding).
 *
 * <p>What it keeps: per interaction 50 bytes (with the records of its cause and effect, the
 * interval it ended and whether its active thread is exact), per interval 9 (owner and whether it is exact, ender), per start or interrupt call 4, per notify
 * call 12; while binding, per monitor the notify calls a wake could still bind and the wakes
 * waiting for a notify. TIMEOUT is no interaction of the table (it is no arrow): a WAITING
 * interval that {@link IntervalTable#timedOut} has one.
 */
final class InteractionTable extends Columns {
    private static final Kind[] KINDS = Kind.values();

    private final Recording r;
    private final Rings x;
    private final IntervalTable[] rings;
    private final java.util.BitSet[] interruptUsed; // per ring: intervals the interrupt rule ended, null none
    private final Map<Long, Integer> byObject = new HashMap<>();
    private final Map<Long, Integer> byJavaId = new HashMap<>();

    private byte[] iKind = new byte[64];
    private int[] iFrom = new int[64];
    private long[] iFromNs = new long[64];
    private int[] iTo = new int[64];
    private long[] iToNs = new long[64];
    private long[] iMonitor = new long[64];
    private int[] iCause = new int[64]; // record index of the cause on the from ring, -1 none
    private int[] iEnded = new int[64]; // interval of the to ring it ended; -1 none; <= -2: none, effect record -2 - v
    private boolean[] iExact = new boolean[64]; // the from thread is recorded: false for a HANDOFF whose releaser is inferred
    private final int[][] owner; // per ring and interval: owner's ring position + 1, 0 none (BLOCKED)
    private final byte[][] ownerSource; // per ring and interval: MonitorOwnership.Source ordinal + 1, 0 unknown
    private final LongMap<Long> ownerIds = new LongMap<>(); // (ring, interval) -> Java id of an owner without a ring
    private final int[][] ender; // per ring and interval: interaction id, -2 - ring of the waiter for a TIMEOUT, -1 none
    private final int[] startOf; // per ring: its START interaction, -1
    private int[] startCall; // per START_CALL in event order: its interaction, -1
    private int[] interruptCall;
    private int[] notifyFirst; // per NOTIFY/NOTIFY_ALL call in event order: first bound interaction, -1
    private int[] notifyNext; // per interaction: the next one bound to the same call, -1
    private int notifyCalls;
    private int[] notifyRing; // per NOTIFY/NOTIFY_ALL call in event order: its ring and record index
    private int[] notifyRecord;
    private int[] unparkCall = new int[0]; // per UNPARK in event order: its interaction, -1
    private int unparkCalls;
    private final boolean[][] parkedUsed; // per ring, per PARKED: an UNPARK was bound to it (when asked)

    private InteractionTable(Recording r, Rings x) {
        super(64);
        this.r = r;
        this.x = x;
        this.rings = x.tables();
        this.interruptUsed = new java.util.BitSet[rings.length];
        this.owner = new int[rings.length][];
        this.ownerSource = new byte[rings.length][];
        this.ender = new int[rings.length][];
        this.startOf = new int[rings.length];
        this.parkedUsed = new boolean[rings.length][];
        Arrays.fill(startOf, -1);
        for (int k = 0; k < rings.length; k++) {
            owner[k] = new int[rings[k].count()];
            ownerSource[k] = new byte[rings[k].count()];
            ender[k] = new int[rings[k].count()];
            Arrays.fill(ender[k], -1);
            RecordedThread t = rings[k].thread();
            if (!t.isSystem()) {
                if (t.threadObject() != 0) {
                    prefer(byObject, t.threadObject(), k);
                }
                if (t.javaThreadId() >= 0) {
                    prefer(byJavaId, t.javaThreadId(), k);
                }
            }
        }
    }

    /**
     * Derives the interactions of an index's rings; {@code starts} and {@code interrupts}: the
     * START_CALL and INTERRUPT_CALL records {ts, ring, index} the scans of the rings collected.
     */
    static InteractionTable of(Recording r, Rings x, List<long[]> starts, List<long[]> interrupts) {
        InteractionTable in = new InteractionTable(r, x);
        in.starts(sortCalls(starts));
        in.interrupts(sortCalls(interrupts));
        in.timeouts();
        in.joins();
        in.parkOwners();
        in.new MergedPass().run();
        in.trim();
        return in;
    }

    @Override
    void resize(int c) {
        iKind = Arrays.copyOf(iKind, c);
        iFrom = Arrays.copyOf(iFrom, c);
        iFromNs = Arrays.copyOf(iFromNs, c);
        iTo = Arrays.copyOf(iTo, c);
        iToNs = Arrays.copyOf(iToNs, c);
        iMonitor = Arrays.copyOf(iMonitor, c);
        iCause = Arrays.copyOf(iCause, c);
        iEnded = Arrays.copyOf(iEnded, c);
        iExact = Arrays.copyOf(iExact, c);
    }

    private void prefer(Map<Long, Integer> map, long key, int k) {
        Integer found = map.get(key);
        if (found == null || rings[found].thread().isLate() && !rings[k].thread().isLate()) {
            map.put(key, k);
        }
    }

    /** The Java thread's ring of a Thread object, else of a Java id (one not met late preferred); -1 if none. */
    private int target(long threadObject, long javaId) {
        Integer k = threadObject != 0 ? byObject.get(threadObject) : javaId >= 0 ? byJavaId.get(javaId) : null;
        return k == null ? -1 : k;
    }

    private RecordedThread thread(int ring) {
        return rings[ring].thread();
    }

    /** Calls {ts, ring, index} in the order of {@link Recording#events()}. */
    private static List<long[]> sortCalls(List<long[]> calls) {
        calls.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0])
                : a[1] != b[1] ? Long.compare(a[1], b[1]) : Long.compare(a[2], b[2]));
        return calls;
    }

    /**
     * A new interaction; {@code cause}: its record on the from ring, -1 none; {@code ended}: the
     * interval of the to ring it ended, else -1, or {@code -2 - record} of its effect. Its from
     * thread is exact unless it is a HANDOFF ({@link #handoff} says).
     */
    private int interaction(Kind kind, int from, long fromNs, int to, long toNs, long monitor, int cause, int ended) {
        int id = append();
        iCause[id] = cause;
        iEnded[id] = ended;
        iExact[id] = kind != Kind.HANDOFF;
        iKind[id] = (byte) kind.ordinal();
        iFrom[id] = from;
        iFromNs[id] = fromNs;
        iTo[id] = to;
        iToNs[id] = toNs;
        iMonitor[id] = monitor;
        return id;
    }

    /**
     * Records a candidate for the interaction that ended an interval: the first by
     * (from time, derivation order of the kinds), as {@link Interactions#endedBy} picks it.
     */
    private void ender(int ring, int iv, int id, long fromNs, Kind kind) {
        int cur = ender[ring][iv];
        if (cur != -1) {
            long curNs = cur >= 0 ? iFromNs[cur] : rings[ring].endNs(iv);
            Kind curKind = cur >= 0 ? KINDS[iKind[cur]] : Kind.TIMEOUT;
            if (curNs < fromNs || curNs == fromNs && rank(curKind) <= rank(kind)) {
                return;
            }
        }
        ender[ring][iv] = id;
    }

    /** The order in which the kinds were first derived, the tie-breaker of {@link Interactions#all()}. */
    private static int rank(Kind k) {
        return switch (k) {
            case START -> 0;
            case HANDOFF -> 1;
            case INTERRUPT -> 2;
            case TIMEOUT -> 3;
            case JOIN_END -> 4;
            case NOTIFY, NOTIFY_ALL -> 5;
            case UNPARK -> 6;
        };
    }

    private void starts(List<long[]> calls) {
        startCall = new int[calls.size()];
        Arrays.fill(startCall, -1);
        for (int c = 0; c < calls.size(); c++) {
            int k = (int) calls.get(c)[1];
            int i = (int) calls.get(c)[2];
            RecordedThread caller = thread(k);
            int to = target(caller.obj(i), caller.arg2(i));
            if (to < 0 || thread(to).isLate() || to == k || startOf[to] >= 0) {
                continue;
            }
            IntervalTable g = rings[to];
            RecordedThread started = thread(to);
            long at = g.firstStart >= 0 ? started.ts(g.firstStart) : started.startNs();
            if (caller.ts(i) > at) {
                continue; // a call after the thread started did not start it (no arrow backwards in time)
            }
            int id = interaction(Kind.START, k, caller.ts(i), to, at, started.threadObject(), i,
                    g.firstStart >= 0 ? -2 - g.firstStart : -1);
            startOf[to] = id;
            startCall[c] = id;
        }
    }

    private static boolean resumable(int kind) {
        return kind == WAITING || kind == SLEEPING || kind == JOINING;
    }

    private void interrupts(List<long[]> calls) {
        interruptCall = new int[calls.size()];
        Arrays.fill(interruptCall, -1);
        long[][] maxEnd = new long[rings.length][]; // per ring: prefix maximum of the intervals' ends, when needed
        boolean[][] used = new boolean[rings.length][]; // per ring: its THREAD_INTERRUPTED records bound
        for (int c = 0; c < calls.size(); c++) {
            long ts = calls.get(c)[0];
            int k = (int) calls.get(c)[1];
            int i = (int) calls.get(c)[2];
            int x = target(thread(k).obj(i), thread(k).arg2(i));
            if (x < 0 || x == k) {
                continue;
            }
            IntervalTable g = rings[x];
            if (maxEnd[x] == null) {
                maxEnd[x] = new long[g.count()];
                long max = Long.MIN_VALUE;
                for (int j = 0; j < g.count(); j++) {
                    max = Math.max(max, g.end[j]);
                    maxEnd[x][j] = max;
                }
                used[x] = new boolean[g.interrupted.length];
            }
            int hit = -1;
            for (int j = g.lastStartAtOrBefore(ts); j >= 0 && maxEnd[x][j] >= ts; j--) {
                if (resumable(g.kind[j]) && !g.has(j, OPEN | CUT) && g.start[j] <= ts && ts <= g.end[j]
                        && !interruptUsed(x, j)) {
                    hit = j; // innermost: the latest in start order
                    break;
                }
            }
            int effect;
            if (hit >= 0) {
                effect = g.endIdx[hit];
            } else {
                int ti = -1;
                for (int q = 0; q < g.interrupted.length; q++) {
                    if (thread(x).ts(g.interrupted[q]) >= ts && !used[x][q]) {
                        ti = q;
                        break;
                    }
                }
                if (ti < 0) {
                    continue;
                }
                effect = g.interrupted[ti];
                hit = g.findByEnd(effect);
                if (hit >= 0 && interruptUsed(x, hit)) {
                    continue;
                }
            }
            if (r.anyLossOverlaps(ts, thread(x).ts(effect))) {
                continue; // records lost between the call and its effect: what woke the target is not known
            }
            if (hit >= 0) {
                if (interruptUsed[x] == null) {
                    interruptUsed[x] = new java.util.BitSet();
                }
                interruptUsed[x].set(hit);
            }
            int q = Arrays.binarySearch(g.interrupted, effect);
            if (q >= 0) {
                used[x][q] = true;
            }
            int id = interaction(Kind.INTERRUPT, k, ts, x, thread(x).ts(effect), thread(x).threadObject(), i,
                    hit >= 0 ? hit : -2 - effect);
            interruptCall[c] = id;
            if (hit >= 0) {
                ender(x, hit, id, ts, Kind.INTERRUPT);
            }
        }
    }

    /** A timed-out wait of a Java thread is ended by its TIMEOUT unless another thread acted first. */
    private void timeouts() {
        for (int k = 0; k < rings.length; k++) {
            IntervalTable g = rings[k];
            if (g.thread().isSystem()) {
                continue;
            }
            for (int i = 0; i < g.count(); i++) {
                if (g.kind[i] == WAITING && g.has(i, TIMED_OUT)) {
                    ender(k, i, -2 - k, g.end[i], Kind.TIMEOUT);
                }
            }
        }
    }

    private void joins() {
        for (int k = 0; k < rings.length; k++) {
            IntervalTable g = rings[k];
            if (g.thread().isSystem()) {
                continue;
            }
            for (int i = 0; i < g.count(); i++) {
                if (g.kind[i] != JOINING || g.has(i, OPEN | CUT | ENDS_AT_INTERRUPT)) {
                    continue;
                }
                int dead = target(g.monitor[i], g.thread().arg2(g.begin[i]));
                RecordedThread d = dead < 0 ? null : thread(dead);
                if (d == null || dead == k || !d.isEnded() || d.endNs() == 0 || d.endNs() > g.end[i]) {
                    continue;
                }
                int id = interaction(Kind.JOIN_END, dead, d.endNs(), k, g.end[i], g.monitor[i], rings[dead].firstEnd, i);
                ender(k, i, id, d.endNs(), Kind.JOIN_END);
            }
        }
    }

    /**
     * The owner of each BLOCKED park: exact, the ring of the Java thread its PARK names (arg2;
     * the ring not met late if the id has two; by its id alone when no ring has it), none when -1.
     */
    private void parkOwners() {
        for (int k = 0; k < rings.length; k++) {
            IntervalTable g = rings[k];
            for (int i = 0; i < g.count(); i++) {
                if (g.kind[i] == BLOCKED && g.has(i, PARK)) {
                    long id = g.t.arg2(g.begin[i]);
                    Integer o = id >= 0 ? byJavaId.get(id) : null;
                    if (o != null && o != k) {
                        owner[k][i] = o + 1;
                    }
                    if (id < 0) {
                        ownerSource[k][i] = (byte) (MonitorOwnership.Source.NONE.ordinal() + 1);
                    } else if (o == null || o != k) {
                        ownerSource[k][i] = (byte) (MonitorOwnership.Source.RECORDED.ordinal() + 1);
                    }
                }
            }
        }
    }

    /**
     * Per monitor: unbound notify calls, the notifyAll calls, wakes waiting for a notify.
     * The calls are pruned ({@link #prune}); the wakes are kept until a notify binds them.
     */
    private static final class Monitor {
        int limit = 64; // prune the calls when there are more
        final ArrayDeque<long[]> unbound = new ArrayDeque<>(); // {ts, call, ring}
        long[] allTs = new long[0];
        int[] allCall = new int[0];
        int[] allRing = new int[0];
        int alls;
        final ArrayDeque<long[]> pending = new ArrayDeque<>(); // {ring, interval}
    }

    /**
     * Drops the calls no wake can bind any more: a wake binds a call made at or after its
     * wait began, and every wake still to come on the monitor began its wait at or after the
     * oldest wait now open on it, or later than now. Only when every ring is in time order.
     */
    private static void prune(Monitor m, long monitor, long now, long[] openWait, long[] openMonitor) {
        long lo = now;
        for (int k = 0; k < openWait.length; k++) {
            if (openWait[k] != Long.MAX_VALUE && openMonitor[k] == monitor) {
                lo = Math.min(lo, openWait[k]);
            }
        }
        while (!m.unbound.isEmpty() && m.unbound.peekFirst()[0] < lo) {
            m.unbound.pollFirst();
        }
        int drop = 0;
        while (drop < m.alls && m.allTs[drop] < lo) {
            drop++;
        }
        if (drop > 0) {
            m.alls -= drop;
            System.arraycopy(m.allTs, drop, m.allTs, 0, m.alls);
            System.arraycopy(m.allCall, drop, m.allCall, 0, m.alls);
            System.arraycopy(m.allRing, drop, m.allRing, 0, m.alls);
        }
        m.limit = Math.max(64, 2 * Math.max(m.unbound.size(), m.alls));
    }

    /**
     * Owners and handoffs ({@link MonitorOwnership}), notify binding ({@link Interactions}),
     * in event order: a small loop over the records and one method per record type, so that
     * the JIT compiles each once and quickly (one large loop body was recompiled many times
     * over a long conversion).
     */
    private final class MergedPass {
        final MonitorOwnership.Tracker tracker = new MonitorOwnership.Tracker(r, true); // later proofs: after the pass
        final boolean inOrder;
        final long[] openWait = new long[rings.length]; // per ring: the start of its open MONITOR_WAIT, MAX_VALUE none
        final long[] openMonitor = new long[rings.length];
        final List<long[]> deferred = new ArrayList<>();
        final LongMap<Monitor> monitors = new LongMap<>();
        int[] first = new int[16];
        int calls;

        MergedPass() {
            boolean sorted = true;
            for (IntervalTable g : rings) {
                sorted &= g.sorted;
            }
            inOrder = sorted;
            Arrays.fill(openWait, Long.MAX_VALUE);
            notifyRing = new int[16];
            notifyRecord = new int[16];
        }

        void run() {
            Recording.Cursor cur = r.cursor();
            while (cur.next()) {
                int k = cur.ring();
                int index = cur.record();
                RecordedThread t = rings[k].t;
                EventType type = t.type(index);
                long obj = t.obj(index);
                long ts = cur.ts();
                MonitorOwnership.Owner owner = tracker.next(k, index, type, obj, ts);
                switch (type) {
                    case MONITOR_WAIT -> {
                        openWait[k] = ts;
                        openMonitor[k] = obj;
                    }
                    case MONITOR_ENTER -> enter(k, index, owner);
                    case MONITOR_ENTERED -> entered(k, index);
                    case NOTIFY, NOTIFY_ALL -> notifyCall(k, index, type == EventType.NOTIFY_ALL, obj, ts);
                    case MONITOR_WAITED -> waited(k, index, obj);
                    case UNPARK -> unpark(k, index, ts);
                    default -> {
                    }
                }
            }
            for (long[] d : deferred) {
                handoff((int) d[0], (int) d[1], (int) d[2], d[3], d[4] != 0);
            }
            for (int k = 0; k < rings.length; k++) { // owners a later record proved
                IntervalTable g = rings[k];
                for (int iv = 0; iv < g.count(); iv++) {
                    if (g.kind[iv] == BLOCKED && ownerSource[k][iv] == 0 && !g.has(iv, PARK)) {
                        enterOwner(k, iv, tracker.provenOwner(k, g.begin[iv]));
                    }
                }
            }
            for (IntervalTable g : rings) {
                g.rewind();
            }
            notifyCalls = calls;
            notifyFirst = Arrays.copyOf(first, calls);
            notifyRing = Arrays.copyOf(notifyRing, calls);
            notifyRecord = Arrays.copyOf(notifyRecord, calls);
            unparkCall = Arrays.copyOf(unparkCall, unparkCalls);
        }

        /**
         * An UNPARK binds to the first PARKED of its target's ring at or after it (ring order),
         * when no earlier UNPARK took that PARKED and it ends a park neither timed out nor
         * interrupted: the park in progress at the UNPARK, or, when none was, the next park,
         * which the permit made return at once.
         */
        void unpark(int k, int index, long ts) {
            if (unparkCalls == unparkCall.length) {
                unparkCall = Arrays.copyOf(unparkCall, Math.max(16, 2 * unparkCalls));
            }
            int n = unparkCalls++;
            unparkCall[n] = -1;
            RecordedThread t = rings[k].t;
            int to = t.isSystem() ? -1 : target(t.obj(index), t.arg2(index));
            if (to < 0 || to == k) {
                return;
            }
            IntervalTable g = rings[to];
            int q = g.firstParkedAtOrAfter(ts);
            if (q < 0) {
                return;
            }
            if (parkedUsed[to] == null) {
                parkedUsed[to] = new boolean[g.parked.length];
            }
            if (parkedUsed[to][q]) {
                return; // an earlier UNPARK woke that park: this one finds the thread unparked
            }
            parkedUsed[to][q] = true;
            int iv = g.findByEnd(g.parked[q]);
            if (iv < 0 || !g.has(iv, PARK) || g.has(iv, TIMED_OUT | NEXT_IS_INTERRUPT)) {
                return; // a PARKED whose PARK was lost, or a park its timeout or an interrupt ended
            }
            if (r.anyLossOverlaps(ts, g.end[iv])) {
                return; // records lost between the UNPARK and the PARKED: another unpark may have woken it
            }
            int id = interaction(Kind.UNPARK, k, ts, to, g.end[iv], g.monitor[iv], index, iv);
            ender(to, iv, id, ts, Kind.UNPARK);
            unparkCall[n] = id;
        }

        void enter(int k, int index, MonitorOwnership.Owner owner) {
            int iv = rings[k].at(index);
            if (iv >= 0) {
                enterOwner(k, iv, owner);
            }
        }

        void entered(int k, int index) {
            IntervalTable g = rings[k];
            int iv = g.atEnd(index);
            if (iv < 0 || g.kind[iv] != BLOCKED) {
                return;
            }
            int by = tracker.releasedBy != null ? x.ring(tracker.releasedBy) : -1;
            if (g.sorted) {
                handoff(k, iv, by, tracker.releaseNs, tracker.releaserExact);
            } else { // its MONITOR_ENTER may come later in event order: after the pass
                deferred.add(new long[] {k, iv, by, tracker.releaseNs, tracker.releaserExact ? 1 : 0});
            }
        }

        Monitor monitor(long obj) {
            Monitor m = monitors.get(obj);
            if (m == null) {
                m = new Monitor();
                monitors.put(obj, m);
            }
            return m;
        }

        void notifyCall(int k, int index, boolean all, long obj, long ts) {
            if (calls == first.length) {
                first = Arrays.copyOf(first, 2 * calls);
                notifyRing = Arrays.copyOf(notifyRing, 2 * calls);
                notifyRecord = Arrays.copyOf(notifyRecord, 2 * calls);
            }
            first[calls] = -1;
            notifyRing[calls] = k;
            notifyRecord[calls] = index;
            Monitor m = monitor(obj);
            long[] call = {ts, calls, k};
            if (!all) {
                long[] w = pendingFor(m, k, ts);
                if (w != null) {
                    bind(call, false, w, first);
                } else {
                    m.unbound.addLast(call);
                }
            } else {
                for (long[] w; (w = pendingFor(m, k, ts)) != null; ) {
                    bind(call, true, w, first);
                }
                if (m.alls == m.allTs.length) {
                    int c = Math.max(4, 2 * m.alls);
                    m.allTs = Arrays.copyOf(m.allTs, c);
                    m.allCall = Arrays.copyOf(m.allCall, c);
                    m.allRing = Arrays.copyOf(m.allRing, c);
                }
                m.allTs[m.alls] = ts;
                m.allCall[m.alls] = calls;
                m.allRing[m.alls++] = k;
            }
            calls++;
            if (inOrder && Math.max(m.unbound.size(), m.alls) > m.limit) {
                prune(m, obj, ts, openWait, openMonitor);
            }
        }

        void waited(int k, int index, long obj) {
            openWait[k] = Long.MAX_VALUE;
            IntervalTable g = rings[k];
            if (g.t.isSystem()) {
                return;
            }
            int iv = g.atEnd(index);
            if (iv < 0 || g.kind[iv] != WAITING || g.has(iv, TIMED_OUT | NEXT_IS_INTERRUPT)
                    || interruptUsed(k, iv)) {
                return;
            }
            if (r.anyLossOverlaps(g.start[iv], g.end[iv])) {
                return; // records lost while it waited: the notify that woke it may be lost, bind none
            }
            Monitor m = monitor(obj);
            int all = firstAtOrAfter(m, g.start[iv], k);
            long[] n = null;
            for (var it = m.unbound.iterator(); it.hasNext(); ) {
                long[] c = it.next();
                if (c[0] >= g.start[iv] && c[2] != k) { // never its own call
                    if (all < 0 || c[0] <= m.allTs[all]) {
                        n = c;
                        it.remove();
                    }
                    break;
                }
            }
            long[] w = {k, iv};
            if (n != null) {
                bind(n, false, w, first);
            } else if (all >= 0) {
                bind(new long[] {m.allTs[all], m.allCall[all], m.allRing[all]}, true, w, first);
            } else {
                m.pending.addLast(w);
            }
        }
    }

    /** Sets the owner of a BLOCKED interval (none when null). */
    private void enterOwner(int k, int iv, MonitorOwnership.Owner o) {
        if (o != null) {
            owner[k][iv] = o.thread() == null ? 0 : x.ring(o.thread()) + 1;
            ownerSource[k][iv] = (byte) (o.source().ordinal() + 1);
            if (o.thread() == null && o.javaThreadId() > 0) {
                ownerIds.put((long) k << 32 | iv, o.javaThreadId());
            }
        }
    }

    /**
     * The handoff of a closed BLOCKED interval ({@link MonitorOwnership#handoffs}): from the
     * thread the tracker found as the releaser at its MONITOR_ENTERED ({@code by}, at
     * {@code releaseNs}; {@code exact} when the VM recorded it); none when it found none.
     */
    private void handoff(int k, int iv, int by, long releaseNs, boolean exact) {
        IntervalTable g = rings[k];
        if (by < 0) {
            return;
        }
        int id = interaction(Kind.HANDOFF, by, releaseNs, k, g.end[iv], g.monitor[iv], -1, iv);
        iExact[id] = exact;
        ender(k, iv, id, releaseNs, Kind.HANDOFF);
    }

    private void bind(long[] call, boolean all, long[] waiter, int[] first) {
        int k = (int) waiter[0];
        IntervalTable g = rings[k];
        int iv = (int) waiter[1];
        int c = (int) call[1];
        int id = interaction(all ? Kind.NOTIFY_ALL : Kind.NOTIFY, (int) call[2], call[0], k, g.end[iv],
                g.monitor[iv], notifyRecord[c], iv);
        if (notifyNext == null || notifyNext.length < capacity()) {
            int old = notifyNext == null ? 0 : notifyNext.length;
            notifyNext = notifyNext == null ? new int[capacity()] : Arrays.copyOf(notifyNext, capacity());
            Arrays.fill(notifyNext, old, notifyNext.length, -1);
        }
        // append to the call's list, keeping bind order
        if (first[c] < 0) {
            first[c] = id;
        } else {
            int last = first[c];
            while (notifyNext[last] >= 0) {
                last = notifyNext[last];
            }
            notifyNext[last] = id;
        }
        ender(k, iv, id, call[0], all ? Kind.NOTIFY_ALL : Kind.NOTIFY);
    }

    /** The first NOTIFY_ALL on the monitor made at or after {@code ns} by another ring than {@code k}, -1 if none. */
    private static int firstAtOrAfter(Monitor m, long ns, int k) {
        int lo = 0;
        int hi = m.alls;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (m.allTs[mid] < ns) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        while (lo < m.alls && m.allRing[lo] == k) {
            lo++;
        }
        return lo < m.alls ? lo : -1;
    }

    /**
     * Takes the oldest pending wake a call of ring {@code k} at {@code ts} can bind: not one of
     * {@code k}'s own waits (a thread does not wake itself), and none with records lost between
     * its wait's start and the call, which are dropped (a later call would span the loss too).
     */
    private long[] pendingFor(Monitor m, int k, long ts) {
        for (var it = m.pending.iterator(); it.hasNext(); ) {
            long[] w = it.next();
            int ring = (int) w[0];
            if (r.anyLossOverlaps(rings[ring].start[(int) w[1]], ts)) {
                it.remove();
                continue;
            }
            if (ring != k) {
                it.remove();
                return w;
            }
        }
        return null;
    }

    /** Whether the interrupt rule ended an interval of a ring. */
    private boolean interruptUsed(int ring, int iv) {
        return interruptUsed[ring] != null && interruptUsed[ring].get(iv);
    }

    /** The START interaction that started a ring's thread, -1 if none. */
    int startOf(int ring) {
        return startOf[ring];
    }

    /** The raw ender of an interval: an interaction id, {@code <= -2} its own timeout, -1 none. */
    int rawEnder(int ring, int iv) {
        return ender[ring][iv];
    }

    // ---- access

    /** Number of interactions drawn as arrows (every kind but TIMEOUT). */
    int count() {
        return rows();
    }

    /** Kind of an interaction. */
    Kind kind(int id) {
        return KINDS[iKind[id]];
    }

    /** The active thread of an interaction. */
    RecordedThread from(int id) {
        return thread(iFrom[id]);
    }

    /** {@link #from} as a ring position. */
    int fromRing(int id) {
        return iFrom[id];
    }

    /**
     * Whether the active thread of an interaction is a recorded fact: false only for a HANDOFF
     * whose releaser is inferred; true for a HANDOFF whose MONITOR_ENTERED has FLAG_RELEASER (the
     * VM recorded the releaser) and for every other kind (its cause names the thread).
     */
    boolean exact(int id) {
        return iExact[id];
    }

    /** When the active thread acted. */
    long fromNs(int id) {
        return iFromNs[id];
    }

    /** The thread an interaction made run. */
    RecordedThread to(int id) {
        return thread(iTo[id]);
    }

    /** {@link #to} as a ring position. */
    int toRing(int id) {
        return iTo[id];
    }

    /** When that thread ran. */
    long toNs(int id) {
        return iToNs[id];
    }

    /** The monitor or Thread object of an interaction. */
    long monitor(int id) {
        return iMonitor[id];
    }

    /** Record index (on the {@link #from} ring) of the call or THREAD_END that caused an interaction, -1 none. */
    int cause(int id) {
        return iCause[id];
    }

    /** The interval (of the {@link #to} ring) an interaction ended, -1 none. */
    int ended(int id) {
        return Math.max(-1, iEnded[id]);
    }

    /** Record index (on the {@link #to} ring) that shows the thread running, -1 if not recorded. */
    int effect(int id) {
        int v = iEnded[id];
        return v >= 0 ? rings[iTo[id]].end(v) : v == -1 ? -1 : -2 - v;
    }

    /**
     * Owner at a BLOCKED interval's MONITOR_ENTER ({@link MonitorOwnership#owner}: exact or
     * inferred, {@link #ownerSource}), or of a BLOCKED park (exact: the exclusive owner its PARK
     * names); null if unknown, none, or a thread the recording has no ring for.
     */
    RecordedThread owner(int ring, int iv) {
        int o = owner[ring][iv];
        return o == 0 ? null : thread(o - 1);
    }

    /** {@link #owner} as a ring position, -1 when there is none. */
    int ownerRing(int ring, int iv) {
        return owner[ring][iv] - 1;
    }

    /**
     * Where the owner of a BLOCKED interval comes from ({@link MonitorOwnership.Source}): a lock
     * park's is {@code RECORDED} (or {@code NONE}: its PARK named none); null when unknown (and
     * for every other interval).
     */
    MonitorOwnership.Source ownerSource(int ring, int iv) {
        int s = ownerSource[ring][iv];
        return s == 0 ? null : MonitorOwnership.Source.values()[s - 1];
    }

    /**
     * The owner's Java thread id: of its ring, or the recorded id of an owner no ring has; -1
     * when exactly none ({@link MonitorOwnership.Source#NONE}); 0 when unknown.
     */
    long ownerJavaId(int ring, int iv) {
        MonitorOwnership.Source s = ownerSource(ring, iv);
        if (s == null) {
            return 0;
        }
        if (s == MonitorOwnership.Source.NONE) {
            return -1;
        }
        int o = owner[ring][iv];
        if (o != 0) {
            return thread(o - 1).javaThreadId();
        }
        if (rings[ring].has(iv, PARK)) {
            return rings[ring].t.arg2(rings[ring].begin[iv]);
        }
        Long id = ownerIds.get((long) ring << 32 | iv);
        return id == null ? 0 : id;
    }

    /**
     * Whether the owner of an interval is exact: recorded by the VM at a monitor's enter
     * (FLAG_OWNER; "none" included), or a BLOCKED park's (always, from its PARK); false when it
     * is inferred or unknown.
     */
    boolean ownerExact(int ring, int iv) {
        if (rings[ring].kind[iv] != BLOCKED) {
            return false;
        }
        if (rings[ring].has(iv, PARK)) {
            return true;
        }
        MonitorOwnership.Source s = ownerSource(ring, iv);
        return s != null && s.exact();
    }

    /** The UNPARK interaction of the n-th UNPARK record in event order, -1 if it woke no recorded park. */
    int unparkCall(int n) {
        return n < unparkCall.length ? unparkCall[n] : -1;
    }

    /** Number of UNPARK records. */
    int unparkCalls() {
        return unparkCalls;
    }

    /**
     * The interaction that ended an interval ({@link Interactions#endedBy}: the first by the
     * time its thread acted, then by derivation order); -2 for the interval's own timeout, -1
     * none. Only for the rings of Java threads.
     */
    int endedBy(int ring, int iv) {
        int e = ender[ring][iv];
        return e <= -2 ? -2 : e;
    }

    /** The START interaction of the n-th START_CALL in event order, -1 if it started nothing. */
    int startCall(int n) {
        return n < startCall.length ? startCall[n] : -1;
    }

    /** The INTERRUPT interaction of the n-th INTERRUPT_CALL in event order, -1 if none. */
    int interruptCall(int n) {
        return n < interruptCall.length ? interruptCall[n] : -1;
    }

    /** The interactions bound to the n-th NOTIFY/NOTIFY_ALL call in event order, in bind order. */
    int[] notifyCall(int n) {
        if (n >= notifyCalls || notifyFirst[n] < 0) {
            return new int[0];
        }
        int[] out = new int[4];
        int m = 0;
        for (int id = notifyFirst[n]; id >= 0; id = notifyNext[id]) {
            if (m == out.length) {
                out = Arrays.copyOf(out, 2 * m);
            }
            out[m++] = id;
        }
        return Arrays.copyOf(out, m);
    }

    /** Number of NOTIFY and NOTIFY_ALL calls. */
    int notifyCalls() {
        return notifyCalls;
    }

    /** The ring of the n-th NOTIFY/NOTIFY_ALL call in event order. */
    int notifyCallRing(int n) {
        return notifyRing[n];
    }

    /** Its record index on that ring. */
    int notifyCallRecord(int n) {
        return notifyRecord[n];
    }

    /** The ids of the interactions {@code which} accepts, sorted stably by {@link #fromNs} or {@link #toNs}. */
    int[] sortedBy(boolean byFromNs, IntPredicate which) {
        int count = count();
        int[] ids = new int[count];
        int m = 0;
        for (int i = 0; i < count; i++) {
            if (which.test(i)) {
                ids[m++] = i;
            }
        }
        return sortStable(Arrays.copyOf(ids, m), byFromNs ? iFromNs : iToNs);
    }
}
