/** Hostile MCP scenarios: face (served by ../hostile-mcp-server.ts, written with ../mcp-kit.ts). */
import type { HostileMcpScenario } from '../mcp-kit.js';

export const FACE_SCENARIOS: Record<string, HostileMcpScenario> = {
  /** Lists its tool, then never answers a tools/call (a silent upstream). */
  'silent-call': { call: () => undefined },
};
