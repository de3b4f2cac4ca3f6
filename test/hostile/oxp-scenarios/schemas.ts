/** Hostile OXP scenarios: schemas (served by ../hostile-oxp-server.ts, written with ../oxp-kit.ts). */
import type { HostileOxpScenario } from '../oxp-kit.js';

export const SCHEMA_SCENARIOS: Record<string, HostileOxpScenario> = {};
