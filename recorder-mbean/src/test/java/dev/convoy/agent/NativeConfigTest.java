package dev.convoy.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The one array of numbers {@code start0} hands to the native side: {@link NativeRecorder.NativeConfig}
 * and native-recorder/src/agent.h's {@code CV_CONFIG_NUMBERS} name the same slots in the same
 * order, and each slot takes its option's value.
 */
class NativeConfigTest {

    @Test
    void javaAndCNameTheSameSlotsInTheSameOrder() throws IOException {
        String header = Files.readString(OptionDocsTest.root().resolve("native-recorder/src/agent.h"),
                StandardCharsets.UTF_8);
        String list = header.substring(header.indexOf("#define CV_CONFIG_NUMBERS(X)"), header.indexOf("enum {",
                header.indexOf("#define CV_CONFIG_NUMBERS(X)")));
        List<String> c = new ArrayList<>();
        Matcher m = Pattern.compile("X\\(([A-Z_]+), [a-z_]+\\)").matcher(list);
        while (m.find()) {
            c.add(m.group(1));
        }
        assertEquals(Arrays.stream(NativeRecorder.NativeConfig.values()).map(Enum::name).toList(), c);
    }

    @Test
    void eachSlotTakesItsOptionsValue() {
        long[] n = NativeRecorder.NativeConfig.of(AgentOptions.parse("buffer=128k,memory=1g,stackdepth=7,recording=off,"
                + "owners=inferred,vthreadevents=off,bench.vtcapability=on,stacks=jvmti,bench.stackcache=off,"
                + "bench.heldrefs=off,maxsize=2m,maxage=90s,ownerstacks=12ms,bench.timing=on,bench.idcache=off"));
        assertEquals(128 << 10, n[NativeRecorder.NativeConfig.BUFFER_BYTES.ordinal()]);
        assertEquals(1L << 30, n[NativeRecorder.NativeConfig.MEMORY_CAP.ordinal()]);
        assertEquals(7, n[NativeRecorder.NativeConfig.STACK_DEPTH.ordinal()]);
        assertEquals(0, n[NativeRecorder.NativeConfig.RECORDING.ordinal()]);
        assertEquals(0, n[NativeRecorder.NativeConfig.EMPTY_CALLBACKS.ordinal()]);
        assertEquals(0, n[NativeRecorder.NativeConfig.VM_OWNERS.ordinal()]);
        assertEquals(2, n[NativeRecorder.NativeConfig.VTHREAD_EVENTS.ordinal()]);
        assertEquals(1, n[NativeRecorder.NativeConfig.TIMING.ordinal()]);
        assertEquals(0, n[NativeRecorder.NativeConfig.STACK_CAPTURE.ordinal()]);
        assertEquals(0, n[NativeRecorder.NativeConfig.ID_CACHE.ordinal()]);
        assertEquals(0, n[NativeRecorder.NativeConfig.STACK_CACHE.ordinal()]);
        assertEquals(0, n[NativeRecorder.NativeConfig.HELD_REFS.ordinal()]);
        assertEquals(2L << 20, n[NativeRecorder.NativeConfig.HISTORY_BYTES.ordinal()]);
        assertEquals(90_000_000_000L, n[NativeRecorder.NativeConfig.HISTORY_AGE_NS.ordinal()]);
        assertEquals(12_000_000L, n[NativeRecorder.NativeConfig.OWNER_STACKS_NS.ordinal()]);
    }
}
