package io.jrdma.bench;

import io.jrdma.cm.RdmaCm;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * The transports the benchmark runs over, each as a client and a server device in this JVM.
 */
enum Transport {
    /** iWARP (siw0) over TCP on 127.0.0.1, both ends on the one device. */
    SIW("siw", "siw0", "siw0", "127.0.0.1", "127.0.0.1"),
    /** RoCEv2 between rxe0 on 127.0.0.1 and rxe1 on 127.0.0.2 (one UDP port 4791 each). */
    RXE("rxe", "rxe0", "rxe1", "127.0.0.1", "127.0.0.2"),
    /** The in-process provider (loop0): memory copies between QPs, no sockets. */
    LOOP("loop", "loop0", "loop0", "127.0.0.1", "127.0.0.1");

    /** The rxe devices the benchmark registers ({@code jrdma.rxe.devices}). */
    static final String RXE_DEVICES = "rxe0:127.0.0.1,rxe1:127.0.0.2";

    private final String label;
    private final String clientDevice;
    private final String serverDevice;
    private final String clientAddress;
    private final String serverAddress;

    Transport(String label, String clientDevice, String serverDevice, String clientAddress, String serverAddress) {
        this.label = label;
        this.clientDevice = clientDevice;
        this.serverDevice = serverDevice;
        this.clientAddress = clientAddress;
        this.serverAddress = serverAddress;
    }

    /** The short name used in tables and JSON. */
    String label() {
        return label;
    }

    /** The client's device. */
    String clientDevice() {
        return clientDevice;
    }

    /** The server's device. */
    String serverDevice() {
        return serverDevice;
    }

    /** The client's address, port 0. */
    InetSocketAddress clientAddress() {
        return address(clientAddress, 0);
    }

    /** The server's address, port 0. */
    InetSocketAddress serverAddress() {
        return address(serverAddress, 0);
    }

    /** The server's IP address as text. */
    String serverHost() {
        return serverAddress;
    }

    /** A connection manager over this transport's devices only. */
    RdmaCm openCm() {
        return clientDevice.equals(serverDevice) ? RdmaCm.open(clientDevice) : RdmaCm.open(clientDevice, serverDevice);
    }

    private static InetSocketAddress address(String host, int port) {
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(host, e);
        }
    }
}
