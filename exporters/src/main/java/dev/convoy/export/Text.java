package dev.convoy.export;

/** String and number formatting shared by the writers. */
public final class Text {
    private Text() {
    }

    /** Replaces unpaired surrogates (possible in modified UTF-8) with U+FFFD. */
    public static String wellFormed(String s) {
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean bad;
            if (Character.isHighSurrogate(c)) {
                bad = i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
                if (!bad) {
                    if (sb != null) {
                        sb.append(c).append(s.charAt(i + 1));
                    }
                    i++;
                    continue;
                }
            } else {
                bad = Character.isLowSurrogate(c);
            }
            if (bad && sb == null) {
                sb = new StringBuilder(s.length()).append(s, 0, i);
            }
            if (sb != null) {
                sb.append(bad ? '\uFFFD' : c);
            }
        }
        return sb == null ? s : sb.toString();
    }

    /** {@link #wellFormed} plus characters XML 1.0 forbids (controls but tab/LF/CR, U+FFFE/F) as U+FFFD. */
    static String xml(String s) {
        String w = wellFormed(s);
        int i0 = 0;
        while (i0 < w.length()) {
            char c = w.charAt(i0);
            if (!(c == '\t' || c == '\n' || c == '\r' || c >= 0x20 && c != 0xFFFE && c != 0xFFFF)) {
                break;
            }
            i0++;
        }
        if (i0 == w.length()) {
            return w; // nothing to replace (the usual case)
        }
        StringBuilder sb = new StringBuilder(w.length());
        for (int i = 0; i < w.length(); i++) {
            char c = w.charAt(i);
            boolean ok = c == '\t' || c == '\n' || c == '\r' || c >= 0x20 && c != 0xFFFE && c != 0xFFFF;
            sb.append(ok ? c : '\uFFFD');
        }
        return sb.toString();
    }

    /** Nanoseconds as a decimal with {@code digits} fraction digits of the unit 10^digits ns. */
    static String decimal(long ns, int digits) {
        return decimal(ns, digits, false);
    }

    private static String decimal(long ns, int digits, boolean trim) {
        long unit = 1;
        for (int i = 0; i < digits; i++) {
            unit *= 10;
        }
        if (ns == Long.MIN_VALUE) {
            return decimalSlow(ns, digits, trim);
        }
        long abs = Math.abs(ns);
        long whole = abs / unit;
        long frac = abs % unit;
        int n = digits;
        if (trim) {
            while (n > 0 && frac % 10 == 0) {
                frac /= 10;
                n--;
            }
        }
        char[] c = new char[41];
        int at = c.length;
        for (int i = 0; i < n; i++) {
            c[--at] = (char) ('0' + frac % 10);
            frac /= 10;
        }
        if (n > 0) {
            c[--at] = '.';
        }
        do {
            c[--at] = (char) ('0' + whole % 10);
            whole /= 10;
        } while (whole > 0);
        if (ns < 0) {
            c[--at] = '-';
        }
        return new String(c, at, c.length - at);
    }

    private static String decimalSlow(long ns, int digits, boolean trim) {
        java.math.BigDecimal d = java.math.BigDecimal.valueOf(ns).movePointLeft(digits);
        if (trim) {
            d = d.stripTrailingZeros();
            return d.scale() <= 0 ? d.toBigInteger().toString() : d.toPlainString();
        }
        return d.toPlainString();
    }

    /** Microseconds with at most 3 decimals, trailing zeros removed, for Chrome trace ts/dur. */
    static String micros(long ns) {
        return decimal(ns, 3, true);
    }

    /** Epoch/relative seconds with exactly 9 fraction digits. */
    static String seconds(long ns) {
        return decimal(ns, 9);
    }
}
