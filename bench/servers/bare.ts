/**
 * The upper bound: a bare node:http JSON-RPC handler that parses the request,
 * checks it is `tools/call` of `echo`, and answers the same result the others
 * answer. No MCP validation, no upstream: what Node itself costs.
 */
import { createServer } from 'node:http';
import { announce, readBody } from '../lib/child.js';
import { TOOL_NAME } from '../lib/workload.js';

const json = { 'content-type': 'application/json' };

const server = createServer((req, res) => {
  if (req.method !== 'POST') return void res.writeHead(405).end();
  readBody(req).then(
    (text) => {
      let msg: { id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: { message?: unknown }; _meta?: unknown } };
      try {
        msg = JSON.parse(text) as typeof msg;
      } catch {
        return void res.writeHead(400, json).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
      }
      if (msg.method !== 'tools/call' || msg.params?.name !== TOOL_NAME) {
        return void res.writeHead(200, json).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id ?? null, error: { code: -32601, message: 'Method not found' } }));
      }
      const result: Record<string, unknown> = { content: [{ type: 'text', text: String(msg.params.arguments?.message) }] };
      if (msg.params._meta) result.resultType = 'complete';
      res.writeHead(200, json).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
    },
    () => res.destroy(),
  );
});

await announce(server, '/mcp');
