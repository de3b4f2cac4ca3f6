/** Hostile OXP scenarios: secrets-urls (served by ../hostile-oxp-server.ts, written with ../oxp-kit.ts). */
import type { HostileOxpScenario } from '../oxp-kit.js';

export const SECRET_URL_SCENARIOS: Record<string, HostileOxpScenario> = {};
