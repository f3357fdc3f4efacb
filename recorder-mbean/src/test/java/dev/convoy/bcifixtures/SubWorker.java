package dev.convoy.bcifixtures;

/** Two levels below Thread, inheriting the hiding static sleep of {@link HidingThread}. */
public class SubWorker extends HidingThread {
}
