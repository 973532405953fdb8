package io.jrdma.checks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The relative links of a tree's Markdown files, checked: the file or directory a link names must exist, and
 * an anchor into a Markdown file ({@code file.md#section}, {@code #section}) must be one of its headings as
 * GitHub names them (lower case, punctuation dropped, spaces as hyphens, {@code -1}, {@code -2} for repeats)
 * or an explicit {@code <a name>}/{@code id}. Links with a scheme ({@code https:}, {@code mailto:}) are not
 * followed; code spans and fenced blocks are not links.
 */
final class DocLinks {

    /** Directories never searched for Markdown: build output and version control. */
    private static final Set<String> SKIPPED = Set.of("target", ".git", "node_modules", ".idea", ".mvn");

    private static final Pattern INLINE = Pattern.compile("!?\\[(?:[^\\[\\]]|\\[[^\\]]*\\])*\\]\\(\\s*<?([^)\\s>]+)>?"
            + "(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern REFERENCE = Pattern.compile("^\\s{0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s.*)?$");
    private static final Pattern HEADING = Pattern.compile("^\\s{0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"|\\sid=\"([^\"]+)\"");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

    private final Path root;
    private final Map<Path, Set<String>> anchors = new HashMap<>();

    DocLinks(Path root) {
        this.root = root;
    }

    /**
     * Every Markdown file below the root, build output and version control left out.
     *
     * @return the files, sorted
     */
    List<Path> markdownFiles() {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(p -> p.toString().endsWith(".md") && Files.isRegularFile(p))
                    .filter(p -> {
                        for (Path part : root.relativize(p)) {
                            if (SKIPPED.contains(part.toString())) {
                                return false;
                            }
                        }
                        return true;
                    })
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The dead links of every Markdown file below the root.
     *
     * @return one line per dead link: {@code file:line: target (why)}
     */
    List<String> deadLinks() {
        List<String> dead = new ArrayList<>();
        for (Path md : markdownFiles()) {
            dead.addAll(deadLinks(md));
        }
        return dead;
    }

    /**
     * The dead links of one file.
     *
     * @param md the Markdown file
     * @return one line per dead link
     */
    List<String> deadLinks(Path md) {
        List<String> dead = new ArrayList<>();
        List<String> lines = lines(md);
        boolean fenced = false;
        String fence = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            String stripped = line.strip();
            if (fenced) {
                if (stripped.startsWith(fence)) {
                    fenced = false;
                }
                continue;
            }
            if (stripped.startsWith("```") || stripped.startsWith("~~~")) {
                fenced = true;
                fence = stripped.substring(0, 3);
                continue;
            }
            if (line.startsWith("    ") && (i == 0 || lines.get(i - 1).isBlank())) {
                continue; // an indented code block's first line; the rest are rare in this tree
            }
            String text = CODE_SPAN.matcher(line).replaceAll("");
            List<String> targets = new ArrayList<>();
            Matcher m = INLINE.matcher(text);
            while (m.find()) {
                targets.add(m.group(1));
            }
            Matcher r = REFERENCE.matcher(text);
            if (r.matches()) {
                targets.add(r.group(1));
            }
            for (String target : targets) {
                String why = check(md, target);
                if (why != null) {
                    dead.add(root.relativize(md) + ":" + (i + 1) + ": " + target + " (" + why + ")");
                }
            }
        }
        return dead;
    }

    private String check(Path md, String target) {
        if (SCHEME.matcher(target).find()) {
            return null;
        }
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        int query = path.indexOf('?');
        if (query >= 0) {
            path = path.substring(0, query);
        }
        Path file = path.isEmpty() ? md : md.getParent().resolve(decode(path)).normalize();
        if (!file.startsWith(root)) {
            return null; // outside the tree (e.g. ../shared): not this build's to check
        }
        if (!Files.exists(file)) {
            return "no such file";
        }
        if (anchor == null || anchor.isEmpty() || !file.toString().endsWith(".md") || Files.isDirectory(file)) {
            return null;
        }
        if (!anchors(file).contains(decode(anchor).toLowerCase(Locale.ROOT))) {
            return "no heading #" + anchor + " in " + root.relativize(file);
        }
        return null;
    }

    /**
     * The anchors GitHub makes for a Markdown file's headings, plus its explicit HTML anchors.
     *
     * @param md the file
     * @return the anchors, lower case
     */
    Set<String> anchors(Path md) {
        return anchors.computeIfAbsent(md, f -> {
            Set<String> out = new HashSet<>();
            Map<String, Integer> seen = new HashMap<>();
            boolean fenced = false;
            for (String line : lines(f)) {
                String s = line.strip();
                if (s.startsWith("```") || s.startsWith("~~~")) {
                    fenced = !fenced;
                    continue;
                }
                if (fenced) {
                    continue;
                }
                Matcher h = HEADING.matcher(line);
                if (h.matches()) {
                    String slug = slug(h.group(2));
                    int n = seen.merge(slug, 1, Integer::sum);
                    out.add(n == 1 ? slug : slug + "-" + (n - 1));
                }
                Matcher a = HTML_ANCHOR.matcher(line);
                while (a.find()) {
                    out.add((a.group(1) != null ? a.group(1) : a.group(2)).toLowerCase(Locale.ROOT));
                }
            }
            return out;
        });
    }

    /**
     * A heading's anchor as GitHub makes it: the text without Markdown link targets and emphasis marks, in
     * lower case, with everything but letters, digits, spaces, hyphens and underscores dropped and each
     * space a hyphen.
     *
     * @param heading the heading's text
     * @return the anchor
     */
    static String slug(String heading) {
        String t = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replaceAll("<[^>]+>", "");
        StringBuilder b = new StringBuilder();
        for (int cp : t.toLowerCase(Locale.ROOT).codePoints().toArray()) {
            if (Character.isLetterOrDigit(cp) || cp == '-' || cp == '_') {
                b.appendCodePoint(cp);
            } else if (cp == ' ') {
                b.append('-');
            }
        }
        return b.toString();
    }

    private static String decode(String s) {
        return s.replace("%20", " ");
    }

    private static List<String> lines(Path p) {
        try {
            return Files.readAllLines(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
