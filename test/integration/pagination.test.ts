/**
 * tools/list pagination with real clients: 1,200 upstream tools and
 * `--page-size 500` give three pages chained by `nextCursor`, with no
 * duplicates, every tool exactly once, and an order that depends neither on
 * the client, the revision, nor the order the upstream lists its tools in.
 * A cursor the bridge did not mint → -32602.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { generatedTools, startHttpBridge, type HttpBridge } from '../helpers/it-bridge.js';
import { connectHttp, errorCode, spec, type ClientSpec, type McpSession } from '../helpers/it-clients.js';

const COUNT = 1200;
const PAGE = 500;
const CLIENTS: ClientSpec[] = [spec('v1', '2024-11-05'), spec('v2-legacy', '2025-11-25'), spec('v2-modern', '2026-07-28')];

type Json = Record<string, unknown>;

/** Walks the pages one request at a time (explicit cursors); returns each page's names. */
async function walk(session: McpSession): Promise<{ pages: string[][]; cursors: string[] }> {
  const pages: string[][] = [];
  const cursors: string[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 10; guard++) {
    // v2 walks every page itself when called without a cursor; v1 returns one page.
    if (cursor === undefined && session.spec.kind !== 'v1') {
      const before = session.log.received('tools/list').length;
      await session.listTools();
      const responses = session.log.received('tools/list').slice(before);
      for (const r of responses) {
        const result = r.result as Json;
        pages.push((result.tools as Json[]).map((t) => t.name as string));
        if (typeof result.nextCursor === 'string') cursors.push(result.nextCursor);
      }
      return { pages, cursors };
    }
    const result = await session.listTools(cursor === undefined ? undefined : { cursor });
    pages.push(result.tools.map((t) => t.name));
    cursor = result.nextCursor;
    if (cursor === undefined) return { pages, cursors };
    cursors.push(cursor);
  }
  throw new Error('more than 10 pages');
}

describe(`tools/list pagination (${COUNT} tools, --page-size ${PAGE})`, () => {
  let fixture: OxpFixtureServer;
  let bridge: HttpBridge;
  const orders = new Map<string, string[]>();

  before(async () => {
    fixture = await startOxpFixture({ tools: generatedTools(COUNT) });
    bridge = await startHttpBridge(fixture.url, ['--page-size', String(PAGE)]);
  });
  after(async () => {
    await bridge?.close();
    await fixture?.close();
  });

  for (const s of CLIENTS) {
    it(`${s.label}: 3 pages via nextCursor, every tool once, each page a valid ${s.revision} message`, async () => {
      const session = await connectHttp(s, bridge.mcpUrl);
      try {
        const { pages, cursors } = await walk(session);
        assert.deepEqual(
          pages.map((p) => p.length),
          [PAGE, PAGE, COUNT - 2 * PAGE],
        );
        assert.equal(cursors.length, 2);
        assert.equal(new Set(cursors).size, 2, 'distinct cursors');
        const all = pages.flat();
        assert.equal(new Set(all).size, COUNT, 'no duplicates');
        assert.deepEqual(
          [...all].sort(),
          generatedTools(COUNT)
            .map((t) => t.name!)
            .sort(),
          'every tool listed',
        );
        const sent = session.log.sent('tools/list').map((m) => (m.params as Json | undefined)?.cursor);
        assert.deepEqual(sent.slice(-3), [undefined, ...cursors], 'each page was asked for with the previous nextCursor');
        assert.ok(session.log.assertValid(s.revision) >= 3);

        // Walking again gives the same order.
        if (s.kind === 'v1') {
          const again = await walk(session);
          assert.deepEqual(again.pages.flat(), all, 'deterministic across walks');
          session.log.assertValid(s.revision);
        }
        orders.set(s.label, all);
      } finally {
        await session.close();
      }
    });
  }

  it('the order is the same for every client and revision', () => {
    const [first, ...rest] = [...orders.values()];
    assert.ok(first && rest.length === CLIENTS.length - 1, 'every client walked the list');
    for (const other of rest) assert.deepEqual(other, first);
  });

  it('the order does not depend on the order the upstream lists its tools in', async () => {
    const reference = orders.get(CLIENTS[0]!.label);
    assert.ok(reference);
    fixture.setTools(generatedTools(COUNT).reverse());
    const second = await startHttpBridge(fixture.url, ['--page-size', String(PAGE)]);
    try {
      const session = await connectHttp(CLIENTS[0]!, second.mcpUrl);
      try {
        assert.deepEqual((await walk(session)).pages.flat(), reference);
        session.log.assertValid(CLIENTS[0]!.revision);
      } finally {
        await session.close();
      }
    } finally {
      await second.close();
    }
  });

  for (const s of CLIENTS) {
    it(`${s.label}: an invalid cursor → JSON-RPC error -32602`, async () => {
      const session = await connectHttp(s, bridge.mcpUrl);
      try {
        for (const cursor of ['not a cursor!', 'eyJub3QiOiJvdXJzIn0', '']) {
          await assert.rejects(session.listTools({ cursor }), (error: unknown) => {
            assert.equal(errorCode(error), -32602, `cursor ${JSON.stringify(cursor)}: ${String(error)}`);
            return true;
          });
          const message = session.log.lastResponse('tools/list');
          assert.equal((message.error as { code: number }).code, -32602);
        }
        session.log.assertValid(s.revision);
      } finally {
        await session.close();
      }
    });
  }
});
