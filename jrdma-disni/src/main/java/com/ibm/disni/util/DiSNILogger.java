package com.ibm.disni.util;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The slf4j logger DiSNI's classes log to ({@code com.ibm.disni}); jrdma-disni itself logs to System.Logger. */
public class DiSNILogger {
    private static Logger logger;

    /** Not needed: the logger is static. */
    public DiSNILogger() {
    }

    /**
     * The logger named {@code com.ibm.disni}.
     *
     * @return the logger
     */
    public static synchronized Logger getLogger() {
        if (logger == null) {
            logger = LoggerFactory.getLogger("com.ibm.disni");
        }
        return logger;
    }
}
