package io.jrdma.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps README.md's "Connection manager: a client and a server" section and docs/getting-started.md's
 * first program in step with the example sources: their Java blocks must be the tagged {@code run}
 * methods of RdmaServer and RdmaClient, as they are compiled and tested here.
 */
class ReadmeExampleTest {
    static final String SECTION = "## Connection manager: a client and a server";
    static final Path SOURCES = Path.of("src/main/java/io/jrdma/examples");

    /** The lines between {@code // tag::run[]} and {@code // end::run[]}, without their indentation. */
    static String tagged(Path source) throws IOException {
        List<String> lines = Files.readAllLines(source);
        int from = lines.indexOf("    // tag::run[]");
        int to = lines.indexOf("    // end::run[]");
        assertThat(from).as("tag::run[] in " + source).isNotNegative();
        assertThat(to).as("end::run[] in " + source).isGreaterThan(from);
        StringBuilder sb = new StringBuilder();
        for (String l : lines.subList(from + 1, to)) {
            sb.append(l.startsWith("    ") ? l.substring(4) : l).append('\n');
        }
        return sb.toString();
    }

    /** The ```java blocks of the README's section. */
    static List<String> readmeBlocks() throws IOException {
        return javaBlocks(Path.of("..", "README.md"), SECTION);
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
    void gettingStartedShowsTheSameCodeAsItIsCompiled() throws IOException {
        assertThat(javaBlocks(Path.of("..", "docs", "getting-started.md"),
                "## A first program (synchronous connection manager)"))
                .containsExactly(tagged(SOURCES.resolve("RdmaServer.java")),
                        tagged(SOURCES.resolve("RdmaClient.java")));
    }

    @Test
    void theReadmeShowsTheServerAndClientCodeAsItIsCompiled() throws IOException {
        assertThat(readmeBlocks()).containsExactly(tagged(SOURCES.resolve("RdmaServer.java")),
                tagged(SOURCES.resolve("RdmaClient.java")));
    }
}
