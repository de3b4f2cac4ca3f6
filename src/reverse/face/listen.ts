/** Starts an OXP app on a host/port, with the server bounds of server-limits.ts, and reports where it listens. */
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';
import { LAST_REQUESTS_SETTLE_MS } from '../../platform/net/drain-phase.js';
import { createLimitedServer, DEFAULT_SERVER_LIMITS, type ServerLimits } from '../../platform/net/server-limits.js';

export interface ListeningServer {
  url: string;
  /**
   * Waits for the requests being answered, up to `deadlineMs`; resolves with those left. The listener still accepts
   * (the app answers what comes, a 503 once it refuses: platform/net/drain-phase.ts) until close().
   */
  drain(deadlineMs: number): Promise<number>;
  /** Closes every connection now, whatever it is doing. */
  close(): Promise<void>;
}

export async function listen(app: RequestListener, host: string, port: number, limits: ServerLimits = DEFAULT_SERVER_LIMITS): Promise<ListeningServer> {
  const limited = createLimitedServer(limits, app);
  const server = limited.server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { address, port: bound, family } = server.address() as AddressInfo;
  return {
    url: `http://${family === 'IPv6' ? `[${address}]` : address}:${bound}`,
    drain: (deadlineMs) => limited.idle(deadlineMs),
    // After a drain that left nothing running, the last requests a proxy sent as it ended get their answer first.
    close: () => limited.destroy(limited.active === 0 ? LAST_REQUESTS_SETTLE_MS : 0),
  };
}
