package io.jrdma.checks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

/**
 * One {@code pom.xml} as written (not the effective model): what the release check reads of it. Elements
 * are looked up by their path below {@code <project>}, e.g. {@code scm/url}.
 */
final class Pom {

    private final Path file;
    private final Element project;

    private Pom(Path file, Element project) {
        this.file = file;
        this.project = project;
    }

    /**
     * Reads a pom.
     *
     * @param file the pom.xml
     * @return the pom
     * @throws IOException when it cannot be read or is not XML
     */
    static Pom read(Path file) throws IOException {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Document d = f.newDocumentBuilder().parse(Files.newInputStream(file));
            return new Pom(file, d.getDocumentElement());
        } catch (ParserConfigurationException | SAXException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    Path file() {
        return file;
    }

    /** The module's directory. */
    Path dir() {
        return file.toAbsolutePath().getParent();
    }

    /**
     * The text of the element at a path below {@code <project>}, or null when it is absent or blank.
     *
     * @param path e.g. {@code description} or {@code scm/url}
     */
    String text(String path) {
        Element e = element(project, path);
        if (e == null) {
            return null;
        }
        String t = e.getTextContent().strip();
        return t.isEmpty() ? null : t;
    }

    /** The artifactId of the pom itself. */
    String artifactId() {
        return text("artifactId");
    }

    /** The packaging; jar when none is given. */
    String packaging() {
        String p = text("packaging");
        return p == null ? "jar" : p;
    }

    /** The entries of {@code <modules>}. */
    List<String> modules() {
        return texts("modules", "module");
    }

    /** Whether the pom sets the property {@code jrdma.unpublished} to true itself. */
    boolean unpublished() {
        return "true".equals(text("properties/jrdma.unpublished"));
    }

    /** The artifactIds of {@code dependencyManagement/dependencies/dependency} in group io.jrdma. */
    List<String> managedJrdmaArtifacts() {
        return jrdmaArtifacts(element(project, "dependencyManagement/dependencies"));
    }

    /** The artifactIds of {@code dependencies/dependency} in group io.jrdma. */
    List<String> jrdmaDependencies() {
        return jrdmaArtifacts(element(project, "dependencies"));
    }

    /** How many {@code <child>} elements the element at {@code path} has that carry a non-blank {@code <field>}. */
    int countWith(String path, String child, String field) {
        Element parent = element(project, path);
        int n = 0;
        if (parent == null) {
            return 0;
        }
        for (Node c = parent.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c instanceof Element e && e.getTagName().equals(child)) {
                Element f = element(e, field);
                if (f != null && !f.getTextContent().isBlank()) {
                    n++;
                }
            }
        }
        return n;
    }

    private List<String> texts(String path, String child) {
        List<String> out = new ArrayList<>();
        Element parent = element(project, path);
        if (parent == null) {
            return out;
        }
        for (Node c = parent.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c instanceof Element e && e.getTagName().equals(child)) {
                out.add(e.getTextContent().strip());
            }
        }
        return out;
    }

    private static List<String> jrdmaArtifacts(Element dependencies) {
        List<String> out = new ArrayList<>();
        if (dependencies == null) {
            return out;
        }
        for (Node c = dependencies.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c instanceof Element e && e.getTagName().equals("dependency")) {
                Element g = element(e, "groupId");
                Element a = element(e, "artifactId");
                if (g != null && a != null && g.getTextContent().strip().equals("io.jrdma")) {
                    out.add(a.getTextContent().strip());
                }
            }
        }
        return out;
    }

    private static Element element(Element from, String path) {
        Element at = from;
        for (String name : path.split("/")) {
            Element next = null;
            for (Node c = at.getFirstChild(); c != null && next == null; c = c.getNextSibling()) {
                if (c instanceof Element e && e.getTagName().equals(name)) {
                    next = e;
                }
            }
            if (next == null) {
                return null;
            }
            at = next;
        }
        return at;
    }
}
