/** Hostile OXP scenarios: front (served by ../hostile-oxp-server.ts, written with ../oxp-kit.ts). */
import type { HostileOxpScenario } from '../oxp-kit.js';

export const FRONT_SCENARIOS: Record<string, HostileOxpScenario> = {};
