/**
 * OXP tool requirements end to end: secrets, user_id and per-user
 * authorization tokens reach only the tools that declared them, missing
 * configuration is reported without a round trip, and canary values appear
 * in no log line (even at trace level) and no MCP message.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/platform/log.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { startOxpFixture, type FixtureTool, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS, readMessages, testConfig } from '../helpers/bridge-harness.js';
import { assertValidServerMessage } from '../helpers/mcp-schema.js';

const CANARY_SECRET = 'canary-twilio-secret-9f2e71';
const CANARY_FILE_SECRET = 'canary-file-secret-44d0aa';
const CANARY_TOKEN = 'canary-google-token-c3b8f5';
const CANARIES = [CANARY_SECRET, CANARY_FILE_SECRET, CANARY_TOKEN];

/** A tool that reports which context keys it received (never the values). */
function probe(id: string, requirements?: Record<string, unknown>): FixtureTool {
  return {
    id,
    name: id.replace('.', '_'),
    version: '1.0.0',
    description: id,
    input_schema: { type: 'object' },
    output_schema: { type: 'object' },
    ...(requirements ? { requirements } : {}),
    handler: (req) => {
      const ctx = (req.context ?? {}) as { secrets?: { id: string; value: string }[]; user_id?: string; authorization?: { id: string; token: string }[] };
      return {
        value: {
          secrets: (ctx.secrets ?? []).map((s) => `${s.id}:${s.value === CANARY_SECRET || s.value === CANARY_FILE_SECRET ? 'ok' : 'wrong'}`),
          user_id: ctx.user_id ?? null,
          authorization: (ctx.authorization ?? []).map((a) => `${a.id}:${a.token === CANARY_TOKEN ? 'ok' : 'wrong'}`),
          context_present: req.context !== undefined,
        },
      };
    },
  };
}

describe('tool requirements', () => {
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  const logs: string[] = [];

  before(async () => {
    fixture = await startOxpFixture({
      tools: [
        probe('Sms.Send', { secrets: [{ id: 'TWILIO_API_KEY' }] }),
        probe('Db.Query', { secrets: [{ id: 'DB_PASSWORD' }], user_id: true }),
        probe('Gmail.List', { authorization: [{ id: 'google', oauth2: { scopes: ['gmail.readonly'] } }] }),
        probe('Plain.Tool'),
        probe('Needs.Missing', { secrets: [{ id: 'NOT_CONFIGURED' }] }),
      ],
    });
    const dir = mkdtempSync(join(tmpdir(), 'bridge-secrets-'));
    const secretFile = join(dir, 'db-password');
    writeFileSync(secretFile, `${CANARY_FILE_SECRET}\n`);
    const env = { OXP_SECRET_TWILIO_API_KEY: CANARY_SECRET };
    const config = testConfig(['--oxp-url', fixture.url, '--user-id', 'user-42'], env);
    config.requirements.secrets = { DB_PASSWORD: { file: secretFile } };
    const sink = new Writable({ write: (chunk, _e, done) => (logs.push(String(chunk)), done()) });
    bridge = await startBridge(config, createLogger('trace', sink), env);
  });
  after(async () => {
    await bridge.close();
    await fixture.close();
  });

  const call = async (name: string, headers: Record<string, string> = {}) => {
    const res = await fetch(bridge.mcpUrl!, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }),
    });
    const [msg] = await readMessages(res);
    assertValidServerMessage('2025-11-25', msg, 'tools/call');
    for (const canary of CANARIES) assert.ok(!JSON.stringify(msg).includes(canary), `canary in MCP output of ${name}`);
    return msg!.result as { isError?: boolean; structuredContent?: Record<string, unknown>; content: { text: string }[] };
  };

  it('a secret from OXP_SECRET_<ID> reaches only the tool that declared it', async () => {
    assert.deepEqual((await call('Sms_Send')).structuredContent, { secrets: ['TWILIO_API_KEY:ok'], user_id: null, authorization: [], context_present: true });
    assert.deepEqual((await call('Plain_Tool')).structuredContent, { secrets: [], user_id: null, authorization: [], context_present: false });
  });

  it('a file-sourced secret and the configured user_id reach the tool that declared both', async () => {
    assert.deepEqual((await call('Db_Query')).structuredContent, { secrets: ['DB_PASSWORD:ok'], user_id: 'user-42', authorization: [], context_present: true });
  });

  it('a per-user token header reaches only a tool declaring that provider', async () => {
    const headers = { 'X-OXP-Authorization-google': `Bearer ${CANARY_TOKEN}`, 'X-OXP-Authorization-slack': 'other' };
    assert.deepEqual((await call('Gmail_List', headers)).structuredContent?.authorization, ['google:ok']);
    assert.equal((await call('Plain_Tool', headers)).structuredContent?.context_present, false);
    assert.equal((await call('Sms_Send', headers)).structuredContent?.authorization instanceof Array, true);
    assert.deepEqual((await call('Sms_Send', headers)).structuredContent?.authorization, []);
  });

  it('a missing secret is an actionable error, without a round trip', async () => {
    const before = fixture.callCount('Needs.Missing');
    const result = await call('Needs_Missing');
    assert.equal(result.isError, true);
    assert.match(result.content[0]!.text, /OXP_SECRET_NOT_CONFIGURED/);
    assert.equal(fixture.callCount('Needs.Missing'), before);
  });

  it('no canary value appears in any log line, even at trace level', () => {
    const text = logs.join('');
    assert.ok(text.includes('tool call'), 'logs were captured');
    for (const canary of CANARIES) assert.ok(!text.includes(canary), `canary ${canary} in logs`);
  });
});
