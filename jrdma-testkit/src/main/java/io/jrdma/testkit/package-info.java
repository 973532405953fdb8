/**
 * jrdma's test kit.
 *
 * <p>{@link io.jrdma.testkit.VerbsConformanceSuite} is the provider-neutral verbs conformance suite:
 * a provider subclasses it in its tests and returns a {@link io.jrdma.testkit.VerbsFixture} that
 * says which device to test, how to connect two endpoints with given
 * {@link io.jrdma.testkit.QpOptions} (by hand with {@link io.jrdma.testkit.ManualConnector}, or
 * through the connection manager), and which {@link io.jrdma.testkit.Features} the transport has.
 *
 * <p>{@link io.jrdma.testkit.Property} is the in-house property runner (seeded tries, reported seed,
 * smallest failing size). {@link io.jrdma.testkit.Await}, {@link io.jrdma.testkit.CanaryBuffer} and
 * {@link io.jrdma.testkit.DataPattern} are the bounded-wait, guarded-memory and test-data helpers
 * the suite uses; provider tests may use them too.
 */
package io.jrdma.testkit;
