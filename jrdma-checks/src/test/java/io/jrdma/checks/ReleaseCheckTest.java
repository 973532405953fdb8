package io.jrdma.checks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release check on this tree (the metadata in every build; after {@code mvn -P release verify} the jars,
 * and with a key the signatures), and on small made-up trees that each lack one thing.
 */
class ReleaseCheckTest {

    private static final String VERSION = "1.0";

    static Path root() {
        return Path.of(System.getProperty("jrdma.root", "..")).toAbsolutePath().normalize();
    }

    private static String version() {
        return System.getProperty("jrdma.version", "0.1.0-SNAPSHOT");
    }

    @Test
    void everyPomCarriesWhatMavenCentralRequiresAndEveryModuleIsPublishedOrMarkedNot() throws IOException {
        ReleaseCheck c = new ReleaseCheck(root(), version());
        assertThat(c.published()).contains("jrdma-core", "jrdma-siw", "jrdma-rxe", "jrdma-tools")
                .doesNotContain("jrdma-testkit", "jrdma-bench", "jrdma-examples", "jrdma-checks");
        assertThat(c.metadata()).isEmpty();
    }

    @Test
    void theReleaseLeavesTheJarsAndSignaturesMavenCentralTakes() throws IOException {
        assumeTrue(Boolean.getBoolean("jrdma.release"), "only after mvn -P release verify");
        boolean signing = Boolean.getBoolean("jrdma.signing");
        assertThat(new ReleaseCheck(root(), version()).artifacts(signing)).isEmpty();
        if (!signing) {
            // The one line a build without a key prints (surefire passes this module's output through).
            System.out.println("[WARNING] release artifacts are NOT signed (no -Dgpg.keyname=KEYID): Maven Central "
                    + "refuses unsigned artifacts; everything else it requires was built and checked");
        }
    }

    @Test
    void aModuleNeitherInTheBomNorMarkedUnpublishedIsNamed(@TempDir Path dir) throws IOException {
        Tree t = new Tree(dir);
        t.module("jrdma-extra", "", true);
        assertThat(new ReleaseCheck(dir, VERSION).metadata())
                .containsExactly("module jrdma-extra is neither in jrdma-bom (published) nor marked "
                        + "<jrdma.unpublished>true</jrdma.unpublished> (not published)");
    }

    @Test
    void aPublishedModuleTheChecksDoNotDependOnIsNamedWithTheLineToAdd(@TempDir Path dir) throws IOException {
        Tree t = new Tree(dir);
        t.bomEntries.add("jrdma-native");
        t.module("jrdma-native", "", true);
        t.checksDeps.remove("jrdma-native");
        assertThat(new ReleaseCheck(dir, VERSION).metadata()).singleElement().asString()
                .startsWith("jrdma-checks/pom.xml does not depend on jrdma-native")
                .contains("<artifactId>jrdma-native</artifactId><scope>test</scope>");
    }

    @Test
    void aBomWithoutScmOrDevelopersAndAModuleWithoutDescriptionAreNamed(@TempDir Path dir) throws IOException {
        Tree t = new Tree(dir);
        t.bomMetadata = "<url>https://example.invalid</url><licenses><license><name>Apache-2.0</name>"
                + "<url>https://www.apache.org/licenses/LICENSE-2.0.txt</url></license></licenses>";
        t.module("jrdma-core", "", false);
        assertThat(new ReleaseCheck(dir, VERSION).metadata()).containsExactlyInAnyOrder(
                "jrdma-bom: no <scm/url> (Maven Central requires it; every jrdma pom inherits it)",
                "jrdma-bom: no <scm/connection> (Maven Central requires it; every jrdma pom inherits it)",
                "jrdma-bom: no <scm/developerConnection> (Maven Central requires it; every jrdma pom inherits it)",
                "jrdma-bom: no <developers><developer> with a name",
                dir.resolve("jrdma-core/pom.xml")
                        + ": no <description> of its own (Maven Central requires one per pom)");
    }

    @Test
    void aLicenseThatIsNotTheWholeApacheTextIsNamed(@TempDir Path dir) throws IOException {
        Tree t = new Tree(dir);
        t.write();
        Files.writeString(dir.resolve("LICENSE"), "Apache License\nVersion 2.0, January 2004\n");
        assertThat(new ReleaseCheck(dir, VERSION).metadata()).hasSize(3)
                .allMatch(p -> p.startsWith("LICENSE is not the full Apache License 2.0 text"));
    }

