package dev.convoy.model;

/**
 * A class of SECTION_CLASSES.
 *
 * @param classId    id of the java.lang.Class object (shares the object id space)
 * @param signature  JVM form, e.g. "Ljava/lang/Object;", "" if unloaded
 * @param sourceFile e.g. "Object.java", "" when unknown
 */
public record ClassInfo(long classId, String signature, String sourceFile) {

    /**
     * The Java name: "java.lang.Object" for "Ljava/lang/Object;", "int[]" for "[I",
     * "java.lang.String[][]" for "[[Ljava/lang/String;"; "" for an unloaded class.
     */
    public String dottedName() {
        return dotted(signature);
    }

    /** {@link #dottedName()} of any JVM field signature. */
    public static String dotted(String sig) {
        if (sig == null || sig.isEmpty()) {
            return "";
        }
        int dims = 0;
        while (dims < sig.length() && sig.charAt(dims) == '[') {
            dims++;
        }
        String base = sig.substring(dims);
        String name;
        if (base.startsWith("L") && base.endsWith(";")) {
            name = base.substring(1, base.length() - 1).replace('/', '.');
        } else if (base.length() == 1) {
            name = switch (base.charAt(0)) {
                case 'Z' -> "boolean";
                case 'B' -> "byte";
                case 'C' -> "char";
                case 'S' -> "short";
                case 'I' -> "int";
                case 'J' -> "long";
                case 'F' -> "float";
                case 'D' -> "double";
                case 'V' -> "void";
                default -> base;
            };
        } else {
            name = base.replace('/', '.');
        }
        return name + "[]".repeat(dims);
    }
}
