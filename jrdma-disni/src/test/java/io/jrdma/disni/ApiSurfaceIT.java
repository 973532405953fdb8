package io.jrdma.disni;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.jar.JarFile;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

/**
 * Every public class and every public or protected constructor, method and field of DiSNI 2.1 (read from Maven
 * Central's disni-2.1.jar in a class loader of its own) exists in jrdma-disni with the same erased signature,
 * return type, static-ness and checked exceptions no wider than DiSNI's: code compiled against DiSNI links and
 * runs against jrdma-disni. DiSNI's {@code verbs.impl} package (its JNI binding) is not part of the API.
 */
class ApiSurfaceIT {

    private static String signature(Method m) {
        return (Modifier.isStatic(m.getModifiers()) ? "static " : "") + m.getReturnType().getName() + " "
                + m.getName() + params(m.getParameterTypes());
    }

    private static String params(Class<?>[] types) {
        return Arrays.stream(types).map(Class::getName).collect(Collectors.joining(",", "(", ")"));
    }

    private static boolean api(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    @Test
    void everyPublicMemberOfDisni21ExistsWithTheSameSignature() throws Exception {
        List<String> classes = disniClasses();
        List<String> missing = new ArrayList<>();
        int checked = 0;
        try (URLClassLoader disni = disniLoader()) {
            for (String name : classes) {
                Class<?> theirs;
                try {
                    theirs = Class.forName(name, false, disni);
                } catch (NoClassDefFoundError | ClassNotFoundException e) {
                    // DiSNI's own dependency (slf4j) is absent from this loader: read the class by its members
                    theirs = null;
                }
                if (theirs != null && !api(theirs.getModifiers())) {
                    continue;
                }
                Class<?> ours;
                try {
                    ours = Class.forName(name, false, getClass().getClassLoader());
                } catch (ClassNotFoundException e) {
                    missing.add("class " + name);
                    continue;
                }
                if (theirs == null) {
                    continue;
                }
                checked += compare(theirs, ours, missing);
            }
        }
        assertThat(missing).as("DiSNI 2.1 members jrdma-disni lacks").isEmpty();
        assertThat(checked).as("members compared").isGreaterThan(400);
    }

    /**
     * The module README's table lists, for every class of DiSNI 2.1, exactly the names of its public and
     * protected fields, constructors ({@code <init>}) and methods, and gives each class a status.
     */
    @Test
    void theReadmeTableNamesEveryPublicMemberOfEveryClass() throws Exception {
        Map<String, LinkedHashSet<String>> api = new TreeMap<>();
        try (URLClassLoader disni = disniLoader()) {
            for (String name : disniClasses()) {
                Class<?> c = Class.forName(name, false, disni);
                if (!api(c.getModifiers())) {
                    continue;
                }
                LinkedHashSet<String> members = new LinkedHashSet<>();
                for (Field f : c.getDeclaredFields()) {
                    if (api(f.getModifiers()) && !f.isSynthetic()) {
                        members.add(f.getName());
                    }
                }
                for (Constructor<?> k : c.getDeclaredConstructors()) {
                    if (api(k.getModifiers())) {
                        members.add("<init>");
                    }
                }
                for (Method m : c.getDeclaredMethods()) {
                    if (api(m.getModifiers()) && !m.isSynthetic()) {
                        members.add(m.getName());
                    }
                }
                api.put(name.substring("com.ibm.disni.".length()).replace('$', '.'), members);
            }
        }
        Pattern row = Pattern.compile("^\\| `([A-Za-z.]+)` \\| (.*?) \\| (implemented|differs|not applicable) \\|");
        Map<String, TreeSet<String>> table = new TreeMap<>();
        for (String line : Files.readAllLines(Path.of("README.md"))) {
            Matcher m = row.matcher(line);
            if (m.find() && api.containsKey(m.group(1))) {
                TreeSet<String> names = new TreeSet<>();
                for (String cell : m.group(2).split(", ")) {
                    names.add(cell.replace("`", "").strip());
                }
                table.put(m.group(1), names);
            }
        }
        List<String> wrong = new ArrayList<>();
        api.forEach((cls, members) -> {
            if (!new TreeSet<>(members).equals(table.get(cls))) {
                wrong.add(cls + " should list: " + members.stream().map(n -> "`" + n + "`")
                        .collect(Collectors.joining(", ")));
            }
        });
        assertThat(api).as("DiSNI classes read").hasSizeGreaterThan(50);
        assertThat(wrong).as("README rows whose members differ from DiSNI 2.1's").isEmpty();
    }

    private static List<String> disniClasses() throws IOException {
        List<String> classes = new ArrayList<>();
        try (JarFile j = new JarFile(Path.of(System.getProperty("disni.jar")).toFile())) {
            j.stream().map(e -> e.getName()).filter(n -> n.endsWith(".class") && !n.contains("/impl/"))
                    .forEach(n -> classes.add(n.substring(0, n.length() - 6).replace('/', '.')));
        }
        return classes;
    }

    /** DiSNI 2.1's jar in a loader of its own, with its one dependency (slf4j) from the class path. */
    private static URLClassLoader disniLoader() throws IOException {
        List<URL> urls = new ArrayList<>(List.of(Path.of(System.getProperty("disni.jar")).toUri().toURL()));
        for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            if (e.contains("slf4j-api")) {
                urls.add(Path.of(e).toUri().toURL());
            }
        }
        return new URLClassLoader(urls.toArray(URL[]::new), null);
    }

