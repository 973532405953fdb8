package com.ibm.disni.verbs;

/** The global route of an address vector ({@code struct ibv_global_route}). */
@SuppressWarnings("checkstyle:methodname")
public class IbvGlobalRoute {
    protected byte[] dgid = new byte[16];
    protected int flow_label;
    protected byte sgid_index;
    protected byte hop_limit;
    protected byte traffic_class;

    /** An empty route. */
    protected IbvGlobalRoute() {
    }

    /**
     * The flow label.
     *
     * @return the flow label
     */
    public int getFlow_label() {
        return flow_label;
    }

    /**
     * Sets the flow label.
     *
     * @param flow_label the new value
     */
    public void setFlow_label(int flow_label) {
        this.flow_label = flow_label;
    }

    /**
     * The source GID index.
     *
     * @return the source GID index
     */
    public byte getSgid_index() {
        return sgid_index;
    }

    /**
     * Sets the source GID index.
     *
     * @param sgid_index the new value
     */
    public void setSgid_index(byte sgid_index) {
        this.sgid_index = sgid_index;
    }

    /**
     * The hop limit.
     *
     * @return the hop limit
     */
    public byte getHop_limit() {
        return hop_limit;
    }

    /**
     * Sets the hop limit.
     *
     * @param hop_limit the new value
     */
    public void setHop_limit(byte hop_limit) {
        this.hop_limit = hop_limit;
    }

    /**
     * The traffic class.
     *
     * @return the traffic class
     */
    public byte getTraffic_class() {
        return traffic_class;
    }

    /**
     * Sets the traffic class.
     *
     * @param traffic_class the new value
     */
    public void setTraffic_class(byte traffic_class) {
        this.traffic_class = traffic_class;
    }

    /**
     * The destination GID (16 bytes).
     *
     * @return the destination GID (16 bytes)
     */
    public byte[] getDgid() {
        return dgid;
    }

    /**
     * Sets the destination GID (16 bytes).
     *
     * @param dgid the new value
     */
    public void setDgid(byte[] dgid) {
        this.dgid = dgid;
    }
}
