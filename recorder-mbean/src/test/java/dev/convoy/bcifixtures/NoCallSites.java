package dev.convoy.bcifixtures;

/** Names none of the probed methods. */
public final class NoCallSites {

    public static int twice(int x) {
        return 2 * x;
    }
}
