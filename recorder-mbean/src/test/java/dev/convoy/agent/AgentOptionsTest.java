package dev.convoy.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Paths;
import java.util.EnumSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.convoy.export.Output;

class AgentOptionsTest {

    private static String error(String text) {
        return assertThrows(AgentOptions.InvalidOptionException.class, () -> AgentOptions.parse(text)).getMessage();
    }

    @Test
    void defaultsWorkWithoutOptions() {
        for (String text : new String[] {null, "", "  "}) {
            AgentOptions o = AgentOptions.parse(text);
            assertTrue(o.recording());
            assertEquals(64 << 10, o.bufferBytes());
            assertEquals(64L << 20, o.memoryCap());
            assertEquals(64, o.stackDepth());
            assertEquals(Paths.get("convoy-out"), o.dumpDir());
            assertTrue(o.dumpOnExit().isEmpty());
            assertFalse(o.emptyCallbacks());
            assertFalse(o.timing());
            assertFalse(o.effective().contains("timing"));
            assertEquals("convoy-" + ProcessHandle.current().pid(), o.dumpName());
        }
    }

    @Test
    void everyOptionIsParsed() {
        AgentOptions o = AgentOptions.parse("recording=off,buffer=128k,memory=1G,stackdepth=0,dumpdir=/tmp/x,"
                + "dumponexit=chrome+csv,dumpname=run-1.a");
        assertFalse(o.recording());
        assertEquals(128 << 10, o.bufferBytes());
        assertEquals(1L << 30, o.memoryCap());
        assertEquals(0, o.stackDepth());
        assertEquals(Paths.get("/tmp/x"), o.dumpDir());
        assertEquals(EnumSet.of(Output.CHROME, Output.CSV_META, Output.CSV_EVENTS, Output.CSV_LOSSES), o.dumpOnExit());
        assertEquals("run-1.a", o.dumpName());
        assertEquals("recording=off,buffer=128k,memory=1g,maxsize=32m,maxage=0,stackdepth=0,dumpdir=/tmp/x,dumponexit=chrome+csv,"
                + "dumpname=run-1.a,ownerstacks=5ms,owners=vm,releasers=vm,contanalysis=off,vthreadevents=on,"
                + "stacks=async", o.effective());
        assertTrue(AgentOptions.parse("bench.callbacks=empty").emptyCallbacks());
        assertFalse(o.contentionAnalysis());
        assertTrue(AgentOptions.parse("contanalysis=on").contentionAnalysis());
        assertTrue(AgentOptions.parse("contanalysis=on").effective().endsWith(",contanalysis=on,vthreadevents=on,stacks=async"));
        assertEquals(EnumSet.allOf(Output.class), AgentOptions.parse("dumponexit=all").dumpOnExit());
        assertTrue(AgentOptions.parse("dumponexit=none").dumpOnExit().isEmpty());
        assertEquals(4096, AgentOptions.parse("buffer=4096").bufferBytes());
        assertTrue(AgentOptions.parse("").vmOwners());
        assertFalse(AgentOptions.parse("owners=inferred").vmOwners());
        assertTrue(AgentOptions.parse("owners=inferred").effective().contains("owners=inferred"));
        assertEquals("vm", AgentOptions.parse("").releasers(), "JFR's recording is not started by default");
        assertEquals("jfr", AgentOptions.parse("releasers=jfr").releasers());
        assertEquals("inferred", AgentOptions.parse("owners=inferred").releasers(), "no owner read, no releaser read");
        assertTrue(AgentOptions.parse("releasers=inferred").effective().contains(",releasers=inferred,"));
        assertTrue(AgentOptions.parse("").idCache());
        assertFalse(AgentOptions.parse("").effective().contains("idcache"));
        assertFalse(AgentOptions.parse("bench.idcache=off").idCache());
        assertTrue(AgentOptions.parse("bench.idcache=off").effective().contains(",bench.idcache=off"));
        assertTrue(AgentOptions.parse("").stackCache());
        assertFalse(AgentOptions.parse("").effective().contains("stackcache"));
        assertFalse(AgentOptions.parse("bench.stackcache=off").stackCache());
        assertTrue(AgentOptions.parse("bench.stackcache=off").effective().contains(",bench.stackcache=off"));
        assertTrue(error("stackcache=maybe").contains("stackcache"), error("stackcache=maybe"));
        assertTrue(AgentOptions.parse("").heldRefs());
        assertFalse(AgentOptions.parse("").effective().contains("heldrefs"));
        assertFalse(AgentOptions.parse("bench.heldrefs=off").heldRefs());
        assertTrue(AgentOptions.parse("bench.heldrefs=off").effective().contains(",bench.heldrefs=off"));
        assertTrue(error("heldrefs=maybe").contains("heldrefs"), error("heldrefs=maybe"));
    }

