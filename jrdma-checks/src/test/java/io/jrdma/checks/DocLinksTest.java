package io.jrdma.checks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** No dead relative link in the tree's Markdown, and the link checker itself on small made-up files. */
class DocLinksTest {

    @Test
    void noMarkdownFileOfTheTreeHasADeadRelativeLinkOrAnchor() {
        assertThat(new DocLinks(ReleaseCheckTest.root()).deadLinks()).isEmpty();
    }

    @Test
    void theUserDocsAreAmongTheFilesChecked() {
        assertThat(new DocLinks(ReleaseCheckTest.root()).markdownFiles()).as("the tree's Markdown files")
                .anyMatch(p -> p.endsWith("README.md")).anyMatch(p -> p.endsWith("docs/getting-started.md"))
                .noneMatch(p -> p.toString().contains("/target/"));
    }

    @Test
    void aLinkToAMissingFileOrHeadingIsReportedWithItsLine(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("a.md"), """
                # Title

                See [b](b.md), [b's part](b.md#part-two), [gone](c.md) and [nowhere](b.md#part-three).
                [here](#title) and [there](#no-such-heading).

                [ref]: docs/missing.md
                """);
        Files.writeString(dir.resolve("b.md"), "# B\n\n## Part two\n");
        assertThat(new DocLinks(dir).deadLinks()).containsExactly(
                "a.md:3: c.md (no such file)",
                "a.md:3: b.md#part-three (no heading #part-three in b.md)",
                "a.md:4: #no-such-heading (no heading #no-such-heading in a.md)",
                "a.md:6: docs/missing.md (no such file)");
    }

    @Test
    void codeExternalLinksDirectoriesAndImagesAreHandled(@TempDir Path dir) throws IOException {
        Files.createDirectories(dir.resolve("docs/bench"));
        Files.writeString(dir.resolve("docs/bench/chart.svg"), "<svg/>");
        Files.writeString(dir.resolve("a.md"), """
                Code is no link: `[x](missing.md)`, and neither is a fence:

                ```
                [y](missing.md)
                ```

                [site](https://example.invalid/x.md), [mail](mailto:a@example.invalid), [dir](docs/),
                ![chart](docs/bench/chart.svg "the chart"), [outside](../elsewhere/file.md).
                """);
        assertThat(new DocLinks(dir).deadLinks()).isEmpty();
    }

    @Test
    void anchorsAreGithubsHeadingSlugsWithRepeatsNumbered(@TempDir Path dir) throws IOException {
        Path md = dir.resolve("a.md");
        Files.writeString(md, """
                # Connection manager: a client and a server
                ## `-b` and --report-both (perftest 4.5)
                ## Method
                ## Method
                <a name="custom"></a>
                ```
                # not a heading
                ```
                """);
        assertThat(new DocLinks(dir).anchors(md)).containsExactlyInAnyOrder(
                "connection-manager-a-client-and-a-server", "-b-and---report-both-perftest-45", "method", "method-1",
                "custom");
        assertThat(DocLinks.slug("[Transports](transports.md) → RoCEv2")).isEqualTo("transports--rocev2");
    }
}
