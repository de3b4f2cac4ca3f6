/**
 * The floor a proxy cannot beat: a raw node:http JSON-RPC → OXP forwarder.
 * It parses the MCP request, POSTs the OXP call (`$schema`, `tool_id`, a fresh
 * `call_id`, `input`) to the upstream over keep-alive connections, reads the
 * wrapped result and answers JSON-RPC. No validation, no projection, no
 * retries, no logging: only the two HTTP hops and the two JSON round trips
 * any MCP→OXP proxy must do. `BENCH_OXP_URL` names the upstream;
 * `BENCH_FORWARDER_CLIENT=http|undici` picks the HTTP client (undici default:
 * the faster of the two here; the bridge's OXP client is undici's too since issue 39, src/forward/client/call-pool.ts).
 */
import { randomUUID } from 'node:crypto';
import { Agent as HttpAgent, createServer, request as httpRequest } from 'node:http';
import { Agent as UndiciAgent, request as undiciRequest } from 'undici';
import { announce, readBody } from '../lib/child.js';
import { OXP_TOOL_ID, OXP_TOOL_VERSION, TOOL_NAME } from '../lib/workload.js';

const upstream = process.env.BENCH_OXP_URL;
if (!upstream) throw new Error('BENCH_OXP_URL is required');
const callUrl = new URL('/tools/call', upstream);
const useUndici = (process.env.BENCH_FORWARDER_CLIENT ?? 'undici') === 'undici';
const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 128 });
const undiciAgent = new UndiciAgent({ connections: 128, keepAliveTimeout: 30_000 });
const json = { 'content-type': 'application/json' };
const toolId = `${OXP_TOOL_ID}@${OXP_TOOL_VERSION}`;

function postHttp(body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      callUrl,
      {
        method: 'POST',
        agent: httpAgent,
        headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        readBody(res).then(resolve, reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function postUndici(body: string): Promise<string> {
  const res = await undiciRequest(callUrl, {
    method: 'POST',
    dispatcher: undiciAgent,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body,
  });
  return res.body.text();
}

const post = useUndici ? postUndici : postHttp;

const server = createServer((req, res) => {
  if (req.method !== 'POST') return void res.writeHead(405).end();
  readBody(req)
    .then(async (text) => {
      let msg: { id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: unknown; _meta?: unknown } };
      try {
        msg = JSON.parse(text) as typeof msg;
      } catch {
        return void res.writeHead(400, json).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
      }
      if (msg.method !== 'tools/call' || msg.params?.name !== TOOL_NAME) {
        return void res.writeHead(200, json).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id ?? null, error: { code: -32601, message: 'Method not found' } }));
      }
      const answer = JSON.parse(
        await post(JSON.stringify({ $schema: 'urn:oxp:1.0', request: { tool_id: toolId, call_id: randomUUID(), input: msg.params.arguments ?? {} } })),
      ) as {
        result?: { success?: boolean; value?: unknown };
      };
      const value = answer.result?.value;
      const result: Record<string, unknown> = { content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }] };
      if (answer.result?.success === false) result.isError = true;
      if (msg.params._meta) result.resultType = 'complete';
      res.writeHead(200, json).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
    })
    .catch(() => {
      if (!res.headersSent) res.writeHead(502, json).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"upstream failed"}}');
      else res.destroy();
    });
});

await announce(server, '/mcp');
