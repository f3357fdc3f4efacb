package dev.convoy.export.jfr;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A JFR chunk decoded byte by byte, independently of {@code jdk.jfr} and JMC, strictly: every
 * record's size must be its content's, every constant pool reference must resolve, every pool
 * must be non-empty and every type and string index must exist. Tests read the encoder's output
 * with it to check what the JDK's and JMC's parsers would tolerate or read differently.
 *
 * <p>Values: a struct is a {@code Map<String, Object>} (field order kept), an array a
 * {@code List<Object>}, a constant pool reference a {@link Ref} (resolve with
 * {@link Chunk#resolve}), integers {@code Long} (int, short, char and long alike), a byte
 * {@code Byte}, booleans, floats, doubles and strings as themselves.
 */
public final class ChunkDecoder {

    private ChunkDecoder() {
    }

    /** A reference into the pool of a type. */
    public record Ref(long typeId, long key) {
    }

    /** The chunk header's fields. */
    public record Header(int major, int minor, long chunkSize, long constantPoolOffset, long metadataOffset,
                         long startNanos, long durationNanos, long startTicks, long ticksPerSecond,
                         int fileState, int flags) {
    }

    /** An element of the metadata tree. */
    public static final class Element {
        public final String name;
        public final Map<String, String> attributes = new LinkedHashMap<>();
        public final List<Element> children = new ArrayList<>();

        Element(String name) {
            this.name = name;
        }

        public List<Element> children(String childName) {
            return children.stream().filter(c -> c.name.equals(childName)).toList();
        }

        public String attribute(String key) {
            return attributes.get(key);
        }

        /** The element as indented text, one element a line; type ids replaced by type names with {@code names}. */
        public void print(StringBuilder sb, String indent, Map<Long, String> names) {
            sb.append(indent).append('<').append(name);
            for (Map.Entry<String, String> a : attributes.entrySet()) {
                String v = a.getValue();
                if ((a.getKey().equals("id") || a.getKey().equals("class")) && names != null) {
                    v = names.getOrDefault(Long.parseLong(v), "?" + v);
                }
                sb.append(' ').append(a.getKey()).append("=\"").append(v).append('"');
            }
            sb.append(">\n");
            for (Element c : children) {
                c.print(sb, indent + "  ", names);
            }
        }
    }

    /** A field of a type. */
    public record Field(String name, long typeId, boolean array, boolean constantPool) {
    }

    /** A type of the metadata ({@code class} element). */
    public record Type(long id, String name, String superType, boolean simpleType, List<Field> fields) {
        public boolean primitive() {
            return fields.isEmpty();
        }
    }

    /** A record of the chunk: its offset, size and type id (0 metadata, 1 checkpoint). */
    public record Record(long offset, long size, long typeId) {
    }

    /** An event: its type, offset and field values in declaration order. */
    public record Event(Type type, long offset, Map<String, Object> fields) {
    }

    /** A decoded chunk. */
    public static final class Chunk {
        public Header header;
        public final List<Record> records = new ArrayList<>();
        public final List<String> metadataStrings = new ArrayList<>();
        public Element root;
        public final Map<Long, Type> types = new TreeMap<>();
        /** Per type id: key to value, in the order the entries were read. */
        public final Map<Long, Map<Long, Object>> pools = new LinkedHashMap<>();
        /** How many entries each type's pools had in all (a key written twice counts twice). */
        public final Map<Long, Integer> poolEntries = new TreeMap<>();
        public final List<Event> events = new ArrayList<>();
        /** Whether a reference no pool holds reads as null (as the JDK's parser reads it), not only key 0. */
        boolean missingIsNull;

        public Type type(String name) {
            return types.values().stream().filter(t -> t.name.equals(name)).findFirst().orElse(null);
        }

        /** The value with every reference replaced by its constant ({@code null} for key 0 when unresolved). */
        public Object resolve(Object v) {
            return resolve(v, 0);
        }

        private Object resolve(Object v, int depth) {
            if (depth > 64) {
                throw new IllegalStateException("references nested deeper than 64");
            }
            if (v instanceof Ref r) {
                Map<Long, Object> pool = pools.get(r.typeId);
                if (pool == null || !pool.containsKey(r.key)) {
                    if (r.key == 0 || missingIsNull) {
                        return null;
                    }
                    throw new IllegalStateException("unresolved " + types.get(r.typeId).name + " #" + r.key);
                }
                return resolve(pool.get(r.key), depth + 1);
            }
            if (v instanceof Map<?, ?> m) {
                Map<String, Object> out = new LinkedHashMap<>();
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    out.put((String) e.getKey(), resolve(e.getValue(), depth + 1));
                }
                return out;
            }
            if (v instanceof List<?> l) {
                List<Object> out = new ArrayList<>(l.size());
                for (Object o : l) {
                    out.add(resolve(o, depth + 1));
                }
                return out;
            }
            return v;
        }

        /** The metadata tree as text, type ids replaced by names. */
        public String metadataText() {
            Map<Long, String> names = new TreeMap<>();
            for (Type t : types.values()) {
                names.put(t.id, t.name);
            }
            StringBuilder sb = new StringBuilder();
            root.print(sb, "", names);
            return sb.toString();
        }
    }

    /** Bytes read in JFR's encodings: LEB128 integers (the last of 9 bytes whole), tagged strings. */
    public static final class Input {
        final byte[] b;
        int pos;
        final int limit;

        public Input(byte[] b, int pos, int limit) {
            this.b = b;
            this.pos = pos;
            this.limit = limit;
        }

        public int position() {
            return pos;
        }

        public byte readByte() throws IOException {
            if (pos >= limit) {
                throw new IOException("read past the end at " + pos);
            }
            return b[pos++];
        }

        public long readVarLong() throws IOException {
            long v = 0;
            for (int i = 0; i < 8; i++) {
                int x = readByte();
                v |= (long) (x & 0x7F) << (7 * i);
                if (x >= 0) {
                    return v;
                }
            }
            return v | (long) (readByte() & 0xFF) << 56;
        }

        public int readVarInt() throws IOException {
            long v = readVarLong();
            return (int) v;
        }

        public long readRaw(int bytes) throws IOException {
            long v = 0;
            for (int i = 0; i < bytes; i++) {
                v = v << 8 | (readByte() & 0xFF);
            }
            return v;
        }

        /** A string in JFR's encoding, or a {@link Ref} of {@code stringTypeId} for a pool reference. */
        public Object readString(long stringTypeId) throws IOException {
            int tag = readByte();
            switch (tag) {
                case 0:
                    return null;
                case 1:
                    return "";
                case 2:
                    return new Ref(stringTypeId, readVarLong());
                case 3:
                case 5: {
                    int n = length();
                    String s = new String(b, pos, n, tag == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
                    pos += n;
                    return s;
                }
                case 4: {
                    int n = length();
                    StringBuilder sb = new StringBuilder(n);
                    for (int i = 0; i < n; i++) {
                        sb.append((char) readVarLong());
                    }
                    return sb.toString();
                }
                default:
                    throw new IOException("unknown string encoding " + tag + " at " + (pos - 1));
            }
        }

        private int length() throws IOException {
            long n = readVarLong();
            if (n < 0 || n > limit - pos) {
                throw new IOException("string of " + n + " bytes at " + pos + " runs past " + limit);
            }
            return (int) n;
        }
    }

    /** Decodes a file holding exactly one chunk; a reference must be to a constant or be key 0 (null). */
    /**
     * The metadata of a JFR file of any number of chunks (the last chunk's, which declares every
     * type the file has; a JDK's recording included), per type name: its {@code class} element
     * as text ({@link Element#print}: settings, fields and annotations in order, type ids
     * replaced by type names). Only the chunk headers and the metadata event are read.
     */
    public static Map<String, String> classTexts(byte[] file) throws IOException {
        int at = 0;
        int last = -1;
        while (at + 68 <= file.length) {
            Input h = new Input(file, at, at + 68);
            if (h.readRaw(4) != 0x464C5200L) {
                throw new IOException("no chunk magic at " + at);
            }
            h.readRaw(4);
            long size = h.readRaw(8);
            if (size < 68 || at + size > file.length) {
                throw new IOException("chunk at " + at + " of size " + size);
            }
            last = at;
            at += (int) size;
        }
        if (last < 0) {
            throw new IOException("no chunk");
        }
        Input h = new Input(file, last + 24, last + 32); // the metadata offset
        int meta = last + (int) h.readRaw(8);
        Chunk c = new Chunk();
        Input x = new Input(file, meta, file.length);
        int start = x.pos;
        long size = x.readVarLong();
        readMetadata(c, new Input(file, start, (int) (start + size)));
        Map<Long, String> names = new TreeMap<>();
        for (Type t : c.types.values()) {
            names.put(t.id, t.name);
        }
        Map<String, String> out = new TreeMap<>();
        for (Element e : c.root.children("metadata").get(0).children("class")) {
            StringBuilder sb = new StringBuilder();
            e.print(sb, "", names);
            out.put(e.attribute("name"), sb.toString());
        }
        return out;
    }

    public static Chunk decode(byte[] file) throws IOException {
        return decode(file, false);
    }

    /** Decodes a file holding exactly one chunk; {@code missingIsNull}: any key no pool holds reads as null. */
    public static Chunk decode(byte[] file, boolean missingIsNull) throws IOException {
        Chunk c = new Chunk();
        c.missingIsNull = missingIsNull;
        if (file.length < 68) {
            throw new IOException("shorter than a chunk header: " + file.length);
        }
        Input h = new Input(file, 0, 68);
        if (h.readRaw(4) != 0x464C5200L) {
            throw new IOException("no magic FLR\\0");
        }
        c.header = new Header((int) h.readRaw(2), (int) h.readRaw(2), h.readRaw(8), h.readRaw(8), h.readRaw(8),
                h.readRaw(8), h.readRaw(8), h.readRaw(8), h.readRaw(8), (int) h.readRaw(1), (int) h.readRaw(3));
        if (c.header.chunkSize != file.length) {
            throw new IOException("chunk size " + c.header.chunkSize + ", file " + file.length);
        }
        if ((c.header.flags & 1) == 0) {
            throw new IOException("integers not compressed (flags " + c.header.flags + ")");
        }
        int limit = file.length;
        Input in = new Input(file, 68, limit);
        while (in.pos < limit) {
            int at = in.pos;
            long size = in.readVarLong();
            long type = in.readVarLong();
            if (size <= 0 || at + size > limit) {
                throw new IOException("record at " + at + " of size " + size + " past the chunk's end " + limit);
            }
            c.records.add(new Record(at, size, type));
            in.pos = (int) (at + size);
        }
        Record meta = record(c, c.header.metadataOffset, 0);
        readMetadata(c, new Input(file, (int) meta.offset, (int) (meta.offset + meta.size)));
        long stringId = c.type("java.lang.String").id;
        long cp = c.header.constantPoolOffset;
        while (true) {
            Record r = record(c, cp, 1);
            Input x = new Input(file, (int) r.offset, (int) (r.offset + r.size));
            x.readVarLong();
            x.readVarLong();
            x.readVarLong(); // start
            x.readVarLong(); // duration
            long delta = x.readVarLong();
            x.readByte(); // checkpoint type
            int pools = x.readVarInt();
            for (int i = 0; i < pools; i++) {
                long typeId = x.readVarLong();
                Type t = c.types.get(typeId);
                if (t == null) {
                    throw new IOException("pool of undeclared type " + typeId);
                }
                int n = x.readVarInt();
                if (n <= 0) {
                    throw new IOException("empty pool of " + t.name + " (the JDK's parser rejects it)");
                }
                Map<Long, Object> pool = c.pools.computeIfAbsent(typeId, k -> new LinkedHashMap<>());
                for (int j = 0; j < n; j++) {
                    int at = x.pos;
                    try {
                        long key = x.readVarLong();
                        Object v = t.primitive() ? primitive(x, t, stringId) : struct(c, x, t, stringId);
                        pool.put(key, v);
                    } catch (IOException e) {
                        throw new IOException("pool of " + t.name + ", entry " + j + " at " + at + ": " + e.getMessage(), e);
                    }
                    c.poolEntries.merge(typeId, 1, Integer::sum);
                }
            }
            if (x.pos != x.limit) {
                throw new IOException("checkpoint at " + r.offset + ": " + (x.limit - x.pos) + " bytes after its pools");
            }
            if (delta == 0) {
                break;
            }
            cp += delta;
        }
        for (Record r : c.records) {
            if (r.typeId <= 1) {
                continue;
            }
            Type t = c.types.get(r.typeId);
            if (t == null || !"jdk.jfr.Event".equals(t.superType)) {
                throw new IOException("record at " + r.offset + " of type " + r.typeId + ", not an event type");
            }
            Input x = new Input(file, (int) r.offset, (int) (r.offset + r.size));
            x.readVarLong();
            x.readVarLong();
            @SuppressWarnings("unchecked")
            Map<String, Object> fields = (Map<String, Object>) struct(c, x, t, stringId);
            if (x.pos != x.limit) {
                throw new IOException("event " + t.name + " at " + r.offset + ": size " + r.size + ", content "
                        + (x.pos - r.offset));
            }
            c.events.add(new Event(t, r.offset, fields));
        }
        for (Event e : c.events) {
            c.resolve(e.fields); // every reference resolves
        }
        for (Map<Long, Object> pool : c.pools.values()) {
            for (Object v : pool.values()) {
                c.resolve(v);
            }
        }
        return c;
    }

    private static Record record(Chunk c, long offset, long type) throws IOException {
        for (Record r : c.records) {
            if (r.offset == offset) {
                if (r.typeId != type) {
                    throw new IOException("record at " + offset + " has type " + r.typeId + ", expected " + type);
                }
                return r;
            }
        }
        throw new IOException("no record starts at " + offset);
    }

    private static void readMetadata(Chunk c, Input x) throws IOException {
        x.readVarLong();
        x.readVarLong();
        x.readVarLong(); // start
        x.readVarLong(); // duration
        x.readVarLong(); // metadata id
        int n = x.readVarInt();
        for (int i = 0; i < n; i++) {
            Object s = x.readString(-1);
            if (!(s instanceof String)) {
                throw new IOException("metadata string " + i + " is " + s);
            }
            c.metadataStrings.add((String) s);
        }
        c.root = element(c, x);
        if (x.pos != x.limit) {
            throw new IOException("metadata: " + (x.limit - x.pos) + " bytes after the tree");
        }
        if (!c.root.name.equals("root") || c.root.children("metadata").size() != 1
                || c.root.children("region").size() != 1) {
            throw new IOException("metadata root is not root(metadata, region)");
        }
        for (Element e : c.root.children("metadata").get(0).children("class")) {
            List<Field> fields = new ArrayList<>();
            for (Element f : e.children("field")) {
                String dim = f.attribute("dimension");
                fields.add(new Field(f.attribute("name"), Long.parseLong(f.attribute("class")),
                        dim != null && Integer.parseInt(dim) > 0, "true".equals(f.attribute("constantPool"))));
            }
            long id = Long.parseLong(e.attribute("id"));
            if (c.types.put(id, new Type(id, e.attribute("name"), e.attribute("superType"),
                    "true".equals(e.attribute("simpleType")), fields)) != null) {
                throw new IOException("type id " + id + " declared twice");
            }
        }
        for (Type t : c.types.values()) {
            for (Field f : t.fields) {
                if (!c.types.containsKey(f.typeId)) {
                    throw new IOException(t.name + "." + f.name + " of undeclared type " + f.typeId);
                }
            }
        }
    }

    private static Element element(Chunk c, Input x) throws IOException {
        Element e = new Element(string(c, x));
        int attributes = x.readVarInt();
        for (int i = 0; i < attributes; i++) {
            e.attributes.put(string(c, x), string(c, x));
        }
        int children = x.readVarInt();
        for (int i = 0; i < children; i++) {
            e.children.add(element(c, x));
        }
        return e;
    }

    private static String string(Chunk c, Input x) throws IOException {
        int i = x.readVarInt();
        if (i < 0 || i >= c.metadataStrings.size()) {
            throw new IOException("metadata string index " + i + " of " + c.metadataStrings.size());
        }
        return c.metadataStrings.get(i);
    }

    private static Object struct(Chunk c, Input x, Type t, long stringId) throws IOException {
        Map<String, Object> m = new LinkedHashMap<>();
        for (Field f : t.fields) {
            m.put(f.name, value(c, x, f, stringId));
        }
        return m;
    }

    private static Object value(Chunk c, Input x, Field f, long stringId) throws IOException {
        if (f.array) {
            int n = x.readVarInt();
            if (n < 0 || n > x.limit - x.pos) {
                throw new IOException("array " + f.name + " of " + n);
            }
            List<Object> l = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                l.add(value(c, x, new Field(f.name, f.typeId, false, f.constantPool), stringId));
            }
            return l;
        }
        if (f.constantPool) {
            return new Ref(f.typeId, x.readVarLong());
        }
        Type t = c.types.get(f.typeId);
        return t.primitive() ? primitive(x, t, stringId) : struct(c, x, t, stringId);
    }

    private static Object primitive(Input x, Type t, long stringId) throws IOException {
        return switch (t.name) {
            case "boolean" -> {
                int v = x.readByte();
                if (v != 0 && v != 1) {
                    throw new IOException("boolean " + v);
                }
                yield v == 1;
            }
            case "byte" -> x.readByte();
            case "short" -> (long) (short) x.readVarLong();
            case "char" -> (long) (char) x.readVarLong();
            case "int" -> (long) (int) x.readVarLong();
            case "long" -> x.readVarLong();
            case "float" -> Float.intBitsToFloat((int) x.readRaw(4));
            case "double" -> Double.longBitsToDouble(x.readRaw(8));
            case "java.lang.String" -> x.readString(stringId);
            default -> throw new IOException("type " + t.name + " has no fields and is not a primitive");
        };
    }
}
