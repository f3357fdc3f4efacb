package dev.convoy.export.jfr;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The types of a chunk, written as its metadata event: a string table, then a tree of elements
 * (a name, attributes as pairs of string indexes, children): {@code root} holding
 * {@code metadata} (one {@code class} per type: its {@code setting}s, its {@code field}s, each
 * with its {@code annotation}s, then the type's own annotations) and {@code region}.
 *
 * <p>A type is a primitive (no fields: the nine of {@link #Metadata()}), an annotation, a
 * setting control ({@code superType="jdk.jfr.SettingControl"}, no fields), a constant type
 * (values in the checkpoint's constant pools, fields of it hold a key:
 * {@code constantPool="true"}), a struct (values inline, such as the frames of a stack trace) or
 * an event type. A constant type or struct with exactly one field is marked {@code simpleType},
 * which the JDK's parser reads as that field's value ({@code jdk.types.Symbol} as a string). An
 * annotation's value is the attribute named after its field, {@code value-0}, {@code value-1},
 * ... for an array (as the JDK writes {@code jdk.jfr.Category}). Type ids start at 2: 0 and 1
 * are the metadata and checkpoint events' ids. No type or field can be added once
 * {@link #freeze()} has run (a {@link ChunkWriter} freezes its metadata).
 */
final class Metadata {
    static final String EVENT = "jdk.jfr.Event";
    static final String ANNOTATION = "java.lang.annotation.Annotation";
    static final String SETTING_CONTROL = "jdk.jfr.SettingControl";
    private static final long FIRST_TYPE_ID = 2;

    private final List<Type> types = new ArrayList<>();
    private boolean frozen;

    public final Type booleanType;
    public final Type byteType;
    public final Type charType;
    public final Type shortType;
    public final Type intType;
    public final Type longType;
    public final Type floatType;
    public final Type doubleType;
    public final Type stringType;

    /** The primitives and {@code java.lang.String}, declared first. */
    public Metadata() {
        booleanType = declare("boolean", null, Kind.PRIMITIVE);
        byteType = declare("byte", null, Kind.PRIMITIVE);
        charType = declare("char", null, Kind.PRIMITIVE);
        shortType = declare("short", null, Kind.PRIMITIVE);
        intType = declare("int", null, Kind.PRIMITIVE);
        longType = declare("long", null, Kind.PRIMITIVE);
        floatType = declare("float", null, Kind.PRIMITIVE);
        doubleType = declare("double", null, Kind.PRIMITIVE);
        stringType = declare("java.lang.String", null, Kind.PRIMITIVE);
    }

    enum Kind { PRIMITIVE, ANNOTATION, SETTING, CONSTANT, STRUCT, EVENT }

    /** An annotation type ({@code superType="java.lang.annotation.Annotation"}). */
    public Type annotation(String name) {
        return declare(name, ANNOTATION, Kind.ANNOTATION);
    }

    /** A setting control ({@code superType="jdk.jfr.SettingControl"}): the class of an event type's {@link Type#setting}. */
    public Type settingControl(String name) {
        return declare(name, SETTING_CONTROL, Kind.SETTING);
    }

    /** A type whose values are constants, referenced by key. */
    public Type constant(String name) {
        return declare(name, null, Kind.CONSTANT);
    }

    /** A type whose values are written inline where they occur. */
    public Type struct(String name) {
        return declare(name, null, Kind.STRUCT);
    }

    /** An event type ({@code superType="jdk.jfr.Event"}). */
    public Type event(String name) {
        return declare(name, EVENT, Kind.EVENT);
    }

    private Type declare(String name, String superType, Kind kind) {
        checkOpen();
        for (Type t : types) {
            if (t.name.equals(name)) {
                throw new IllegalArgumentException("type " + name + " declared twice");
            }
        }
        Type t = new Type(FIRST_TYPE_ID + types.size(), name, superType, kind);
        types.add(t);
        return t;
    }

    private void checkOpen() {
        if (frozen) {
            throw new IllegalStateException("the metadata is frozen: a chunk is being written with it");
        }
    }

    /** Ends declaring: fields are fixed from now on. */
    public void freeze() {
        if (!frozen) {
            frozen = true;
            for (Type t : types) {
                t.frozen = t.fields.toArray(new Field[0]);
            }
        }
    }

    List<Type> types() {
        return types;
    }

    /** A type: its id, name and fields; annotations on it and on its fields. */
    public final class Type {
        final long id;
        final String name;
        final String superType;
        final Kind kind;
        final List<Field> fields = new ArrayList<>();
        final List<Annotation> annotations = new ArrayList<>();
        final List<Setting> settings = new ArrayList<>();
        /** The fields, once frozen. */
        Field[] frozen;

        private Type(long id, String name, String superType, Kind kind) {
            this.id = id;
            this.name = name;
            this.superType = superType;
            this.kind = kind;
        }

        public long id() {
            return id;
        }

        public String name() {
            return name;
        }

        /** The names of its settings, in order. */
        public List<String> settingNames() {
            return settings.stream().map(Setting::name).toList();
        }

        boolean pooled() {
            return kind == Kind.CONSTANT;
        }

        /** Adds a field; fields are written in the order they are added. */
        public Field field(String fieldName, Type type) {
            return add(fieldName, type, false);
        }

        /** Adds a field holding an array of {@code type}. */
        public Field arrayField(String fieldName, Type type) {
            return add(fieldName, type, true);
        }

        private Field add(String fieldName, Type type, boolean array) {
            checkOpen();
            if (kind == Kind.PRIMITIVE || kind == Kind.SETTING) {
                throw new IllegalStateException(name + " is a " + (kind == Kind.SETTING ? "setting control" : "primitive")
                        + ": it has no fields");
            }
            if (type.kind == Kind.EVENT || type.kind == Kind.ANNOTATION || type.kind == Kind.SETTING) {
                throw new IllegalArgumentException(name + "." + fieldName + ": a field cannot be of type " + type.name);
            }
            for (Field f : fields) {
                if (f.name.equals(fieldName)) {
                    throw new IllegalArgumentException(name + "." + fieldName + " declared twice");
                }
            }
            Field f = new Field(this, fieldName, type, array);
            fields.add(f);
            return f;
        }

        /**
         * Annotates the type: no value for an annotation type without fields, one for a field
         * of one value, any number for an array field.
         */
        public Type annotate(Type annotation, String... values) {
            checkOpen();
            annotations.add(Annotation.of(annotation, values));
            return this;
        }

        /**
         * Declares a setting of an event type ({@code <setting name class defaultValue>}, before
         * its fields): its name, its control and the value it has unless a recording sets it.
         */
        public Type setting(String settingName, Type control, String defaultValue) {
            checkOpen();
            if (kind != Kind.EVENT) {
                throw new IllegalStateException(name + " is not an event type: it has no settings");
            }
            if (control.kind != Kind.SETTING) {
                throw new IllegalArgumentException(control.name + " is not a setting control");
            }
            settings.add(new Setting(settingName, control, defaultValue));
            return this;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** A field of a type. */
    public final class Field {
        final Type owner;
        final String name;
        final Type type;
        final boolean array;
        final List<Annotation> annotations = new ArrayList<>();

        private Field(Type owner, String name, Type type, boolean array) {
            this.owner = owner;
            this.name = name;
            this.type = type;
            this.array = array;
        }

        /** Annotates the field, as {@link Type#annotate}. */
        public Field annotate(Type annotation, String... values) {
            checkOpen();
            annotations.add(Annotation.of(annotation, values));
            return this;
        }

        @Override
        public String toString() {
            return owner.name + "." + name;
        }
    }

    /** An annotation and its values: none, one, or an array's elements. */
    record Annotation(Type type, List<String> values) {
        static Annotation of(Type type, String... values) {
            if (values == null) {
                values = new String[0];
            }
            if (type.kind != Kind.ANNOTATION) {
                throw new IllegalArgumentException(type.name + " is not an annotation type");
            }
            if (type.fields.size() > 1) {
                throw new IllegalArgumentException("annotation " + type.name + " has more than one field");
            }
            boolean array = !type.fields.isEmpty() && type.fields.get(0).array;
            int wanted = type.fields.isEmpty() ? 0 : 1;
            if (values.length != wanted && !array || array && values.length == 0) {
                throw new IllegalArgumentException("annotation " + type.name + " takes " + (array ? "one or more values"
                        : wanted == 0 ? "no value" : "one value") + ", not " + values.length);
            }
            for (String v : values) {
                if (v == null) {
                    throw new IllegalArgumentException("annotation " + type.name + ": a null value");
                }
            }
            return new Annotation(type, List.of(values));
        }
    }

    /** A setting of an event type. */
    record Setting(String name, Type control, String defaultValue) {
    }

    /** An element of the tree, with its attributes in order. */
    private static final class Element {
        final String name;
        final List<String> attributes = new ArrayList<>(); // name, value, name, value, ...
        final List<Element> children = new ArrayList<>();

        Element(String name) {
            this.name = name;
        }

        Element attribute(String key, String value) {
            attributes.add(key);
            attributes.add(value);
            return this;
        }

        Element child(String childName) {
            Element e = new Element(childName);
            children.add(e);
            return e;
        }
    }

    /** The metadata event's content after its id: the string table and the element tree. */
    void write(JfrBuffer out) {
        freeze();
        Element root = new Element("root");
        Element metadata = root.child("metadata");
        for (Type t : types) {
            Element c = metadata.child("class").attribute("name", t.name).attribute("id", Long.toString(t.id));
            if (t.superType != null) {
                c.attribute("superType", t.superType);
            }
            if (t.fields.size() == 1 && (t.kind == Kind.CONSTANT || t.kind == Kind.STRUCT)) {
                c.attribute("simpleType", "true");
            }
            for (Setting s : t.settings) {
                c.child("setting").attribute("name", s.name).attribute("class", Long.toString(s.control.id))
                        .attribute("defaultValue", s.defaultValue);
            }
            for (Field f : t.fields) {
                Element fe = c.child("field").attribute("name", f.name).attribute("class", Long.toString(f.type.id));
                if (f.type.pooled()) {
                    fe.attribute("constantPool", "true");
                }
                if (f.array) {
                    fe.attribute("dimension", "1");
                }
                annotations(fe, f.annotations);
            }
            annotations(c, t.annotations);
        }
        root.child("region");
        Map<String, Integer> strings = new LinkedHashMap<>();
        collect(root, strings);
        out.putVarInt(strings.size());
        for (String s : strings.keySet()) {
            out.putString(s);
        }
        write(root, strings, out);
    }

    private static void annotations(Element e, List<Annotation> as) {
        for (Annotation a : as) {
            Element ae = e.child("annotation").attribute("class", Long.toString(a.type.id));
            if (!a.type.fields.isEmpty()) {
                Field f = a.type.fields.get(0);
                for (int i = 0; i < a.values.size(); i++) {
                    ae.attribute(f.array ? f.name + "-" + i : f.name, a.values.get(i));
                }
            }
        }
    }

    private static void collect(Element e, Map<String, Integer> strings) {
        strings.putIfAbsent(e.name, strings.size());
        for (String s : e.attributes) {
            strings.putIfAbsent(s, strings.size());
        }
        for (Element c : e.children) {
            collect(c, strings);
        }
    }

    private static void write(Element e, Map<String, Integer> strings, JfrBuffer out) {
        out.putVarInt(strings.get(e.name));
        out.putVarInt(e.attributes.size() / 2);
        for (String s : e.attributes) {
            out.putVarInt(strings.get(s));
        }
        out.putVarInt(e.children.size());
        for (Element c : e.children) {
            write(c, strings, out);
        }
    }
}
