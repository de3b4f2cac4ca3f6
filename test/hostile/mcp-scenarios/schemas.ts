/** Hostile MCP scenarios: schemas (served by ../hostile-mcp-server.ts, written with ../mcp-kit.ts). */
import type { HostileMcpScenario } from '../mcp-kit.js';

export const SCHEMA_SCENARIOS: Record<string, HostileMcpScenario> = {};
