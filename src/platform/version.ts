/** The bridge's version, as both commands report it (MCP serverInfo, OXP user agent, doctor, telemetry). */
export const VERSION = '0.1.0';
