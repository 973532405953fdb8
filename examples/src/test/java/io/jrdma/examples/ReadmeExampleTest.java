package io.jrdma.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps README.md's "First program" and "Connection manager: a client and a server" sections in step
 * with the example sources: their Java blocks must be the tagged {@code first} region of FirstProgram
 * and the tagged {@code run} methods of RdmaServer and RdmaClient, as they are compiled and tested here;
 * and the external project's first program must be the same code. docs/getting-started.md's first program
 * is RdmaServer's and RdmaClient's {@code run} too.
 */
class ReadmeExampleTest {
    static final String SECTION = "## Connection manager: a client and a server";
    static final Path SOURCES = Path.of("src/main/java/io/jrdma/examples");

    /** The section showing the first program. */
    static final String FIRST = "## First program: one message over RDMA";
    /** The first program of the external project, which must match the example's. */
    static final Path EXTERNAL = Path.of("..", "jrdma-it", "external-project", "src", "main", "java", "com",
            "example", "first", "FirstProgram.java");

    /** The lines between {@code // tag::run[]} and {@code // end::run[]}, without their indentation. */
    static String tagged(Path source) throws IOException {
        return tagged(source, "run");
    }

    /** The lines between {@code // tag::TAG[]} and {@code // end::TAG[]}, without their indentation. */
    static String tagged(Path source, String tag) throws IOException {
        List<String> lines = Files.readAllLines(source);
        int from = lines.indexOf("    // tag::" + tag + "[]");
        int to = lines.indexOf("    // end::" + tag + "[]");
        assertThat(from).as("tag::" + tag + "[] in " + source).isNotNegative();
        assertThat(to).as("end::" + tag + "[] in " + source).isGreaterThan(from);
        StringBuilder sb = new StringBuilder();
        for (String l : lines.subList(from + 1, to)) {
            sb.append(l.startsWith("    ") ? l.substring(4) : l).append('\n');
        }
        return sb.toString();
    }

    /** The ```java blocks of the README's section. */
    static List<String> readmeBlocks() throws IOException {
        return readmeBlocks(SECTION);
    }

    /** The ```java blocks of the README's section {@code section}. */
    static List<String> readmeBlocks(String section) throws IOException {
        return javaBlocks(Path.of("..", "README.md"), section);
    }

    /** The ```java blocks of a Markdown file's section (up to the next {@code ## } heading). */
    static List<String> javaBlocks(Path file, String section) throws IOException {
        List<String> lines = Files.readAllLines(file);
        int start = lines.indexOf(section);
        assertThat(start).as(file + " has the section '" + section + "'").isNotNegative();
        List<String> blocks = new ArrayList<>();
        StringBuilder current = null;
        for (String l : lines.subList(start + 1, lines.size())) {
            if (current == null && l.startsWith("## ")) {
                break; // the next section
            }
            if (l.equals("```java")) {
                current = new StringBuilder();
            } else if (l.equals("```") && current != null) {
                blocks.add(current.toString());
                current = null;
            } else if (current != null) {
                current.append(l).append('\n');
            }
        }
        return blocks;
    }

    @Test
    void theReadmeShowsTheFirstProgramAsItIsCompiledAndRun() throws IOException {
        String program = tagged(SOURCES.resolve("FirstProgram.java"), "first");
        assertThat(readmeBlocks(FIRST)).containsExactly(program);
        long code = program.lines().filter(l -> !l.isBlank() && !l.strip().startsWith("/**")
                && !l.strip().startsWith("//")).count();
        assertThat(code).as("lines of user code in the first program").isLessThanOrEqualTo(25);
    }

    @Test
    void gettingStartedShowsTheServerAndClientCodeAsItIsCompiled() throws IOException {
        assertThat(javaBlocks(Path.of("..", "docs", "getting-started.md"),
                "## A first program (synchronous connection manager)"))
                .containsExactly(tagged(SOURCES.resolve("RdmaServer.java")),
                        tagged(SOURCES.resolve("RdmaClient.java")));
    }

    @Test
    void theExternalProjectRunsTheSameFirstProgram() throws IOException {
        assertThat(tagged(EXTERNAL, "first")).isEqualTo(tagged(SOURCES.resolve("FirstProgram.java"), "first"));
    }

    @Test
    void theReadmeShowsTheServerAndClientCodeAsItIsCompiled() throws IOException {
        assertThat(readmeBlocks()).containsExactly(tagged(SOURCES.resolve("RdmaServer.java")),
                tagged(SOURCES.resolve("RdmaClient.java")));
    }
}
