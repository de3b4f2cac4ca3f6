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

export const SCENARIOS: Scenario[] = [
  ...readmeScenarios,
  ...configurationScenarios,
  ...oxpServerScenarios,
  ...productionScenarios,
  ...observabilityScenarios,
  ...translationScenarios,
];
