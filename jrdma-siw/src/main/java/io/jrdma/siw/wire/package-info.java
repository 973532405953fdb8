/**
 * iWARP wire codecs, pinned by golden bytes captured from Linux 6.1 siw (see
 * {@code src/test/resources/golden/README.md}).
 *
 * <ul>
 *   <li>Data path, flyweights over {@link java.lang.foreign.MemorySegment} that never allocate and never
 *       validate implicitly: {@link io.jrdma.siw.wire.FpduHeader} (MPA length + DDP/RDMAP header),
 *       {@link io.jrdma.siw.wire.ReadRequestHeader}, {@link io.jrdma.siw.wire.TerminateHeader};
 *       the opcode table {@link io.jrdma.siw.wire.RdmapOpcode}; the trailer CRC
 *       {@link io.jrdma.siw.wire.MpaCrc}.</li>
 *   <li>Control path, records with limits checked in their constructors: the MPA request and reply
 *       ({@link io.jrdma.siw.wire.MpaFrame}) and the TERMINATE message
 *       ({@link io.jrdma.siw.wire.Terminate}). Their decoders return a result instead of throwing on
 *       malformed input, so the transport can answer with the protocol's error.</li>
 * </ul>
 *
 * <p>All multi-byte fields are big-endian (network order) except the MPA CRC trailer, which carries the
 * CRC32c value little-endian (verified against siw). Linux file modelled: {@code siw/iwarp.h}.
 */
package io.jrdma.siw.wire;
