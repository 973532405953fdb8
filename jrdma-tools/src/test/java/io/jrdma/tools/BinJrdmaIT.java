package io.jrdma.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code bin/jrdma} launcher: it must work from a checkout without any {@code target/}
 * directory (README's first command), build only when the jar is missing or older than the
 * sources, and say so in one line on stderr.
 */
@Timeout(300)
class BinJrdmaIT {

    private static final Set<String> SKIP = Set.of("target", ".git", ".idea", ".vscode");
    private static final String MVN_ARGS =
            "-B -ntp -q -DskipTests -Dmaven.javadoc.skip=true package -pl jrdma-tools -am";

    private static Path root;
    private static Path builtJar;

    @BeforeAll
    static void locate() {
        root = Path.of(System.getProperty("jrdma.root", "..")).toAbsolutePath().normalize();
        builtJar = Path.of(System.getProperty("jrdma.jar", "target/jrdma.jar")).toAbsolutePath();
        assertThat(root.resolve("bin/jrdma")).isExecutable();
    }

    @Test
    void readmesFirstCommandRunsTheDemoFromACheckoutWithoutTargetDirectories(@TempDir Path tmp) throws Exception {
        Path copy = tmp.resolve("jrdma");
        copyTree(root, copy);
        assertThat(copy.resolve("jrdma-tools/target")).doesNotExist();

        Run first = launch(copy, Map.of(), "demo");
        assertThat(first.exitCode).as(first.stderr).isZero();
        assertThat(first.stderr.lines()).containsExactly("building jrdma...");
        assertThat(first.stdout).contains("over siw0 (iWARP", "All 16 runs verified");
        assertThat(copy.resolve("jrdma-tools/target/jrdma.jar")).isRegularFile();

        Run second = launch(copy, Map.of(), "--help");
        assertThat(second.exitCode).isZero();
        assertThat(second.stderr).isEmpty();
        assertThat(second.stdout).contains("Usage: jrdma", "demo", "rping", "send-bw", "write-bw", "read-bw",
                "atomic-bw", "send-lat", "write-lat", "read-lat", "cmatose", "udaddy", "devices", "devinfo", "tcp-bw",
                "udp-lat");
    }

    @Test
    void buildsOnlyWhenTheJarIsMissingOrOlderThanTheSources(@TempDir Path tmp) throws Exception {
        Path tree = skeleton(tmp);
        Path log = tmp.resolve("mvn.log");
        Path bin = fakeMaven(tmp, log);
        Map<String, String> env = Map.of("PATH", bin + ":" + System.getenv("PATH"));

        Run missing = launch(tree, env, "--version");
        assertThat(missing.exitCode).as(missing.stderr).isZero();
        assertThat(missing.stderr.lines()).containsExactly("building jrdma...");
        assertThat(Files.readAllLines(log)).containsExactly(MVN_ARGS);

        Run fresh = launch(tree, env, "--version");
        assertThat(fresh.stderr).isEmpty();
        assertThat(Files.readAllLines(log)).hasSize(1);

        Path source = tree.resolve("jrdma-core/src/main/java/A.java");
        Instant jarTime = Files.getLastModifiedTime(tree.resolve("jrdma-tools/target/jrdma.jar")).toInstant();
        Files.setLastModifiedTime(source, FileTime.from(jarTime.plusSeconds(5)));
        Run stale = launch(tree, env, "--version");
        assertThat(stale.stderr.lines()).containsExactly("building jrdma...");
        assertThat(Files.readAllLines(log)).hasSize(2);
        assertThat(stale.stdout).startsWith("jrdma ");

        // The transports are in the jar too: a change in jrdma-siw rebuilds it.
        Path transport = tree.resolve("jrdma-siw/src/main/java/C.java");
        jarTime = Files.getLastModifiedTime(tree.resolve("jrdma-tools/target/jrdma.jar")).toInstant();
        Files.setLastModifiedTime(transport, FileTime.from(jarTime.plusSeconds(5)));
        Run siw = launch(tree, env, "--version");
        assertThat(siw.stderr.lines()).containsExactly("building jrdma...");
        assertThat(Files.readAllLines(log)).hasSize(3);
    }

    @Test
    void aFailedBuildPrintsMavensOutputAndExitsNonZero(@TempDir Path tmp) throws Exception {
        Path tree = skeleton(tmp);
        Path bin = fakeMaven(tmp, tmp.resolve("mvn.log"));
        Run r = launch(tree, Map.of("PATH", bin + ":" + System.getenv("PATH"), "FAKE_MVN_FAIL", "1"), "--help");
        assertThat(r.exitCode).isEqualTo(1);
        assertThat(r.stderr).contains("building jrdma...", "[ERROR] fake failure", "jrdma: build failed");
        assertThat(r.stdout).isEmpty();
    }

    @Test
    void jrdmaRxeInTheEnvironmentTurnsOnRoceDevicesAndABadValueIsAUsageError() throws Exception {
        Map<String, String> env = Map.of("JRDMA_NO_BUILD", "1", "JRDMA_RXE", "127.0.0.3,rxe5:127.0.0.4");
        Run r = launch(root, env, "devices", "--json");
        assertThat(r.exitCode).as(r.stderr).isZero();
        assertThat(r.stdout.lines()).anyMatch(l -> l.startsWith("{\"device\":\"rxe0\",\"provider\":\"rxe\",")
                && l.contains("\"addresses\":\"127.0.0.3\""))
                .anyMatch(l -> l.startsWith("{\"device\":\"rxe5\",") && l.contains("\"addresses\":\"127.0.0.4\""));

        Run bad = launch(root, Map.of("JRDMA_NO_BUILD", "1", "JRDMA_RXE", "rxe0:eth0"), "devices");
        assertThat(bad.exitCode).isEqualTo(2);
        assertThat(bad.stdout).isEmpty();
        assertThat(bad.stderr).isEqualTo("jrdma: JRDMA_RXE entry 'rxe0:eth0' is neither an IP address nor "
                + "NAME:ADDRESS (e.g. 10.0.4.2 or rxe0:10.0.4.2)\n");
    }

    @Test
    void noLogRecordReachesTheTerminalUnlessAsked() throws Exception {
        Map<String, String> env = Map.of("JRDMA_NO_BUILD", "1");
        String port = Integer.toString(ToolHarness.freePort());
        // iWARP carries no UD: the connection manager logs the ADDR_ERROR (at INFO) before the tool says so.
        Run quiet = launch(root, env, "udaddy", "-s", "127.0.0.2", "-p", port, "--device", "siw0");
        assertThat(quiet.exitCode).isEqualTo(1);
        assertThat(quiet.stderr).contains("RDMA_CM_EVENT_ADDR_ERROR").doesNotContain("INFO:")
                .doesNotContain("io.jrdma.internal");
        Run asked = launch(root, env, "udaddy", "--log", "INFO", "-s", "127.0.0.2", "-p", port, "--device", "siw0");
        assertThat(asked.exitCode).isEqualTo(1);
        assertThat(asked.stderr).contains("INFO: [cm ", "RDMA_CM_EVENT_ADDR_ERROR status=-19 (ENODEV)");
    }

    @Test
    void runInfinitelyPrintsARowEveryPeriodUntilTheClientIsStopped(@TempDir Path tmp) throws Exception {
        String port = Integer.toString(ToolHarness.freePort());
        List<String> common = List.of("write-bw", "-d", "siw0", "-p", port, "-s", "4096", "--run_infinitely", "-D",
                "1");
        List<String> sa = new ArrayList<>(common);
        sa.addAll(List.of("--bind", "127.0.0.1"));
        List<String> ca = new ArrayList<>(common);
        ca.add("127.0.0.1");
        Path sOut = tmp.resolve("server.txt");
        Path cOut = tmp.resolve("client.txt");
        Process server = start(sa, sOut);
        Process client = null;
        try {
            awaitText(sOut, "Waiting for client to connect", server);
            client = start(ca, cOut);
            List<String> rows = List.of();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (rows.size() < 3 && System.nanoTime() < deadline && client.isAlive()) {
                Thread.sleep(200);
                rows = Files.readAllLines(cOut).stream().filter(l -> l.matches(" 4096 +\\d+ +0\\.00 +[0-9.]+\\s.*"))
                        .toList();
            }
            assertThat(rows).as(Files.readString(cOut)).hasSizeGreaterThanOrEqualTo(3);
            assertThat(client.isAlive()).as("the client runs on after three periods").isTrue();
            for (String r : rows) {
                assertThat(Long.parseLong(r.trim().split("\\s+")[1])).as(r).isPositive();
            }
            client.destroy();
            assertThat(client.waitFor(20, TimeUnit.SECONDS)).isTrue();
            // The server waits for the client's report for ever; the client's going away ends it.
            assertThat(server.waitFor(30, TimeUnit.SECONDS)).as("the server ends when its client goes away").isTrue();
            assertThat(server.exitValue()).isEqualTo(1);
        } finally {
            if (client != null) {
                client.destroyForcibly();
            }
            server.destroyForcibly();
        }
    }

    private static Process start(List<String> args, Path out) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(root.resolve("bin/jrdma").toString());
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(root.toFile());
        pb.environment().put("JRDMA_NO_BUILD", "1");
        pb.redirectOutput(out.toFile()).redirectErrorStream(true);
        return pb.start();
    }

    private static void awaitText(Path file, String text, Process p) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.readString(file).contains(text)) {
            if (System.nanoTime() > deadline || !p.isAlive()) {
                throw new AssertionError("no '" + text + "' from the server: " + Files.readString(file));
            }
            Thread.sleep(100);
        }
    }

    /** A tree with just what the launcher looks at. */
    private static Path skeleton(Path tmp) throws IOException {
        Path tree = tmp.resolve("tree");
        Files.createDirectories(tree.resolve("bin"));
        Files.copy(root.resolve("bin/jrdma"), tree.resolve("bin/jrdma"));
        for (String f : List.of("pom.xml", "config/checkstyle.xml", "jrdma-core/src/main/java/A.java",
                "jrdma-tools/src/main/java/B.java", "jrdma-testkit/pom.xml", "jrdma-siw/src/main/java/C.java")) {
            Files.createDirectories(tree.resolve(f).getParent());
            Files.writeString(tree.resolve(f), "x");
            Files.setLastModifiedTime(tree.resolve(f), FileTime.from(Instant.now().minusSeconds(60)));
        }
        return tree;
    }

    /** A {@code mvn} that logs its arguments and "builds" by copying the real jar. */
    private static Path fakeMaven(Path tmp, Path log) throws IOException {
        Path bin = Files.createDirectories(tmp.resolve("fakebin"));
        Path mvn = bin.resolve("mvn");
        Files.writeString(mvn, String.join("\n",
                "#!/usr/bin/env bash",
                "echo \"$*\" >> '" + log + "'",
                "if [ -n \"${FAKE_MVN_FAIL:-}\" ]; then echo '[ERROR] fake failure'; exit 1; fi",
                "mkdir -p jrdma-tools/target && cp '" + builtJar + "' jrdma-tools/target/jrdma.jar",
                ""));
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
        return bin;
    }

    private record Run(int exitCode, String stdout, String stderr) {
    }

    private static Run launch(Path tree, Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(tree.resolve("bin/jrdma").toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(tree.toFile());
        pb.environment().putAll(env);
        Path out = Files.createTempFile("jrdma-out", ".txt");
        Path err = Files.createTempFile("jrdma-err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        if (!p.waitFor(240, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("bin/jrdma " + String.join(" ", args) + " did not finish in 240 s");
        }
        Run r = new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        Files.delete(out);
        Files.delete(err);
        return r;
    }

    private static void copyTree(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                if (!dir.equals(from) && SKIP.contains(dir.getFileName().toString())) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                Files.createDirectories(to.resolve(from.relativize(dir)));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (SKIP.contains(file.getFileName().toString())) {
                    return FileVisitResult.CONTINUE; // a worktree's .git is a file
                }
                Files.copy(file, to.resolve(from.relativize(file)), StandardCopyOption.COPY_ATTRIBUTES);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