    @Test
    void theMadeUpTreeWithEveryJarAndSignaturePasses(@TempDir Path dir) throws IOException {
        Tree t = new Tree(dir);
        t.write();
        t.release(true);
        ReleaseCheck c = new ReleaseCheck(dir, VERSION);
        assertThat(c.metadata()).isEmpty();
        assertThat(c.artifacts(true)).isEmpty();
    }

    @Test
    void aMissingJavadocPageSourcesJarOrSignatureIsNamed(@TempDir Path dir) throws IOException {
        Tree t = new Tree(dir);
        t.write();
        t.release(true);
        Path target = dir.resolve("jrdma-core/target");
        Files.delete(target.resolve("jrdma-core-1.0-sources.jar"));
        Files.delete(target.resolve("jrdma-core-1.0.jar.asc"));
        jar(target.resolve("jrdma-core-1.0-javadoc.jar"), "index.html",
                "io.jrdma.core/io/jrdma/verbs/package-summary.html");
        assertThat(new ReleaseCheck(dir, VERSION).artifacts(true)).containsExactlyInAnyOrder(
                target.resolve("jrdma-core-1.0-sources.jar") + " is missing",
                target.resolve("jrdma-core-1.0.jar.asc")
                        + " is missing (a key was named, so every published file is signed)",
                target.resolve("jrdma-core-1.0-javadoc.jar") + ": no page for exported package io.jrdma.cm "
                        + "(add it to jrdma-core's javadoc sourceFileIncludes)");
        assertThat(new ReleaseCheck(dir, VERSION).artifacts(false)).as("unsigned: no .asc asked for").hasSize(2);
    }

    @Test
    void anUnpublishedModuleThatMadeASourcesJarIsNamed(@TempDir Path dir) throws IOException {
        Tree t = new Tree(dir);
        t.module("jrdma-testkit", "<properties><jrdma.unpublished>true</jrdma.unpublished></properties>", true);
        t.release(false);
        jar(dir.resolve("jrdma-testkit/target/jrdma-testkit-1.0-sources.jar"), "module-info.java");
        assertThat(new ReleaseCheck(dir, VERSION).artifacts(false))
                .containsExactly("jrdma-testkit is not published but the release made its sources.jar");
    }

    @Test
    void onlyUnqualifiedExportsArePublicPackages() {
        String info = """
                /** The module. exports io.jrdma.fake; */
                module io.jrdma.core {
                    requires java.management;
                    exports io.jrdma.verbs;
                    exports   io.jrdma.cm ;
                    // exports io.jrdma.commented;
                    exports io.jrdma.internal.verbs to io.jrdma.siw, io.jrdma.rxe;
                    exports io.jrdma.internal.cm
                        to io.jrdma.siw;
                }
                """;
        assertThat(ReleaseCheck.exportedPackages(info)).containsExactly("io.jrdma.verbs", "io.jrdma.cm");
    }

    // ------------------------------------------------------------------------------------------ a made-up tree

    /** A root pom, jrdma-bom, jrdma-core (exports verbs and cm), jrdma-checks, and whatever a test adds. */
    private static final class Tree {
        final Path dir;
        final List<String> bomEntries = new java.util.ArrayList<>(List.of("jrdma-core"));
        final List<String> checksDeps = new java.util.ArrayList<>(List.of("jrdma-core"));
        final java.util.Map<String, String> extra = new java.util.LinkedHashMap<>();
        String bomMetadata = "<url>https://example.invalid</url><licenses><license><name>Apache-2.0</name>"
                + "<url>https://www.apache.org/licenses/LICENSE-2.0.txt</url></license></licenses>"
                + "<developers><developer><name>someone</name></developer></developers>"
                + "<scm><url>https://example.invalid</url><connection>scm:git:x</connection>"
                + "<developerConnection>scm:git:y</developerConnection></scm>";
        String coreDescription = "<description>core</description>";

        Tree(Path dir) {
            this.dir = dir;
        }

        void module(String artifactId, String properties, boolean withDescription) throws IOException {
            if (artifactId.equals("jrdma-core")) {
                coreDescription = withDescription ? "<description>core</description>" : "";
            } else {
                extra.put(artifactId, properties);
            }
            write();
        }

