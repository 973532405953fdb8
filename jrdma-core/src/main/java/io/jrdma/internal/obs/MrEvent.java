package io.jrdma.internal.obs;

import jdk.jfr.Category;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** A memory region was registered ({@code ibv_reg_mr}). */
@Name("jrdma.MrRegister")
@Label("MR Register")
@Category({"jrdma", "Verbs"})
final class MrEvent extends jdk.jfr.Event {
    @Label("Device")
    String device;

    @Label("L_Key")
    int lkey;

    @Label("R_Key")
    int rkey;

    @Label("Address")
    long address;

    @Label("Length")
    @jdk.jfr.DataAmount
    long length;

    @Label("Access")
    String access;
}
