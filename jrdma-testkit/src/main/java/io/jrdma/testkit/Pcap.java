package io.jrdma.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Reads back the pcap files jrdma's captures write (libpcap 2.4, link type raw IP) and runs tshark on
 * them where it is installed; a test that needs tshark is skipped (an assumption) where it is not.
 */
public final class Pcap {
    /** How long tshark may take. */
    static final long TSHARK_TIMEOUT_SECONDS = 60;

    private Pcap() {
    }

    /**
     * The IP packets of a pcap file, checking its header and record framing.
     *
     * @param file the file
     * @return one byte array per record
     * @throws IOException if the file cannot be read
     */
    public static List<byte[]> records(Path file) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(b.getInt()).as("pcap magic").isEqualTo(0xa1b2c3d4);
        assertThat(b.getShort()).as("major version").isEqualTo((short) 2);
        assertThat(b.getShort()).as("minor version").isEqualTo((short) 4);
        b.position(20);
        assertThat(b.getInt()).as("LINKTYPE_RAW").isEqualTo(101);
        List<byte[]> out = new ArrayList<>();
        while (b.remaining() >= 16) {
            b.getInt();
            b.getInt();
            int incl = b.getInt();
            int orig = b.getInt();
            assertThat(incl).as("captured length").isEqualTo(orig);
            byte[] p = new byte[incl];
            b.get(p);
            out.add(p);
        }
        assertThat(b.remaining()).as("bytes after the last record").isZero();
        return out;
    }

    /**
     * Whether tshark is on the PATH.
     *
     * @return true if it is
     */
    public static boolean hasTshark() {
        for (String p : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!p.isEmpty() && Files.isExecutable(Path.of(p, "tshark"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Runs {@code tshark -n -r file ARGS} and returns what it printed; skips the test (assumption) when
     * tshark is not installed.
     *
     * @param file the capture
     * @param args more arguments, e.g. {@code -V}
     * @return tshark's output
     * @throws Exception if tshark cannot run
     */
    public static String tshark(Path file, String... args) throws Exception {
        assumeTrue(hasTshark(), "tshark is not on PATH (apt-get install tshark)");
        List<String> cmd = new ArrayList<>(List.of("tshark", "-n", "-r", file.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(TSHARK_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("tshark did not finish in " + TSHARK_TIMEOUT_SECONDS + " s");
        }
        String s = new String(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(s).isZero();
        return s;
    }
}
