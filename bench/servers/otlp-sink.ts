/**
 * A local OTLP/HTTP endpoint for the tracing benches, in a process of its own
 * (as a collector is): reads and discards every export (protobuf or JSON: an
 * empty body is a full success in both), counting exports and
 * bytes; `GET /stats` answers the counts. Run by bench/lib/otlp-sink.ts.
 */
import { createServer } from 'node:http';
import { announce } from '../lib/child.js';

let exports = 0;
let spansBytes = 0;

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats')
    return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ exports, spansBytes }));
  req.on('data', (chunk: Buffer) => (spansBytes += chunk.length));
  req.on('end', () => {
    exports++;
    const json = req.headers['content-type']?.startsWith('application/json');
    res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
  });
});

await announce(server);
