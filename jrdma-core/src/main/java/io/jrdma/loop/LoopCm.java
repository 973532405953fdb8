package io.jrdma.loop;

import io.jrdma.spi.IbCmProvider;

/** The loop device's IB CM datagram path: CM messages are handed between devices in memory. */
final class LoopCm implements IbCmProvider {
    private final LoopDevice device;

    LoopCm(LoopDevice device) {
        this.device = device;
    }

    LoopDevice device() {
        return device;
    }
}
