package dev.convoy.analysis;

import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** The index is built once per recording while a front-end holds it, and kept no longer. */
class ContentionIndexHoldTest {
    @Test
    void oneIndexWhileARecordingIsHeldANewOneOtherwise() throws Exception {
        Recording r = SnapshotReader.read(Fixtures.all().toBytes());
        Recording other = SnapshotReader.read(Fixtures.all().toBytes());
        assertNotSame(ContentionIndex.of(r), ContentionIndex.of(r), "not held: nothing kept");
        ContentionIndex.Hold first = ContentionIndex.hold(r);
        ContentionIndex x = ContentionIndex.of(r);
        assertSame(x, ContentionIndex.of(r));
        assertNotSame(ContentionIndex.of(other), ContentionIndex.of(other), "only the recording held");
        try (ContentionIndex.Hold second = ContentionIndex.hold(r)) {
            assertSame(x, ContentionIndex.of(r), "holders share the index");
        }
        assertSame(x, ContentionIndex.of(r), "the first hold still holds it");
        first.close();
        first.close(); // twice is once
        assertNotSame(x, ContentionIndex.of(r), "let go with the last hold");
        try (ContentionIndex.Hold again = ContentionIndex.hold(r)) {
            ContentionIndex y = ContentionIndex.of(r);
            assertNotSame(x, y);
            assertSame(y, ContentionIndex.of(r));
        }
    }
}
