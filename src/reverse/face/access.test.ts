/**
 * OxpAccess on its own: what a rule's patterns see of a source's tool, the
 * index per policy view (one per kind of caller, not per request), and a
 * reload that drops what the old policy decided.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AccessPolicy } from '../../core/access-policy.js';
import type { Principal } from '../../core/principal.js';
import { OxpAccess, toolFacts } from './access.js';
import { ToolIndex } from './catalog-index.js';
import type { SourceTool } from './tool-source.js';

const tool = (key: string, name: string, mcpName?: string): SourceTool => ({
  key,
  version: '1.0.0',
  definition: { id: `${key}@1.0.0`, name },
  inputSchema: { type: 'object' },
  ...(mcpName !== undefined ? { mcpName } : {}),
});
const keyPrincipal = (name: string, groups: string[]): Principal => ({ subject: name, name, kind: 'api-key', groups, scopes: [] });
const keys = (index: ToolIndex<SourceTool>) => index.tools.map((t) => t.key);

it('matches names against the MCP name (else the OXP name), oxpIds against the key, upstreams against the toolkit', () => {
  assert.deepEqual(toolFacts(tool('Fx.count_words', 'count_words', 'count/words')), { name: 'count/words', oxpId: 'Fx.count_words', upstream: 'Fx' });
  assert.deepEqual(toolFacts(tool('Calculator.Add', 'Add')), { name: 'Add', oxpId: 'Calculator.Add', upstream: 'Calculator' });
});

it('serves one index per policy view and catalog, and a reload applies the new policy', () => {
  const all = new ToolIndex([tool('Fx.add', 'add', 'add'), tool('Fx.echo_text', 'echo-text', 'echo-text'), tool('Web.add', 'add', 'add')]);
  const access = new OxpAccess(new AccessPolicy({ rules: [{ effect: 'deny', principals: { groups: ['sales'] }, tools: { upstreams: ['Web'] } }] }));
  const bob = keyPrincipal('bob', ['sales']);
  const carol = keyPrincipal('carol', ['sales']);
  const hidden = access.indexFor(all, bob);
  assert.deepEqual(keys(hidden), ['Fx.add', 'Fx.echo_text']);
  assert.equal(hidden.resolve('Web.add'), undefined);
  assert.equal(hidden.has('Web.add'), false);
  // Same rules apply to carol: the same index, not a second filtering.
  assert.equal(access.indexFor(all, carol), hidden);
  // No rule can apply to dave nor to erin: one view, one index.
  assert.equal(access.indexFor(all, keyPrincipal('dave', ['eng'])), access.indexFor(all, keyPrincipal('erin', [])));
  assert.deepEqual(keys(access.indexFor(all, access.anonymous)), ['Fx.add', 'Fx.echo_text', 'Web.add']);

  access.update(new AccessPolicy({ rules: [{ effect: 'deny', tools: { names: ['echo-*'] } }] }), { name: 'laptop', groups: [] });
  assert.deepEqual(keys(access.indexFor(all, bob)), ['Fx.add', 'Web.add']);
  assert.equal(access.anonymous.name, 'laptop');
  assert.deepEqual(access.decide(all.tools[1]!, bob), { allow: false, rule: { index: 0 } });

  // No rules: every caller is served the whole catalog itself.
  access.update(new AccessPolicy());
  assert.equal(access.indexFor(all, bob), all);
});
