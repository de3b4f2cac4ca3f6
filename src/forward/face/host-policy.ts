/**
 * Which Host and Origin headers the face accepts (DNS rebinding): the
 * configured lists, else localhost names when bound to loopback (Host) and
 * localhost origins (Origin). The checks answer as the SDK's do (src/platform/net/host-origin.ts).
 */
import { hostOriginProblem, localhostAllowedHostnames, localhostAllowedOrigins } from '../../platform/net/host-origin.js';
import { isLoopbackHost } from '../../platform/net/loopback.js';

export function hostPolicy(options: { host: string; allowedHosts?: string[] | undefined; allowedOrigins?: string[] | undefined }) {
  const loopback = isLoopbackHost(options.host);
  const allowedHosts = options.allowedHosts ?? (loopback ? localhostAllowedHostnames() : undefined);
  const allowedOrigins = options.allowedOrigins ?? localhostAllowedOrigins();
  return {
    allowedHosts,
    allowedOrigins,
    /** Undefined when an MCP request's Host and Origin are acceptable, else the refusal's message. */
    mcpProblem: (host: string | undefined, origin: string | undefined): string | undefined => hostOriginProblem(host, origin, allowedHosts, allowedOrigins),
  };
}
