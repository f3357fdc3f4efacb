package dev.convoy.bcifixtures;

/** Declares a static sleep(long) that hides Thread's: calls of HidingThread.sleep are not Thread's. */
public class HidingThread extends Thread {

    public static int sleeps;

    public static void sleep(long millis) {
        sleeps++;
    }
}
