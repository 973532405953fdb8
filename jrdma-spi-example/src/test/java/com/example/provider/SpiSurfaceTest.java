package com.example.provider;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrdma.spi.RdmaProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleReader;
import java.lang.module.ResolvedModule;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a module outside jrdma sees of core: the SPI's public signatures name only packages core exports
 * to everyone, and a module that requires only core cannot compile against the packages it exports to
 * jrdma's own modules.
 */
class SpiSurfaceTest {
    private static final Module CORE = RdmaProvider.class.getModule();

    /** The packages core exports to every module. */
    private static Set<String> publicPackages() {
        return CORE.getDescriptor().exports().stream().filter(e -> !e.isQualified())
                .map(ModuleDescriptor.Exports::source).collect(Collectors.toCollection(TreeSet::new));
    }

    /** The packages core exports only to some modules. */
    private static Set<String> qualifiedPackages() {
        return CORE.getDescriptor().exports().stream().filter(ModuleDescriptor.Exports::isQualified)
                .map(ModuleDescriptor.Exports::source).collect(Collectors.toCollection(TreeSet::new));
    }

    private static List<Class<?>> publicTypesOf(String pkg) throws IOException {
        ResolvedModule m = CORE.getLayer().configuration().findModule(CORE.getName()).orElseThrow();
        String dir = pkg.replace('.', '/') + "/";
        List<Class<?>> types = new ArrayList<>();
        try (ModuleReader r = m.reference().open(); Stream<String> names = r.list()) {
            for (String n : (Iterable<String>) names::iterator) {
                if (n.startsWith(dir) && n.endsWith(".class") && n.indexOf('/', dir.length()) < 0
                        && !n.endsWith("package-info.class")) {
                    String cn = n.substring(0, n.length() - ".class".length()).replace('/', '.');
                    try {
                        Class<?> c = Class.forName(cn, false, RdmaProvider.class.getClassLoader());
                        if (isVisible(c)) {
                            types.add(c);
                        }
                    } catch (ClassNotFoundException e) {
                        throw new IllegalStateException(cn, e);
                    }
                }
            }
        }
        return types;
    }

