package dev.convoy.analysis;

import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.MonitorState;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotFormat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The owner of the monitor at each MONITOR_ENTER: exact where the recorder read it from the VM
 * (FLAG_OWNER), otherwise inferred by the rule of "Monitor owner at MONITOR_ENTER" in
 * {@code schema/snapshot-format.md}, in this order:
 * <ol>
 * <li><b>exact</b> ({@link Source#RECORDED}, {@link Source#NONE}): the enter has FLAG_OWNER;
 *     arg2 &gt; 0 is the Java thread id of the owner (its ring: the one with that id alive at
 *     the enter; an owner no ring has is kept by its id), -1 says the monitor had no owner;</li>
 * <li>otherwise <b>inferred</b>, and only a thread that could own the monitor at the enter: not
 *     the entering thread, not ended (its THREAD_END before the enter, or its ring's end
 *     earlier), started (a ring not met late whose start is later cannot), and neither
 *     blocked on nor waiting on that monitor at that moment ({@link #blockedOrWaiting}):
 *     <ol>
 *     <li>({@link Source#AT_SNAPSHOT}) an enter still unfinished at snapshot time of a thread
 *         SECTION_MONITORS lists as blocked on that monitor: the owner listed there (exact at
 *         the snapshot, inferred at the enter: the monitor may have changed hands since);</li>
 *     <li>({@link Source#LAST_HOLDER}) the last thread known to hold the monitor before the
 *         enter, not known to have let it go since: known to hold it by its MONITOR_ENTERED or
 *         MONITOR_WAITED on it, its MONITOR_WAIT on it (a thread waits only on a monitor it
 *         holds), or as the exact owner recorded at an enter; let go by its MONITOR_WAIT, its
 *         own MONITOR_ENTER on it (a thread does not contend for a monitor it holds), its end,
 *         or an exact "no owner" at an enter;</li>
 *     <li>({@link Source#LATER_PROOF}) the first fact about the monitor after the enter, when it
 *         is a holding fact and no acquisition is recorded in between: a MONITOR_WAIT of thread
 *         U, or the exact owner U recorded at another enter, proves U held the monitor then; an
 *         ENTERED, a WAITED or an exact "no owner" first ends the search;</li>
 *     <li>otherwise unknown.</li>
 *     </ol></li>
 * </ol>
 * "Before", "after" and "at that moment" are the order of {@link Recording#events()} (time, ties
 * in file order). A thread is <em>blocked on</em> a monitor from its MONITOR_ENTER on it to its
 * next MONITOR_ENTERED or MONITOR_ENTER (whatever their monitor) or its end, <em>waiting on</em>
 * it from its MONITOR_WAIT on it to its next MONITOR_WAITED or MONITOR_WAIT or its end
 * ({@code Thread.join}'s inner waits included); a record that closes no such state leaves it
 * open to the thread's end or the snapshot. The releaser of a handoff ({@link Handoff}) is exact
 * where the MONITOR_ENTERED has FLAG_RELEASER naming another thread that has a ring, inferred
 * otherwise ("The releaser of a handoff" in {@code schema/snapshot-format.md}). The rule is the
 * {@link Tracker}, which {@link ContentionIndex} and {@link RecordFacts} apply; the
 * {@link #handoffs()} are a view of the index's. {@code dev.convoy.testing.OwnerConsistency} (exporters' test jar)
 * checks any recording against these definitions. Immutable once built.
 */
public final class MonitorOwnership {
    private final Recording r;
    private final Map<Event, Owner> owners = new HashMap<>();
    private List<Handoff> handoffs;

    /** Where an {@link Owner} comes from; {@link #RECORDED} and {@link #NONE} are exact, the others inferred. */
    public enum Source {
        /** FLAG_OWNER with a Java thread id: the owner the recorder read from the VM at the enter. */
        RECORDED,
        /** FLAG_OWNER with -1: the VM said the monitor had no owner at the enter (released in between). */
        NONE,
        /** The owner SECTION_MONITORS lists for a thread still blocked in this enter at snapshot time. */
        AT_SNAPSHOT,
        /** The last thread known to hold the monitor before the enter. */
        LAST_HOLDER,
        /** The thread that a MONITOR_WAIT, or an exact owner at another enter, shows holding it right after. */
        LATER_PROOF;

        /** Recorded by the VM rather than inferred. */
        public boolean exact() {
            return this == RECORDED || this == NONE;
        }
    }

    /**
     * The owner of the monitor at one MONITOR_ENTER.
     *
     * @param source       exact or how it was inferred
     * @param thread       the owner's ring; null for {@link Source#NONE} and for an owner no
     *                     ring has (known by its Java id only)
     * @param javaThreadId the owner's Java thread id (&gt; 0), -1 for {@link Source#NONE}
     */
    public record Owner(Source source, RecordedThread thread, long javaThreadId) {
        /** The VM recorded it (FLAG_OWNER): {@link Source#RECORDED} or {@link Source#NONE}. */
        public boolean exact() {
            return source.exact();
        }

        /** The VM recorded that the monitor had no owner at the enter. */
        public boolean none() {
            return source == Source.NONE;
        }

        /** "exact", "none" (exact: no owner) or "inferred": how every format names the kind of an owner. */
        public String kind() {
            return source == Source.NONE ? "none" : source.exact() ? "exact" : "inferred";
        }
    }

    /**
     * A lock handoff: {@code to}, blocked on the monitor, got it from {@code from}.
     *
     * @param from      for a monitor, the releaser: exact, the thread the VM recorded as the last
     *                  to leave the monitor before the MONITOR_ENTERED (FLAG_RELEASER), or else
     *                  inferred, the last thread known to hold it before the MONITOR_ENTERED (the
     *                  holding facts of {@link MonitorOwnership}: an ENTERED, WAITED or WAIT on
     *                  it, or the exact owner recorded at an enter on it, including the blocked
     *                  thread's own); for a lock park, the thread whose UNPARK ended the park
     * @param to        the thread that was blocked
     * @param monitor   monitor (or blocker) object id
     * @param releaseNs when {@code from} let go, as far as known: its MONITOR_WAIT, its own
     *                  MONITOR_ENTER on the monitor, its end or an exact "no owner" recorded
     *                  at an enter, whichever came first after its last holding fact, else
     *                  the acquisition time; an exact releaser no later than the start of its
     *                  blocked or waiting state on the monitor open at the acquisition, nor than
     *                  its end; for a lock park, the UNPARK
     * @param blocked   the closed BLOCKED interval of {@code to}
     * @param exact     whether {@code from} is a recorded fact: true for a lock park (its UNPARK
     *                  names the unparking thread) and for a monitor whose MONITOR_ENTERED has
     *                  FLAG_RELEASER (the VM's record of the releaser, JFR's
     *                  {@code previousOwner}); false for a monitor otherwise (JVMTI records
     *                  neither the release nor an uncontended acquisition, so another thread may
     *                  have held the monitor in between: the releaser is inferred)
     */
    public record Handoff(RecordedThread from, RecordedThread to, long monitor, long releaseNs,
                          Interval blocked, boolean exact) {
        /** When {@code to} got the monitor (MONITOR_ENTERED). */
        public long acquireNs() {
            return blocked.endNs();
        }
    }

    private MonitorOwnership(Recording r) {
        this.r = r;
    }

    /** Derives the owners of every MONITOR_ENTER of the recording. */
    public static MonitorOwnership of(Recording r) {
        MonitorOwnership mo = new MonitorOwnership(r);
        Tracker tr = new Tracker(r);
        for (Event e : r.events()) {
            Owner owner = tr.next(e);
            if (owner != null) {
                mo.owners.put(e, owner);
            }
        }
        return mo;
    }

    /** The owner at this MONITOR_ENTER, exact or inferred; empty when unknown or not an enter. */
    public Optional<Owner> owner(Event enter) {
        return Optional.ofNullable(owners.get(enter));
    }

    /**
     * The owner's ring at this MONITOR_ENTER; empty when unknown, when the VM recorded no owner,
     * when the owner has no ring, or not an enter.
     */
    public Optional<RecordedThread> ownerAt(Event enter) {
        return owner(enter).map(Owner::thread);
    }

    /** Java thread id of the owner at this MONITOR_ENTER, 0 when unknown or none. */
    public long ownerJavaThreadId(Event enter) {
        return owner(enter).map(o -> Math.max(0, o.javaThreadId())).orElse(0L);
    }

    /**
     * Handoffs of every closed BLOCKED interval whose releaser is known, by acquisition time: the
     * HANDOFF interactions of {@link ContentionIndex} (made on first use); for a lock park, the
     * UNPARK that woke it (the releasing thread unparks the next one, from its release at the
     * UNPARK to the PARKED).
     */
    public synchronized List<Handoff> handoffs() {
        if (handoffs == null) {
            Interactions in = Interactions.of(ContentionIndex.of(r));
            List<Handoff> out = new ArrayList<>();
            for (Interactions.Interaction i : in.of(Interactions.Kind.HANDOFF)) {
                out.add(new Handoff(i.from(), i.to(), i.monitor(), i.fromNs(), i.ended(), i.exact()));
            }
            for (Interactions.Interaction i : in.of(Interactions.Kind.UNPARK)) {
                if (i.ended() != null && i.ended().kind() == Interval.Kind.BLOCKED) {
                    out.add(new Handoff(i.from(), i.to(), i.monitor(), i.fromNs(), i.ended(), true));
                }
            }
            // ties: by the blocked interval's start, then ring (the order of Intervals.of(r))
            out.sort(Comparator.comparingLong(Handoff::acquireNs).thenComparingLong(h -> h.blocked().startNs())
                    .thenComparingInt(h -> in.index().ring(h.to())));
            handoffs = List.copyOf(out);
        }
        return handoffs;
    }

    /**
     * The owner rule applied while the events are read in the order of
     * {@link Recording#events()}, with state per monitor and per ring (for writers that stream):
     * feed every event to {@link #next}, which gives the owner at a MONITOR_ENTER exactly as
     * {@link MonitorOwnership#owner} does. The first enter whose owner is neither exact nor known
     * by then makes it read the whole recording once ahead, in a pass of its own, for the later
     * proofs ({@link Source#LATER_PROOF}), when the recording has any MONITOR_WAIT or exact owner;
     * it keeps those owners only.
     */
    static final class Tracker {
        private final Recording r;
        private final RecordedThread[] threads;
        private final Map<RecordedThread, Integer> position = new IdentityHashMap<>();
        /** Per Java thread id: its rings (usually one). */
        private final Map<Long, int[]> byJavaId = new HashMap<>();
        /** Per ring listed as blocked in SECTION_MONITORS: the index of its unfinished last enter on that monitor. */
        private final Map<RecordedThread, Integer> pendingEnter = new HashMap<>();
        /** Owners found by a later proof, per (ring, record index): made by the pass ahead (or, deferred, by the pass itself). */
        private final LongMap<Owner> proven = new LongMap<>();
        /** The recording has a MONITOR_WAIT or an exact owner: something may prove an owner later. */
        private final boolean proofs;
        private boolean ahead;
        private final State state;
        /** The snapshot time (the window of an owner at the snapshot). */
        private final long snapshotNs;
        /** Every ring's losses by start: the start time and the ring (a loss ends its blocked and waiting states). */
        private final long[] lossFrom;
        private final int[] lossRing;

        /**
         * At a MONITOR_ENTERED: the releaser of the handoff (null if none), when it let go, and
         * whether it is exact (the ENTERED's FLAG_RELEASER: the VM recorded it) or inferred.
         */
        RecordedThread releasedBy;
        long releaseNs;
        boolean releaserExact;

        public Tracker(Recording r) {
            this(r, false);
        }

        /**
         * {@code deferred}: the pass itself collects the later proofs, and {@link #next} gives no
         * owner for an enter that waits for one: read them with {@link #provenOwner} after the
         * last event (for {@link ContentionIndex}, which fills its owner columns afterwards).
         */
        Tracker(Recording r, boolean deferred) {
            this.r = r;
            this.threads = r.threads().toArray(new RecordedThread[0]);
            boolean proofs = false;
            for (int k = 0; k < threads.length; k++) {
                RecordedThread t = threads[k];
                position.put(t, k);
                if (!t.isSystem() && t.javaThreadId() > 0) {
                    int[] rings = byJavaId.get(t.javaThreadId());
                    byJavaId.put(t.javaThreadId(), rings == null ? new int[] {k} : append(rings, k));
                }
                for (int i = 0; i < t.eventCount() && !proofs; i++) {
                    int type = t.rawType(i);
                    proofs = type == SnapshotFormat.EVENT_MONITOR_WAIT || type == SnapshotFormat.EVENT_MONITOR_ENTER
                            && (t.flags(i) & SnapshotFormat.FLAG_OWNER) != 0;
                }
            }
            for (RecordedThread t : threads) {
                Optional<MonitorState> ms = r.monitorState(t.ringId());
                if (ms.isEmpty() || ms.get().state() != SnapshotFormat.MSTATE_BLOCKED) {
                    continue;
                }
                for (int i = t.eventCount() - 1; i >= 0; i--) {
                    int type = t.rawType(i);
                    if (type == SnapshotFormat.EVENT_MONITOR_ENTERED) {
                        break;
                    }
                    if (type == SnapshotFormat.EVENT_MONITOR_ENTER) {
                        if (t.obj(i) == ms.get().object()) {
                            pendingEnter.put(t, i);
                        }
                        break;
                    }
                }
            }
            this.proofs = proofs;
            this.snapshotNs = r.snapshotMonotonicNs();
            List<long[]> losses = new ArrayList<>();
            for (int k = 0; k < threads.length; k++) {
                for (dev.convoy.model.Loss l : threads[k].losses()) {
                    losses.add(new long[] {l.fromNs(), k});
                }
            }
            losses.sort(Comparator.comparingLong((long[] l) -> l[0]));
            this.lossFrom = new long[losses.size()];
            this.lossRing = new int[losses.size()];
            for (int i = 0; i < losses.size(); i++) {
                lossFrom[i] = losses.get(i)[0];
                lossRing[i] = (int) losses.get(i)[1];
            }
            this.state = new State(deferred);
        }

        /** The owner a later proof gives the enter at record {@code index} of ring {@code k}: made by one pass ahead, on first use. */
        private Owner proofAhead(int k, int index) {
            if (!proofs) {
                return null;
            }
            if (!ahead) {
                ahead = true;
                State first = new State(true);
                Recording.Cursor c = r.cursor();
                while (c.next()) {
                    int ring = c.ring();
                    int i = c.record();
                    int type = threads[ring].rawType(i);
                    if (type <= SnapshotFormat.EVENT_MONITOR_WAITED && type >= SnapshotFormat.EVENT_THREAD_END) {
                        first.step(ring, i, threads[ring].type(i), threads[ring].obj(i), c.ts());
                    }
                }
            }
            return proven.get(key(k, index));
        }

        /** Deferred: the owner a later proof gave the enter at record {@code index} of ring {@code k}, once every event was taken. */
        Owner provenOwner(int k, int index) {
            return proven.get(key(k, index));
        }

        private static int[] append(int[] a, int v) {
            int[] b = Arrays.copyOf(a, a.length + 1);
            b[a.length] = v;
            return b;
        }

        /** Takes the next event; returns the owner at a MONITOR_ENTER (null when unknown or not an enter). */
        public Owner next(Event e) {
            return next(e.thread(), e.index(), e.type(), e.obj(), e.ts());
        }

        /**
         * {@link #next(Event)} for record {@code index} of ring {@code t}, of the given type,
         * object and time: the same, without an {@link Event}.
         */
        public Owner next(RecordedThread t, int index, EventType type, long obj, long ts) {
            return next(position.get(t), index, type, obj, ts);
        }

        /** {@link #next(RecordedThread, int, EventType, long, long)} for the ring at position {@code k} of {@link Recording#threads()}. */
        Owner next(int k, int index, EventType type, long obj, long ts) {
            releasedBy = null;
            releaserExact = false;
            return state.step(k, index, type, obj, ts);
        }

        /** The ring of the Java thread {@code id} at {@code ts}: the one alive then (else not met late, else the first); -1 if none. */
        private int ringOf(long id, long ts) {
            int[] rings = byJavaId.get(id);
            if (rings == null) {
                return -1;
            }
            if (rings.length == 1) {
                return rings[0];
            }
            int best = -1;
            for (int k : rings) {
                RecordedThread t = threads[k];
                boolean alive = (t.isLate() || t.startNs() <= ts) && (t.endNs() == 0 || t.endNs() >= ts);
                if (alive) {
                    return k;
                }
                if (best < 0 || threads[best].isLate() && !t.isLate()) {
                    best = k;
                }
            }
            return best;
        }

        /** The Java thread SECTION_MONITORS names as owner for the blocked thread of this enter (the live ring). */
        private int ownerAtSnapshot(RecordedThread blocked) {
            long owner = r.monitorState(blocked.ringId()).map(MonitorState::ownerThreadId).orElse(-1L);
            int[] rings = owner <= 0 ? null : byJavaId.get(owner);
            if (rings == null) {
                return -1;
            }
            int found = -1;
            for (int k : rings) {
                if (found < 0 || !threads[k].isEnded()) {
                    found = k; // a thread met twice: the live ring owns it
                }
            }
            return found;
        }

        /** {@link State#recordedReleaser}: no releaser recorded (or a stale one): infer it. */
        private static final int NOT_RECORDED = -1;
        /** {@link State#recordedReleaser}: the recorded releaser has no ring: no handoff. */
        private static final int NO_RING = -2;

        private static long key(int k, int index) {
            return (long) k << 32 | (index & 0xFFFF_FFFFL);
        }

        /** What is known of one monitor. */
        private static final class Mon {
            /** The last thread known to hold it: its ring, else (-1) the Java id of an exact owner without a ring (0: none known). */
            int last = -1;
            long lastId;
            /** When the last holder was last known to hold it (its holding fact). */
            long holderNs;
            /** The last holder let go, at releaseNs. */
            boolean released;
            long releaseNs;
            /** A blocked or waiting state of the last holder, now closed, spanned releaseNs: no handoff from it. */
            boolean releaseInside;
            /**
             * Collecting proofs: the enters waiting for a later proof, and the blocked or waiting
             * states on it that closed meanwhile without an acquisition of it (lost records):
             * {ring, from, to} in event sequence numbers.
             */
            List<Pending> pending;
            List<long[]> closed;

            boolean known() {
                return last >= 0 || lastId != 0;
            }

            void holder(int ring, long id, long ns) {
                last = ring;
                lastId = ring >= 0 ? 0 : id;
                holderNs = ns;
                released = false;
                releaseInside = false;
            }

            void release(long ns) {
                if (known() && !released) {
                    released = true;
                    releaseNs = ns;
                    releaseInside = false;
                }
            }
        }

        /** An enter whose owner waits for a later proof: its ring and record, time and event sequence number. */
        private record Pending(int ring, int index, long ts, long seq) {
        }

        /** The state of one pass over the records; with {@code first}, the pass collects the later proofs. */
        private final class State {
            final boolean first;
            final LongMap<Mon> monitors = new LongMap<>();
            final long[] blockedOn = new long[threads.length];
            final long[] blockedSince = new long[threads.length];
            final long[] waitingOn = new long[threads.length];
            final long[] waitingSince = new long[threads.length];
            final long[] blockedSeq = new long[threads.length];
            final long[] waitingSeq = new long[threads.length];
            /** Event sequence number of the record being taken. */
            long seq;
            final long[] endSeen = new long[threads.length];

            State(boolean first) {
                this.first = first;
                Arrays.fill(endSeen, Long.MAX_VALUE);
            }

            Mon mon(long obj) {
                Mon m = monitors.get(obj);
                if (m == null) {
                    m = new Mon();
                    monitors.put(obj, m);
                }
                return m;
            }

            /** Next loss (of {@link #lossFrom}) not yet begun. */
            int loss;

            /**
             * The losses that began before {@code ts}: each ends its ring's blocked and waiting
             * states (what the thread did in it is not known).
             */
            void lossesBefore(long ts) {
                while (loss < lossFrom.length && lossFrom[loss] < ts) {
                    int k = lossRing[loss];
                    setBlocked(k, 0, lossFrom[loss]);
                    setWaiting(k, 0, lossFrom[loss]);
                    loss++;
                }
            }

            Owner step(int k, int index, EventType type, long obj, long ts) {
                lossesBefore(ts);
                seq++;
                switch (type) {
                    case MONITOR_ENTER -> {
                        return enter(k, index, obj, ts);
                    }
                    case MONITOR_ENTERED -> {
                        acquired(k, index, obj, ts, true);
                        setBlocked(k, 0, ts);
                    }
                    case MONITOR_WAITED -> {
                        acquired(k, index, obj, ts, false);
                        setWaiting(k, 0, ts);
                    }
                    case MONITOR_WAIT -> {
                        Mon m = mon(obj);
                        if (first) {
                            prove(m, obj, k, threads[k].javaThreadId(), ts);
                        }
                        m.holder(k, 0, ts); // it waits: it held the monitor until now
                        m.release(ts);
                        setWaiting(k, obj, ts);
                    }
                    case THREAD_END -> {
                        if (endSeen[k] == Long.MAX_VALUE) {
                            endSeen[k] = ts;
                        }
                        setBlocked(k, 0, ts);
                        setWaiting(k, 0, ts);
                    }
                    default -> {
                    }
                }
                return null;
            }

            Owner enter(int k, int index, long obj, long ts) {
                Mon m = mon(obj);
                if (m.last == k) {
                    m.release(ts); // it contends for the monitor: it does not hold it
                }
                RecordedThread t = threads[k];
                Owner owner = null;
                long id = t.arg2(index);
                if ((t.flags(index) & SnapshotFormat.FLAG_OWNER) != 0 && id != 0) {
                    if (id < 0) {
                        owner = new Owner(Source.NONE, null, -1);
                        if (first) {
                            clearPending(m); // free at the read: no proof for the enters before
                        }
                        m.release(ts);
                    } else {
                        int o = ringOf(id, ts);
                        if (o != k) {
                            owner = new Owner(Source.RECORDED, o < 0 ? null : threads[o], id);
                            if (first) {
                                prove(m, obj, o, id, ts);
                            }
                            m.holder(o, id, ts);
                        }
                    }
                }
                if (owner == null) {
                    owner = infer(k, index, m, obj, ts);
                    if (owner == null) {
                        if (first) {
                            if (m.pending == null) {
                                m.pending = new ArrayList<>(2);
                            }
                            m.pending.add(new Pending(k, index, ts, seq));
                        } else {
                            owner = proofAhead(k, index);
                        }
                    }
                }
                setBlocked(k, obj, ts);
                return owner;
            }

            /** Rule 1 and 2 of the inference (see the class comment); null when neither applies. */
            Owner infer(int k, int index, Mon m, long obj, long ts) {
                Integer snap = pendingEnter.isEmpty() ? null : pendingEnter.get(threads[k]);
                if (snap != null && snap == index && !r.anyLossOverlaps(ts, snapshotNs)) {
                    int o = ownerAtSnapshot(threads[k]);
                    if (o >= 0 && couldOwn(o, k, obj, ts)) {
                        return new Owner(Source.AT_SNAPSHOT, threads[o], threads[o].javaThreadId());
                    }
                }
                if (m.known() && !m.released && !r.anyLossOverlaps(m.holderNs, ts)) {
                    if (m.last < 0) {
                        return new Owner(Source.LAST_HOLDER, null, m.lastId); // an exact owner no ring has
                    }
                    if (couldOwn(m.last, k, obj, ts)) {
                        return new Owner(Source.LAST_HOLDER, threads[m.last], threads[m.last].javaThreadId());
                    }
                }
                return null;
            }

            /** Whether ring {@code o} could own {@code obj} at an enter of ring {@code k} at {@code ts}. */
            boolean couldOwn(int o, int k, long obj, long ts) {
                RecordedThread t = threads[o];
                return o != k && endSeen[o] == Long.MAX_VALUE && (t.endNs() == 0 || t.endNs() >= ts)
                        && (t.isLate() || t.startNs() <= ts) && blockedOn[o] != obj && waitingOn[o] != obj;
            }

            /**
             * Collecting proofs: a holding fact (ring {@code o}, else the Java id of an exact owner
             * without a ring) right after the pending enters of monitor {@code obj} proves their
             * owner, where it could own it then.
             */
            void prove(Mon m, long obj, int o, long id, long ts) {
                if (m.pending == null) {
                    return;
                }
                for (Pending p : m.pending) {
                    if (r.anyLossOverlaps(p.ts(), ts)) {
                        continue; // records lost between the enter and the proof: an acquisition may be lost
                    }
                    if (o < 0) {
                        proven.put(key(p.ring(), p.index()), new Owner(Source.LATER_PROOF, null, id));
                        continue;
                    }
                    RecordedThread t = threads[o];
                    boolean ended = endSeen[o] <= p.ts() || t.endNs() != 0 && t.endNs() < p.ts();
                    if (o != p.ring() && !blockedOrWaitingAt(m, obj, o, p.seq()) && !ended
                            && (t.isLate() || t.startNs() <= p.ts())) {
                        proven.put(key(p.ring(), p.index()), new Owner(Source.LATER_PROOF, t, t.javaThreadId()));
                    }
                }
                clearPending(m);
            }

            /** Whether ring o was blocked or waiting on the monitor of {@code m} at event sequence number {@code at} (while proofs are pending). */
            boolean blockedOrWaitingAt(Mon m, long obj, int o, long at) {
                if (m.closed != null) {
                    for (long[] c : m.closed) {
                        if (c[0] == o && c[1] < at && at < c[2]) {
                            return true;
                        }
                    }
                }
                return blockedOn[o] == obj && blockedSeq[o] < at || waitingOn[o] == obj && waitingSeq[o] < at;
            }

            void clearPending(Mon m) {
                m.pending = null;
                m.closed = null;
            }

            /**
             * An ENTERED ({@code handoff}) or WAITED (record {@code index}) of ring {@code k}: the
             * releaser of a handoff, then the new holder. The releaser is exact when the ENTERED
             * has FLAG_RELEASER naming another thread: {@link #recordedReleaser}; otherwise the
             * last holder, inferred.
             */
            void acquired(int k, int index, long obj, long ts, boolean handoff) {
                Mon m = mon(obj);
                if (first) {
                    clearPending(m); // an acquisition first: no proof for the enters before it
                }
                int recorded = handoff ? recordedReleaser(k, index, ts) : NOT_RECORDED;
                if (recorded >= 0) {
                    exactReleaser(recorded, m, obj, ts);
                } else if (handoff && recorded == NOT_RECORDED && m.last >= 0 && m.last != k) {
                    int o = m.last;
                    long at = m.released ? m.releaseNs : ts;
                    at = Math.min(at, end(o)); // it let go by its end at the latest
                    boolean inside = m.released && m.releaseInside && at == m.releaseNs
                            || blockedOn[o] == obj && blockedSince[o] < at
                            || waitingOn[o] == obj && waitingSince[o] < at;
                    // records lost since its last holding fact (or its release): another may have held it
                    if (!inside && !r.anyLossOverlaps(Math.min(m.holderNs, at), ts)) {
                        releasedBy = threads[o];
                        releaseNs = at;
                    }
                }
                m.holder(k, 0, ts);
            }

            /**
             * The ring of the releaser the MONITOR_ENTERED at record {@code index} of ring
             * {@code k} names with FLAG_RELEASER: the ring of that Java id at {@code ts}
             * ({@link #ringOf}); {@link #NOT_RECORDED} without the flag (or with an id &lt;= 0) and
             * when it names the entering thread itself (the VM's record is stale: the monitor
             * changed hands through compiled code's fast exit, which does not update it), so that
             * the releaser is inferred; {@link #NO_RING} when no ring has that id, or its ring had
             * not started at {@code ts}: no handoff.
             */
            int recordedReleaser(int k, int index, long ts) {
                RecordedThread t = threads[k];
                if ((t.flags(index) & SnapshotFormat.FLAG_RELEASER) == 0) {
                    return NOT_RECORDED;
                }
                long id = t.arg(index);
                if (id <= 0 || id == t.javaThreadId()) {
                    return NOT_RECORDED;
                }
                int o = ringOf(id, ts);
                if (o == k) {
                    return NOT_RECORDED;
                }
                if (o < 0 || !threads[o].isLate() && threads[o].startNs() > ts) {
                    return NO_RING;
                }
                return o;
            }

            /**
             * The exact releaser {@code o} of the handoff of monitor {@code obj} at {@code ts}: it
             * let go at the release recorded for it when it is the known last holder and let go
             * (unless that release fell inside a blocked or waiting state of its on the monitor,
             * since closed), else at {@code ts}; no later than the start of its blocked or waiting
             * state on the monitor open now (it let go before it blocked or waited again), nor
             * than its end.
             */
            void exactReleaser(int o, Mon m, long obj, long ts) {
                long at = m.last == o && m.released && !m.releaseInside ? m.releaseNs : ts;
                if (r.anyLossOverlaps(at, ts)) {
                    at = ts; // records lost since that release: it may have held the monitor again
                }
                if (blockedOn[o] == obj && blockedSince[o] < at) {
                    at = blockedSince[o];
                }
                if (waitingOn[o] == obj && waitingSince[o] < at) {
                    at = waitingSince[o];
                }
                releasedBy = threads[o];
                releaseNs = Math.min(at, end(o));
                releaserExact = true;
            }

            /** The end of ring {@code o}: its THREAD_END taken so far, else its ring's end; MAX_VALUE while alive. */
            long end(int o) {
                return Math.min(endSeen[o], threads[o].endNs() == 0 ? Long.MAX_VALUE : threads[o].endNs());
            }

            /** Ring {@code k} is blocked on {@code obj} from {@code ts} (0: no longer blocked). */
            void setBlocked(int k, long obj, long ts) {
                long old = blockedOn[k];
                if (old != 0) {
                    closed(k, old, blockedSince[k], blockedSeq[k], ts);
                }
                blockedOn[k] = obj;
                blockedSince[k] = ts;
                blockedSeq[k] = seq;
            }

            /** Ring {@code k} is waiting on {@code obj} from {@code ts} (0: no longer waiting). */
            void setWaiting(int k, long obj, long ts) {
                long old = waitingOn[k];
                if (old != 0) {
                    closed(k, old, waitingSince[k], waitingSeq[k], ts);
                }
                waitingOn[k] = obj;
                waitingSince[k] = ts;
                waitingSeq[k] = seq;
            }

            /**
             * A blocked or waiting state of ring {@code k} on {@code obj} ended now: did it span the
             * release of the monitor by k (time {@code since} to {@code until})? While proofs are
             * pending, it is kept for {@link #blockedOrWaitingAt} unless it ends in an acquisition
             * of that monitor (which clears them anyway).
             */
            void closed(int k, long obj, long since, long sinceSeq, long until) {
                Mon m = monitors.get(obj);
                if (m == null) {
                    return;
                }
                if (m.last == k && m.released && since < m.releaseNs && m.releaseNs < until) {
                    m.releaseInside = true;
                }
                if (first && m.pending != null) {
                    if (m.closed == null) {
                        m.closed = new ArrayList<>(2);
                    }
                    m.closed.add(new long[] {k, sinceSeq, seq});
                }
            }
        }
    }
}
