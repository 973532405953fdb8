package io.jrdma.tools.rdma;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * How a user turns on jrdma's RoCEv2 devices for the tools: the environment variable
 * {@value #ENV}, the counterpart of {@code rdma link add rxe0 type rxe netdev eth0}. The rxe
 * provider binds UDP port 4791 on each address it is given, so it offers no device unless asked.
 *
 * <p>The value is a comma-separated list of {@code NAME:ADDRESS} pairs or bare addresses; a bare
 * address at position {@code i} becomes device {@code rxe<i>}:
 * <pre>
 *   JRDMA_RXE=10.0.4.2                      rxe0 on 10.0.4.2
 *   JRDMA_RXE=rxe0:127.0.0.1,rxe1:127.0.0.2 two devices
 *   JRDMA_RXE=rxe6:[::1]                    IPv6 needs the brackets after a name
 * </pre>
 * It becomes the system property {@value #PROPERTY} (the rxe provider's own switch, see
 * {@code io.jrdma.rxe.RxeConfig}) unless that property is already set, so
 * {@code JRDMA_JAVA_OPTS=-Djrdma.rxe.devices=...} wins. Addresses are IP literals only: nothing is
 * looked up in DNS.
 */
public final class RxeEnv {

    /** The environment variable that names the rxe devices. */
    public static final String ENV = "JRDMA_RXE";

    /** The system property the rxe provider reads its devices from. */
    public static final String PROPERTY = "jrdma.rxe.devices";

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern IPV6 = Pattern.compile("\\[?[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*\\]?");
    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]*");

    private RxeEnv() {
    }

    /**
     * Sets {@value #PROPERTY} from the value of {@value #ENV}, unless the property is set already or
     * the value is null or blank.
     *
     * @param envValue the environment variable's value, or null when it is unset
     * @param properties the system properties (or a stand-in in tests)
     * @return whether the property was set
     * @throws IllegalArgumentException when the value is not a list of devices
     */
    public static boolean apply(String envValue, Properties properties) {
        if (envValue == null || envValue.isBlank() || properties.getProperty(PROPERTY) != null) {
            return false;
        }
        properties.setProperty(PROPERTY, deviceSpec(envValue));
        return true;
    }

    /**
     * The {@value #PROPERTY} value for a {@value #ENV} value: every entry as {@code NAME:ADDRESS}.
     *
     * @param envValue the environment variable's value
     * @return the property value
     * @throws IllegalArgumentException when an entry is neither an IP literal nor NAME:IP-literal, or
     *     when two entries have the same name
     */
    public static String deviceSpec(String envValue) {
        List<String> out = new ArrayList<>();
        List<String> names = new ArrayList<>();
        String[] items = envValue.split(",");
        for (int i = 0; i < items.length; i++) {
            String item = items[i].strip();
            if (item.isEmpty()) {
                continue;
            }
            String name;
            String address;
            if (isAddress(item)) {
                name = "rxe" + i;
                address = item;
            } else {
                int colon = item.indexOf(':');
                name = colon < 0 ? item : item.substring(0, colon);
                address = colon < 0 ? "" : item.substring(colon + 1);
                if (!NAME.matcher(name).matches() || !isAddress(address)) {
                    throw new IllegalArgumentException(ENV + " entry '" + item
                            + "' is neither an IP address nor NAME:ADDRESS (e.g. 10.0.4.2 or rxe0:10.0.4.2)");
                }
            }
            if (names.contains(name)) {
                throw new IllegalArgumentException(ENV + " names device " + name + " twice");
            }
            names.add(name);
            out.add(name + ":" + address);
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(ENV + " names no device");
        }
        return String.join(",", out);
    }

    private static boolean isAddress(String s) {
        if (IPV4.matcher(s).matches()) {
            for (String octet : s.split("\\.")) {
                if (Integer.parseInt(octet) > 255) {
                    return false;
                }
            }
            return true;
        }
        if (!IPV6.matcher(s).matches() || s.startsWith("[") != s.endsWith("]")) {
            return false;
        }
        // Hex digits, colons and dots only, with a colon: the JDK parses it as an IPv6 literal and
        // never asks DNS.
        try {
            InetAddress.getByName(s.startsWith("[") ? s.substring(1, s.length() - 1) : s);
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