    /** Public, and public all the way out (a public member type of a package-private class is not API). */
    private static boolean isVisible(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getDeclaringClass()) {
            if (!Modifier.isPublic(k.getModifiers())) {
                return false;
            }
        }
        return true;
    }

    /** Every class a type names, through type arguments, bounds and array components. */
    private static void classesOf(Type t, Set<Class<?>> out) {
        switch (t) {
            case Class<?> c -> out.add(c.isArray() ? c.componentType() : c);
            case ParameterizedType p -> {
                classesOf(p.getRawType(), out);
                for (Type a : p.getActualTypeArguments()) {
                    classesOf(a, out);
                }
            }
            case GenericArrayType g -> classesOf(g.getGenericComponentType(), out);
            case WildcardType w -> {
                for (Type b : w.getUpperBounds()) {
                    classesOf(b, out);
                }
                for (Type b : w.getLowerBounds()) {
                    classesOf(b, out);
                }
            }
            case TypeVariable<?> v -> {
                for (Type b : v.getBounds()) {
                    classesOf(b, out);
                }
            }
            default -> throw new IllegalStateException("a type of kind " + t.getClass());
        }
    }

    private static boolean apiMember(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static Set<Class<?>> namedBy(Class<?> c) {
        Set<Class<?>> named = new java.util.HashSet<>();
        if (c.getGenericSuperclass() != null) {
            classesOf(c.getGenericSuperclass(), named);
        }
        for (Type i : c.getGenericInterfaces()) {
            classesOf(i, named);
        }
        for (Class<?> p : c.getPermittedSubclasses() == null ? new Class<?>[0] : c.getPermittedSubclasses()) {
            named.add(p);
        }
        if (c.isRecord()) {
            for (RecordComponent rc : c.getRecordComponents()) {
                classesOf(rc.getGenericType(), named);
            }
        }
        for (Field f : c.getDeclaredFields()) {
            if (apiMember(f.getModifiers())) {
                classesOf(f.getGenericType(), named);
            }
        }
        List<Executable> members = new ArrayList<>(List.of(c.getDeclaredMethods()));
        for (Constructor<?> k : c.getDeclaredConstructors()) {
            members.add(k);
        }
        for (Executable e : members) {
            if (!apiMember(e.getModifiers()) || e.isSynthetic()) {
                continue;
            }
            if (e instanceof Method m) {
                classesOf(m.getGenericReturnType(), named);
            }
            for (Type p : e.getGenericParameterTypes()) {
                classesOf(p, named);
            }
            for (Type x : e.getGenericExceptionTypes()) {
                classesOf(x, named);
            }
        }
        return named;
    }

    @Test
    void theSpiNamesOnlyPackagesCoreExportsToEveryone() throws IOException {
        Set<String> exported = publicPackages();
        assertThat(exported).contains("io.jrdma.spi", "io.jrdma.spi.ibcm", "io.jrdma.verbs", "io.jrdma.cm");
        List<String> leaks = new ArrayList<>();
        int types = 0;
        for (String pkg : List.of("io.jrdma.spi", "io.jrdma.spi.ibcm")) {
            for (Class<?> c : publicTypesOf(pkg)) {
                types++;
                for (Class<?> n : namedBy(c)) {
                    if (n.isPrimitive()) {
                        continue;
                    }
                    Module m = n.getModule();
                    boolean ok = m == CORE ? exported.contains(n.getPackageName())
                            : m.isNamed() && m.getDescriptor().exports().stream()
                                    .anyMatch(e -> !e.isQualified() && e.source().equals(n.getPackageName()));
                    if (!ok) {
                        leaks.add(c.getName() + " names " + n.getName());
                    }
                }
            }
        }
        assertThat(types).as("SPI types inspected").isGreaterThan(20);
        assertThat(leaks).isEmpty();
    }

    @Test
    void aModuleRequiringOnlyCoreCompilesAgainstItsPublicPackagesAndNotItsInternalOnes(@TempDir Path dir)
            throws Exception {
        Path core = Path.of(RdmaProvider.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Set<String> qualified = qualifiedPackages();
        assertThat(qualified).isNotEmpty().allMatch(p -> p.startsWith("io.jrdma.internal."));
        for (String pkg : publicPackages()) {
            Result r = compile(dir.resolve("public-" + pkg), core, pkg);
            assertThat(r.exit()).as(pkg + ":\n" + r.output()).isZero();
        }
        for (String pkg : qualified) {
            Result r = compile(dir.resolve("internal-" + pkg), core, pkg);
            assertThat(r.exit()).as(pkg).isNotZero();
            assertThat(r.output()).contains("package " + pkg + " is not visible")
                    .contains("does not export it to module probe");
        }
    }

    /**
     * The internal packages go to the transports, the native provider and the test kit only: jrdma's other
     * modules (the tools, the DiSNI layer, the cluster) are users of the public API like any other, so
     * javac refuses them an import of an internal package.
     */
    @Test
    void coreExportsItsInternalPackagesOnlyToTheProvidersAndTheTestKit() {
        Set<String> providers = Set.of("io.jrdma.siw", "io.jrdma.rxe", "io.jrdma.kernel", "io.jrdma.testkit");
        List<ModuleDescriptor.Exports> qualified = CORE.getDescriptor().exports().stream()
                .filter(ModuleDescriptor.Exports::isQualified).toList();
        assertThat(qualified).isNotEmpty();
        for (ModuleDescriptor.Exports e : qualified) {
            assertThat(e.targets()).as(e.source()).isSubsetOf(providers);
        }
    }

    private record Result(int exit, String output) {
    }

    /** Compiles a module {@code probe} that requires core and imports every type of {@code pkg}. */
    private static Result compile(Path dir, Path core, String pkg) throws IOException {
        Path src = dir.resolve("src");
        Files.createDirectories(src.resolve("probe"));
        Files.writeString(src.resolve("module-info.java"), "module probe { requires io.jrdma.core; }\n");
        Files.writeString(src.resolve("probe/Probe.java"),
                "package probe;\nimport " + pkg + ".*;\npublic final class Probe {\n}\n");
        ToolProvider javac = ToolProvider.findFirst("javac").orElseThrow();
        java.io.StringWriter out = new java.io.StringWriter();
        try (java.io.PrintWriter pw = new java.io.PrintWriter(out)) {
            int exit = javac.run(pw, pw, "--module-path", core.toString(), "-d", dir.resolve("out").toString(),
                    "-encoding", StandardCharsets.UTF_8.name(), src.resolve("module-info.java").toString(),
                    src.resolve("probe/Probe.java").toString());
            pw.flush();
            return new Result(exit, out.toString());
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
