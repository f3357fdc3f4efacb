package dev.convoy.bcifixtures;

/** A Thread subclass: javac names it, not Thread, as the owner of calls on a Worker. */
public class Worker extends Thread {

    public volatile boolean ran;

    public Worker(String name) {
        super(name);
    }

    @Override
    public void run() {
        ran = true;
    }
}
