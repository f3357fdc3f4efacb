package dev.convoy.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.convoy.report.ContentionReport.Cause;
import dev.convoy.report.ContentionReport.Style;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The report of {@link Fixtures#contention} and {@link Fixtures#all}, line by line. */
class ContentionReportTest {

    static Recording read(byte[] b) {
        try {
            return SnapshotReader.read(b);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    final Recording contention = read(Fixtures.contention(Fixtures.base()).toBytes());
    final Recording all = read(Fixtures.all().toBytes());

    /**
     * Every line of the text report of the contention fixture. The facts, from the fixture's
     * Javadoc: Queue waits c1 100..310, 400..500, 560..snapshot (9.44 ms), c2 110..210, c3
     * 120..320 and 600..650 (timeout), c4 130..330; blocks c2 340..360 (held by c4), producer
     * 550..570 (released by c1's wait at 560); the waiter's wait on L2 700..810 ended by
     * main's interrupt. The critical path ends at main's end (3 ms) and runs main, producer,
     * c1, producer, sleeper, producer, main: 1.861 ms running, the 1 ms sleep, c1's wait
     * 400..500 in full (its notify came after the wake), 300..310 after the notifyAll,
     * producer blocked 560..570 after c1's release, starts 10..15 and 850..860, joins
     * 2000..2002 and 2100..2102.
     */
    @Test
    void textReportOfTheContentionFixture() {
        String expected = """
            Convoy contention report
            ========================

            Recording: com.example.Main, pid 4242, 10.00 ms, 8 threads, 2 blocks, 8 waits, 0 deadlocks.
            Contention analysis events: recorded (notify, start, join, sleep, interrupt).
            Records: 54 written, nothing lost.

            Most contended monitors
            -----------------------

              monitor class      blocks   blocked       avg       max  waits    waited
              -----------------  ------  --------  --------  --------  -----  --------
              com.example.Queue       2  40.00 us  20.00 us  20.00 us      7  10.30 ms
              com.example.Lock        0         -         -         -      1  110.0 us

            Hottest call sites:

              monitor class      call site                  kind     count      time       max  monitors  threads
              -----------------  -------------------------  -------  -----  --------  --------  --------  -------
              com.example.Queue  com.example.Worker.<init>  blocked      1  20.00 us  20.00 us         1        1
              com.example.Queue  com.example.Worker.run     blocked      1  20.00 us  20.00 us         1        1
              com.example.Lock   com.example.Worker.run     waited       1  110.0 us  110.0 us         1        1

            Hold times after contended acquisitions:

            From a thread's contended acquisition to its release where the record proves both: the next thread's acquisition with this thread as exact releaser, or its Object.wait. 0 of 2 proven; not counted: 0 releaser inferred, 0 across lost records of the holder, 2 no proven release.

            Threads that waited most
            ------------------------

              thread    blocks   blocked  waits    waited     total
              --------  ------  --------  -----  --------  --------
              c1             0      0 ns      3  9.750 ms  9.750 ms
              c3             0      0 ns      2  250.0 us  250.0 us
              c4             0      0 ns      1  200.0 us  200.0 us
              c2             1  20.00 us      1  100.0 us  120.0 us
              waiter         0      0 ns      1  110.0 us  110.0 us
              producer       1  20.00 us      0      0 ns  20.00 us

            Who kept them waiting:

              thread    by              how                   count      time
              --------  --------------  --------------------  -----  --------
              c1        producer        notifyAll                 1  210.0 us
              c1        producer        notify                    1  100.0 us
              c1        (not recorded)  open or unattributed      1  9.440 ms
              c3        producer        notifyAll                 1  200.0 us
              c3        (timeout)       timed out                 1  50.00 us
              c4        producer        notifyAll                 1  200.0 us
              c2        producer        notify                    1  100.0 us
              c2        c4              lock held (inferred)      1  20.00 us
              waiter    main            interrupt                 1  110.0 us
              producer  c1              lock held (inferred)      1  20.00 us

            Deadlocks
            ---------

            None at snapshot time.

            Critical path
            -------------

            Length 3.000 ms, from main at +0 ns to the end of main at +3.000 ms, through 4 threads in 17 segments.

              state         time  share
              --------  --------  -----
              running   1.861 ms  62.0%
              blocked   10.00 us   0.3%
              waiting   110.0 us   3.6%
              sleeping  1.000 ms  33.3%
              joining   4.000 us   0.1%
              starting  15.00 us   0.5%

            Blocked and waiting on the path, by monitor:

              monitor                     state        time  share
              --------------------------  -------  --------  -----
              com.example.Queue@bbbb0001  waiting  110.0 us   3.6%
              com.example.Queue@bbbb0001  blocked  10.00 us   0.3%

            Longest waits on the path:

              thread    state     on                                 at      time  ended by
              --------  --------  --------------------------  ---------  --------  -----------------------------
              sleeper   sleeping  -                           +900.0 us  1.000 ms  -
              c1        waiting   com.example.Queue@bbbb0001  +400.0 us  100.0 us  -
              c1        waiting   com.example.Queue@bbbb0001  +300.0 us  10.00 us  notifyAll by producer
              producer  blocked   com.example.Queue@bbbb0001  +560.0 us  10.00 us  lock release by c1 (inferred)
              sleeper   starting  -                           +850.0 us  10.00 us  start by producer
              producer  starting  -                           +10.00 us  5.000 us  start by main
              producer  joining   sleeper                     +2.000 ms  2.000 us  end by sleeper
              main      joining   producer                    +2.100 ms  2.000 us  end by producer
            """;
        assertEquals(expected, ContentionReport.of(contention).text());
    }

    @Test
    void markdownReportOfTheContentionFixture() {
        List<String> md = ContentionReport.of(contention).markdown().lines().toList();
        for (String line : List.of(
                "# Convoy contention report",
                "Recording: com.example.Main, pid 4242, 10.00 ms, 8 threads, 2 blocks, 8 waits, 0 deadlocks.",
                "## Most contended monitors",
                "| monitor class | blocks | blocked | avg | max | waits | waited |",
                "|---|---:|---:|---:|---:|---:|---:|",
                "| com.example.Queue | 2 | 40.00 us | 20.00 us | 20.00 us | 7 | 10.30 ms |",
                "| com.example.Lock | 0 | - | - | - | 1 | 110.0 us |",
                "### Hottest call sites",
                "| com.example.Queue | com.example.Worker.&lt;init&gt; | blocked | 1 | 20.00 us | 20.00 us | 1 | 1 |",
                "## Threads that waited most",
                "| c1 | 0 | 0 ns | 3 | 9.750 ms | 9.750 ms |",
                "### Who kept them waiting",
                "| c1 | producer | notifyAll | 1 | 210.0 us |",
                "| c1 | (not recorded) | open or unattributed | 1 | 9.440 ms |",
                "| c2 | c4 | lock held (inferred) | 1 | 20.00 us |",
                "| waiter | main | interrupt | 1 | 110.0 us |",
                "## Deadlocks",
                "None at snapshot time.",
                "## Critical path",
                "| sleeping | 1.000 ms | 33.3% |",
                "| com.example.Queue@bbbb0001 | waiting | 110.0 us | 3.6% |",
                "| producer | blocked | com.example.Queue@bbbb0001 | +560.0 us | 10.00 us | lock release by c1 (inferred) |")) {
            assertTrue(md.contains(line), () -> "missing line: " + line + "\n" + String.join("\n", md));
        }
        // a table is always preceded by a blank line, so that Markdown renders it
        for (int i = 1; i < md.size(); i++) {
            if (md.get(i).startsWith("|") && !md.get(i - 1).startsWith("|")) {
                assertEquals("", md.get(i - 1), "blank line before table at line " + (i + 1));
            }
        }
    }

    @Test
    void deadlocksWithTheirStacks() {
        String text = ContentionReport.of(all).text();
        String expected = """
            Deadlocks
            ---------

            Deadlock 1 (main, worker-1):

            main is blocked on com.example.Lock@aaaa0002, held by worker-1
                at com.example.Worker.run(Worker, Inc.java:14)

            worker-1 is blocked on java.lang.Object@aaaa0001, held by main
                at com.example.Worker.<init>(Worker, Inc.java:3)
                at com.example.Worker.run(Worker, Inc.java:11)

            Critical path
            """;
        assertTrue(text.contains(expected), text);
        assertTrue(text.contains("Recording: com.example.Main, pid 4242, 10.00 ms, 7 threads, 7 blocks, 2 waits, "
                + "1 deadlock."), text);
        assertTrue(text.contains("Contention analysis events: none"), text);
        String md = ContentionReport.of(all).markdown();
        assertTrue(md.contains("""
            ### Deadlock 1 (main, worker-1)

            - main is blocked on com.example.Lock@aaaa0002, held by worker-1

              ```
              at com.example.Worker.run(Worker, Inc.java:14)
              ```
            """), md);
    }

    @Test
    void hottestCallSitesAndUnknownMethods() {
        List<String> lines = ContentionReport.of(all).text().lines().toList();
        assertTrue(lines.contains("  com.example.Lock  com.example.Worker.run           blocked      4  10.05 ms  "
                + "9.700 ms         2        3"), String.join("\n", lines));
        assertTrue(lines.contains("  com.example.Lock  <unknown method 0x7f0000004000>  blocked      1  150.0 us  "
                + "150.0 us         1        1"), String.join("\n", lines));
        // control characters of thread names never reach the output
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("  waiter, \uFFFDcaf\u00e9 \uD83D\uDE00")));
        assertTrue(lines.stream().noneMatch(l -> l.contains("\u0000")));
    }

    @Test
    void causesOfAThread() {
        ContentionReport report = ContentionReport.of(contention);
        RecordedThread c3 = contention.threadByRingId(Fixtures.R_C3).orElseThrow();
        List<Cause> causes = report.causes(c3);
        assertEquals(2, causes.size());
        assertEquals("producer", causes.get(0).by());
        assertEquals("notifyAll", causes.get(0).how());
        assertEquals(200_000, causes.get(0).ns());
        assertEquals("(timeout)", causes.get(1).by());
        assertEquals(null, causes.get(1).thread());
        assertEquals(50_000, causes.get(1).ns());
        assertEquals(List.of("c1", "c3", "c4", "c2", "waiter", "producer"),
                report.topThreads().stream().map(t -> t.thread().name()).toList());
    }

    @Test
    void deterministic() {
        assertEquals(ContentionReport.of(contention).text(), ContentionReport.of(read(
                Fixtures.contention(Fixtures.base()).toBytes())).text());
        assertEquals(ContentionReport.of(all).markdown(), ContentionReport.of(all).render(Style.MARKDOWN));
    }

    /**
     * The header of a recording with lost records ({@link Fixtures#losses}): the totals written
     * and lost, when the history is complete from, and per thread with lost records how many, of
     * which kind, the time they cover (unknown, in no state) and from when its history is
     * complete; the threads table gives that unknown time, not as blocked, waited or running.
     */
    @Test
    void headerSaysWhatWasLost() {
        Recording lost = read(Fixtures.losses(Fixtures.base()).toBytes());
        String text = ContentionReport.of(lost).text();
        String expected = """
            Recording: com.example.Main, pid 4242, 10.00 ms, 5 threads, 6 blocks, 2 waits, 0 deadlocks.
            Contention analysis events: recorded (notify, start, join, sleep, interrupt).
            Records: 1500 written, 800 lost (700 overwritten in the threads' rings before the recorder kept them, \
            100 aged out of the history); 2 threads have lost records, their state then is unknown. \
            The history holds records from +200.0 us; older ones aged out.

            Threads with lost records (their state in that time is unknown):

              thread      records lost  overwritten  aged out  unknown time  complete from
              ----------  ------------  -----------  --------  ------------  -------------
              lost-early           300          200       100      390.0 us      +400.0 us
              notifier             500          500         0      200.0 us      +350.0 us
            """;
        assertTrue(text.contains(expected), text);
        String threads = """
              thread      blocks   blocked  waits    waited     total   unknown
              ----------  ------  --------  -----  --------  --------  --------
              parker           2  9.000 us      1  210.0 us  219.0 us         -
              waiter           0      0 ns      1  200.0 us  200.0 us         -
              blocked          2  185.0 us      0      0 ns  185.0 us         -
              lost-early       1  30.00 us      0      0 ns  30.00 us  390.0 us
              notifier         1  10.00 us      0      0 ns  10.00 us  200.0 us
            """;
        assertTrue(text.contains(threads), "the notifier's block stops where its records were lost:\n" + text);
        List<String> md = ContentionReport.of(lost).markdown().lines().toList();
        assertTrue(md.contains("### Threads with lost records (their state in that time is unknown)"), md::toString);
        assertTrue(md.contains("| lost-early | 300 | 200 | 100 | 390.0 us | +400.0 us |"), md::toString);

        assertTrue(ContentionReport.of(contention).text().contains("\nRecords: 54 written, nothing lost.\n"));
        // a file before 1.5: its one loss is made of the counter, and said
        String old = ContentionReport.of(all).text();
        assertTrue(old.contains("Records: 35 written, 8 lost (5 overwritten in the threads' rings before the recorder "
                + "kept them, 2 dropped (never recorded), 1 torn); 1 thread has lost records, its state then is unknown."),
                old);
        assertTrue(old.contains("  victim             5            5         0      200.0 us      +200.0 us"), old);
    }

    @Test
    void theCriticalPathSaysWhereItsRecordsWereLost() {
        dev.convoy.testing.RecordingBuilder b = Fixtures.base();
        b.thread(Fixtures.R_MAIN, 1, Fixtures.O_MAIN, "main").span(Fixtures.T0, 0)
                .loss(dev.convoy.snapshot.SnapshotFormat.LOSS_OVERWRITTEN, Fixtures.T0, Fixtures.t(500), 40)
                .event(Fixtures.t(500), dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_ENTER, 0, Fixtures.M1, 0)
                .event(Fixtures.t(600), dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_ENTERED, 0, Fixtures.M1, 0);
        String text = ContentionReport.of(b.build()).text();
        assertTrue(text.contains("Length 9.500 ms, from main at +500.0 us to the end of main at +10.00 ms, through 1 "
                + "threads in 2 segments. Before +500.0 us the path is unknown: records of main were lost."), text);
    }

    @Test
    void emptyRecording() {
        Recording empty = read(Fixtures.base().toBytes());
        String text = ContentionReport.of(empty).text();
        assertTrue(text.contains("No monitor was contended or waited on."), text);
        assertTrue(text.contains("No thread was blocked or waited."), text);
        assertTrue(text.contains("No Java thread recorded."), text);
        assertTrue(text.endsWith(".\n") && !text.endsWith("\n\n"), text);
    }

    @Test
    void durations() {
        assertEquals("0 ns", ReportRenderer.duration(0));
        assertEquals("999 ns", ReportRenderer.duration(999));
        assertEquals("1.000 us", ReportRenderer.duration(1_000));
        assertEquals("12.34 us", ReportRenderer.duration(12_345));
        assertEquals("123.4 us", ReportRenderer.duration(123_456));
        assertEquals("1.234 ms", ReportRenderer.duration(1_234_567));
        assertEquals("999.9 ms", ReportRenderer.duration(999_999_999));
        assertEquals("2.000 s", ReportRenderer.duration(2_000_000_000L));
        assertEquals("1234 s", ReportRenderer.duration(1_234_000_000_000L));
        assertEquals("-1.500 us", ReportRenderer.duration(-1_500));
        assertEquals("33.3%", ReportRenderer.percent(1, 3));
        assertEquals("-", ReportRenderer.percent(1, 0));
    }

    @Test
    void styles() {
        assertEquals(Style.TEXT, Style.parse(" Text "));
        assertEquals(Style.MARKDOWN, Style.parse("markdown"));
        assertEquals(Style.MARKDOWN, Style.parse("md"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Style.parse("html"));
        assertEquals("unknown report format 'html'; allowed: text, markdown", e.getMessage());
    }
}