    @Test
    void historyBoundsAreParsedAndBadOnesNamed() {
        AgentOptions d = AgentOptions.parse("");
        assertEquals(32L << 20, d.historyBytes());
        assertEquals(0, d.historyAgeNs());
        AgentOptions o = AgentOptions.parse("maxsize=1m,maxage=90s");
        assertEquals(1L << 20, o.historyBytes());
        assertEquals(90_000_000_000L, o.historyAgeNs());
        assertTrue(o.effective().contains(",maxsize=1m,maxage=90s,"), o.effective());
        assertEquals(2L * 3600 * 1_000_000_000L, AgentOptions.parse("maxage=2h").historyAgeNs());
        assertEquals(86400L * 1_000_000_000L, AgentOptions.parse("maxage=1d").historyAgeNs());
        assertTrue(AgentOptions.parse("maxage=120m").effective().contains("maxage=2h"));
        assertEquals("option 'maxsize': 512k is out of range (allowed 1m to 256m)", error("maxsize=512k"));
        assertEquals("option 'maxsize': 1g is out of range (allowed 1m to 256m)", error("maxsize=1g"));
        assertTrue(error("maxage=10").contains("is not a duration"), error("maxage=10"));
        assertTrue(error("maxage=0m").contains("is not a duration"), error("maxage=0m"));
        assertTrue(error("maxage=-5s").contains("is not a duration"), error("maxage=-5s"));
        assertEquals(null, d.repository());
        AgentOptions r = AgentOptions.parse("repository=/var/tmp/convoy");
        assertEquals(Paths.get("/var/tmp/convoy"), r.repository());
        assertTrue(r.effective().contains(",repository=/var/tmp/convoy,"), r.effective());
        assertTrue(error("repository=").contains("needs a directory"), error("repository="));
        assertEquals(256L << 20, d.diskBytes());
        assertTrue(!d.effective().contains("diskmaxsize"), "named only with a repository: " + d.effective());
        assertTrue(r.effective().contains(",diskmaxsize=256m,"), r.effective());
        AgentOptions disk = AgentOptions.parse("repository=/var/tmp/convoy,diskmaxsize=2g");
        assertEquals(2L << 30, disk.diskBytes());
        assertTrue(disk.effective().contains(",diskmaxsize=2g,"), disk.effective());
        assertEquals("option 'diskmaxsize': 512k is out of range (allowed 1m to 1024g)", error("diskmaxsize=512k"));
        assertEquals("option 'diskmaxsize': 2000g is out of range (allowed 1m to 1024g)", error("diskmaxsize=2000g"));
    }

    @Test
    void ownerStacksTakeAThresholdOrOff() {
        assertEquals(5_000_000L, AgentOptions.parse("").ownerStacksNs());
        assertEquals(12_000_000L, AgentOptions.parse("ownerstacks=12ms").ownerStacksNs());
        assertEquals(2_000_000_000L, AgentOptions.parse("ownerstacks=2s").ownerStacksNs());
        assertTrue(AgentOptions.parse("ownerstacks=2s").effective().contains(",ownerstacks=2s,"));
        assertEquals(0, AgentOptions.parse("ownerstacks=off").ownerStacksNs());
        assertTrue(AgentOptions.parse("ownerstacks=off").effective().contains(",ownerstacks=off,"));
        assertEquals(0, AgentOptions.parse("bench.callbacks=empty").ownerStacksNs(), "nothing to sample with empty callbacks");
        for (String bad : new String[] {"0ms", "5", "5m", "61s", "1.5ms", "", "on"}) {
            assertEquals("option 'ownerstacks' must be off or a duration of 1ms to 60s, a whole number of ms or s, "
                    + "e.g. ownerstacks=5ms; got '" + bad + "'", error("ownerstacks=" + bad));
        }
    }

