package com.example.first;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs the first program in a JVM of its own, once on the module path (the program, jrdma-core and
 * jrdma-siw as named modules; siw found by service binding) and once on the class path, both with
 * exactly the jars Maven resolved for this project from the installed artifacts.
 */
class FirstProgramRunsTest {
    /** The bound on one run of the program. */
    private static final long RUN_SECONDS = 60;

    /** This project's classes and the jrdma jars, from the test's own class path. */
    private static String programPath() {
        List<String> keep = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(e);
            String name = p.getFileName().toString();
            if (name.startsWith("jrdma-") && name.endsWith(".jar") || p.endsWith(Path.of("target", "classes"))) {
                keep.add(e);
            }
        }
        assertEquals(3, keep.size(), "target/classes, jrdma-core and jrdma-siw on the class path: " + keep);
        return String.join(File.pathSeparator, keep);
    }

    private static String run(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile("first-program", ".txt");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        boolean done = p.waitFor(RUN_SECONDS, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String text = Files.readString(out, StandardCharsets.UTF_8);
        Files.delete(out);
        assertTrue(done, "the program ended within " + RUN_SECONDS + " s: " + cmd + "\n" + text);
        assertEquals(0, p.exitValue(), "exit status of " + cmd + "\n" + text);
        return text;
    }

    @Test
    void onTheModulePath() throws Exception {
        String out = run("--module-path", programPath(), "-m", "com.example.first/com.example.first.FirstProgram");
        assertTrue(out.contains("running in module com.example.first"), out);
        assertTrue(out.contains("server received: hello over RDMA"), out);
    }

    @Test
    void onTheClassPath() throws Exception {
        String out = run("-cp", programPath(), "com.example.first.FirstProgram");
        assertTrue(out.contains("running in the unnamed module"), out);
        assertTrue(out.contains("server received: hello over RDMA"), out);
    }
}
