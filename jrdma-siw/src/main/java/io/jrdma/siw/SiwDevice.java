package io.jrdma.siw;

import io.jrdma.internal.capture.PacketTap;
import io.jrdma.internal.verbs.QpImpl;
import io.jrdma.siw.cm.CmContext;
import io.jrdma.siw.cm.SiwCm;
import io.jrdma.siw.net.SiwEngine;
import io.jrdma.siw.qp.QpContext;
import io.jrdma.siw.qp.SiwQp;
import io.jrdma.spi.AbstractProviderDevice;
import io.jrdma.spi.CmTransport;
import io.jrdma.spi.DeviceCounters;
import io.jrdma.spi.ProviderQp;
import io.jrdma.verbs.AtomicCap;
import io.jrdma.verbs.DeviceAttributes;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.Gid;
import io.jrdma.verbs.LinkLayer;
import io.jrdma.verbs.Mtu;
import io.jrdma.verbs.PacketCapture;
import io.jrdma.verbs.PortAttributes;
import io.jrdma.verbs.PortState;
import io.jrdma.verbs.QpType;
import io.jrdma.verbs.QueuePair;
import io.jrdma.verbs.RdmaException;
import io.jrdma.verbs.TransportType;
import io.jrdma.verbs.WrOpcode;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A siw device ({@code siw_device}, siw_main.c / siw_verbs.c). Its limits are Linux siw's
 * ({@code siw.h}): RC QPs only, no immediate data, no atomics, 6 SGEs (1 for an RDMA READ sink),
 * 80 inline bytes, IRD/ORD up to 128.
 */
public final class SiwDevice extends AbstractProviderDevice {
    /** siw's {@code SIW_MAX_INLINE}: 16 × (6 − 1) bytes. */
    public static final int MAX_INLINE = 80;
    /** siw's {@code SIW_MAX_QP}; {@code jrdma.siw.maxQp} lowers it (each QP holds direct memory). */
    public static final int MAX_QP = 102_400;
    /** siw's {@code SIW_MAX_MR}; {@code jrdma.siw.maxMr} lowers it. */
    public static final int MAX_MR = 1_024_000;
    /** siw's {@code SIW_MAX_ORD_QP} / {@code SIW_MAX_IRD_QP}. */
    public static final int MAX_ORD_IRD = SiwQp.MAX_ORD_IRD;

    private final boolean servesLoopback;
    private final SiwConfig config;
    private final LinkTimeouts linkTimeouts;
    private final SiwEngine[] engines;
    private final AtomicInteger nextEngine = new AtomicInteger();
    private final SiwCm cm;
    private final SiwCounters counters;
    private volatile PacketTap tap;
    /** What this device's QPs see of it. */
    private final QpContext qpContext = new QpContext() {
        @Override
        public String deviceName() {
            return name();
        }

        @Override
        public PacketTap tap() {
            return tap;
        }

        @Override
        public java.time.Duration stall() {
            return linkTimeouts.stall();
        }

        @Override
        public java.time.Duration keepIdle() {
            return linkTimeouts.keepIdle();
        }

        @Override
        public java.time.Duration keepInterval() {
            return linkTimeouts.keepInterval();
        }

        @Override
        public int keepCount() {
            return linkTimeouts.keepCount();
        }

        @Override
        public void linkTimedOut() {
            counters.linkTimeout();
        }
    };
    /** What this device's CM sees of it. */
    private final CmContext cmContext = new CmContext() {
        @Override
        public String deviceName() {
            return name();
        }

        @Override
        public SiwEngine nextEngine() {
            return SiwDevice.this.nextEngine();
        }

        @Override
        public SiwCounters counters() {
            return counters;
        }
    };

