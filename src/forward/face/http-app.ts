/**
 * The face's express application: every route but `/mcp` spelt exactly —
 * the operations endpoints (ops-routes.ts), the operator console when on,
 * odd spellings of `/mcp` (`/MCP`, `/mcp/`) and the 404. Built by http.ts
 * right after the server listens, so express and the console are not on
 * the start-up path.
 */
import type { RequestListener, IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import type { Bridge } from '../bridge/bridge.js';
import { mountBridgeConsole } from '../../console/bridge-console.js';
import type { HttpFaceOptions } from './http.js';
import type { ServerIdentity } from './mcp-server-sdk.js';
import { mountOpsRoutes, type OpsRoutesOptions } from './ops-routes.js';

export function createFaceApp(
  bridge: Bridge,
  identity: ServerIdentity,
  options: HttpFaceOptions,
  ops: OpsRoutesOptions,
  hosts: { allowedHosts: string[] | undefined; allowedOrigins: string[] },
  handleMcp: (req: IncomingMessage, res: ServerResponse) => void,
): RequestListener {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  mountOpsRoutes(app, ops);
  if (options.console?.enabled) {
    mountBridgeConsole(app, bridge, identity, {
      auth: options.auth,
      allowedHosts: hosts.allowedHosts,
      allowedOrigins: hosts.allowedOrigins,
      metrics: options.metrics,
      config: options.console,
    });
  }
  app.all('/mcp', handleMcp);
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  return app;
}
