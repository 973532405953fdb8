package io.jrdma.disni;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import java.util.concurrent.TimeUnit;

import io.jrdma.disni.apps.PingPong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A DiSNI application as two JVMs, server and client, over siw0 and over RoCEv2 (rxe0 on 127.0.0.1, rxe1 on
 * 127.0.0.2), on loopback. The application is compiled here against the real DiSNI 2.1 jar (Maven Central's
 * {@code com.ibm.disni:disni:2.1}) and run with jrdma-disni in its place on the class path: the jar stands in for
 * DiSNI's without recompiling.
 */
@Timeout(300)
class TwoProcessIT {
    private static final String SOURCE = "src/test/java/io/jrdma/disni/apps/PingPong.java";
    private static final List<String> SIW = List.of("-Djrdma.siw.addresses=127.0.0.1");

    @TempDir
    static Path work;
    private static Path compiled;

    /** Compiles the application against disni-2.1.jar alone (no jrdma class on the compile class path). */
    @BeforeAll
    static void compileAgainstTheRealDisniJar() throws Exception {
        String disniJar = System.getProperty("disni.jar");
        assertThat(disniJar).as("the build copies disni-2.1.jar and names it in -Ddisni.jar").isNotNull();
        assertThat(Path.of(disniJar)).exists();
        compiled = Files.createDirectories(work.resolve("app-classes"));
        Path log = work.resolve("javac.log");
        Process javac = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "javac").toString(), "-d",
                compiled.toString(), "-cp", disniJar, "-proc:none", SOURCE).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        assertThat(javac.waitFor(120, TimeUnit.SECONDS)).as("javac finished").isTrue();
        assertThat(javac.exitValue()).as("javac of the application against DiSNI 2.1:\n" + Files.readString(log))
                .isZero();
    }

    /** The run-time class path: the application compiled against DiSNI 2.1, then jrdma-disni and jrdma. */
    private static String runtimeClassPath() {
        // drop this module's test classes (they hold the same application compiled against jrdma-disni)
        return compiled + File.pathSeparator + TwoJvms.classPath("test-classes");
    }

    private static void runPingPong(List<String> serverOpts, List<String> clientOpts, String tag) throws Exception {
        int port = TwoJvms.freePort();
        Path slog = work.resolve(tag + "-server.log");
        Path clog = work.resolve(tag + "-client.log");
        String cp = runtimeClassPath();
        Process server = TwoJvms.start(cp, serverOpts, PingPong.class.getName(), slog, "server", "127.0.0.1",
                Integer.toString(port));
        TwoJvms.awaitLine(server, slog, "server bound");
        Process client = TwoJvms.start(cp, clientOpts, PingPong.class.getName(), clog, "client", "127.0.0.1",
                Integer.toString(port));
        TwoJvms.Outcome c = TwoJvms.finish(client, clog);
        TwoJvms.Outcome s = TwoJvms.finish(server, slog);
        assertThat(c.exit()).as(c.log()).isZero();
        assertThat(s.exit()).as(s.log()).isZero();
        assertThat(c.lines()).as(c.log()).containsSubsequence("client connected", "client sent, opcode 0, status 0",
                "client received pong, opcode 128", "closed");
        assertThat(s.lines()).as(s.log()).containsSubsequence("server bound", "server accepted",
                "server received 16 bytes, opcode 128",
                "server read 8 bytes, wr_id 18, status 0: DiSNI on",
                "server read 16 bytes, wr_id 26, status 0: DiSNI on jrdma: ",
                "server read 32 bytes, wr_id 42, status 0: DiSNI on jrdma: one-sided and tw",
                "server sent, status 0", "closed");
    }

    @Test
    void anApplicationCompiledAgainstDisni21RunsAsTwoJvmsOverSiw() throws Exception {
        runPingPong(SIW, SIW, "siw");
    }

    @Test
    void anApplicationCompiledAgainstDisni21RunsAsTwoJvmsOverRxe() throws Exception {
        runPingPong(List.of("-Djrdma.rxe.devices=rxe0:127.0.0.1", "-Djrdma.disni.devices=rxe0"),
                List.of("-Djrdma.rxe.devices=rxe1:127.0.0.2", "-Djrdma.disni.devices=rxe1"), "rxe");
    }
}
