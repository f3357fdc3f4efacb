package dev.convoy.agent.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** JFR settings files for the ITs that record with JFR beside Convoy in the same JVM. */
final class JfrSettings {

    private JfrSettings() {
    }

    /**
     * Writes {@code dir/NAME.jfc} enabling only {@code event}, at threshold 0 and without stacks
     * (every event, as cheap as JFR records it), and returns its path.
     */
    static Path everyEvent(Path dir, String name, String event) throws IOException {
        return Files.writeString(dir.resolve(name + ".jfc"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <configuration version="2.0" label="%1$s" description="every %2$s">
                  <event name="%2$s">
                    <setting name="enabled">true</setting>
                    <setting name="stackTrace">false</setting>
                    <setting name="threshold">0 ns</setting>
                  </event>
                </configuration>
                """.formatted(name, event));
    }

    /**
     * Writes {@code dir/NAME.jfc} setting each of {@code events} enabled, with stacks, at threshold
     * 0 (every one, as Convoy records them), to be given after {@code settings=default}, and
     * returns its path.
     */
    static Path thresholdZero(Path dir, String name, String... events) throws IOException {
        StringBuilder sb = new StringBuilder("""
                <?xml version="1.0" encoding="UTF-8"?>
                <configuration version="2.0" label="%s" description="every event, as Convoy records them">
                """.formatted(name));
        for (String event : events) {
            sb.append("""
                      <event name="%s">
                        <setting name="enabled">true</setting>
                        <setting name="stackTrace">true</setting>
                        <setting name="threshold">0 ns</setting>
                      </event>
                    """.formatted(event));
        }
        return Files.writeString(dir.resolve(name + ".jfc"), sb.append("</configuration>\n").toString());
    }
}
