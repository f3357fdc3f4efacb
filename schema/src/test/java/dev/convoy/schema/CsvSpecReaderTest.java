package dev.convoy.schema;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CsvSpecReaderTest {

    @TempDir
    Path dir;

    static final String META = "Ljava/lang/Object;,Object.java\n"
            + "Lcom/x/A;,\n"
            + "00007F0000001000,run,()V,Lcom/x/A;,2,0,10,A,12\n"
            + "00007F0000002000,wait,(J)V,Ljava/lang/Object;,-1\n";

    /** One line of each of the specification's events. */
    static final String EVENTS = "0.000100000,ThreadStarted,0000ABCD,worker\n"
            + "0.000110000,ThreadStarted,0000ABCE,\n"
            + "0.000200000,ThreadStart,0000ABCD,0000ABCE,1,00007F0000001000,3\n"
            + "0.000300000,MonitorContendedEnter,0000ABCD,AAAA0002,0000ABCE,2,00007F0000001000,C,00007F0000002000,-1\n"
            + "0.000400000,MonitorContendedEntered,0000ABCD,AAAA0002,0\n"
            + "0.000500000,ObjectWait,0000ABCD,AAAA0002,1,00007F0000002000,-1\n"
            + "0.000600000,ObjectNotify,0000ABCE,AAAA0002,0\n"
            + "0.000610000,ObjectNotifyAll,0000ABCE,AAAA0002,0\n"
            + "0.000700000,ObjectWaited,0000ABCD,AAAA0002,0\n"
            + "0.000800000,ThreadJoin,0000ABCD,0000ABCE,0\n"
            + "0.000900000,ThreadJoined,0000ABCD,0000ABCE,0\n"
            + "0.001000000,ThreadSleep,0000ABCD,0\n"
            + "0.001100000,ThreadSlept,0000ABCD,0\n"
            + "0.001200000,ThreadEnded,0000ABCE\n";

    CsvSpecReader.Logs read(String meta, String events) throws Exception {
        Files.writeString(dir.resolve("r.meta.csv"), meta);
        Files.writeString(dir.resolve("r.events.csv"), events);
        return CsvSpecReader.read(dir.resolve("r.meta.csv"), dir.resolve("r.events.csv"));
    }

    List<String> problems(String meta, String events) {
        return assertThrows(FormatViolation.class, () -> read(meta, events)).problems();
    }

    @Test
    void readsEveryEventOfTheSpecification() throws Exception {
        CsvSpecReader.Logs logs = read(META, EVENTS);
        assertEquals(java.util.Set.of("Ljava/lang/Object;", "Lcom/x/A;"), logs.classes());
        assertEquals(2, logs.methods().size());
        assertEquals(CsvSpecReader.EVENTS.keySet(), logs.events().stream().map(CsvSpecReader.Event::name)
                .collect(java.util.stream.Collectors.toSet()));
        CsvSpecReader.Event enter = logs.events().get(3);
        assertEquals(List.of("0000ABCD", "AAAA0002", "0000ABCE"), enter.fields());
        assertEquals(0.0003, enter.seconds(), 1e-12);
        assertEquals(2, enter.frames().size());
        assertEquals("", logs.events().get(1).fields().get(1), "a thread without a name");
    }

    @Test
    void refusesWhatTheSpecificationDoesNotHave() {
        String owner = "0.000300000,MonitorOwner,0000ABCD,AAAA0002,0000ABCE,exact,0\n";
        assertTrue(problems(META, EVENTS + owner).stream()
                .anyMatch(p -> p.contains("'MonitorOwner' is no event of the specification")));
        String park = "0.000300000,ThreadPark,0000ABCD,AAAA0002,00000000,1,0,0\n";
        assertTrue(problems(META, EVENTS + park).stream().anyMatch(p -> p.contains("'ThreadPark' is no event")));
        assertTrue(problems(META, EVENTS.replace("MonitorContendedEntered,0000ABCD,AAAA0002,0",
                "MonitorContendedEntered,0000ABCD,AAAA0002,0000ABCE,0")).stream()
                .anyMatch(p -> p.contains("stack depth '0000ABCE'")), "a field too many");
        assertTrue(problems(META, EVENTS.replace("ThreadEnded,0000ABCE", "ThreadEnded,0000ABCE,0")).stream()
                .anyMatch(p -> p.contains("no stack trace")));
        assertTrue(problems(META, EVENTS.replace("ThreadSleep,0000ABCD,0", "ThreadSleep,0")).stream()
                .anyMatch(p -> p.contains("ThreadSleep")), "a field too few");
        assertTrue(problems(META, EVENTS.replace(",2,00007F0000001000,C,", ",3,00007F0000001000,C,")).stream()
                .anyMatch(p -> p.contains("stack depth '3'")));
        assertTrue(problems(META, EVENTS.replace("00007F0000002000,-1", "00007F0000009000,-1")).stream()
                .anyMatch(p -> p.contains("frame method 00007F0000009000 has no line in the meta log")));
        assertTrue(problems(META, EVENTS.replace("ObjectWaited,0000ABCD", "ObjectWaited,abcd")).stream()
                .anyMatch(p -> p.contains("no 8-digit hash code")));
        assertTrue(problems(META, EVENTS.replace("0.000100000", "t=1")).stream()
                .anyMatch(p -> p.contains("no timestamp")));
        assertTrue(problems(META + "Lcom/x/B;,B.java\n", EVENTS).stream()
                .anyMatch(p -> p.contains("neither a class line nor a method line")), "classes come first");
        assertTrue(problems(META.replace(",2,0,10,A,12", ",3,0,10,A,12"), EVENTS).stream()
                .anyMatch(p -> p.contains("neither a class line nor a method line")), "the line table's count");
    }
}
