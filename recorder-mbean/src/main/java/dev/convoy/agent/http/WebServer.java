package dev.convoy.agent.http;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;

import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;

import dev.convoy.agent.AgentOptions;

/**
 * The web view's embedded Jetty: a few daemon threads (it never keeps the JVM alive),
 * one connector on the given address, the {@link WebHandler}. Started only when asked
 * ({@code http=} option, {@code ./convoy view}).
 */
public final class WebServer implements AutoCloseable {

    /** Where "Open in Perfetto" sends the trace (in the browser, with Perfetto's postMessage protocol). */
    public static final String PERFETTO = "https://ui.perfetto.dev";
    /**
     * Test-only system property: another Perfetto URL (a stub page on 127.0.0.1 that speaks the
     * same protocol), so that the browser tests never reach the internet. Not an agent option.
     */
    public static final String PERFETTO_PROPERTY = "convoy.test.perfettoUrl";

    private final Server server;
    private final ServerConnector connector;
    private final String host;
    private final String token;

    private WebServer(Source source, String host, int port, String token, String perfetto) {
        this.host = host;
        this.token = token;
        QueuedThreadPool pool = new QueuedThreadPool(8, 2);
        pool.setName("convoy-http");
        pool.setDaemon(true);
        ScheduledExecutorScheduler scheduler = new ScheduledExecutorScheduler("convoy-http-scheduler", true);
        server = new Server(pool, scheduler, null);
        HttpConfiguration config = new HttpConfiguration();
        // RFC 9110/9112 strictly: an HTTP/1.1 request without exactly one Host header (or with an
        // empty one) is refused with 400 before any handler sees it.
        config.setHttpCompliance(HttpCompliance.RFC9110);
        config.setSendServerVersion(false);
        config.setSendDateHeader(false);
        connector = new ServerConnector(server, pool, scheduler, null, 1, 1, new HttpConnectionFactory(config));
        connector.setHost(host);
        connector.setPort(port);
        server.addConnector(connector);
        server.setHandler(new WebHandler(source, token, AgentOptions.isLoopback(host), perfetto));
        server.setStopAtShutdown(false);
    }

    /**
     * Starts the web view.
     *
     * @param token null for none; required when {@code host} is not a loopback address
     * @throws IllegalArgumentException when a public address is asked without a token
     * @throws IllegalStateException when the server cannot start (port in use, ...)
     */
    public static WebServer start(Source source, String host, int port, String token) {
        return start(source, host, port, token, System.getProperty(PERFETTO_PROPERTY));
    }

    /** As {@link #start(Source, String, int, String)}, with the Perfetto URL given (tests; null: the real one). */
    static WebServer start(Source source, String host, int port, String token, String perfetto) {
        checkAccess(host, token);
        WebServer w = new WebServer(source, host, port, token, perfettoUrl(perfetto));
        try {
            w.server.start();
        } catch (Exception e) {
            try {
                w.server.stop();
            } catch (Exception ignored) {
                // already failing
            }
            throw new IllegalStateException("cannot start the web view on " + host + ":" + port + ": " + e, e);
        }
        return w;
    }

    /** The rule of the {@code http}/{@code httptoken} options, also for direct callers. */
    static void checkAccess(String host, String token) {
        if (!AgentOptions.isLoopback(host) && (token == null || token.isEmpty())) {
            throw new IllegalArgumentException("the web view binds " + host + ", which is not a loopback address: "
                    + "an access token is required (option httptoken)");
        }
    }

    /**
     * The Perfetto URL to use: {@link #PERFETTO} when {@code url} is null or empty, else {@code url}
     * if it is an absolute http(s) URL with a host and nothing that is not sent to the window.
     *
     * @throws IllegalArgumentException otherwise
     */
    static String perfettoUrl(String url) {
        if (url == null || url.isEmpty()) {
            return PERFETTO;
        }
        try {
            URI u = new URI(url);
            if ((u.getScheme().equals("http") || u.getScheme().equals("https")) && u.getHost() != null
                    && u.getUserInfo() == null && u.getFragment() == null) {
                return u.toString();
            }
        } catch (URISyntaxException | NullPointerException e) {
            // refused below
        }
        throw new IllegalArgumentException("system property " + PERFETTO_PROPERTY + " must be an http(s) URL with a "
                + "host (a test's stub Perfetto page), got '" + url + "'");
    }

    /** The port bound (the chosen one for port 0). */
    public int port() {
        return connector.getLocalPort();
    }

    /** The page's URL, without the token. */
    public String url() {
        String h = host.contains(":") ? "[" + host + "]" : host;
        return "http://" + h + ":" + port() + "/";
    }

    /** The address bound. */
    public InetSocketAddress address() {
        return new InetSocketAddress(host, port());
    }

    /** Whether requests must carry a token. */
    public boolean tokenRequired() {
        return token != null;
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("cannot stop the web view: " + e, e);
        }
    }
}
