package dev.convoy.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code ./convoy bench}, {@code bench soak} and {@code bench suite} (docs/performance.md): their
 * arguments checked against {@link Commands}, then the runner of the test apps started in a JVM of
 * its own with the agent jar and its scratch folders added; without arguments, the results go into
 * {@code docs/bench/}. The exit code is the runner's.
 */
final class Bench {

    /** The arguments {@code ./convoy} adds to each runner's; the user gives the others. */
    static final List<String> LAUNCHER_OPTIONS = List.of("--agent", "--lib", "--work");

    private Bench() {
    }

    static int run(CommandLine.Command c, String[] rest, PrintStream err) throws CliException {
        Path root = Demo.root();
        String jar = ConvoyCli.agentJar().toString();
        String apps = root.resolve("test-apps/target/classes").toString();
        String tag = "jdk" + System.getProperty("java.specification.version");
        Path bench = root.resolve("docs/bench");
        Path cwd = Paths.get("").toAbsolutePath();
        List<String> args = Arrays.asList(rest);
        switch (c.name()) {
            case "bench" -> {
                List<String> given = !args.isEmpty() ? args : List.of("--runs", "15", "--roundtrips", "200000",
                        "--out", bench.resolve("pingpong.md").toString(), "--marker", "pingpong-" + tag);
                return Demo.runChild(command(apps, "dev.convoy.testapps.bench.BenchmarkRunner", List.of("--agent", jar),
                        given), cwd);
            }
            case "bench soak" -> {
                List<String> given = !args.isEmpty() ? args : List.of("--out", bench.resolve("soak.md").toString(),
                        "--plot", bench.resolve("soak.png").toString());
                return Demo.runChild(command(apps, "dev.convoy.testapps.bench.soak.SoakRunner", List.of("--agent", jar,
                        "--work", root.resolve("test-apps/target/soak").toString()), given), cwd);
            }
            default -> {
                Path lib = root.resolve("test-apps/target/bench-lib");
                List<String> fixed = List.of("--agent", jar, "--lib", lib.toString(), "--work",
                        root.resolve("test-apps/target/bench-suite").toString());
                String runner = "dev.convoy.testapps.bench.suite.SuiteRunner";
                // the values only the suite knows (workloads, configurations), before anything is fetched
                List<String> check = new ArrayList<>(List.of("--check-args"));
                check.addAll(fixed);
                int checked = Demo.runChild(command(apps, runner, check, args), cwd);
                if (checked != 0) {
                    return checked;
                }
                if (!has(lib, "h2-*.jar") || !has(lib, "async-profiler-*.jar")) {
                    err.println(CommandLine.prefix("bench")
                            + "fetching benchmark-only artifacts (mvn -Pbench dependency:copy@bench-libs)...");
                    err.flush();
                    if (Demo.runChild(List.of("mvn", "-q", "-B", "-Pbench", "-pl", "test-apps",
                            "dependency:copy@bench-libs"), root) != 0) {
                        throw CliException.failed("could not fetch the benchmark artifacts");
                    }
                }
                List<String> given = !args.isEmpty() ? args : List.of("--out",
                        bench.resolve("suite-" + tag + ".md").toString(), "--plot",
                        bench.resolve("suite-" + tag + ".png").toString(), "--marker", "suite-" + tag);
                return Demo.runChild(command(apps, runner, fixed, given), cwd);
            }
        }
    }

    private static List<String> command(String apps, String main, List<String> fixed, List<String> given) {
        List<String> cmd = new ArrayList<>(List.of(Demo.java(), "-cp", apps, main));
        cmd.addAll(fixed);
        cmd.addAll(given);
        return cmd;
    }

    private static boolean has(Path dir, String glob) {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, glob)) {
            return s.iterator().hasNext();
        } catch (IOException e) {
            return false;
        }
    }
}
