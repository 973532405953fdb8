/**
 * DiSNI 2.1's API on jrdma: {@code com.ibm.disni} (endpoints and groups), {@code com.ibm.disni.verbs} (the
 * connection manager, the verbs and the stateful verb calls) and {@code com.ibm.disni.util}, implemented on
 * jrdma's public API only; {@code io.jrdma.disni} holds what jrdma-disni adds.
 */
module io.jrdma.disni {
    requires io.jrdma.core;
    requires org.slf4j;

    exports com.ibm.disni;
    exports com.ibm.disni.verbs;
    exports com.ibm.disni.util;
    exports io.jrdma.disni;
}
