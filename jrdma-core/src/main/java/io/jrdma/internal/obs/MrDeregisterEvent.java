package io.jrdma.internal.obs;

import jdk.jfr.Category;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** A memory region was deregistered ({@code ibv_dereg_mr}): its keys are invalid from now on. */
@Name("jrdma.MrDeregister")
@Label("MR Deregister")
@Category({"jrdma", "Verbs"})
final class MrDeregisterEvent extends jdk.jfr.Event {
    @Label("Device")
    String device;

    @Label("L_Key")
    int lkey;

    @Label("R_Key")
    int rkey;

    @Label("Length")
    @jdk.jfr.DataAmount
    long length;
}
