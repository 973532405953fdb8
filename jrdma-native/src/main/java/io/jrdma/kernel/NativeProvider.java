package io.jrdma.kernel;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jrdma.spi.DeviceProvider;
import io.jrdma.verbs.Device;
import io.jrdma.verbs.Errno;
import io.jrdma.verbs.TransportType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code native} provider: every device {@code ibv_get_device_list} returns that can be opened.
 * Unusable (no libibverbs, native access not enabled, no devices, no permission on
 * {@code /dev/infiniband/uverbs*}, a locked-memory limit too low to register anything) it offers no
 * device and says why in one line; the software providers are not affected.
 */
@SuppressWarnings("checkstyle:IllegalCatch") // MethodHandle.invokeExact declares Throwable
public final class NativeProvider implements DeviceProvider {
    /** The provider name: devices are {@code native:NAME}. */
    public static final String NAME = "native";
    /** Below this RLIMIT_MEMLOCK (bytes) no useful region can be registered. */
    static final long MIN_MEMLOCK = 64 * 1024;

    private List<Device> devices;
    private String reason;

    /** The provider ({@link java.util.ServiceLoader} makes it). */
    public NativeProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public synchronized List<Device> devices() {
        if (devices == null) {
            List<Device> found = new ArrayList<>();
            reason = discover(found);
            devices = List.copyOf(found);
        }
        return devices;
    }

    /**
     * The kernel's rdma_cm through librdmacm, when {@code librdmacm.so.1} loads: {@code io.jrdma.cm} ids whose
     * addresses a kernel device serves are connected by it.
     */
    @Override
    public Optional<io.jrdma.spi.ProviderCm> connectionManager() {
        return Rdmacm.unavailable() == null ? Optional.of(new NativeRdmaCm(this)) : Optional.empty();
    }

    @Override
    public synchronized Optional<String> unavailableReason() {
        devices();
        return Optional.ofNullable(reason);
    }

    /** Fills {@code out} with the usable devices; returns why there are none (or a note on skipped ones). */
    private static String discover(List<Device> out) {
        String why = Ibv.unavailable();
        if (why != null) {
            return why;
        }
        try (Arena a = Arena.ofConfined()) {
            long memlock = memlockLimit(a);
            if (memlock >= 0 && memlock < MIN_MEMLOCK) {
                return "RLIMIT_MEMLOCK is " + memlock + " bytes (ulimit -l): memory registration would fail; raise it"
                        + " to at least " + MIN_MEMLOCK / 1024 + " KiB";
            }
            MemorySegment num = a.allocate(JAVA_INT);
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment list = (MemorySegment) Ibv.GET_DEVICE_LIST.invokeExact(errno, num);
            if (list.address() == 0) {
                int e = Ibv.errno(errno);
                return "ibv_get_device_list failed: errno " + e + (Errno.of(e) == null ? "" : " (" + Errno.of(e)
                        + ")") + (e == 38 ? ": the kernel has no RDMA support (ib_uverbs)" : "");
            }
            int n = num.get(JAVA_INT, 0);
            if (n == 0) {
                return "no RDMA devices (ibv_get_device_list found none: /sys/class/infiniband is empty or absent)";
            }
            // The list stays allocated for the JVM's lifetime: its ibv_device pointers are the devices' identity.
            MemorySegment arr = list.reinterpret(8L * n);
            List<String> skipped = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                MemorySegment dev = arr.getAtIndex(ADDRESS, i).reinterpret(Ibv.DEVICE_SIZE);
                String name = ((MemorySegment) Ibv.GET_DEVICE_NAME.invokeExact(dev)).reinterpret(64).getString(0);
                long guid = Long.reverseBytes((long) Ibv.GET_DEVICE_GUID.invokeExact(dev));
                int transport = dev.get(JAVA_INT, Ibv.DEVICE_TRANSPORT_TYPE);
                MemorySegment ctx = (MemorySegment) Ibv.OPEN_DEVICE.invokeExact(errno, dev);
                if (ctx.address() == 0) {
                    int e = Ibv.errno(errno);
                    skipped.add(name + ": ibv_open_device errno " + e + (e == 13 || e == 1
                            ? " (no permission on /dev/infiniband/uverbs*)" : ""));
                    continue;
                }
                int rc = (int) Ibv.CLOSE_DEVICE.invokeExact(ctx);
                out.add(new NativeDevice(dev, name, guid, transport == 1 ? TransportType.IWARP : TransportType.IB,
                        transport));
            }
            if (out.isEmpty()) {
                return "no usable RDMA device: " + String.join("; ", skipped);
            }
            return null;
        } catch (Throwable t) {
            return "device discovery failed: " + t;
        }
    }

    /** The soft RLIMIT_MEMLOCK, or -1 if unlimited or unknown. */
    private static long memlockLimit(Arena a) throws Throwable {
        MemorySegment rl = a.allocate(16);
        int rc = (int) Ibv.GETRLIMIT.invokeExact(Ibv.RLIMIT_MEMLOCK, rl);
        long soft = rl.get(JAVA_LONG, 0);
        return rc != 0 || soft < 0 ? -1 : soft;
    }
}
