/** Hostile MCP scenarios: secrets-urls (served by ../hostile-mcp-server.ts, written with ../mcp-kit.ts). */
import type { HostileMcpScenario } from '../mcp-kit.js';

export const SECRET_URL_SCENARIOS: Record<string, HostileMcpScenario> = {};
