package dev.convoy.testapps.bench;

/**
 * Replaces a generated section of a Markdown file, delimited by {@code <!-- NAME:begin -->} and
 * {@code <!-- NAME:end -->}. Everything outside the markers is kept byte for byte.
 */
public final class Markers {

    private Markers() {
    }

    public static String begin(String name) {
        return "<!-- " + name + ":begin -->";
    }

    public static String end(String name) {
        return "<!-- " + name + ":end -->";
    }

    /**
     * Returns {@code doc} with the text between the markers named {@code name} replaced by
     * {@code block} (on its own lines). If neither marker is present the section is appended at
     * the end. A lone marker, markers out of order or a marker given twice is an error: the file is
     * probably hand-edited and must not be clobbered.
     */
    public static String replace(String doc, String name, String block) {
        String b = begin(name);
        String e = end(name);
        int bi = doc.indexOf(b);
        int ei = doc.indexOf(e);
        String body = stripTrailingNewlines(block);
        if (bi < 0 && ei < 0) {
            StringBuilder sb = new StringBuilder(doc);
            if (!doc.isEmpty() && !doc.endsWith("\n")) {
                sb.append('\n');
            }
            if (!doc.isEmpty()) {
                sb.append('\n');
            }
            return sb.append(b).append('\n').append(body).append('\n').append(e).append('\n').toString();
        }
        if (bi < 0 || ei < 0) {
            throw new IllegalArgumentException("found " + (bi < 0 ? e : b) + " without " + (bi < 0 ? b : e));
        }
        if (ei < bi) {
            throw new IllegalArgumentException(e + " comes before " + b);
        }
        if (doc.indexOf(b, bi + 1) >= 0 || doc.indexOf(e, ei + 1) >= 0) {
            throw new IllegalArgumentException("the markers " + b + " / " + e + " appear more than once");
        }
        return doc.substring(0, bi + b.length()) + "\n" + body + "\n" + doc.substring(ei);
    }

    private static String stripTrailingNewlines(String s) {
        int n = s.length();
        while (n > 0 && (s.charAt(n - 1) == '\n' || s.charAt(n - 1) == '\r')) {
            n--;
        }
        return s.substring(0, n);
    }
}
