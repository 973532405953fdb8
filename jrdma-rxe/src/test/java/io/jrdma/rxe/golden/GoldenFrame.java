package io.jrdma.rxe.golden;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * One captured IPv4 packet from {@code src/test/resources/golden/*.hex} (written by
 * {@code interop/capture/make-fixtures.py}): the metadata line {@code # src=... dst=... sport=...
 * dport=... ipid=... frag=...} and the packet bytes, IPv4 header through ICRC.
 *
 * @param name file name without {@code .hex}
 * @param origin the {@code # origin:} line
 * @param packet the IPv4 packet
 * @param source IPv4 source address, network order
 * @param destination IPv4 destination address
 * @param sourcePort UDP source port
 * @param destinationPort UDP destination port
 * @param ipId the IPv4 identification in the capture
 * @param flagsFragment the IPv4 flags and fragment offset in the capture
 */
public record GoldenFrame(String name, String origin, byte[] packet, int source, int destination, int sourcePort,
        int destinationPort, int ipId, int flagsFragment) {

    /** Offset of the UDP payload (BTH) in {@link #packet()}: IPv4 20 + UDP 8. */
    public static final int PAYLOAD_OFFSET = 28;

    /** The UDP payload, BTH through ICRC, as a new segment over a copy. */
    public MemorySegment payload() {
        byte[] p = new byte[packet.length - PAYLOAD_OFFSET];
        System.arraycopy(packet, PAYLOAD_OFFSET, p, 0, p.length);
        return MemorySegment.ofArray(p);
    }

    /** Length of the UDP payload, ICRC included. */
    public int payloadLength() {
        return packet.length - PAYLOAD_OFFSET;
    }

    /** Whether Linux rxe sent this frame (the guest), rather than the capture peer. */
    public boolean fromLinux() {
        return origin.startsWith("guest");
    }

    /** Whether this is the negative control whose ICRC does not match its IPv4 header. */
    public boolean negative() {
        return name.startsWith("neg-");
    }

    @Override
    public String toString() {
        return name;
    }

    /** Every fixture, sorted by name. */
    public static List<GoldenFrame> all() {
        try {
            URL dir = GoldenFrame.class.getResource("/golden");
            if (dir == null) {
                throw new IllegalStateException("no golden/ on the test class path");
            }
            try (Stream<Path> files = Files.list(Path.of(dir.toURI()))) {
                return files.filter(p -> p.getFileName().toString().endsWith(".hex")).sorted().map(GoldenFrame::load)
                        .toList();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The fixture with this name. */
    public static GoldenFrame named(String name) {
        return all().stream().filter(f -> f.name.equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no fixture " + name));
    }

    /** The fixtures whose names start with a prefix. */
    public static List<GoldenFrame> startingWith(String prefix) {
        return all().stream().filter(f -> f.name.startsWith(prefix)).toList();
    }

    static GoldenFrame load(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            StringBuilder hex = new StringBuilder();
            Map<String, String> meta = new HashMap<>();
            String origin = "";
            for (String line : lines) {
                if (line.startsWith("# origin:")) {
                    origin = line.substring("# origin:".length()).trim();
                } else if (line.startsWith("# src=")) {
                    for (String kv : line.substring(2).trim().split(" ")) {
                        String[] p = kv.split("=", 2);
                        meta.put(p[0], p[1]);
                    }
                } else if (!line.startsWith("#") && !line.isBlank()) {
                    hex.append(line.trim());
                }
            }
            String name = file.getFileName().toString().replace(".hex", "");
            return new GoldenFrame(name, origin, HexFormat.of().parseHex(hex), ip(meta.get("src")), ip(meta.get("dst")),
                    Integer.parseInt(meta.get("sport")), Integer.parseInt(meta.get("dport")),
                    Integer.decode(meta.get("ipid")), Integer.decode(meta.get("frag")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A dotted quad as a network-order int. */
    public static int ip(String dotted) {
        String[] p = dotted.split("\\.");
        int v = 0;
        for (String s : p) {
            v = v << 8 | Integer.parseInt(s);
        }
        return v;
    }

    /** All fixtures keyed by name. */
    public static Map<String, GoldenFrame> byName() {
        Map<String, GoldenFrame> m = new HashMap<>();
        for (GoldenFrame f : all()) {
            m.put(f.name, f);
        }
        return m;
    }

    /** Names of all fixtures. */
    public static List<String> names() {
        List<String> n = new ArrayList<>();
        for (GoldenFrame f : all()) {
            n.add(f.name);
        }
        return n;
    }
}
