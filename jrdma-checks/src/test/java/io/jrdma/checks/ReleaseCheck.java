package io.jrdma.checks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * What a release publishes, checked against Maven Central's requirements: every module of the reactor is
 * either published (listed in {@code jrdma-bom}) or marked unpublished; each published pom carries a name and
 * a description, and the BOM at the top of the hierarchy the url, licenses, scm and developers everyone
 * inherits; after {@code mvn -P release verify} each published jar module's {@code target} holds its jar,
 * sources jar and Javadoc jar (with a page for every package the module exports), and with a key each of
 * them and each pom has its {@code .asc}.
 *
 * <p>Each method returns the problems it found, one readable line each; none is a pass.
 */
final class ReleaseCheck {

    /** The BOM's artifactId: the published modules are the ones it manages. */
    static final String BOM = "jrdma-bom";

    /** This module's artifactId: it must depend on every published module, so the reactor builds them first. */
    static final String CHECKS = "jrdma-checks";

    private static final Pattern COMMENT = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);
    private static final Pattern EXPORT = Pattern.compile("\\bexports\\s+([\\w.]+)\\s*(to\\b)?");

    private final Path root;
    private final String version;
    private final Pom rootPom;
    private final Map<String, Pom> modules = new LinkedHashMap<>();

    /**
     * Reads the reactor below a root pom.
     *
     * @param root the directory of the root pom.xml
     * @param version the version the build makes
     * @throws IOException when a pom cannot be read
     */
    ReleaseCheck(Path root, String version) throws IOException {
        this.root = root;
        this.version = version;
        this.rootPom = Pom.read(root.resolve("pom.xml"));
        for (String m : rootPom.modules()) {
            Pom p = Pom.read(root.resolve(m).resolve("pom.xml"));
            modules.put(p.artifactId(), p);
        }
    }

    /** The artifactIds jrdma-bom manages: what a release publishes besides the two poms. */
    List<String> published() {
        Pom bom = modules.get(BOM);
        return bom == null ? List.of() : bom.managedJrdmaArtifacts();
    }

    /**
     * The metadata and the bookkeeping a release depends on, readable without building anything.
     *
     * @return the problems
     */
    List<String> metadata() {
        List<String> problems = new ArrayList<>();
        Pom bom = modules.get(BOM);
        if (bom == null) {
            problems.add("the root pom has no module " + BOM);
            return problems;
        }
        for (String element : new String[] {"name", "description", "url", "scm/url", "scm/connection",
                "scm/developerConnection"}) {
            if (bom.text(element) == null) {
                problems.add(BOM + ": no <" + element + "> (Maven Central requires it; every jrdma pom inherits it)");
            }
        }
        if (bom.countWith("licenses", "license", "name") == 0 || bom.countWith("licenses", "license", "url") == 0) {
            problems.add(BOM + ": no <licenses><license> with a name and a url");
        }
        if (bom.countWith("developers", "developer", "name") == 0) {
            problems.add(BOM + ": no <developers><developer> with a name");
        }
        if (bom.text("parent/artifactId") != null) {
            problems.add(BOM + ": has a parent; a BOM that inherits would impose its parent's dependencyManagement");
        }
        if (!BOM.equals(rootPom.text("parent/artifactId"))) {
            problems.add(rootPom.file() + ": its parent must be " + BOM + " (where the metadata lives)");
        }
        requireNameAndDescription(rootPom, problems);
        List<String> published = published();
        for (Pom m : modules.values()) {
            String a = m.artifactId();
            if (a.equals(BOM)) {
                continue;
            }
            if (published.contains(a)) {
                if (m.unpublished()) {
                    problems.add(a + " is in " + BOM + " but marks itself <jrdma.unpublished>true");
                }
                requireNameAndDescription(m, problems);
                if (m.packaging().equals("jar") && !Files.isRegularFile(moduleInfo(m))) {
                    problems.add(a + ": no src/main/java/module-info.java (its module name is part of the API)");
                }
            } else if (!m.unpublished()) {
                problems.add("module " + a + " is neither in " + BOM + " (published) nor marked "
                        + "<jrdma.unpublished>true</jrdma.unpublished> (not published)");
            }
        }
        for (String a : published) {
            if (!modules.containsKey(a)) {
                problems.add(BOM + " lists " + a + " but no module of the root pom builds it");
            }
        }
        Pom checks = modules.get(CHECKS);
        if (checks != null) {
            List<String> deps = checks.jrdmaDependencies();
            for (String a : published) {
                if (!deps.contains(a)) {
                    problems.add(CHECKS + "/pom.xml does not depend on " + a + ": add <dependency><groupId>io.jrdma"
                            + "</groupId><artifactId>" + a + "</artifactId><scope>test</scope></dependency> so that "
                            + "the reactor builds it before this check");
                }
            }
        }
        problems.addAll(license());
        return problems;
    }

    /**
     * The files {@code mvn -P release verify} leaves for Maven Central.
     *
     * @param signing whether a key was named, so every file needs its {@code .asc}
     * @return the problems
     */
    List<String> artifacts(boolean signing) {
        List<String> problems = new ArrayList<>();
        List<String> published = published();
        for (Pom m : modules.values()) {
            String a = m.artifactId();
            Path target = m.dir().resolve("target");
            boolean publishedJar = published.contains(a) && m.packaging().equals("jar");
            if (!published.contains(a) && !a.equals(BOM)) {
                for (String c : new String[] {"-sources.jar", "-javadoc.jar"}) {
                    if (Files.exists(target.resolve(a + "-" + version + c))) {
                        problems.add(a + " is not published but the release made its " + c.substring(1));
                    }
                }
                continue;
            }
            List<Path> files = new ArrayList<>();
            if (publishedJar) {
                Path jar = target.resolve(a + "-" + version + ".jar");
                Path sources = target.resolve(a + "-" + version + "-sources.jar");
                Path javadoc = target.resolve(a + "-" + version + "-javadoc.jar");
                files.add(jar);
                files.add(sources);
                files.add(javadoc);
                if (exists(jar, problems) && !contains(jar, "module-info.class")) {
                    problems.add(jar + ": no module-info.class");
                }
                if (exists(sources, problems)) {
                    problems.addAll(sourcesComplete(m, sources));
                }
                if (exists(javadoc, problems)) {
                    problems.addAll(javadocComplete(m, javadoc));
                }
            }
            if (signing) {
                files.add(target.resolve(a + "-" + version + ".pom"));
                for (Path f : files) {
                    Path asc = f.resolveSibling(f.getFileName() + ".asc");
                    if (!Files.isRegularFile(asc)) {
                        problems.add(asc + " is missing (a key was named, so every published file is signed)");
                    }
                }
            }
        }
        if (signing) {
            Path parentAsc = root.resolve("target").resolve(rootPom.artifactId() + "-" + version + ".pom.asc");
            if (!Files.isRegularFile(parentAsc)) {
                problems.add(parentAsc + " is missing (the parent pom is published too)");
            }
        }
        return problems;
    }

    /** The packages a module exports to everyone (qualified exports are internal). */
    static List<String> exportedPackages(String moduleInfo) {
        String code = COMMENT.matcher(moduleInfo).replaceAll(" ");
        List<String> out = new ArrayList<>();
        Matcher x = EXPORT.matcher(code);
        while (x.find()) {
            if (x.group(2) == null) {
                out.add(x.group(1));
            }
        }
        return out;
    }

    private List<String> license() {
        Path license = root.resolve("LICENSE");
        if (!Files.isRegularFile(license)) {
            return List.of("no LICENSE at the root");
        }
        String text = read(license);
        List<String> problems = new ArrayList<>();
        for (String must : new String[] {"Apache License", "Version 2.0, January 2004",
                "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION", "END OF TERMS AND CONDITIONS",
                "APPENDIX: How to apply the Apache License to your work."}) {
            if (!text.contains(must)) {
                problems.add("LICENSE is not the full Apache License 2.0 text: no \"" + must + "\"");
            }
        }
        return problems;
    }

    private static void requireNameAndDescription(Pom p, List<String> problems) {
        for (String element : new String[] {"name", "description"}) {
            if (p.text(element) == null) {
                problems.add(p.file() + ": no <" + element + "> of its own (Maven Central requires one per pom)");
            }
        }
    }

    private static Path moduleInfo(Pom m) {
        return m.dir().resolve("src/main/java/module-info.java");
    }

    private List<String> sourcesComplete(Pom m, Path sources) {
        Path src = m.dir().resolve("src/main/java");
        long expected;
        try (Stream<Path> s = Files.walk(src)) {
            expected = s.filter(p -> p.toString().endsWith(".java")).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        long found = entries(sources).stream().filter(n -> n.endsWith(".java")).count();
        if (found != expected) {
            return List.of(sources + ": " + found + " .java files, src/main/java has " + expected);
        }
        return List.of();
    }

    private List<String> javadocComplete(Pom m, Path javadoc) {
        List<String> problems = new ArrayList<>();
        List<String> names = entries(javadoc);
        for (String pkg : exportedPackages(read(moduleInfo(m)))) {
            String page = "/" + pkg.replace('.', '/') + "/package-summary.html";
            if (names.stream().noneMatch(n -> ("/" + n).endsWith(page))) {
                problems.add(javadoc + ": no page for exported package " + pkg
                        + (m.artifactId().equals("jrdma-core") ? " (add it to jrdma-core's javadoc sourceFileIncludes)"
                        : ""));
            }
        }
        return problems;
    }

    private static boolean exists(Path file, List<String> problems) {
        if (Files.isRegularFile(file)) {
            return true;
        }
        problems.add(file + " is missing");
        return false;
    }

    private static boolean contains(Path zip, String name) {
        return entries(zip).contains(name);
    }

    private static List<String> entries(Path zip) {
        List<String> names = new ArrayList<>();
        try (ZipFile z = new ZipFile(zip.toFile())) {
            for (ZipEntry e : java.util.Collections.list(z.entries())) {
                names.add(e.getName());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(zip + ": " + e.getMessage(), e);
        }
        return names;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
