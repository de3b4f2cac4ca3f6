/**
 * The face's express application: every route but `/mcp` spelt exactly —
 * the operations endpoints (ops-routes.ts), the routes the command mounts
 * (the operator console when on: commands/forward-console.ts), odd
 * spellings of `/mcp` (`/MCP`, `/mcp/`) and the 404. Built by http.ts right
 * after the server listens, so express and the console are not on the
 * start-up path.
 */
import type { RequestListener, IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { mountOpsRoutes, type OpsRoutesOptions } from './ops-routes.js';

export function createFaceApp(
  ops: OpsRoutesOptions,
  handleMcp: (req: IncomingMessage, res: ServerResponse) => void,
  mount?: (app: express.Express) => void,
): RequestListener {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  mountOpsRoutes(app, ops);
  mount?.(app);
  app.all('/mcp', handleMcp);
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  return app;
}
