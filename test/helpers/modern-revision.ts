/**
 * The modern revision the raw-request suites speak (bridge-harness.ts, hot-near-misses.ts, differential.test.ts):
 * the newest of src/core/mcp-versions.ts when this module is first loaded. That is 2026-07-28, unless
 * synthetic-revision.ts registered a later one first (test/integration/synthetic-revision.test.ts), and then
 * those suites run against it.
 */
import { newestRevision } from '../../src/core/mcp-versions.js';

export const MODERN_REVISION = newestRevision();
