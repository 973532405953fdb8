package io.jrdma.rxe;

import io.jrdma.internal.net.Ip;
import io.jrdma.rxe.net.RxeEngine;
import io.jrdma.spi.ProviderDevice;
import io.jrdma.spi.RdmaProvider;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The RoCEv2 provider, wire-compatible with Linux {@code rdma_rxe}: RC, UC and UD QPs over UDP 4791
 * with rxe's reliability (PSNs, ACK/NAK, retransmission, RNR), and the IB CM as QP1 MADs. Devices
 * come from {@code jrdma.rxe.devices} ({@link RxeConfig}); there are none unless configured. Its
 * priority is {@link RdmaProvider#PRIORITY_ROCE}: where an iWARP device serves the same address,
 * rdma_cm picks iWARP, as the rig's Linux guest does when siw0 is registered first.
 */
public final class RxeProvider implements RdmaProvider {
    /** The provider name. */
    public static final String NAME = "rxe";
    private static final System.Logger LOG = System.getLogger(RxeProvider.class.getName());

    /** Used by {@link java.util.ServiceLoader}. */
    public RxeProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return PRIORITY_ROCE;
    }

    /** A device from an {@link RxeDeviceConfig} ({@code Rdma.open}), with an engine thread of its own. */
    @Override
    public ProviderDevice open(io.jrdma.verbs.DeviceConfig config) {
        if (!(config instanceof RxeDeviceConfig c)) {
            throw new IllegalArgumentException("rxe takes an RxeDeviceConfig, not " + config);
        }
        RxeConfig shared = new RxeConfig(List.of(), c.mtu(), c.udpPort(), c.checkIcrc(), c.packetLifeTime(),
                c.busySpin(), 1);
        RxeEngine engine = RxeEngine.dedicated(c.name(), c.busySpin(), c.checkIcrc());
        try {
            RxeDevice d = new RxeDevice(new RxeConfig.DeviceSpec(c.name(), c.address(),
                    io.jrdma.rxe.net.FaultInjector.Settings.NONE), shared, engine);
            d.ownEngine();
            return d;
        } catch (IOException | RuntimeException e) {
            engine.stop();
            throw new io.jrdma.verbs.RdmaException(io.jrdma.verbs.Errno.EADDRINUSE, "rxe device " + c.name()
                    + " cannot bind UDP " + c.address().getHostAddress() + ":" + c.udpPort() + ": " + e, e);
        }
    }

    @Override
    public List<ProviderDevice> devices() {
        RxeConfig config = RxeConfig.fromSystemProperties();
        if (config.devices().isEmpty()) {
            return List.of();
        }
        List<ProviderDevice> list = new ArrayList<>();
        for (int i = 0; i < config.devices().size(); i++) {
            RxeConfig.DeviceSpec spec = config.devices().get(i);
            // jrdma.rxe.engines: devices round robin over the JVM's engines, in the order they are named
            RxeEngine engine = RxeEngine.shared(i % config.engines(), config.busySpin(), config.checkIcrc());
            try {
                list.add(new RxeDevice(spec, config, engine));
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "rxe device " + spec.name() + " on "
                        + Ip.endpoint(new java.net.InetSocketAddress(spec.address(), config.udpPort()))
                        + " not created: " + e);
            }
        }
        return list;
    }
}
