package dev.convoy.schema;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CsvLogReaderTest {

    @TempDir
    Path dir;

    static final String META = "Lcom/x/A;,A%2C B.java\n"
            + "00007F0000001000,run,()V,Lcom/x/A;,2,0,10,A,12\n"
            + "00007F0000002000,%3Cunknown%3E,,,-1\n";

    static final String EVENTS = "0.000100000,ThreadStarted,0000ABCD,w%2C1\n"
            + "0.000300000,MonitorContendedEnter,0000ABCD,AAAA0002,00000000,2,00007F0000001000,C,00007F0000002000,-1\n"
            + "0.000400000,MonitorContendedEntered,0000ABCD,AAAA0002,0\n"
            + "0.000500000,ThreadEnded,0000ABCD\n";

    CsvLogReader.Logs read(String meta, String events) throws Exception {
        Files.writeString(dir.resolve("r.meta.csv"), meta);
        Files.writeString(dir.resolve("r.events.csv"), events);
        return CsvLogReader.read(dir.resolve("r.meta.csv"), dir.resolve("r.events.csv"));
    }

    List<String> problems(String meta, String events) {
        return assertThrows(FormatViolation.class, () -> read(meta, events)).problems();
    }

    @Test
    void readsTheSpecExample() throws Exception {
        CsvLogReader.Logs logs = read(META, EVENTS);
        assertEquals("A, B.java", logs.classes().get("Lcom/x/A;"));
        assertEquals(2, logs.methods().get("00007F0000001000").lines());
        assertEquals("<unknown>", CsvLogReader.unescape("%3Cunknown%3E").replace("%3C", "<").replace("%3E", ">"));
        assertEquals(4, logs.events().size());
        assertEquals("w,1", CsvLogReader.unescape(logs.events().get(0).fields().get(1)));
        assertEquals(2, logs.events().get(1).frames().size());
        assertEquals("%0A", CsvLogReader.unescape("%250A"), "%25 decoded last");
    }

    @Test
    void flagsWhatTheSpecForbids() {
        assertTrue(problems(META, EVENTS.replace("00007F0000002000,-1", "00007F0000003000,-1")).stream()
                .anyMatch(p -> p.contains("resolves to no meta line")));
        assertTrue(problems(META + "Lcom/x/B;,B.java\n", EVENTS).stream().anyMatch(p -> p.contains("class line after")));
        assertTrue(problems(META.replace(",2,0,10,A,12", ",3,0,10,A,12"), EVENTS).stream().anyMatch(p -> p.contains("line table")));
        assertTrue(problems(META, EVENTS.replace("0.000500000", "0.000050000")).stream().anyMatch(p -> p.contains("time order")));
        assertTrue(problems(META, EVENTS.replace(",0000ABCD\n", ",abcd\n")).stream().anyMatch(p -> p.contains("8 uppercase hex")));
        assertTrue(problems(META, EVENTS.replace("ThreadEnded", "ThreadGone")).stream().anyMatch(p -> p.contains("unknown event")));
        assertTrue(problems(META, EVENTS.replace(",2,00007F", ",3,00007F")).stream().anyMatch(p -> p.contains("stack depth")));
        assertTrue(problems(META, EVENTS.replace("0.000100000", "0.0001")).stream().anyMatch(p -> p.contains("9 fraction")));
        assertTrue(problems(META, EVENTS.replace("\n", "\r\n")).stream().anyMatch(p -> p.contains("CR")));
    }

    @Test
    void parkLinesOfTheExtension() throws Exception {
        String parks = EVENTS.replace("0.000500000,ThreadEnded", "0.000410000,ThreadPark,0000ABCD,CCCC0001,00000000,0,1000000,"
                + "1,00007F0000001000,C\n0.000420000,ThreadParked,0000ABCD,CCCC0001,1,0,0\n"
                + "0.000430000,ThreadUnpark,0000ABCD,0000ABCE,0\n0.000500000,ThreadEnded");
        CsvLogReader.Logs logs = read(META, parks);
        assertEquals(List.of("0000ABCD", "CCCC0001", "00000000", "0", "1000000"), logs.events().get(3).fields());
        assertEquals(List.of("0000ABCD", "CCCC0001", "1", "0"), logs.events().get(4).fields());
        assertTrue(problems(META, parks.replace(",1000000,", ",-5,")).stream().anyMatch(p -> p.contains("timeout '-5'")));
        assertTrue(problems(META, parks.replace("CCCC0001,1,0,0", "CCCC0001,2,0,0")).stream()
                .anyMatch(p -> p.contains("flag '2'")));
    }

    @Test
    void theLossesFile() throws Exception {
        Path f = dir.resolve("r.losses.csv");
        Files.writeString(f, "Records,100,7,5,0,2,0\nLoss,0000ABCD,w%2C1,overwritten,0.000100000,0.000200000,5\n"
                + "Loss,00000000,,dropped,0.000000000,0.001000000,2\n");
        CsvLogReader.Losses l = CsvLogReader.readLosses(f);
        assertEquals(new CsvLogReader.Records(100, 7, 5, 0, 2, 0), l.records());
        assertEquals(2, l.losses().size());
        assertEquals("w,1", CsvLogReader.unescape(l.losses().get(0).threadName()));
        Files.writeString(f, "Records,100,8,5,0,2,0\nLoss,0000ABCD,w,lost,0.000300000,0.000200000,0\n");
        List<String> p = assertThrows(FormatViolation.class, () -> CsvLogReader.readLosses(f)).problems();
        assertTrue(p.stream().anyMatch(s -> s.contains("not the sum")), p::toString);
        assertTrue(p.stream().anyMatch(s -> s.contains("unknown kind 'lost'")), p::toString);
        assertTrue(p.stream().anyMatch(s -> s.contains("records not above 0")), p::toString);
        Files.writeString(f, "");
        assertTrue(assertThrows(FormatViolation.class, () -> CsvLogReader.readLosses(f)).problems().get(0)
                .contains("no Records line"));
    }

    static final String OWNER = "0.000300000,MonitorOwner,0000ABCD,AAAA0002,00000000,none,0\n";

    @Test
    void monitorOwnerFollowsItsEnter() throws Exception {
        String events = EVENTS.replace("0.000400000,MonitorContendedEntered", OWNER + "0.000400000,MonitorContendedEntered");
        CsvLogReader.Logs logs = read(META, events);
        assertEquals(List.of("0000ABCD", "AAAA0002", "00000000", "none"), logs.events().get(2).fields());
        assertTrue(problems(META, events.replace(",none,", ",maybe,")).stream()
                .anyMatch(p -> p.contains("owner kind 'maybe'")));
        assertTrue(problems(META, events.replace("MonitorOwner,0000ABCD,AAAA0002", "MonitorOwner,0000ABCD,AAAA0003"))
                .stream().anyMatch(p -> p.contains("does not follow a MonitorContendedEnter")));
        assertTrue(problems(META, EVENTS + OWNER.replace("0.000300000", "0.000500000")).stream()
                .anyMatch(p -> p.contains("does not follow a MonitorContendedEnter")));
    }
}
