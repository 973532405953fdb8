package com.ibm.disni.verbs;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.jrdma.cm.RdmaCm;
import io.jrdma.verbs.Context;
import io.jrdma.verbs.RdmaException;

/**
 * What the DiSNI objects of one process share: jrdma's connection manager (opened on first use, as librdmacm is),
 * the DiSNI wrapper of each device context, and the numbers DiSNI exposes as file descriptors and handles.
 */
final class Jrdma {
    /**
     * Comma-separated device names the connection manager is restricted to (default: every device jrdma finds, in
     * its order: siw first, then rxe, then loop).
     */
    static final String DEVICES_PROPERTY = "jrdma.disni.devices";

    private static final AtomicInteger NUMBERS = new AtomicInteger(3);
    private static final Map<Context, JrdmaVerbs.JContext> CONTEXTS = new ConcurrentHashMap<>();
    private static RdmaCm cm;
    private static List<String> devices = List.of();

    private Jrdma() {
    }

    /** The process-wide connection manager. */
    static synchronized RdmaCm cm() throws IOException {
        if (cm == null) {
            String names = System.getProperty(DEVICES_PROPERTY, "").trim();
            List<String> list = new ArrayList<>();
            for (String n : names.split(",")) {
                if (!n.isBlank()) {
                    list.add(n.trim());
                }
            }
            try {
                cm = list.isEmpty() ? RdmaCm.open() : RdmaCm.open(list.toArray(String[]::new));
            } catch (RuntimeException e) {
                throw io("opening jrdma's connection manager", e);
            }
            devices = List.copyOf(list);
        }
        return cm;
    }

    /** The devices named by {@link #DEVICES_PROPERTY}, empty if it is not set. */
    static synchronized List<String> restrictedDevices() {
        return devices;
    }

    /** A number unique in the process, for DiSNI's file descriptors and handles. */
    static int nextNumber() {
        return NUMBERS.getAndIncrement();
    }

    /** The DiSNI wrapper of {@code context}, made on first use. */
    static JrdmaVerbs.JContext context(Context context) throws IOException {
        if (context == null) {
            return null;
        }
        JrdmaVerbs.JContext c = CONTEXTS.get(context);
        if (c == null) {
            JrdmaVerbs.JContext made = new JrdmaVerbs.JContext(context, nextNumber());
            c = CONTEXTS.putIfAbsent(context, made);
            if (c == null) {
                c = made;
            }
        }
        return c;
    }

    /**
     * The checked exception DiSNI throws for a failed call: jrdma's misuse exceptions and {@link RdmaException}s
     * become {@link IOException}s that name the call and keep the cause (and its errno in the message).
     */
    static IOException io(String call, RuntimeException e) {
        return new IOException(call + " failed: " + e.getMessage(), e);
    }

    /** An interrupted wait as DiSNI reports it; the interrupt status is kept. */
    static IOException interrupted(String call, InterruptedException e) {
        Thread.currentThread().interrupt();
        InterruptedIOException x = new InterruptedIOException(call + " interrupted");
        x.initCause(e);
        return x;
    }
}
