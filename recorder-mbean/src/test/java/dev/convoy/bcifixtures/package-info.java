/**
 * Fixture classes for the contention analysis transformer's unit tests: application-like
 * code (outside Convoy's own packages, so eligible) with every probed call site.
 */
package dev.convoy.bcifixtures;
