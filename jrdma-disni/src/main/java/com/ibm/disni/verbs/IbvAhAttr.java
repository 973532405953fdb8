package com.ibm.disni.verbs;

/** An address vector ({@code struct ibv_ah_attr}). */
@SuppressWarnings("checkstyle:methodname")
public class IbvAhAttr {
    protected IbvGlobalRoute grh;
    protected short dlid;
    protected byte sl;
    protected byte src_path_bits;
    protected byte static_rate;
    protected byte is_global;
    protected byte port_num;

    /**
     * An address vector over {@code grh}.
     *
     * @param grh the global route
     */
    protected IbvAhAttr(IbvGlobalRoute grh) {
        this.grh = grh;
    }

    /**
     * The global route.
     *
     * @return the global route
     */
    public IbvGlobalRoute getGrh() {
        return grh;
    }

    /**
     * Sets the global route.
     *
     * @param grh the new value
     */
    public void setGrh(IbvGlobalRoute grh) {
        this.grh = grh;
    }

    /**
     * The destination LID.
     *
     * @return the destination LID
     */
    public short getDlid() {
        return dlid;
    }

    /**
     * Sets the destination LID.
     *
     * @param dlid the new value
     */
    public void setDlid(short dlid) {
        this.dlid = dlid;
    }

    /**
     * The service level.
     *
     * @return the service level
     */
    public byte getSl() {
        return sl;
    }

    /**
     * Sets the service level.
     *
     * @param sl the new value
     */
    public void setSl(byte sl) {
        this.sl = sl;
    }

    /**
     * The source path bits.
     *
     * @return the source path bits
     */
    public byte getSrc_path_bits() {
        return src_path_bits;
    }

    /**
     * Sets the source path bits.
     *
     * @param src_path_bits the new value
     */
    public void setSrc_path_bits(byte src_path_bits) {
        this.src_path_bits = src_path_bits;
    }

    /**
     * The static rate.
     *
     * @return the static rate
     */
    public byte getStatic_rate() {
        return static_rate;
    }

    /**
     * Sets the static rate.
     *
     * @param static_rate the new value
     */
    public void setStatic_rate(byte static_rate) {
        this.static_rate = static_rate;
    }

    /**
     * Whether the global route is used.
     *
     * @return whether the global route is used
     */
    public byte getIs_global() {
        return is_global;
    }

    /**
     * Sets whether the global route is used.
     *
     * @param is_global the new value
     */
    public void setIs_global(byte is_global) {
        this.is_global = is_global;
    }

    /**
     * The port number.
     *
     * @return the port number
     */
    public byte getPort_num() {
        return port_num;
    }

    /**
     * Sets the port number.
     *
     * @param port_num the new value
     */
    public void setPort_num(byte port_num) {
        this.port_num = port_num;
    }
}
