import assert from 'node:assert/strict';
import { it } from 'node:test';
import { buildOxpCatalog } from './mcp-to-oxp.js';
import { configuredDescription, unmatchedPolicyKeys } from './mcp-to-oxp-policy.js';

const tool = (name: string) => ({ name, description: `MCP ${name}`, inputSchema: { type: 'object' as const, properties: {} } });

it('a description is found under the MCP name, the rename, the OXP name or the id (in that order); inherited keys are nobody', () => {
  const names = { mcpName: 'read_text_file', wanted: 'read', name: 'read', key: 'Files.read', version: '1.0.0' };
  assert.equal(configuredDescription({ read: 'by rename' }, names), 'by rename');
  assert.equal(configuredDescription({ 'Files.read@1.0.0': 'by id', read_text_file: 'by MCP name' }, names), 'by MCP name');
  assert.equal(configuredDescription({ 'Files.read': 'by id' }, names), 'by id');
  assert.equal(configuredDescription({}, { ...names, mcpName: 'constructor', wanted: 'toString' }), undefined);
});

it('a tool named like an Object property is published under its own name, whatever the policy holds', () => {
  const [entry] = buildOxpCatalog([{ upstream: 0, toolkit: 'Fx', tools: [tool('constructor')], policy: { rename: { other: 'x' }, descriptions: { x: 'y' } } }]);
  assert.equal(entry!.definition.name, 'constructor');
  assert.equal(entry!.definition.description, 'MCP constructor');
});

it('names the keys that match no tool, as configuration paths', () => {
  const published = [{ mcpName: 'a-b', wanted: 'ab', name: 'ab', key: 'Fx.ab', version: '1.0.0' }];
  assert.deepEqual(
    unmatchedPolicyKeys(
      { rename: { 'a-b': 'ab', zz: 'z' }, descriptions: { ab: '', 'Fx.ab@1.0.0': '', 'Fx.ab@2.0.0': '', 'a-b': '' } },
      ['a-b', 'ghost'],
      [tool('a-b')],
      published,
    ),
    ['tools.descriptions.Fx.ab@2.0.0', 'tools.ghost', 'tools.rename.zz'],
  );
});
