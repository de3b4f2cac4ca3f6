/**
 * The client-facing cases, written once and run for every face (HTTP,
 * stdio) and every client kind × protocol revision. Each case validates every
 * message the client received during it against the official schema of the
 * revision in force (`WireLog.assertValid`), then checks the per-revision
 * shape (test/helpers/it-expect.ts).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { FixtureTool } from '../fixtures/oxp-fixture-server.js';
import { errorCode, type ClientSpec, type JsonRpcMessage, type McpSession } from './it-clients.js';
import { expectDoorbellError, expectSuccess, expectToolsList, expectValidationError, OUTPUT_CASES } from './it-expect.js';

export interface CaseOptions {
  /** Only the core subset: list + one call of each output kind. */
  subset?: boolean;
}

const resultOf = (message: JsonRpcMessage): Record<string, unknown> => {
  assert.ok('result' in message, `expected a result, got ${JSON.stringify(message).slice(0, 500)}`);
  return message.result as Record<string, unknown>;
};

export function defineClientCases(s: ClientSpec, session: () => McpSession, fixtureTools: () => FixtureTool[], options: CaseOptions = {}): void {
  const v = s.revision;

  it(`negotiates ${v}; the handshake messages are valid ${v} messages`, () => {
    const sess = session();
    assert.equal(sess.negotiatedRevision, v);
    if (s.kind === 'v2-modern') {
      assert.equal(sess.log.sent('initialize').length, 0, 'a 2026-07-28 client never sends initialize');
      assert.ok(sess.log.received('server/discover').length >= 1, 'server/discover answered');
    } else {
      const init = resultOf(sess.log.lastResponse('initialize'));
      assert.equal(init.protocolVersion, v);
    }
    assert.ok(sess.log.assertValid(v) >= 1);
  });

  it('tools/list: every tool in its per-revision shape', async () => {
    const sess = session();
    const listed = await sess.listTools();
    const wire = resultOf(sess.log.lastResponse('tools/list'));
    assert.equal(wire.nextCursor, undefined, 'one page');
    expectToolsList(v, wire, fixtureTools());
    assert.deepEqual(
      listed.tools.map((t) => t.name),
      (wire.tools as { name: string }[]).map((t) => t.name),
    );
    sess.log.assertValid(v);
  });

  for (const c of OUTPUT_CASES) {
    it(`tools/call ${c.tool} (${c.kind} output)`, async () => {
      const sess = session();
      const result = await sess.callTool(c.tool, c.args);
      const wire = resultOf(sess.log.lastResponse('tools/call'));
      expectSuccess(v, wire, c, fixtureTools());
      assert.deepEqual(result.content, wire.content, 'the client surfaces the same content');
      sess.log.assertValid(v);
    });
  }

  if (!options.subset) {
    it('tools/call Doorbell_Ring doorbell1: retryable tool error as isError, no developer_message', async () => {
      const sess = session();
      const result = await sess.callTool('Doorbell_Ring', { doorbell_id: 'doorbell1' });
      const message = sess.log.lastResponse('tools/call');
      expectDoorbellError(v, resultOf(message), message);
      assert.equal(result.isError, true);
      assert.ok(!JSON.stringify(result).includes('does not exist'), 'developer_message reached the client API');
      sess.log.assertValid(v);
    });

    it('tools/call Validate_Strict with bad input: the 422 as isError naming count', async () => {
      const sess = session();
      const result = await sess.callTool('Validate_Strict', { count: 0 });
      expectValidationError(v, resultOf(sess.log.lastResponse('tools/call')));
      assert.equal(result.isError, true);
      sess.log.assertValid(v);
    });

    it('tools/call of an unknown tool: JSON-RPC error -32602', async () => {
      const sess = session();
      await assert.rejects(sess.callTool('No_Such_Tool', {}), (error: unknown) => {
        assert.equal(errorCode(error), -32602, String(error));
        return true;
      });
      const message = sess.log.lastResponse('tools/call');
      assert.equal((message.error as { code: number }).code, -32602);
      sess.log.assertValid(v);
    });
  }

  it(`every message the client received is a valid ${v} message; no out-of-band errors`, () => {
    const sess = session();
    sess.log.assertValid(v);
    const received = sess.log.received();
    const expectedMin = 2 + OUTPUT_CASES.length + (options.subset ? 0 : 3);
    assert.ok(received.length >= expectedMin, `received ${received.length} messages, expected at least ${expectedMin}`);
    assert.deepEqual(
      sess.errors.map((e) => e.message),
      [],
      'the client reported no transport/protocol errors',
    );
  });
}
