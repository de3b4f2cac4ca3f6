/**
 * A minimal, fast OXP 1.0 server on node:http (no framework, nothing recorded
 * per request): `GET /health`, `GET /tools`, `POST /tools/call`. It serves the
 * trivial `Bench.Echo` tool, plus `BENCH_OXP_EXTRA_TOOLS` generated tools with
 * realistic definitions (catalog-scale runs). Spec-shaped answers: the wrapped
 * `{"$schema","result":{call_id,duration,success,value}}`.
 *
 * A call whose message is `hold` is answered only at `POST /release` (`GET /held`: how many wait), and at once after
 * it: bench/heap.ts holds a known number of calls in flight in the bridge while it takes a heap snapshot.
 */
import { createServer } from 'node:http';
import { announce, readBody } from '../lib/child.js';
import { ECHO_INPUT_SCHEMA, OXP_TOOL_ID, OXP_TOOL_VERSION, TOOL_NAME } from '../lib/workload.js';

const SCHEMA = 'urn:oxp:1.0';
const extra = Number(process.env.BENCH_OXP_EXTRA_TOOLS ?? 0);

/** Tool `i` of a generated catalog: the size and shape of a real toolkit's definition (~1 KB of JSON). */
export function generatedTool(i: number): Record<string, unknown> {
  const kit = `Kit${String(Math.floor(i / 50)).padStart(3, '0')}`;
  const n = String(i).padStart(5, '0');
  return {
    id: `${kit}.Action${n}@1.${i % 7}.0`,
    name: `${kit}_Action${n}`,
    description: `Performs action ${n} of the ${kit} toolkit: looks up the record identified by the given id, applies the requested operation and returns the updated record with its revision.`,
    version: `1.${i % 7}.0`,
    input_schema: {
      type: 'object',
      properties: {
        record_id: { type: 'string', description: 'The id of the record to operate on.' },
        operation: { type: 'string', enum: ['read', 'update', 'archive', 'restore'], description: 'What to do with the record.' },
        fields: { type: 'object', additionalProperties: { type: 'string' }, description: 'Fields to set when updating.' },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 10, description: 'How many related items to return.' },
      },
      required: ['record_id', 'operation'],
    },
    output_schema: {
      type: 'object',
      properties: { record_id: { type: 'string' }, revision: { type: 'integer' }, fields: { type: 'object' } },
      required: ['record_id', 'revision'],
    },
  };
}

const tools: Record<string, unknown>[] = [
  {
    id: `${OXP_TOOL_ID}@${OXP_TOOL_VERSION}`,
    name: TOOL_NAME,
    description: 'Sends the message back.',
    version: OXP_TOOL_VERSION,
    input_schema: ECHO_INPUT_SCHEMA,
    output_schema: null,
  },
];
for (let i = 0; i < extra; i++) tools.push(generatedTool(i));
const toolsBody = JSON.stringify({ $schema: SCHEMA, items: tools });
const echoId = `${OXP_TOOL_ID}@${OXP_TOOL_VERSION}`;

const json = { 'content-type': 'application/json' };

/** Answers of held calls, sent at POST /release; after it, none is held. */
let held: (() => void)[] = [];
let released = false;

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/health') return void res.writeHead(200, json).end('{"status":"ok"}');
  if (req.method === 'GET' && req.url === '/tools') return void res.writeHead(200, json).end(toolsBody);
  if (req.method === 'GET' && req.url === '/held') return void res.writeHead(200, json).end(String(held.length));
  if (req.method === 'POST' && req.url === '/release') {
    const waiting = held;
    held = [];
    released = true;
    for (const answer of waiting) answer();
    return void res.writeHead(200, json).end(String(waiting.length));
  }
  if (req.method !== 'POST' || req.url !== '/tools/call') return void res.writeHead(404, json).end(JSON.stringify({ $schema: SCHEMA, message: 'Not found' }));
  readBody(req).then(
    (text) => {
      let body: { $schema?: unknown; request?: { tool_id?: unknown; call_id?: unknown; input?: { message?: unknown } } };
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        return void res.writeHead(400, json).end(JSON.stringify({ $schema: SCHEMA, message: 'The request body is not valid JSON.' }));
      }
      const request = body.request;
      if (body.$schema !== SCHEMA || !request || typeof request !== 'object')
        return void res.writeHead(400, json).end(JSON.stringify({ $schema: SCHEMA, message: 'Not an OXP 1.0 request.' }));
      const toolId = request.tool_id;
      if (toolId !== echoId && toolId !== OXP_TOOL_ID) {
        // Generated tools answer a fixed record; unknown ids get the spec's "not found".
        if (typeof toolId === 'string' && extra > 0 && /^Kit\d{3}\.Action\d{5}/.test(toolId)) {
          return void res
            .writeHead(200, json)
            .end(
              JSON.stringify({ $schema: SCHEMA, result: { call_id: request.call_id, duration: 0, success: true, value: { record_id: 'r1', revision: 1 } } }),
            );
        }
        return void res.writeHead(400, json).end(JSON.stringify({ $schema: SCHEMA, message: `Tool '${String(toolId)}' was not found` }));
      }
      const message = request.input?.message;
      if (typeof message !== 'string')
        return void res
          .writeHead(422, json)
          .end(JSON.stringify({ $schema: SCHEMA, message: 'Some input parameters are invalid', parameter_errors: { message: 'must be string' } }));
      const answer = () =>
        res.writeHead(200, json).end(JSON.stringify({ $schema: SCHEMA, result: { call_id: request.call_id, duration: 0, success: true, value: message } }));
      if (message === 'hold' && !released) held.push(answer);
      else answer();
    },
    () => res.destroy(),
  );
});

await announce(server);