    @Test
    void exitWindowCutsTheDumpOnExitOnly() {
        assertEquals(0, AgentOptions.parse("dumponexit=snapshot").exitWindowNs(), "all of the history by default");
        AgentOptions o = AgentOptions.parse("dumponexit=snapshot,exitwindow=10m");
        assertEquals(600_000_000_000L, o.exitWindowNs());
        assertTrue(o.effective().contains(",exitwindow=10m,"), o.effective());
        assertEquals("option 'exitwindow' cuts the dump on exit, but option 'dumponexit' is none: add e.g. "
                + "dumponexit=snapshot", error("exitwindow=10m"));
    }

    @Test
    void unknownKeyListsTheAllowedOnes() {
        assertEquals("unknown option 'bufer'; options: recording, buffer, memory, maxsize, maxage, repository, "
                + "diskmaxsize, stackdepth, dumpdir, dumponexit, exitwindow, dumpname, idlerules, dumpon, dumpwindow, dumpkeep, "
                + "ownerstacks, owners, releasers, contanalysis, vthreadevents, stacks, http, httptoken (and, for "
                + "benchmarks, bench.callbacks, bench.idcache, bench.stackcache, bench.heldrefs, bench.timing, "
                + "bench.vtcapability)",
                error("bufer=64k"));
    }

