/**
 * src/oxp-client/undici-parts.ts takes undici's Agent, errors and request
 * API from its modules rather than its index (start-up time): they must be
 * the index's own, in the pinned version, and `request` must answer as the
 * index's does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as undici from 'undici';
import { Agent, errors, request } from '../../src/oxp-client/undici-parts.js';

test('Agent and the error classes are the index\'s own', () => {
  assert.equal(Agent, undici.Agent);
  assert.equal(errors, undici.errors);
  assert.equal(typeof new Agent().request, 'function');
});

test('request answers as the index\'s request does (method, path with query, headers, body)', async () => {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c)).on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, url: req.url, h: req.headers['x-test'], body })));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const agent = new Agent();
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const [url, opts] of [
      [`${base}/tools?x=1`, { headers: { 'x-test': 'a' } }],
      [new URL(`${base}/tools/call`), { method: 'POST', body: '{"a":1}' }],
      [`${base}/put`, { body: 'b' }],
    ] as const) {
      const ours = await request(url, { ...opts, dispatcher: agent });
      const theirs = await undici.request(url, { ...opts, dispatcher: agent });
      assert.equal(ours.statusCode, theirs.statusCode);
      assert.deepEqual(await ours.body.json(), await theirs.body.json());
    }
  } finally {
    await agent.close();
    server.close();
  }
});
