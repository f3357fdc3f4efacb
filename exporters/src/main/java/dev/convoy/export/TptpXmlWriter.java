package dev.convoy.export;

import com.fasterxml.jackson.dataformat.xml.XmlFactory;
import dev.convoy.analysis.Interval;
import dev.convoy.analysis.Intervals;
import dev.convoy.analysis.MonitorOwnership;
import dev.convoy.model.ClassInfo;
import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.Frame;
import dev.convoy.model.MethodInfo;
import dev.convoy.model.ObjectInfo;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.model.StackTrace;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Map;
import java.util.List;
import java.util.Set;
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
 * value="METHODID:LOCATION"} children, top frame first. No DOCTYPE is written, so the file
 * opens without the DTD at hand.
 */
public final class TptpXmlWriter implements Exporter {

    @Override
    public List<Path> export(Recording recording, Path out) throws IOException {
        return List.of(AtomicFiles.write(out, os -> write(recording, os)));
    }

    /** Writes the trace to a stream (not closed). */
    public void write(Recording r, OutputStream os) throws IOException {
        try {
            XMLStreamWriter w = new XmlFactory().getXMLOutputFactory()
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
        final MonitorOwnership owners;
        final Set<Long> classes = new HashSet<>();
        final Set<Long> objects = new HashSet<>();
        final Set<Long> methods = new HashSet<>();
        final Map<Event, Event> beginOf = new java.util.HashMap<>();

        Run(Recording r, XMLStreamWriter w) {
            this.r = r;
            this.w = w;
            this.owners = MonitorOwnership.of(r);
            for (RecordedThread t : r.threads()) {
                Event wait = null; // every wait, the inner waits of joins included
                for (Event e : t.events()) {
                    if (e.type() == EventType.MONITOR_WAIT) {
                        wait = e;
                    } else if (e.type() == EventType.MONITOR_WAITED) {
                        if (wait != null && wait.obj() == e.obj()) {
                            beginOf.put(e, wait);
                        }
                        wait = null;
                    }
                }
            }
            for (Interval in : Intervals.of(r)) {
                if (in.kind() == Interval.Kind.SLEEPING && in.end() != null
                        && in.end().type() == EventType.SLEPT) {
                    beginOf.put(in.end(), in.begin());
                }
            }
        }

        String time(long monotonicNs) {
            return Text.seconds(r.toEpochNs(monotonicNs));
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

            for (Item it : timeline()) {
                writeItem(it);
            }
            String end = time(r.snapshotMonotonicNs());
            empty("traceEnd", "time", end);
            empty("agentDestroy", "agentIdRef", agentId, "time", end);
            w.writeEndElement();
            nl();
            w.writeEndDocument();
        }

        List<Item> timeline() {
            List<Item> items = new ArrayList<>();
            for (RecordedThread t : r.threads()) {
                long first = t.startNs();
                long last = t.startNs();
                for (Event e : t.events()) {
                    first = Math.min(first, e.ts());
                    last = Math.max(last, e.ts());
                    if (isWritten(e, t)) {
                        items.add(new Item(e.ts(), EVENT, items.size(), t, e));
                    }
                }
                if (!t.isSystem()) {
                    items.add(new Item(first, THREAD_START, items.size(), t, null));
                    if (t.isEnded()) {
                        items.add(new Item(Math.max(last, t.endNs()), THREAD_END, items.size(), t, null));
                    }
                }
            }
            items.sort(Comparator.comparingLong(Item::ts).thenComparingInt(Item::rank).thenComparingInt(Item::seq));
            return items;
        }

        static boolean isWritten(Event e, RecordedThread t) {
            return switch (e.type()) {
                case MONITOR_ENTER, MONITOR_ENTERED, MONITOR_WAIT, MONITOR_WAITED, START_CALL, INTERRUPT_CALL,
                        NOTIFY, NOTIFY_ALL, THREAD_INTERRUPTED, SLEEP, SLEPT -> !t.isSystem();
                case GC_START, GC_FINISH -> true;
                default -> false; // thread start/end come from the ring; unknown types have no element
            };
        }

        void writeItem(Item it) throws XMLStreamException {
            RecordedThread t = it.thread();
            String tid = Long.toUnsignedString(t.ringId());
            String time = time(it.ts());
            if (it.rank() == THREAD_START) {
                List<String> a = new ArrayList<>(List.of("threadId", tid, "time", time, "threadName", t.name(),
                        "groupName", t.group(), "parentName", t.parentGroup()));
                if (t.threadObject() != 0) {
                    defineObject(t.threadObject(), it.ts());
                    a.add("objIdRef");
                    a.add(Long.toUnsignedString(t.threadObject()));
                }
                empty("threadStart", a.toArray(String[]::new));
                return;
            }
            if (it.rank() == THREAD_END) {
                empty("threadEnd", "threadIdRef", tid, "time", time);
                return;
            }
            Event e = it.event();
            switch (e.type()) {
                case GC_START -> empty("gcStart", "time", time);
                case GC_FINISH -> empty("gcFinish", "time", time);
                case MONITOR_ENTER -> {
                    String obj = defineObject(e.obj(), e.ts());
                    defineStack(e.stackId());
                    String owner = owners.ownerAt(e).map(o -> Long.toUnsignedString(o.ringId())).orElse("0");
                    withStack("monContendedEnter", e.stackId(), "threadIdRef", tid, "time", time,
                            "objIdRef", obj, "threadOwner", owner);
                }
                case MONITOR_ENTERED -> empty("monContendedEntered", "threadIdRef", tid, "time", time,
                        "objIdRef", defineObject(e.obj(), e.ts()));
                case MONITOR_WAIT -> {
                    String obj = defineObject(e.obj(), e.ts());
                    defineStack(e.stackId());
                    withStack("monWait", e.stackId(), "threadIdRef", tid, "time", time, "objIdRef", obj,
                            "timeout", Long.toString(e.arg()));
                }
                case MONITOR_WAITED -> {
                    String obj = defineObject(e.obj(), e.ts());
                    Event wait = beginOf.get(e);
                    List<String> a = new ArrayList<>(List.of("threadIdRef", tid, "time", time, "objIdRef", obj));
                    if (wait != null) {
                        a.add("timeout");
                        a.add(Long.toString(wait.arg()));
                    }
                    a.add("isTimedOut");
                    a.add(e.timedOut() ? "1" : "0");
                    empty("monWaited", a.toArray(String[]::new));
                }
                case START_CALL, INTERRUPT_CALL -> {
                    List<String> a = new ArrayList<>(List.of("threadId", tid, "time", time));
                    if (e.obj() != 0) {
                        a.add("objIdRef");
                        a.add(defineObject(e.obj(), e.ts()));
                    }
                    defineStack(e.stackId());
                    withStack(e.type() == EventType.START_CALL ? "callStart" : "callInterrupt", e.stackId(),
                            a.toArray(String[]::new));
                }
                case NOTIFY, NOTIFY_ALL -> {
                    String obj = defineObject(e.obj(), e.ts());
                    defineStack(e.stackId());
                    withStack("callNotify", e.stackId(), "threadId", tid, "time", time, "objIdRef", obj,
                            "isNotifyAll", e.type() == EventType.NOTIFY_ALL ? "1" : "0");
                }
                case THREAD_INTERRUPTED -> {
                    defineStack(e.stackId());
                    withStack("threadInterrupted", e.stackId(), "threadId", tid, "time", time);
                }
                case SLEEP -> {
                    // the seed's TRCThreadSleepingEvent: a monWait whose objIdRef is -1 is Thread.sleep
                    defineStack(e.stackId());
                    withStack("monWait", e.stackId(), "threadIdRef", tid, "time", time, "objIdRef", SLEEP_OBJ,
                            "timeout", Long.toString(e.arg()));
                }
                case SLEPT -> {
                    Event sleep = beginOf.get(e);
                    if (sleep != null) { // a SLEPT after the sleep ended by an InterruptedException has none
                        empty("monWaited", "threadIdRef", tid, "time", time, "objIdRef", SLEEP_OBJ,
                                "timeout", Long.toString(sleep.arg()), "isTimedOut", "1");
                    }
                }
                default -> {
                }
            }
        }

        String defineClass(long classId, long ts) throws XMLStreamException {
            ClassInfo c = r.classes().get(classId);
            if (classId == 0 || c == null) {
                return null;
            }
            if (classes.add(classId)) {
                empty("classDef", "name", c.dottedName(), "sourceName", c.sourceFile(),
                        "classId", Long.toUnsignedString(classId), "time", time(ts));
            }
            return Long.toUnsignedString(classId);
        }

        String defineObject(long objId, long ts) throws XMLStreamException {
            String id = Long.toUnsignedString(objId);
            if (objId != 0 && objects.add(objId)) {
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
            return id;
        }

        void defineStack(int stackId) throws XMLStreamException {
            StackTrace st = r.stacks().get(stackId);
            if (st == null) {
                return;
            }
            for (Frame f : st.frames()) {
                if (!methods.add(f.methodId())) {
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

        void withStack(String element, int stackId, String... attrs) throws XMLStreamException {
            List<Frame> frames = r.frames(stackId);
            if (frames.isEmpty()) {
                empty(element, attrs);
                return;
            }
            w.writeStartElement(element);
            attributes(attrs);
            for (Frame f : frames) {
                w.writeEmptyElement("annotation");
                w.writeAttribute("name", "frame");
                w.writeAttribute("value", Long.toUnsignedString(f.methodId()) + ":" + f.location());
            }
            w.writeEndElement();
            nl();
        }

        void empty(String element, String... attrs) throws XMLStreamException {
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
}