    @Test
    void virtualThreadEventsAreOnOffOrTheCapabilityOnly() {
        assertEquals(1, AgentOptions.parse("").virtualThreadEvents());
        assertEquals(0, AgentOptions.parse("vthreadevents=off").virtualThreadEvents());
        assertEquals(2, AgentOptions.parse("vthreadevents=off,bench.vtcapability=on").virtualThreadEvents());
        assertTrue(AgentOptions.parse("vthreadevents=off").effective().contains("vthreadevents=off"));
        assertTrue(AgentOptions.parse("vthreadevents=off,bench.vtcapability=on").effective()
                .endsWith(",bench.vtcapability=on"));
        assertEquals("option 'vthreadevents' must be on or off, got 'capability'", error("vthreadevents=capability"));
        assertEquals("option 'bench.vtcapability=on' adds the capability without the events: it needs "
                + "vthreadevents=off", error("bench.vtcapability=on"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "buffer=12x|option 'buffer': '12x' is not a size",
        "buffer=1k|option 'buffer': 1k is out of range (allowed 4k to 64m)",
        "memory=99999999999999g|option 'memory': '99999999999999g' is not a size",
        "memory=2g|option 'memory': 2g is too large: a snapshot holds up to the whole recorder memory and must fit "
                + "in a Java byte[] (under 2 GiB); the largest allowed value is 1g (allowed 1m to 1g)",
        "memory=1025m|option 'memory': 1025m is too large",
        "memory=16g|option 'memory': 16g is too large",
        "memory=512k|option 'memory': 512k is out of range (allowed 1m to",
        "stackdepth=-1|option 'stackdepth': '-1' is not a whole number (allowed 0 to 2048)",
        "stackdepth=4096|option 'stackdepth': 4096 is out of range (allowed 0 to 2048)",
        "recording=maybe|option 'recording' must be on or off, got 'maybe'",
        "dumponexit=pdf|option 'dumponexit': unknown format 'pdf'",
        "dumpname=../x|option 'dumpname' must be a file name",
        "dumpname=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx|"
                + "option 'dumpname' may have at most 168 characters, got 169: it names files such as "
                + "NAME-deadlock-block-periodic-20260101-120000-1000.cvysnap, and Convoy writes file names of at most 221 bytes",
        "dumpdir=|option 'dumpdir' needs a directory",
        "bench.callbacks=some|option 'bench.callbacks' must be full or empty",
        "owners=exact|option 'owners' must be vm or inferred, got 'exact'",
        "releasers=exact|option 'releasers' must be vm, jfr or inferred, got 'exact'",
        "owners=inferred,releasers=jfr|option 'releasers=jfr' reads releasers from the VM, which needs owners=vm",
        "owners=inferred,releasers=vm|option 'releasers=vm' reads releasers from the VM, which needs owners=vm",
        "recording|option 'recording' has no value",
        "buffer=64k,,memory=1m|empty option",
        "buffer=64k,buffer=128k|option 'buffer' is given twice",
        "buffer=1m,memory=2m|option 'buffer' (1048576 bytes) must be at most a quarter of option 'memory'",
        "bench.callbacks=empty,dumponexit=all|option 'dumponexit' needs a recording",
        "contanalysis=maybe|option 'contanalysis' must be on or off, got 'maybe'",
        "bench.callbacks=empty,contanalysis=on|option 'contanalysis' needs a recording",
        "bench.timing=yes please|option 'bench.timing' must be on or off, got 'yes please'",
        "bench.timing=|option 'bench.timing' must be on or off, got ''",
        "bench.timing=on,bench.timing=off|option 'bench.timing' is given twice",
        "timing=on|unknown option 'timing'",
        "stacks=agct|option 'stacks' must be async or jvmti, got 'agct'",
        "stacks=jvmti,stacks=async|option 'stacks' is given twice",
        "bench.callbacks=empty,bench.timing=on|option 'bench.timing' times the recorder's callbacks, but bench.callbacks=empty records nothing",
    })
    void malformedValuesNameTheOptionAndWhatIsAllowed(String text, String expected) {
        String message = error(text);
        assertTrue(message.startsWith(expected), () -> "message for '" + text + "': " + message);
    }

    /**
     * The longest dumpname leaves room for the longest file name its dumps get (a triggered dump's
     * reasons, time and number, and the snapshot's suffix), within what Convoy writes.
     */
    @Test
    void theLongestDumpnameFitsEveryDumpFileName() {
        String name = "d".repeat(AgentOptions.MAX_DUMP_NAME);
        assertEquals(name, AgentOptions.parse("dumpname=" + name).dumpName());
        dev.convoy.export.AtomicFiles.checkName(name + AgentOptions.LONGEST_DUMP_TAIL);
        for (dev.convoy.export.Output o : dev.convoy.export.Output.values()) {
            dev.convoy.export.AtomicFiles.checkName(name + o.suffix());
        }
    }

    /** stacks=async (the default) walks with AsyncGetCallTrace; stacks=jvmti with GetStackTrace only. */
    @Test
    void stacksIsAsyncByDefaultOrJvmti() {
        java.util.Map<String, Integer> capture = java.util.Map.of("", 1, "stacks=async", 1, "stacks=jvmti", 0);
        capture.forEach((text, mode) -> {
            AgentOptions o = AgentOptions.parse(text);
            assertEquals(mode, o.stackCapture(), text);
            assertTrue(o.effective().contains(mode == 1 ? ",stacks=async" : ",stacks=jvmti"), o.effective());
        });
    }

    /** bench.timing=on is benchmark-only: parsed like the other switches, named in effective() only when on. */
    @Test
    void timingIsABenchmarkSwitchOffByDefault() {
        AgentOptions on = AgentOptions.parse("bench.timing=on");
        assertTrue(on.timing());
        assertTrue(on.effective().endsWith(",contanalysis=off,vthreadevents=on,stacks=async,bench.timing=on"), on.effective());
        assertTrue(AgentOptions.parse("BENCH.TIMING=On,stackdepth=0").timing());
        AgentOptions off = AgentOptions.parse("bench.timing=off");
        assertFalse(off.timing());
        assertEquals(AgentOptions.parse("").effective(), off.effective());
        assertTrue(AgentOptions.parse("bench.timing=on,http=127.0.0.1:0").effective().endsWith(",http=127.0.0.1:0,bench.timing=on"));
        assertFalse(AgentOptions.parse("bench.callbacks=empty,bench.timing=off").timing());
    }

    @Test
    void webViewIsOffByDefault() {
        AgentOptions o = AgentOptions.parse("");
        assertEquals(null, o.httpHost());
        assertEquals(-1, o.httpPort());
        assertEquals(null, o.httpToken());
        assertFalse(o.effective().contains("http"));
    }

    @Test
    void webViewAddressAndTokenAreParsed() {
        AgentOptions o = AgentOptions.parse("http=127.0.0.1:0");
        assertEquals("127.0.0.1", o.httpHost());
        assertEquals(0, o.httpPort());
        assertTrue(o.effective().endsWith(",http=127.0.0.1:0"), o.effective());

        AgentOptions v6 = AgentOptions.parse("http=[::1]:8080");
        assertEquals("::1", v6.httpHost());
        assertEquals(8080, v6.httpPort());
        assertTrue(v6.effective().endsWith(",http=[::1]:8080"), v6.effective());

        AgentOptions pub = AgentOptions.parse("http=0.0.0.0:9000,httptoken=s3cret-Token_1");
        assertEquals("0.0.0.0", pub.httpHost());
        assertEquals("s3cret-Token_1", pub.httpToken());
        assertFalse(pub.effective().contains("s3cret"), "the token never appears in the effective options");
        assertTrue(pub.effective().endsWith(",http=0.0.0.0:9000,httptoken=(hidden)"), pub.effective());
    }

    @Test
    void nonLoopbackBindNeedsAToken() {
        for (String host : new String[] {"0.0.0.0", "10.1.2.3", "example.com", "[::]", "192.168.0.1"}) {
            assertEquals("option 'http' binds " + host.replace("[", "").replace("]", "") + ", which is not a "
                    + "loopback address: give an access token with option 'httptoken' (every request must carry it), "
                    + "or bind 127.0.0.1", error("http=" + host + ":8080"));
        }
        AgentOptions.parse("http=localhost:8080");
        AgentOptions.parse("http=127.0.0.2:8080");
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "http=8080",
        "http=127.0.0.1",
        "http=127.0.0.1:",
        "http=127.0.0.1:65536",
        "http=127.0.0.1:-1",
        "http=:8080",
        "http=bad host:80",
    })
    void malformedWebViewAddressIsRefused(String text) {
        assertTrue(error(text).startsWith("option 'http' must be HOST:PORT with a port from 0 (any free port) to 65535"),
                error(text));
    }

    @Test
    void tokenRules() {
        assertEquals("option 'httptoken' needs option 'http' (the web view it protects)",
                error("httptoken=abcdefgh"));
        String bad = "option 'httptoken' must be 8 to 256 characters of letters, digits, '.', '_', '~' and '-'";
        assertEquals(bad, error("http=127.0.0.1:0,httptoken=short"));
        assertEquals(bad, error("http=127.0.0.1:0,httptoken=has space in it"));
        assertEquals(bad, error("http=127.0.0.1:0,httptoken=" + "x".repeat(257)));
        assertEquals("option 'http' needs a recording, but bench.callbacks=empty records nothing",
                error("http=127.0.0.1:0,bench.callbacks=empty"));
    }

    @Test
    void loopbackIsDecidedWithoutLookup() {
        for (String h : new String[] {"127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "::1", "[::1]"}) {
            assertTrue(AgentOptions.isLoopback(h), h);
        }
        for (String h : new String[] {"0.0.0.0", "::", "10.0.0.1", "example.com", "localhost.example.com", "", "999.1.1.1"}) {
            assertFalse(AgentOptions.isLoopback(h), h);
        }
        assertFalse(AgentOptions.isLoopback(null));
    }
}