    private static int compare(Class<?> theirs, Class<?> ours, List<String> missing) throws IOException {
        int n = 0;
        TreeSet<String> our = new TreeSet<>();
        for (Method m : ours.getMethods()) {
            our.add(signature(m));
        }
        for (Class<?> c = ours; c != null; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (api(m.getModifiers())) {
                    our.add(signature(m));
                }
            }
        }
        Method[] theirMethods;
        try {
            theirMethods = theirs.getDeclaredMethods();
        } catch (NoClassDefFoundError e) {
            return 0;
        }
        for (Method m : theirMethods) {
            if (!api(m.getModifiers()) || m.isSynthetic()) {
                continue;
            }
            n++;
            if (!our.contains(signature(m))) {
                missing.add(theirs.getName() + "." + signature(m));
                continue;
            }
            try {
                Method o = findMethod(ours, m);
                for (Class<?> x : o.getExceptionTypes()) {
                    boolean covered = x.getName().startsWith("java.lang.RuntimeException")
                            || RuntimeException.class.isAssignableFrom(x) || Error.class.isAssignableFrom(x);
                    for (Class<?> t : m.getExceptionTypes()) {
                        covered |= t.getName().equals(x.getName()) || isSuper(t.getName(), x);
                    }
                    if (!covered) {
                        missing.add(theirs.getName() + "." + signature(m) + " throws " + x.getName());
                    }
                }
            } catch (NoSuchMethodException e) {
                missing.add(theirs.getName() + "." + signature(m));
            }
        }
        for (Constructor<?> c : theirs.getDeclaredConstructors()) {
            if (!api(c.getModifiers())) {
                continue;
            }
            n++;
            boolean found = false;
            for (Constructor<?> o : ours.getDeclaredConstructors()) {
                found |= api(o.getModifiers()) && params(o.getParameterTypes()).equals(params(c.getParameterTypes()));
            }
            if (!found) {
                missing.add(theirs.getName() + ".<init>" + params(c.getParameterTypes()));
            }
        }
        for (Field f : theirs.getDeclaredFields()) {
            if (!api(f.getModifiers()) || f.isSynthetic()) {
                continue;
            }
            n++;
            try {
                Field o = findField(ours, f.getName());
                if (!o.getType().getName().equals(f.getType().getName())
                        || Modifier.isStatic(o.getModifiers()) != Modifier.isStatic(f.getModifiers())
                        || !api(o.getModifiers())) {
                    missing.add(theirs.getName() + "." + f.getName() + " (type or modifiers differ)");
                }
            } catch (NoSuchFieldException e) {
                missing.add(theirs.getName() + "." + f.getName());
            }
        }
        return n;
    }

    private static boolean isSuper(String name, Class<?> x) {
        for (Class<?> c = x; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(name)) {
                return true;
            }
        }
        return false;
    }

    /** Our method with their method's erased signature (return type included). */
    private static Method findMethod(Class<?> c, Method theirs) throws NoSuchMethodException {
        String want = signature(theirs);
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Method m : k.getDeclaredMethods()) {
                if (signature(m).equals(want)) {
                    return m;
                }
            }
            for (Class<?> i : k.getInterfaces()) {
                for (Method m : i.getMethods()) {
                    if (signature(m).equals(want)) {
                        return m;
                    }
                }
            }
        }
        throw new NoSuchMethodException(want);
    }

    private static Field findField(Class<?> c, String name) throws NoSuchFieldException {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Field f : k.getDeclaredFields()) {
                if (f.getName().equals(name)) {
                    return f;
                }
            }
        }
        throw new NoSuchFieldException(name);
    }
}
