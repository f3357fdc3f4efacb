package dev.convoy.export.jfr;

import dev.convoy.export.jfr.Metadata.Field;
import dev.convoy.export.jfr.Metadata.Type;

/**
 * Writes one value (an event or a constant) field by field, in the order of its type's fields,
 * and checks every write against the field it fills: a value written as the wrong type, out of
 * order, or with fields missing throws {@link IllegalStateException} instead of producing bytes
 * no parser can read. An array of structs ({@link #putArray}) is followed by its elements'
 * fields, element after element, checked the same way. One writer is reused for every value of
 * its target (the event buffer or one constant pool); {@link ChunkWriter} hands them out.
 */
final class ValueWriter {
    private final JfrBuffer out;
    private final Metadata md;
    private final ConstantPool pool; // null: events
    private final ChunkWriter chunk;

    private Type type;
    private Field[] fields;
    private int next;
    // inside an array of structs: the enclosing value's state and the elements still to write
    private Type outerType;
    private Field[] outerFields;
    private int outerNext;
    private int remaining;

    ValueWriter(JfrBuffer out, Metadata md, ConstantPool pool, ChunkWriter chunk) {
        this.out = out;
        this.md = md;
        this.pool = pool;
        this.chunk = chunk;
    }

    void begin(Type t) {
        if (type != null) {
            throw new IllegalStateException("a value of " + type.name + " is still being written; "
                    + t.name + " cannot begin");
        }
        type = t;
        fields = t.frozen;
        next = 0;
        outerType = null;
    }

    /** Whether a value is begun and not ended. */
    boolean busy() {
        return type != null;
    }

    private Field field(Type wanted, boolean array, String what) {
        if (type == null) {
            throw new IllegalStateException("no value is being written (" + what + ")");
        }
        if (next >= fields.length) {
            throw new IllegalStateException(type.name + " has " + fields.length + " fields; " + what
                    + " is one too many");
        }
        Field f = fields[next];
        if (f.type != wanted || f.array != array) {
            throw new IllegalStateException(f + " is " + f.type.name + (f.array ? "[]" : "") + ", written as " + what);
        }
        advance();
        return f;
    }

    private void advance() {
        if (++next == fields.length && outerType != null) {
            elementDone();
        }
    }

    /** The last field of an array's element is written: the next element, or back to the enclosing value. */
    private void elementDone() {
        if (--remaining > 0) {
            next = 0;
        } else {
            type = outerType;
            fields = outerFields;
            next = outerNext;
            outerType = null;
        }
    }

    public ValueWriter putLong(long v) {
        field(md.longType, false, "long");
        out.putVarLong(v);
        return this;
    }

    public ValueWriter putInt(int v) {
        field(md.intType, false, "int");
        out.putVarInt(v);
        return this;
    }

    public ValueWriter putBoolean(boolean v) {
        field(md.booleanType, false, "boolean");
        out.putBoolean(v);
        return this;
    }

    /** A string inline (null allowed): for strings written once, as in constants. */
    public ValueWriter putString(String s) {
        field(md.stringType, false, "string");
        out.putString(s);
        return this;
    }

    /**
     * A string through the chunk's {@code java.lang.String} constant pool (null and "" inline):
     * for the few strings events repeat, written once each.
     */
    public ValueWriter putPooledString(String s) {
        field(md.stringType, false, "string");
        if (s == null || s.isEmpty()) {
            out.putString(s);
        } else {
            out.putStringKey(chunk.stringKey(s));
        }
        return this;
    }

    /** The key of a constant of {@code constantType}; 0 is null (no value). */
    public ValueWriter putKey(Type constantType, long key) {
        if (!constantType.pooled()) {
            throw new IllegalArgumentException(constantType.name + " is not a constant type");
        }
        field(constantType, false, "a key of " + constantType.name);
        out.putVarLong(key);
        return this;
    }

    /**
     * The length of an array of {@code structType}; its elements' fields come next, element
     * after element.
     */
    public ValueWriter putArray(Type structType, int length) {
        if (structType.kind != Metadata.Kind.STRUCT) {
            throw new IllegalArgumentException(structType.name + " is not a struct type");
        }
        if (outerType != null) {
            throw new IllegalStateException("arrays nested in arrays are not supported (" + structType.name + ")");
        }
        field(structType, true, structType.name + "[" + length + "]");
        out.putVarInt(length);
        if (length > 0 && structType.frozen.length > 0) {
            // advance() moved past the array field: come back to it when the elements are done
            outerType = type;
            outerFields = fields;
            outerNext = next;
            type = structType;
            fields = structType.frozen;
            next = 0;
            remaining = length;
        }
        return this;
    }

    /** Ends the value; returns the constant's key (0 for an event). */
    public long end() {
        if (type == null) {
            throw new IllegalStateException("no value is being written");
        }
        if (next != fields.length) {
            throw new IllegalStateException(type.name + " ended without " + fields[next]);
        }
        type = null;
        return pool == null ? chunk.eventEnded() : pool.ended();
    }
}