    SiwDevice(String name, int index, List<InetAddress> addresses, SiwConfig config, LinkTimeouts linkTimeouts) {
        long guid = 0x0200_5eff_fe51_0000L | index;
        InetAddress first = addresses.stream().filter(a -> !a.isLoopbackAddress()).findFirst()
                .orElse(addresses.get(0));
        super(name, TransportType.IWARP, new DeviceAttributes("0.0.0", guid, guid, -1L >>> 1, 0x626d74, 0,
                Integer.getInteger("jrdma.siw.maxQp", MAX_QP), 32_768, 6, 1, 102_400, 3_276_800,
                Integer.getInteger("jrdma.siw.maxMr", MAX_MR), 102_400, MAX_ORD_IRD, MAX_ORD_IRD, AtomicCap.NONE, 1024,
                327_680, 6, 0, MAX_INLINE, 1),
                new PortAttributes(PortState.ACTIVE, Mtu.MTU_4096, Mtu.MTU_1024, 1, LinkLayer.ETHERNET, 0,
                        0x7FFF_FFFFL, 2, 1),
                List.of(Gid.of(first)), addresses, new DeviceCounters(name, SiwCounters.KEPT));
        this.linkTimeouts = linkTimeouts;
        this.servesLoopback = addresses.stream().anyMatch(InetAddress::isLoopbackAddress);
        this.config = config;
        this.engines = new SiwEngine[config.engines()];
        for (int i = 0; i < engines.length; i++) {
            engines[i] = new SiwEngine(name + "-" + i, config);
        }
        this.counters = new SiwCounters(deviceCounters());
        this.cm = new SiwCm(cmContext, config);
    }

    /** Stops the device's engines: it was closed ({@code Rdma.open}'s device), its QPs are gone. */
    @Override
    public void close() {
        for (SiwEngine e : engines) {
            e.stop();
        }
    }

    /** The device's iWARP counters. */
    public SiwCounters counters() {
        return counters;
    }

    /** The transport's configuration. */
    public SiwConfig config() {
        return config;
    }

    /** How the device's QPs detect a dead connection. */
    public LinkTimeouts linkTimeouts() {
        return linkTimeouts;
    }

    /** What the device's CM sees of it (a CM with another configuration is built on the same). */
    public CmContext cmContext() {
        return cmContext;
    }

    /** Picks an engine for a new QP, round robin (siw spreads QPs over tx CPUs likewise). */
    public SiwEngine nextEngine() {
        return engines[Math.floorMod(nextEngine.getAndIncrement(), engines.length)];
    }

    @Override
    public boolean followsNetworkLink() {
        return true;
    }

    @Override
    public boolean servesAddress(InetAddress address) {
        if (address.isLoopbackAddress()) {
            return servesLoopback;
        }
        return super.servesAddress(address);
    }

    @Override
    public boolean supportsQpType(QpType type) {
        return type == QpType.RC;
    }

    @Override
    public boolean supportsOpcode(WrOpcode op) {
        return switch (op) {
            case SEND, SEND_WITH_INV, RDMA_WRITE, RDMA_READ, LOCAL_INV -> true;
            case SEND_WITH_IMM, RDMA_WRITE_WITH_IMM, ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> false;
        };
    }

    @Override
    public ProviderQp createQp(QueuePair qp) {
        try {
            return new SiwQp(QpImpl.of(qp), qpContext, nextEngine());
        } catch (OutOfMemoryError e) {
            // A QP's buffers are direct memory: running out is a resource limit (ENOMEM), not a JVM crash.
            throw new RdmaException(Errno.ENOMEM, name() + ": no direct memory left for another QP's buffers (raise"
                    + " -XX:MaxDirectMemorySize or lower jrdma.siw.maxQp): " + e.getMessage(), e);
        }
    }

    @Override
    public CmTransport cmTransport() {
        return cm;
    }

    @Override
    public void captureChanged(PacketCapture capture) {
        this.tap = PacketTap.of(capture);
    }

    /** The device's running capture, or {@code null} (one volatile read). */
    public PacketTap tap() {
        return tap;
    }
}
