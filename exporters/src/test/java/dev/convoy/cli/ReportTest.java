package dev.convoy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.convoy.report.ContentionReport;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code Report FILE [--markdown] [-o OUT]}: output, errors, exit codes. */
class ReportTest {

    @TempDir
    Path dir;

    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    int run(String... args) {
        return Report.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    Path snapshot() throws Exception {
        Path f = dir.resolve("c.cvysnap");
        Files.write(f, Fixtures.contention(Fixtures.base()).toBytes());
        return f;
    }

    @Test
    void textOnStdout() throws Exception {
        Path f = snapshot();
        assertEquals(0, run(f.toString()));
        assertEquals(ContentionReport.of(SnapshotReader.read(f)).text(), out());
        assertEquals("", err());
    }

    @Test
    void markdownIntoAFile() throws Exception {
        Path f = snapshot();
        Path target = dir.resolve("sub/report.md");
        assertEquals(0, run("--markdown", f.toString(), "-o", target.toString()));
        assertEquals(target.toAbsolutePath() + "\n", out().replace("\r\n", "\n"));
        assertEquals(ContentionReport.of(SnapshotReader.read(f)).markdown(), Files.readString(target));
        assertEquals(0, run("--format=text", f.toString()));
        assertTrue(out().contains("Convoy contention report\n========================\n"), out());
    }

    @Test
    void badArguments() throws Exception {
        assertEquals(2, run());
        assertTrue(err().startsWith("convoy: report: no input file\nusage: ./convoy report FILE"), err());
        err.reset();
        assertEquals(2, run("a", "b"));
        assertTrue(err().startsWith("convoy: report: unexpected argument 'b'\n"), err());
        err.reset();
        assertEquals(2, run("--html", "a"));
        assertTrue(err().startsWith("convoy: report: unknown option '--html'\n"), err());
        err.reset();
        assertEquals(2, run("a", "-o"));
        assertTrue(err().startsWith("convoy: report: -o needs a value (OUT)\n"), err());
        err.reset();
        assertEquals(2, run("--format=pdf", "a"));
        assertTrue(err().startsWith("convoy: report: unknown report format 'pdf'; allowed: text, markdown\n"), err());
        assertEquals(0, run("--help"));
        assertTrue(out().startsWith("usage: ./convoy report FILE"));
    }

    @Test
    void idleRulesThatCannotBeReadOrParsedAreAUsageError() throws Exception {
        Path f = snapshot();
        assertEquals(2, run(f.toString(), "--idle-rules", dir.resolve("none.rules").toString()));
        assertTrue(err().startsWith("convoy: report: --idle-rules: no such file: " + dir.resolve("none.rules")), err());
        err.reset();
        Path bad = dir.resolve("bad.rules");
        Files.writeString(bad, "idle frame a.B.c\nidle\n");
        assertEquals(2, run(f.toString(), "--idle-rules", bad.toString()));
        assertTrue(err().startsWith("convoy: report: " + bad + " line 2: expected 'idle|contention"), err());
        err.reset();
        Path good = dir.resolve("good.rules");
        Files.writeString(good, "idle thread *\n");
        assertEquals(0, run(f.toString(), "--idle-rules", good.toString()));
        assertTrue(out().contains("built-in rules and " + good), out());
    }

    @Test
    void unreadableInput() throws Exception {
        assertEquals(1, run(dir.resolve("missing.cvysnap").toString()));
        assertEquals("convoy: report: no such file: " + dir.resolve("missing.cvysnap") + "\n", err());
        err.reset();
        Path junk = dir.resolve("junk.cvysnap");
        Files.writeString(junk, "not a snapshot at all");
        Path target = dir.resolve("r.txt");
        assertEquals(1, run(junk.toString(), "-o", target.toString()));
        assertTrue(err().startsWith("convoy: report: " + junk + ": not a valid snapshot: "), err());
        assertFalse(Files.exists(target), "nothing written");
        err.reset();
        assertEquals(1, run(dir.toString()));
        assertEquals("convoy: report: " + dir + " is a directory, not a snapshot nor a repository folder "
                + "(chunk-NNNNNNNNNN.cvysnap files)\n", err());
        assertEquals("", out());
    }

    @Test
    void aWindowReportsOnlyItsPartAndABadOneIsAUsageError() throws Exception {
        Path f = snapshot();
        dev.convoy.model.Recording whole = SnapshotReader.read(f);
        long end = whole.snapshotMonotonicNs();
        long start = whole.startMonotonicNs();
        long half = (end - start) / 2 / 1_000_000;
        assertEquals(0, run(f.toString(), "--since", half + "ms"));
        dev.convoy.model.Recording cut = new dev.convoy.model.Window(end - half * 1_000_000, end).cut(whole);
        assertEquals(ContentionReport.of(cut).text(), out());
        assertEquals(2, run(f.toString(), "--since", "soon"));
        assertTrue(err().contains("convoy: report: --since 'soon' is not a duration"), err());
        assertTrue(err().contains("usage: ./convoy report FILE"), err());
    }
}
