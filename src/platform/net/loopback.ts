/**
 * Whether an address stays on this machine. Shared by both faces (the MCP
 * face and oxp-server refuse to serve unauthenticated beyond loopback) and
 * the configuration, so none of them pulls in another's dependencies.
 */

/** A listen address (`--host`): localhost, ::1 / [::1], or 127.x.y.z. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
