/**
 * The precompiled validators (scripts/generate-validators.ts): the fast
 * path's request validators from the official MCP schemas, and the config
 * validator from CONFIG_SCHEMA. The committed files must be exactly what the
 * generator makes of the schemas today, and must accept and refuse what the
 * schemas do.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { generate, generateConfigValidator } from '../../scripts/generate-validators.js';
import { requestValidators } from '../../src/forward/face/generated/request-validators.js';

it('src/forward/face/generated/request-validators.ts is up to date with test/schemas (npm run validators:generate)', () => {
  const committed = readFileSync(new URL('../../src/forward/face/generated/request-validators.ts', import.meta.url), 'utf8');
  assert.ok(committed === generate(), 'the generated validators are stale: run npm run validators:generate');
});

it('src/config/generated/config-validator.ts is up to date with CONFIG_SCHEMA (npm run validators:generate)', () => {
  const committed = readFileSync(new URL('../../src/config/generated/config-validator.ts', import.meta.url), 'utf8');
  assert.ok(committed === generateConfigValidator(), 'the generated config validator is stale: run npm run validators:generate');
});

it('the validators follow each revision', () => {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const modern = requestValidators['2026-07-28']!;
  assert.equal(modern.tools_call({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a', arguments: {}, _meta: envelope } }), true);
  assert.equal(
    modern.tools_call({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a', arguments: {} } }),
    false,
    '2026-07-28 requires the envelope',
  );
  assert.equal(modern.tools_list({ jsonrpc: '2.0', id: 'x', method: 'tools/list', params: { _meta: envelope, cursor: 'c' } }), true);
  for (const revision of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
    const v = requestValidators[revision]!;
    assert.equal(v.tools_call({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } }), true, revision);
    assert.equal(v.tools_call({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 1 } }), false, revision);
    assert.equal(v.tools_call({ jsonrpc: '2.0', id: 1.5, method: 'tools/call', params: { name: 'a' } }), false, `${revision}: ids are strings or integers`);
    assert.equal(v.tools_call({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a', arguments: [] } }), false, revision);
    assert.equal(v.tools_list({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), true, revision);
    assert.equal(v.tools_list({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 3 } }), false, revision);
  }
});
