package io.jrdma.verbs;

import java.net.InetAddress;
import java.util.Objects;

/**
 * An address vector ({@code struct ibv_ah_attr} with its GRH): where a UD send or an RC/UC
 * connection goes. On the software transports the destination GID is the peer's IP address.
 *
 * @param dgid destination GID
 * @param sgidIndex index of the source GID in the port's table
 * @param flowLabel IPv6 flow label / RoCEv2 UDP source-port seed (20 bits)
 * @param hopLimit hop limit (TTL)
 * @param trafficClass traffic class (TOS)
 * @param sl service level
 * @param portNum local port number (1-based)
 * @param dlid destination LID (0 on Ethernet)
 */
public record AhAttr(Gid dgid, int sgidIndex, int flowLabel, int hopLimit, int trafficClass, int sl, int portNum,
        int dlid) {
    /** Validates the ranges. Linux: {@code struct ibv_ah_attr} with {@code is_global} and its {@code grh}. */
    public AhAttr {
        Objects.requireNonNull(dgid, "dgid");
        if ((flowLabel & ~0xFFFFF) != 0) {
            throw new IllegalArgumentException("flow label is 20 bits: " + flowLabel);
        }
        if (hopLimit < 0 || hopLimit > 255 || trafficClass < 0 || trafficClass > 255 || sl < 0 || sl > 15) {
            throw new IllegalArgumentException("hop limit/traffic class are 8 bits, sl 4 bits");
        }
        if (portNum < 1) {
            throw new IllegalArgumentException("port numbers start at 1: " + portNum);
        }
    }

    /**
     * An address vector to {@code dgid} on port 1 with hop limit 64. Linux: an {@code ibv_ah_attr} with
     * {@code is_global = 1} and {@code grh.dgid} set.
     */
    public static AhAttr to(Gid dgid) {
        return new AhAttr(dgid, 0, 0, 64, 0, 0, 1, 0);
    }

    /**
     * An address vector to the IP address {@code address} on port 1. Linux: an {@code ibv_ah_attr} with
     * {@code is_global = 1} and {@code grh.dgid} set.
     */
    public static AhAttr to(InetAddress address) {
        return to(Gid.of(address));
    }
}
