/** Starts an OXP app on a host/port and reports where it listens. */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type express from 'express';

export interface ListeningServer {
  url: string;
  close(): Promise<void>;
}

export async function listen(app: express.Express, host: string, port: number): Promise<ListeningServer> {
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(port, host, () => resolve(s));
    s.once('error', reject);
  });
  const { address, port: bound, family } = server.address() as AddressInfo;
  return {
    url: `http://${family === 'IPv6' ? `[${address}]` : address}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