        void write() throws IOException {
            StringBuilder modules = new StringBuilder("<module>jrdma-bom</module><module>jrdma-core</module>");
            for (String m : extra.keySet()) {
                modules.append("<module>").append(m).append("</module>");
            }
            modules.append("<module>jrdma-checks</module>");
            pom(dir, "<parent><artifactId>jrdma-bom</artifactId></parent><artifactId>jrdma-parent</artifactId>"
                    + "<packaging>pom</packaging><name>jrdma</name><description>all</description><modules>" + modules
                    + "</modules>");
            StringBuilder managed = new StringBuilder();
            for (String a : bomEntries) {
                managed.append(dependency(a));
            }
            pom(dir.resolve("jrdma-bom"), "<artifactId>jrdma-bom</artifactId><packaging>pom</packaging><name>bom</name>"
                    + "<description>bom</description>" + bomMetadata + "<dependencyManagement><dependencies>" + managed
                    + "</dependencies></dependencyManagement>");
            pom(dir.resolve("jrdma-core"), "<artifactId>jrdma-core</artifactId><name>core</name>" + coreDescription);
            moduleInfo("jrdma-core", "module io.jrdma.core { exports io.jrdma.verbs; exports io.jrdma.cm; "
                    + "exports io.jrdma.internal.x to io.jrdma.siw; }");
            Files.createDirectories(dir.resolve("jrdma-core/src/main/java/io/jrdma/verbs"));
            Files.writeString(dir.resolve("jrdma-core/src/main/java/io/jrdma/verbs/Qp.java"), "class Qp {}");
            for (var e : extra.entrySet()) {
                pom(dir.resolve(e.getKey()), "<artifactId>" + e.getKey() + "</artifactId><name>" + e.getKey()
                        + "</name><description>x</description>" + e.getValue());
                moduleInfo(e.getKey(), "module x { exports io.jrdma.x; }");
            }
            StringBuilder deps = new StringBuilder();
            for (String a : checksDeps) {
                deps.append(dependency(a));
            }
            pom(dir.resolve("jrdma-checks"), "<artifactId>jrdma-checks</artifactId><name>checks</name>"
                    + "<description>checks</description><properties><jrdma.unpublished>true</jrdma.unpublished>"
                    + "</properties><dependencies>" + deps + "</dependencies>");
            Files.copy(root().resolve("LICENSE"), dir.resolve("LICENSE"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }

        /** The files a release of jrdma-core leaves (and the two poms' signatures). */
        void release(boolean signed) throws IOException {
            Path t = Files.createDirectories(dir.resolve("jrdma-core/target"));
            jar(t.resolve("jrdma-core-1.0.jar"), "module-info.class", "io/jrdma/verbs/Qp.class");
            jar(t.resolve("jrdma-core-1.0-sources.jar"), "module-info.java", "io/jrdma/verbs/Qp.java");
            jar(t.resolve("jrdma-core-1.0-javadoc.jar"), "index.html",
                    "io.jrdma.core/io/jrdma/verbs/package-summary.html",
                    "io.jrdma.core/io/jrdma/cm/package-summary.html");
            Files.writeString(t.resolve("jrdma-core-1.0.pom"), "<project/>");
            if (signed) {
                for (String f : new String[] {"jrdma-core-1.0.jar", "jrdma-core-1.0-sources.jar",
                        "jrdma-core-1.0-javadoc.jar", "jrdma-core-1.0.pom"}) {
                    Files.writeString(t.resolve(f + ".asc"), "sig");
                }
                Files.createDirectories(dir.resolve("target"));
                Files.writeString(dir.resolve("target/jrdma-parent-1.0.pom.asc"), "sig");
                Files.createDirectories(dir.resolve("jrdma-bom/target"));
                Files.writeString(dir.resolve("jrdma-bom/target/jrdma-bom-1.0.pom.asc"), "sig");
            }
        }

        private void moduleInfo(String module, String text) throws IOException {
            Path p = dir.resolve(module).resolve("src/main/java/module-info.java");
            Files.createDirectories(p.getParent());
            Files.writeString(p, text);
        }

        private static String dependency(String a) {
            return "<dependency><groupId>io.jrdma</groupId><artifactId>" + a + "</artifactId></dependency>";
        }

        private static void pom(Path moduleDir, String body) throws IOException {
            Files.createDirectories(moduleDir);
            Files.writeString(moduleDir.resolve("pom.xml"), "<project>" + body + "</project>");
        }
    }

    private static void jar(Path file, String... entries) throws IOException {
        Files.createDirectories(file.getParent());
        try (OutputStream o = Files.newOutputStream(file); ZipOutputStream z = new ZipOutputStream(o)) {
            for (String e : entries) {
                z.putNextEntry(new ZipEntry(e));
                z.write(e.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                z.closeEntry();
            }
        }
    }
}
