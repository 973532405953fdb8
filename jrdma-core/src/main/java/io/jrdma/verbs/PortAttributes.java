package io.jrdma.verbs;

/**
 * Port attributes ({@code struct ibv_port_attr}).
 *
 * @param state logical port state
 * @param maxMtu largest MTU the port supports
 * @param activeMtu MTU in use
 * @param gidTableLength number of GID table entries
 * @param linkLayer link layer
 * @param lid base LID (0 on Ethernet)
 * @param maxMsgSize largest message size
 * @param activeSpeed active speed code as ibv_devinfo prints it
 * @param activeWidth active width code
 */
public record PortAttributes(PortState state, Mtu maxMtu, Mtu activeMtu, int gidTableLength, LinkLayer linkLayer,
        int lid, long maxMsgSize, int activeSpeed, int activeWidth) {
}
