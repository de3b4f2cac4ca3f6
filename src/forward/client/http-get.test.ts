/**
 * The OXP client's GETs over node:http(s) (http-get.ts): what they send and
 * return, their bounds, and their failures in the client's words (the tool
 * list and /readyz quote them). The connect timeout is covered end to end in
 * test/integration/upstream.test.ts (an upstream that never accepts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type RequestListener } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { httpGet } from './http-get.js';
import { OxpClient, OxpListError } from './client.js';

const LIMITS = { connectTimeoutMs: 2000, callTimeoutMs: 5000, listTimeoutMs: 5000, maxResponseBytes: 1024, maxTools: 100, connections: 4 };

async function serve(handler: RequestListener, tls = false) {
  const server = tls
    ? createTlsServer({ key: readFileSync('test/fixtures/tls/key.pem'), cert: readFileSync('test/fixtures/tls/cert.pem') }, handler)
    : createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const get = (url: string, maxResponseBytes = 1024, signal = new AbortController().signal) =>
  httpGet(new URL(url), { headers: { accept: 'application/json', 'x-test': 'a' }, signal, connectTimeoutMs: 2000, maxResponseBytes });

describe('httpGet', () => {
  it('sends the headers, returns status, headers and body, and closes the connection', async () => {
    let seen: IncomingHttpHeaders = {};
    const server = await serve((req, res) => {
      seen = req.headers;
      res.writeHead(203, { 'content-type': 'application/json', 'x-multi': ['1', '2'] }).end('{"ok":true}');
    });
    try {
      const res = await get(`${server.url}/tools?x=1`);
      assert.equal(res.status, 203);
      assert.equal(res.body, '{"ok":true}');
      assert.equal(res.headers['content-type'], 'application/json');
      assert.equal(res.headers['x-multi'], '1, 2');
      assert.equal(seen['x-test'], 'a');
      assert.equal(seen.connection, 'close');
    } finally {
      await server.close();
    }
  });

  it('refuses an answer over the size bound, declared or streamed', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/declared') res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000));
      else {
        res.writeHead(200); // chunked: no length up front
        for (let i = 0; i < 10; i++) res.write('y'.repeat(500));
        res.end();
      }
    });
    try {
      for (const path of ['/declared', '/streamed'])
        await assert.rejects(get(`${server.url}${path}`), { code: 'RESPONSE_TOO_LARGE', message: 'response larger than 1024 bytes' });
      assert.equal((await get(`${server.url}/streamed`, 10_000)).body.length, 5000);
    } finally {
      await server.close();
    }
  });

  it('stops when its signal aborts', async () => {
    const server = await serve(() => undefined); // never answers
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('deadline')), 100);
      await assert.rejects(get(`${server.url}/tools`, 1024, controller.signal), { name: 'AbortError' });
    } finally {
      await server.close();
    }
  });

  it('speaks TLS to an https upstream and refuses a certificate it cannot trust', async () => {
    const server = await serve((_req, res) => res.end('{}'), true);
    try {
      await assert.rejects(get(`${server.url}/tools`), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    } finally {
      await server.close();
    }
  });
});

describe('OxpClient GETs in its own words', () => {
  const client = (baseUrl: string) => new OxpClient({ ...LIMITS, baseUrl, auth: { kind: 'bearer', token: 'canary-token-0123456789' }, userAgent: 'test' });

  it('the tool list: credentials sent, failures named without upstream text', async () => {
    let authorization: string | undefined;
    const ok = await serve((req, res) => {
      authorization = req.headers.authorization;
      if (req.url === '/tools') res.writeHead(200, { 'content-type': 'application/json' }).end('{"tools":[]}');
      else res.writeHead(404).end();
    });
    const tooBig = await serve((_req, res) => res.end(JSON.stringify({ tools: [], pad: 'z'.repeat(2000) })));
    const untrusted = await serve((_req, res) => res.end('{"tools":[]}'), true);
    const refused = await serve(() => undefined);
    await refused.close();
    try {
      assert.deepEqual((await client(ok.url).listTools()).tools, []);
      assert.equal(authorization, 'Bearer canary-token-0123456789');
      for (const [url, reason] of [
        [tooBig.url, 'GET /tools: response larger than 1024 bytes'],
        [untrusted.url, 'GET /tools: TLS certificate not trusted'],
        [refused.url, 'GET /tools: connection refused'],
      ] as const) {
        const error = await client(url)
          .listTools()
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        assert.ok(error instanceof OxpListError, `${url}: ${String(error)}`);
        assert.equal(error.reason, reason);
      }
    } finally {
      await Promise.all([ok.close(), tooBig.close(), untrusted.close()]);
    }
  });

  it('destroy() ends a GET under way; close() waits for one', async () => {
    const server = await serve((req, res) => setTimeout(() => res.end('{"tools":[]}'), req.url === '/tools' ? 300 : 0));
    try {
      const waited = client(server.url);
      const listing = waited.listTools();
      await new Promise((r) => setTimeout(r, 50));
      await waited.close();
      assert.deepEqual((await listing).tools, [], 'close() let the GET finish');

      const stopped = client(server.url);
      const cut = stopped.listTools().then(
        () => 'listed',
        (e: OxpListError) => e.reason,
      );
      await new Promise((r) => setTimeout(r, 50));
      await stopped.destroy();
      assert.match(await cut, /^GET \/tools: /);
    } finally {
      await server.close();
    }
  });
});
