package dev.convoy.export;

import com.ctc.wstx.stax.WstxInputFactory;
import com.ctc.wstx.stax.WstxOutputFactory;
import com.fasterxml.jackson.dataformat.xml.XmlFactory;
import dev.convoy.analysis.Blockers;
import dev.convoy.analysis.LongMap;
import dev.convoy.analysis.MonitorOwnership;
import dev.convoy.analysis.RecordFacts;
import dev.convoy.model.ClassInfo;
import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.Frame;
import dev.convoy.model.MethodInfo;
import dev.convoy.model.ObjectInfo;
import dev.convoy.model.Loss;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.model.StackTrace;
import dev.convoy.snapshot.SnapshotFormat;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Map;
import java.util.List;
import java.util.UUID;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * Eclipse TPTP trace XML ({@code .trcxml}), exactly as described by
 * {@code schema/convoy-trace.dtd}; see {@code docs/formats.md}.
 *
 * <p>Streamed with the StAX writer (Woodstox) of jackson-dataformat-xml. Flat elements
 * under {@code TRACE}: the envelope ({@code node}, {@code processCreate},
 * {@code agentCreate}, {@code traceStart}, {@code option TRACE_IDREFS=false}), then in time
 * order {@code threadStart}/{@code threadEnd}, {@code monContendedEnter} (with
 * {@code threadOwner}, 0 when unknown), {@code monContendedEntered}, {@code monWait},
 * {@code monWaited} ({@code isTimedOut} 1|0), {@code callStart}, {@code callInterrupt},
 * {@code callNotify} ({@code isNotifyAll} 1|0), {@code threadInterrupted} (threadId = the
 * calling thread), Thread.sleep as {@code monWait}/{@code monWaited} with objIdRef -1,
 * {@code gcStart}/{@code gcFinish}, each
 * definition ({@code classDef}, {@code objAlloc}, {@code methodDef}) written just before
 * its first reference; then {@code traceEnd} and {@code agentDestroy}.
 * Thread ids are ring ids; object, class and method ids are the snapshot's ids in
 * decimal; times are epoch seconds with 9 fraction digits. Stacks of
 * {@code monContendedEnter} and {@code monWait} are {@code annotation name="frame"
 * value="METHODID:LOCATION"} children, top frame first. A {@code monContendedEnter} whose
 * owner is known has, first, {@code annotation name="owner" value="exact|none|inferred"}:
 * how {@code threadOwner} is known ({@link MonitorOwnership.Owner#kind}). No DOCTYPE is
 * written, so the file opens without the DTD at hand.
 */
final class TptpXmlWriter {

    /** Writes the trace to a stream (not closed). */
    public void write(Recording r, OutputStream os) throws IOException {
        try {
            // Woodstox named, not looked up: in the agent's shaded jar the StAX lookup finds the JDK's writer
            XMLStreamWriter w = new XmlFactory(new WstxInputFactory(), new WstxOutputFactory()).getXMLOutputFactory()
                    .createXMLStreamWriter(os, StandardCharsets.UTF_8.name());
            new Run(r, w).write();
            w.flush();
            w.close();
        } catch (XMLStreamException e) {
            throw new IOException("cannot write TPTP XML: " + e.getMessage(), e);
        }
    }

    private record Item(long ts, int rank, int seq, RecordedThread thread, Event event) {
    }

    /** objIdRef of the monWait/monWaited pair that stands for Thread.sleep (TPTP's convention). */
    static final String SLEEP_OBJ = "-1";

    private static final int THREAD_START = 0;
    private static final int EVENT = 1;
    private static final int THREAD_END = 2;

    private static final class Run {
        final Recording r;
        final XMLStreamWriter w;
        final java.util.Map<Long, RecordedThread> byJavaId; // a lock park's exact owner
        final RecordFacts facts;
        final LongMap<Boolean> classes = new LongMap<Boolean>();
        final LongMap<Boolean> objects = new LongMap<Boolean>();
        final LongMap<Boolean> methods = new LongMap<Boolean>();
        /** Owner at the MONITOR_ENTER being written; begin of the MONITOR_WAITED or SLEPT being written. */
        MonitorOwnership.Owner owner;
        Event begin;

        Run(Recording r, XMLStreamWriter w) {
            this.r = r;
            this.w = w;
            this.byJavaId = Blockers.threadsByJavaId(r);
            this.facts = new RecordFacts(r);
            this.epochOffset = r.startEpochNs() - r.startMonotonicNs();
            this.raw = (org.codehaus.stax2.XMLStreamWriter2) w; // Woodstox, see write
        }

        /** {@link Recording#toEpochNs} is start.epoch.ns + (ts - start.monotonic.ns): the offset taken once. */
        final long epochOffset;

        String time(long monotonicNs) {
            return Text.seconds(monotonicNs + epochOffset);
        }

        void write() throws XMLStreamException {
            String seed = r.pid() + "/" + r.startEpochNs() + "/" + r.startMonotonicNs() + "/";
            String nodeId = uuid(seed + "node");
            String processId = uuid(seed + "process");
            String agentId = uuid(seed + "agent");
            String start = time(r.startMonotonicNs());
            w.writeStartDocument("UTF-8", "1.0");
            nl();
            w.writeStartElement("TRACE");
            nl();
            empty("node", "nodeId", nodeId, "hostname", r.info().getOrDefault("hostname", "unknown"),
                    "ipaddress", r.info().getOrDefault("ipaddress", "0.0.0.0"), "timezone", "0", "time", start);
            empty("processCreate", "processId", processId, "pid", Long.toString(r.pid()),
                    "nodeIdRef", nodeId, "time", start);
            empty("agentCreate", "agentId", agentId, "processIdRef", processId, "agentName", "convoy",
                    "agentType", "Profiler", "agentParameters", r.info().getOrDefault("options", ""),
                    "version", r.info().getOrDefault("agent.version", ""), "time", start);
            empty("traceStart", "traceId", uuid(seed + "trace"), "agentIdRef", agentId, "time", start);
            empty("option", "key", "TRACE_IDREFS", "value", "false");
            losses();

            timeline();
            String end = time(r.snapshotMonotonicNs());
            empty("traceEnd", "time", end);
            empty("agentDestroy", "agentIdRef", agentId, "time", end);
            w.writeEndElement();
            nl();
            w.writeEndDocument();
        }

        /**
         * What was lost, as options (the DTD has no element for it, and TPTP's model no unknown
         * state): {@code convoy.records} the totals, as {@link Recording#lossSummary()} says them, then
         * one {@code convoy.loss} per loss of a thread's records: its threadId (the threadStart's, a
         * ring id), kind, from and to (the trace's time format) and records. A TPTP viewer shows the
         * thread running in that time; it is not known.
         */
        void losses() throws XMLStreamException {
            empty("option", "key", "convoy.records", "value", r.lossSummary());
            for (RecordedThread t : r.threads()) {
                for (Loss l : t.losses()) {
                    empty("option", "key", "convoy.loss", "value", "threadId=" + t.ringId() + " kind=" + l.kindName()
                            + " from=" + time(l.fromNs()) + " to=" + time(l.toNs()) + " records=" + l.records());
                }
            }
        }

        /**
         * In time order; at equal times thread starts (by ring), then records (by ring, then
         * ring order), then thread ends (by ring). Streamed from the merged order of
         * {@link Recording#events()}: a ring's start is its start or first record, its end
         * the latest of its records and its end.
         */
        void timeline() throws XMLStreamException {
            List<RecordedThread> threads = r.threads();
            long[] first = new long[threads.size()];
            long[] last = new long[threads.size()];
            for (int k = 0; k < threads.size(); k++) {
                RecordedThread t = threads.get(k);
                first[k] = t.startNs();
                last[k] = t.startNs();
                for (int i = 0; i < t.eventCount(); i++) {
                    long ts = t.ts(i);
                    first[k] = Math.min(first[k], ts);
                    last[k] = Math.max(last[k], ts);
                }
            }
            java.util.Map<RecordedThread, Integer> pos = new java.util.IdentityHashMap<>();
            for (int k = 0; k < threads.size(); k++) {
                pos.put(threads.get(k), k);
            }
            long[] starts = ThreadMarks.marks(r, t -> !t.isSystem(), t -> first[pos.get(t)]);
            long[] ends = ThreadMarks.marks(r, t -> !t.isSystem() && t.isEnded(),
                    t -> Math.max(last[pos.get(t)], t.endNs()));
            int si = 0;
            int ei = 0;
            java.util.Iterator<Event> it = r.events().iterator();
            Event e = it.hasNext() ? it.next() : null;
            while (true) {
                long sTs = si < ThreadMarks.count(starts) ? ThreadMarks.ts(starts, si) : Long.MAX_VALUE;
                long eTs = e != null ? e.ts() : Long.MAX_VALUE;
                long nTs = ei < ThreadMarks.count(ends) ? ThreadMarks.ts(ends, ei) : Long.MAX_VALUE;
                if (si < ThreadMarks.count(starts) && sTs <= eTs && sTs <= nTs) {
                    int k = ThreadMarks.ring(starts, si++);
                    writeItem(new Item(first[k], THREAD_START, 0, threads.get(k), null));
                } else if (e != null && eTs <= nTs) {
                    facts.next(e);
                    owner = facts.owner();
                    begin = facts.begin();
                    if (isWritten(e, e.thread())) {
                        writeItem(new Item(e.ts(), EVENT, 0, e.thread(), e));
                    }
                    e = it.hasNext() ? it.next() : null;
                } else if (ei < ThreadMarks.count(ends)) {
                    int k = ThreadMarks.ring(ends, ei++);
                    writeItem(new Item(ThreadMarks.ts(ends, ei - 1), THREAD_END, 0, threads.get(k), null));
                } else {
                    break;
                }
            }
        }

        static boolean isWritten(Event e, RecordedThread t) {
            return switch (e.type()) {
                case MONITOR_ENTER, MONITOR_ENTERED, MONITOR_WAIT, MONITOR_WAITED, START_CALL, INTERRUPT_CALL,
                        NOTIFY, NOTIFY_ALL, THREAD_INTERRUPTED, SLEEP, SLEPT -> !t.isSystem();
                case PARK, PARKED -> !t.isSystem() && e.obj() != 0; // monWait needs an object: -1 is a sleep
                case GC_START, GC_FINISH -> true;
                default -> false; // thread start/end come from the ring; unknown types have no element
            };
        }

        void writeItem(Item it) throws XMLStreamException {
            RecordedThread t = it.thread();
            if (it.rank() != EVENT) {
                writeThread(it);
                return;
            }
            Event e = it.event();
            long ring = t.ringId();
            long ts = e.ts();
            switch (e.type()) {
                case GC_START, GC_FINISH -> {
                    open(e.type() == EventType.GC_START ? "gcStart" : "gcFinish").at(ts);
                    end();
                }
                case MONITOR_ENTER -> {
                    defineObject(e.obj(), ts);
                    defineStack(e.stackId());
                    RecordedThread o = owner == null ? null : owner.thread();
                    open("monContendedEnter").num("threadIdRef", ring).at(ts).num("objIdRef", e.obj())
                            .num("threadOwner", o == null ? 0 : o.ringId());
                    end(e.stackId(), owner == null ? null : owner.kind());
                }
                case MONITOR_ENTERED -> {
                    defineObject(e.obj(), ts);
                    open("monContendedEntered").num("threadIdRef", ring).at(ts).num("objIdRef", e.obj());
                    end();
                }
                case MONITOR_WAIT -> {
                    defineObject(e.obj(), ts);
                    defineStack(e.stackId());
                    open("monWait").num("threadIdRef", ring).at(ts).num("objIdRef", e.obj())
                            .signed("timeout", e.arg());
                    end(e.stackId());
                }
                case MONITOR_WAITED -> {
                    defineObject(e.obj(), ts);
                    open("monWaited").num("threadIdRef", ring).at(ts).num("objIdRef", e.obj());
                    if (begin != null) {
                        signed("timeout", begin.arg());
                    }
                    num("isTimedOut", e.timedOut() ? 1 : 0);
                    end();
                }
                case START_CALL, INTERRUPT_CALL -> {
                    if (e.obj() != 0) {
                        defineObject(e.obj(), ts);
                    }
                    defineStack(e.stackId());
                    open(e.type() == EventType.START_CALL ? "callStart" : "callInterrupt").num("threadId", ring).at(ts);
                    if (e.obj() != 0) {
                        num("objIdRef", e.obj());
                    }
                    end(e.stackId());
                }
                case NOTIFY, NOTIFY_ALL -> {
                    defineObject(e.obj(), ts);
                    defineStack(e.stackId());
                    open("callNotify").num("threadId", ring).at(ts).num("objIdRef", e.obj())
                            .num("isNotifyAll", e.type() == EventType.NOTIFY_ALL ? 1 : 0);
                    end(e.stackId());
                }
                case THREAD_INTERRUPTED -> {
                    defineStack(e.stackId());
                    open("threadInterrupted").num("threadId", ring).at(ts);
                    end(e.stackId());
                }
                case SLEEP -> {
                    // the TPTP design's TRCThreadSleepingEvent: a monWait whose objIdRef is -1 is Thread.sleep
                    defineStack(e.stackId());
                    open("monWait").num("threadIdRef", ring).at(ts).signed("objIdRef", -1).signed("timeout", e.arg());
                    end(e.stackId());
                }
                case PARK -> {
                    // a lock acquisition as a contended enter (threadOwner exact), any other park as a wait
                    defineObject(e.obj(), ts);
                    defineStack(e.stackId());
                    if ((e.flags() & SnapshotFormat.FLAG_LOCK) != 0) {
                        RecordedThread o = e.arg2() >= 0 ? byJavaId.get(e.arg2()) : null;
                        open("monContendedEnter").num("threadIdRef", ring).at(ts).num("objIdRef", e.obj())
                                .num("threadOwner", o == null || o == t ? 0 : o.ringId());
                        end(e.stackId(), e.arg2() < 0 ? "none" : "exact");
                    } else {
                        open("monWait").num("threadIdRef", ring).at(ts).num("objIdRef", e.obj())
                                .signed("timeout", parkMs(e.arg()));
                        end(e.stackId());
                    }
                }
                case PARKED -> {
                    if (begin != null) { // a PARKED whose PARK was lost: lock or wait is not known
                        defineObject(e.obj(), ts);
                        if ((begin.flags() & SnapshotFormat.FLAG_LOCK) != 0) {
                            open("monContendedEntered").num("threadIdRef", ring).at(ts).num("objIdRef", e.obj());
                        } else {
                            open("monWaited").num("threadIdRef", ring).at(ts).num("objIdRef", e.obj())
                                    .signed("timeout", parkMs(begin.arg())).num("isTimedOut", e.timedOut() ? 1 : 0);
                        }
                        end();
                    }
                }
                case SLEPT -> {
                    if (begin != null) { // a SLEPT after the sleep ended by an InterruptedException has none
                        open("monWaited").num("threadIdRef", ring).at(ts).signed("objIdRef", -1)
                                .signed("timeout", begin.arg()).num("isTimedOut", 1);
                        end();
                    }
                }
                default -> {
                }
            }
        }

        /** A park's timeout (ns) in whole ms, rounded up: 0 stays "none". */
        static long parkMs(long ns) {
            return ns <= 0 ? 0 : (ns - 1) / 1_000_000 + 1;
        }

        /*
         * The per-event elements: built as text into one reusable buffer and handed to the
         * Woodstox writer as raw text. Their values are digits, '.' and '-' only, so the text
         * is exactly what writeEmptyElement/writeAttribute would write.
         */
        char[] buf = new char[512];
        int len;

        String element;

        Run open(String element) {
            this.element = element;
            len = 0;
            put('<');
            return put(element);
        }

        Run put(char c) {
            if (len == buf.length) {
                buf = java.util.Arrays.copyOf(buf, 2 * len);
            }
            buf[len++] = c;
            return this;
        }

        Run put(String v) {
            int n = v.length();
            if (len + n > buf.length) {
                buf = java.util.Arrays.copyOf(buf, Math.max(2 * buf.length, len + n));
            }
            v.getChars(0, n, buf, len);
            len += n;
            return this;
        }

        Run name(String attr) {
            return put(' ').put(attr).put('=').put('"');
        }

        /** An unsigned decimal attribute (ids as {@link Long#toUnsignedString}). */
        Run num(String attr, long v) {
            name(attr);
            if (v < 0) {
                put(Long.toUnsignedString(v));
            } else {
                digits(v);
            }
            return put('"');
        }

        /** A signed decimal attribute. */
        Run signed(String attr, long v) {
            if (v >= 0) {
                return num(attr, v);
            }
            return name(attr).put(Long.toString(v)).put('"');
        }

        /** The whole seconds last written by {@link #at} and their digits. */
        long second = -1;
        String secondText;

        /** {@code time}: epoch seconds with 9 fraction digits ({@link Text#seconds}). */
        Run at(long monotonicNs) {
            long ns = monotonicNs + epochOffset;
            name("time");
            if (ns < 0) {
                put(Text.seconds(ns));
            } else {
                long sec = ns / 1_000_000_000L;
                if (sec != second) {
                    second = sec;
                    secondText = Long.toString(sec) + '.';
                }
                put(secondText);
                int frac = (int) (ns - sec * 1_000_000_000L);
                room(9);
                for (int i = len + 8; i >= len; i--) {
                    buf[i] = (char) ('0' + frac % 10);
                    frac /= 10;
                }
                len += 9;
            }
            return put('"');
        }

        private final char[] digitTmp = new char[20];

        /** v (&ge; 0) in decimal. */
        void digits(long v) {
            int at = digitTmp.length;
            do {
                long q = v / 10;
                digitTmp[--at] = (char) ('0' + (v - q * 10));
                v = q;
            } while (v > 0);
            int n = digitTmp.length - at;
            room(n);
            System.arraycopy(digitTmp, at, buf, len, n);
            len += n;
        }

        void room(int n) {
            if (len + n > buf.length) {
                buf = java.util.Arrays.copyOf(buf, 2 * buf.length + n);
            }
        }

        /** Ends an empty element and writes it. */
        void end() throws XMLStreamException {
            put('/').put('>').put('\n');
            raw.writeRaw(buf, 0, len);
        }

        /** Ends an element with its stack's annotation children and writes it. */
        void end(int stackId) throws XMLStreamException {
            end(stackId, null);
        }

        /**
         * Ends an element with an owner annotation ({@code <annotation name="owner" value="KIND"/>},
         * KIND exact, none or inferred; none when null), then its stack's frame annotations, and
         * writes it.
         */
        void end(int stackId, String ownerKind) throws XMLStreamException {
            char[] frames = frameXml.computeIfAbsent(stackId, id -> {
                StringBuilder sb = new StringBuilder();
                for (Frame f : r.frames(id)) {
                    sb.append("<annotation name=\"frame\" value=\"").append(Long.toUnsignedString(f.methodId()))
                            .append(':').append(f.location()).append("\"/>");
                }
                return sb.toString().toCharArray();
            });
            if (frames.length == 0 && ownerKind == null) {
                end();
                return;
            }
            put('>');
            if (ownerKind != null) {
                put("<annotation name=\"owner\" value=\"").put(ownerKind).put("\"/>");
            }
            if (len + frames.length > buf.length) {
                buf = java.util.Arrays.copyOf(buf, 2 * (len + frames.length));
            }
            System.arraycopy(frames, 0, buf, len, frames.length);
            len += frames.length;
            put('<').put('/').put(element).put('>').put('\n');
            raw.writeRaw(buf, 0, len);
        }

        void writeThread(Item it) throws XMLStreamException {
            RecordedThread t = it.thread();
            String tid = Long.toUnsignedString(t.ringId());
            String time = time(it.ts());
            if (it.rank() == THREAD_START) {
                List<String> a = new ArrayList<>(List.of("threadId", tid, "time", time, "threadName", t.displayName(),
                        "groupName", t.group(), "parentName", t.parentGroup()));
                if (t.threadObject() != 0) {
                    defineObject(t.threadObject(), it.ts());
                    a.add("objIdRef");
                    a.add(Long.toUnsignedString(t.threadObject()));
                }
                empty("threadStart", a.toArray(String[]::new));
            } else {
                empty("threadEnd", "threadIdRef", tid, "time", time);
            }
        }

        String defineClass(long classId, long ts) throws XMLStreamException {
            ClassInfo c = r.classes().get(classId);
            if (classId == 0 || c == null) {
                return null;
            }
            if (defines(classes, classId)) {
                empty("classDef", "name", c.dottedName(), "sourceName", c.sourceFile(),
                        "classId", Long.toUnsignedString(classId), "time", time(ts));
            }
            return Long.toUnsignedString(classId);
        }

        void defineObject(long objId, long ts) throws XMLStreamException {
            if (objId != 0 && defines(objects, objId)) {
                String id = Long.toUnsignedString(objId);
                ObjectInfo o = r.objects().get(objId);
                String cls = o == null ? null : defineClass(o.classId(), ts);
                List<String> a = new ArrayList<>(List.of("objId", id));
                if (cls != null) {
                    a.add("classIdRef");
                    a.add(cls);
                }
                a.add("time");
                a.add(time(ts));
                empty("objAlloc", a.toArray(String[]::new));
            }
        }

        /** Stacks whose methods are all defined already. */
        final LongMap<Boolean> stacksDefined = new LongMap<Boolean>();

        void defineStack(int stackId) throws XMLStreamException {
            if (!defines(stacksDefined, stackId)) {
                return;
            }
            StackTrace st = r.stacks().get(stackId);
            if (st == null) {
                return;
            }
            for (Frame f : st.frames()) {
                if (!defines(methods, f.methodId())) {
                    continue;
                }
                MethodInfo m = r.methods().get(f.methodId());
                List<String> a = new ArrayList<>();
                a.add("name");
                a.add(m == null ? "-unknown-" : tptpName(m.name()));
                a.add("signature");
                a.add(m == null ? "" : m.signature());
                a.add("methodId");
                a.add(Long.toUnsignedString(f.methodId()));
                String cls = m == null ? null : defineClass(m.classId(), r.startMonotonicNs());
                if (cls != null) {
                    a.add("classIdRef");
                    a.add(cls);
                }
                if (m != null && m.firstLine() >= 0) {
                    a.addAll(List.of("startLineNumber", Integer.toString(m.firstLine()),
                            "endLineNumber", Integer.toString(m.lastLine())));
                }
                empty("methodDef", a.toArray(String[]::new));
            }
        }

        static String tptpName(String name) {
            return switch (name) {
                case "<init>" -> "-init-";
                case "<clinit>" -> "-clinit-";
                default -> name;
            };
        }

        /**
         * Per stack id its frames as the XML of the {@code annotation} elements, made once
         * (the values are digits, ':' and '-': nothing to escape).
         */
        final Map<Integer, char[]> frameXml = new java.util.HashMap<>();

        /** The writer's raw output (Woodstox). */
        org.codehaus.stax2.XMLStreamWriter2 raw;

        /**
         * True when no value needs escaping or replacing (printable ASCII but {@code & < > "}):
         * the element can then be written as raw text, as the StAX writer would write it.
         */
        static boolean plain(String... attrs) {
            for (int i = 1; i < attrs.length; i += 2) {
                String v = attrs[i];
                for (int j = 0; j < v.length(); j++) {
                    char c = v.charAt(j);
                    if (c < 0x20 || c > 0x7E || c == '&' || c == '<' || c == '>' || c == '"') {
                        return false;
                    }
                }
            }
            return true;
        }

        final StringBuilder tag = new StringBuilder(256);

        StringBuilder startTag(String element, String... attrs) {
            tag.setLength(0);
            tag.append('<').append(element);
            for (int i = 0; i < attrs.length; i += 2) {
                tag.append(' ').append(attrs[i]).append("=\"").append(attrs[i + 1]).append('"');
            }
            return tag;
        }

        void empty(String element, String... attrs) throws XMLStreamException {
            if (plain(attrs)) {
                raw.writeRaw(startTag(element, attrs).append("/>\n").toString());
                return;
            }
            w.writeEmptyElement(element);
            attributes(attrs);
            nl();
        }

        void attributes(String... attrs) throws XMLStreamException {
            for (int i = 0; i < attrs.length; i += 2) {
                w.writeAttribute(attrs[i], Text.xml(attrs[i + 1]));
            }
        }

        void nl() throws XMLStreamException {
            w.writeCharacters("\n");
        }

        static String uuid(String seed) {
            return UUID.nameUUIDFromBytes(seed.getBytes(StandardCharsets.UTF_8)).toString();
        }
    }

    /** Marks id as defined in {@code set}; true the first time. */
    private static boolean defines(LongMap<Boolean> set, long id) {
        return set.put(id, Boolean.TRUE) == null;
    }
}
