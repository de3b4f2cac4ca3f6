/**
 * The operator console (src/console/) mounted on the forward command's HTTP face, as reverse.ts mounts the
 * oxp-server's on its OXP face: the face offers the hook (forward/face/http.ts, `FaceMount`) and knows nothing of the
 * console. Both halves load after the face listens: the call recorder with the MCP pipeline, so that it sees the first
 * call (console/bridge-calls.ts, no express), the pages with express.
 */
import type { Bridge } from '../forward/bridge/bridge.js';
import type { FaceMount } from '../forward/face/http.js';
import type { InboundAuth } from '../forward/face/inbound-auth.js';
import type { ServerIdentity } from '../forward/face/mcp-server-sdk.js';
import type { Metrics } from '../platform/metrics.js';
import type { ConsoleConfig } from '../console/bridge-console.js';

export function bridgeConsoleMount(bridge: Bridge, identity: ServerIdentity, auth: InboundAuth, metrics: Metrics, config: ConsoleConfig): FaceMount {
  return {
    withPipeline: () => import('../console/bridge-calls.js').then((m) => void m.recordBridgeCalls(bridge, config)),
    routes: () =>
      import('../console/bridge-console.js').then((m) => (app, hosts) => m.mountBridgeConsole(app, bridge, identity, { auth, ...hosts, metrics, config })),
  };
}
