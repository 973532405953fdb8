package io.jrdma.siw.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * The golden frames captured from Linux siw (src/test/resources/golden, see its README.md): one file per
 * frame, named {@code SCENARIO.NN.FROM.KIND.hex}, '#' comment lines, then hex.
 */
public final class Golden {
    private static final List<Fixture> ALL = load();

    private Golden() {
    }

    /**
     * One captured frame.
     *
     * @param name file name
     * @param scenario capture scenario (one TCP connection)
     * @param index position of the frame in the connection
     * @param from "siw" or "peer" (the probe)
     * @param kind mpa-req, mpa-rep, mpa-rep-reject, mpa-badkey, write, read-req, read-resp, send, terminate,
     *        opcode8
     * @param crc whether the connection negotiated CRC
     * @param bytes the frame
     */
    public record Fixture(String name, String scenario, int index, String from, String kind, boolean crc,
            byte[] bytes) {
        /** Whether it is an MPA request or reply. */
        public boolean isMpa() {
            return kind.startsWith("mpa");
        }

        /** Whether Linux siw sent it. */
        public boolean fromSiw() {
            return "siw".equals(from);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** Every fixture, in file name order. */
    public static List<Fixture> all() {
        return ALL;
    }

    /** The fixture in file {@code name}. */
    public static Fixture get(String name) {
        return ALL.stream().filter(f -> f.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no fixture " + name));
    }

    /** The frames of one scenario (one TCP connection), in capture order. */
    public static List<Fixture> scenario(String scenario) {
        return ALL.stream().filter(f -> f.scenario().equals(scenario)).toList();
    }

    /** The scenario names. */
    public static List<String> scenarios() {
        return ALL.stream().map(Fixture::scenario).distinct().toList();
    }

    /** Every FPDU fixture (no MPA frames). */
    public static Stream<Fixture> fpdus() {
        return ALL.stream().filter(f -> !f.isMpa());
    }

    /** The fixtures of one kind (mpa-req, send, terminate, ...). */
    public static Stream<Fixture> ofKind(String kind) {
        return ALL.stream().filter(f -> f.kind().equals(kind));
    }

    /** The bytes one side sent on one connection, frames in order: what the other side's decoder saw. */
    public static byte[] stream(String scenario, String from) {
        List<Fixture> frames = scenario(scenario).stream().filter(f -> f.from().equals(from)).toList();
        int n = frames.stream().mapToInt(f -> f.bytes().length).sum();
        byte[] out = new byte[n];
        int p = 0;
        for (Fixture f : frames) {
            System.arraycopy(f.bytes(), 0, out, p, f.bytes().length);
            p += f.bytes().length;
        }
        return out;
    }

    private static List<Fixture> load() {
        try {
            Path dir = Path.of(Golden.class.getResource("/golden").toURI());
            List<Fixture> out = new ArrayList<>();
            try (Stream<Path> files = Files.list(dir)) {
                for (Path p : files.filter(f -> f.toString().endsWith(".hex")).sorted(Comparator.naturalOrder())
                        .toList()) {
                    out.add(parse(p));
                }
            }
            if (out.isEmpty()) {
                throw new IllegalStateException("no golden fixtures in " + dir);
            }
            return List.copyOf(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Fixture parse(Path p) throws IOException {
        String name = p.getFileName().toString();
        String[] parts = name.split("\\.");
        StringBuilder hex = new StringBuilder();
        boolean crc = false;
        for (String line : Files.readAllLines(p)) {
            if (line.startsWith("#")) {
                crc |= line.endsWith("crc on");
            } else {
                hex.append(line.strip());
            }
        }
        return new Fixture(name, parts[0], Integer.parseInt(parts[1]), parts[2], parts[3], crc,
                HexFormat.of().parseHex(hex));
    }
}
