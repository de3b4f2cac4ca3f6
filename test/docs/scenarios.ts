/**
 * Every scenario of documented examples (test/docs/examples.test.ts runs
 * them), one module per page or group of pages.
 */
import type { Scenario } from './example-run.js';
import { configurationScenarios } from './scenarios-configuration.js';
import { observabilityScenarios } from './scenarios-observability.js';
import { oxpServerScenarios } from './scenarios-oxp-server.js';
import { productionScenarios } from './scenarios-production.js';
import { readmeScenarios } from './scenarios-readme.js';
import { translationScenarios } from './scenarios-translation.js';

/**
 * The scenarios in lanes that run at once (test/docs/examples.test.ts), each lane in a sandbox of its own (its own
 * ports and files: the pages' examples write the same file names), a lane's scenarios one after the other. The lanes
 * take about as long as each other (16–18 s alone, 2026-12-07), so the file takes about as long as its longest lane.
 */
export const SCENARIO_LANES: Scenario[][] = [
  oxpServerScenarios,
  [...readmeScenarios, ...productionScenarios, ...translationScenarios],
  [...configurationScenarios, ...observabilityScenarios],
];

export const SCENARIOS: Scenario[] = SCENARIO_LANES.flat();
