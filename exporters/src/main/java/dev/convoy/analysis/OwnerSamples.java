package dev.convoy.analysis;

import static dev.convoy.snapshot.SnapshotFormat.*;

import dev.convoy.model.Frame;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The owner's side of long blocks: every OWNER_SAMPLE record (format 1.6, agent option
 * {@code ownerstacks}) attached to the BLOCKED interval it was taken in. A sample follows its
 * block's begin record (MONITOR_ENTER, or a PARK with FLAG_LOCK) in the blocked thread's ring,
 * names the same object, and was taken while the block lasted; one that does not (its block's
 * begin lost, or the block ended before the owner's stack was taken) is counted in
 * {@link #unattached()} and attached to nothing.
 *
 * <p>From a sample: the owner (its Java id, and its ring when recorded: the ring with that id
 * alive at the sample), its state then, what it was itself blocked on, waiting on or parked on,
 * its stack and the frame of that stack holding the lock (a monitor's; none for a
 * {@code java.util.concurrent} lock), which {@link Sample#frameExact()} says is the only frame
 * that could hold it. {@link #chain} follows a sample's owner into its own block: A blocked on
 * B's lock while B is blocked on C's.
 */
public final class OwnerSamples {

    /** The owner's state when sampled (OSTATE_* of the format). */
    public enum State {
        UNKNOWN("unknown"), RUNNING("running"), NATIVE("in native"), BLOCKED("blocked"), WAITING("waiting"),
        PARKED("parked"), SLEEPING("sleeping");

        private final String label;

        State(String label) {
            this.label = label;
        }

        /** Lower case, as the outputs write it: "running", "in native", "blocked", ... */
        public String label() {
            return label;
        }

        /** The state of an OSTATE_* code; UNKNOWN for codes this reader does not know. */
        public static State of(int code) {
            State[] all = values();
            return code >= 0 && code < all.length ? all[code] : UNKNOWN;
        }

        /** Blocked, waiting or parked: on something ({@link Sample#on()}). */
        public boolean onSomething() {
            return this == BLOCKED || this == WAITING || this == PARKED;
        }
    }

    /**
     * One sample, attached to a BLOCKED interval.
     *
     * @param blocked     the blocked thread (whose ring holds the record)
     * @param ring        its ring's position in {@link Recording#threads()}
     * @param interval    the BLOCKED interval of that ring (its {@link IntervalTable} numbering)
     * @param index       the record's index in the ring
     * @param monitor     the monitor or lock blocked on
     * @param ts          when the owner's stack was taken
     * @param ownerJavaId the owner's Java thread id
     * @param owner       the owner's ring, null when no ring has that id
     * @param state       the owner's state
     * @param on          what the owner was itself blocked on, waiting on or parked on, 0 none or unknown
     * @param stackId     the owner's stack, 0 none
     * @param frame       index in that stack (0 = top) of the frame holding the lock, -1 none
     * @param frameExact  the frame is the only one of the stack that could hold the monitor
     * @param lock        the block is a park acquiring a {@code java.util.concurrent} lock
     */
    public record Sample(RecordedThread blocked, int ring, int interval, int index, long monitor, long ts,
                         long ownerJavaId, RecordedThread owner, State state, long on, int stackId, int frame,
                         boolean frameExact, boolean lock) {

        /** The frame holding the lock, null when none is known. */
        public Frame holdingFrame(Recording r) {
            List<Frame> fs = r.frames(stackId);
            return frame >= 0 && frame < fs.size() ? fs.get(frame) : null;
        }

        /** The owner's name, or {@code #ID} when no ring has its id. */
        public String ownerName() {
            return owner != null ? owner.name() : "#" + ownerJavaId;
        }
    }

    /**
     * A link of a chain: {@code thread} (an owner) was, at the sample, in {@code state} on
     * {@code on} (0: not on anything), held by {@code holder} (null: none known); {@code sample}
     * is that block's own sample, when it has one. {@code deadlock}: the holder is a thread the
     * chain already met (the blocked thread or an earlier owner): the chain is a cycle, a
     * deadlock, and this is its last link.
     */
    public record Link(RecordedThread thread, State state, long on, RecordedThread holder, Sample sample,
                       boolean deadlock) {
    }

    private final Rings index;
    private final InteractionTable interactions;
    private final List<Sample> samples;
    private final Map<Long, Sample> byInterval;
    private final int unattached;

    private OwnerSamples(Rings x, InteractionTable in, List<Sample> samples, Map<Long, Sample> byInterval,
                         int unattached) {
        this.index = x;
        this.interactions = in;
        this.samples = samples;
        this.byInterval = byInterval;
        this.unattached = unattached;
    }

    /** The samples of a recording's rings (a stage of {@link ContentionIndex}). */
    static OwnerSamples of(Rings x, InteractionTable in) {
        Map<Long, int[]> byJavaId = new HashMap<>();
        for (int k = 0; k < x.rings(); k++) {
            RecordedThread t = x.thread(k);
            if (!t.isSystem()) {
                int[] old = byJavaId.get(t.javaThreadId());
                int[] rings = old == null ? new int[1] : java.util.Arrays.copyOf(old, old.length + 1);
                rings[rings.length - 1] = k;
                byJavaId.put(t.javaThreadId(), rings);
            }
        }
        List<Sample> out = new ArrayList<>();
        Map<Long, Sample> byInterval = new HashMap<>();
        int unattached = 0;
        for (int k = 0; k < x.rings(); k++) {
            RecordedThread t = x.thread(k);
            int n = t.eventCount();
            for (int i = 0; i < n; i++) {
                if (t.rawType(i) != EVENT_OWNER_SAMPLE) {
                    continue;
                }
                int iv = blockOf(x.table(k), t, i);
                if (iv < 0 || byInterval.containsKey(key(k, iv))) {
                    unattached++;
                    continue;
                }
                int aux = t.aux(i);
                long ownerId = t.arg(i);
                int ownerRing = ringAt(x, byJavaId, ownerId, t.ts(i));
                Sample s = new Sample(t, k, iv, i, t.obj(i), t.ts(i), ownerId,
                        ownerRing < 0 || ownerRing == k ? null : x.thread(ownerRing),
                        State.of(aux >>> OWNER_STATE_SHIFT), t.arg2(i), t.stackId(i), (aux & OWNER_DEPTH_MASK) - 1,
                        (t.flags(i) & FLAG_FRAME_EXACT) != 0 && (aux & OWNER_DEPTH_MASK) != 0,
                        x.table(k).isPark(iv));
                out.add(s);
                byInterval.put(key(k, iv), s);
            }
        }
        return new OwnerSamples(x, in, Collections.unmodifiableList(out), byInterval, unattached);
    }

    /**
     * The BLOCKED interval of ring {@code t} a sample at record {@code i} belongs to: the one whose
     * begin is the nearest earlier record on the sample's object, if it covers the sample's time;
     * -1 otherwise.
     */
    private static int blockOf(IntervalTable g, RecordedThread t, int i) {
        long obj = t.obj(i);
        for (int b = i - 1; b >= 0 && b >= i - 4; b--) {
            int type = t.rawType(b);
            if (type == EVENT_OWNER_SAMPLE) {
                continue;
            }
            boolean begin = type == EVENT_MONITOR_ENTER || type == EVENT_PARK && (t.flags(b) & FLAG_LOCK) != 0;
            if (!begin || t.obj(b) != obj) {
                return -1;
            }
            int iv = g.atBegin(b);
            if (iv < 0 || g.kind(iv) != IntervalTable.BLOCKED || t.ts(i) < g.startNs(iv) || t.ts(i) > g.endNs(iv)) {
                return -1;
            }
            return iv;
        }
        return -1;
    }

    private static long key(int ring, int iv) {
        return (long) ring << 32 | (iv & 0xFFFFFFFFL);
    }

    /** The ring with Java id {@code id} alive at {@code ts} (else the last with that id), -1 if none. */
    private static int ringAt(Rings x, Map<Long, int[]> byJavaId, long id, long ts) {
        int[] rings = byJavaId.get(id);
        if (rings == null) {
            return -1;
        }
        for (int k : rings) {
            RecordedThread t = x.thread(k);
            if (t.startNs() <= ts && (t.endNs() == 0 || t.endNs() >= ts)) {
                return k;
            }
        }
        return rings[rings.length - 1];
    }

    /** Every attached sample, in ring order then record order. */
    public List<Sample> all() {
        return samples;
    }

    /** Samples that belong to no BLOCKED interval (their block's begin was lost, or it ended first). */
    public int unattached() {
        return unattached;
    }

    /** How long the block of a sample lasted (its BLOCKED interval's start to end). */
    public long blockedNs(Sample s) {
        IntervalTable g = index.table(s.ring());
        return g.endNs(s.interval()) - g.startNs(s.interval());
    }

    /** The sample of a BLOCKED interval, null if it has none. */
    public Sample of(int ring, int interval) {
        return byInterval.get(key(ring, interval));
    }

    /**
     * The chain from a sample, at most {@code max} links: its owner, and while an owner was
     * blocked, waiting or parked on something, that block's or wait's holder (the owner of its own
     * sample, else the owner the analysis found for the block), and so on. A holder the chain
     * already met ends it: that link is {@link Link#deadlock()} (the chain stops at the repeat
     * rather than going round the cycle again).
     */
    public List<Link> chain(Sample s, int max) {
        List<Link> links = new ArrayList<>();
        Set<RecordedThread> seen = new HashSet<>();
        seen.add(s.blocked());
        Sample cur = s;
        while (cur != null && links.size() < max) {
            RecordedThread t = cur.owner();
            if (t == null || !seen.add(t)) {
                break;
            }
            Sample next = null;
            RecordedThread holder = null;
            if (cur.state().onSomething() && cur.on() != 0) {
                int ring = index.ring(t);
                IntervalTable g = index.table(ring);
                int iv = g.lastStartAtOrBefore(cur.ts());
                if (iv >= 0 && g.monitor(iv) == cur.on() && g.endNs(iv) >= cur.ts()) {
                    next = of(ring, iv);
                    holder = next != null ? next.owner()
                            : g.kind(iv) == IntervalTable.BLOCKED ? interactions.owner(ring, iv) : null;
                }
            }
            boolean deadlock = holder != null && seen.contains(holder);
            links.add(new Link(t, cur.state(), cur.state().onSomething() ? cur.on() : 0, holder, next, deadlock));
            if (deadlock) {
                break;
            }
            cur = next;
        }
        return links;
    }
}
