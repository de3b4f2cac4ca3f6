import { it } from 'node:test';
import assert from 'node:assert/strict';
import { screenMcpTools } from './mcp-tools.js';

const good = { name: 'echo', description: 'Echoes.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } };
const deep = (n: number): unknown => JSON.parse(`${'{"a":'.repeat(n)}1${'}'.repeat(n)}`);

it('drops each malformed or oversized tool with a reason and keeps the rest', () => {
  const { tools, dropped } = screenMcpTools([
    good,
    { name: 'broken', inputSchema: 'not a schema' },
    { name: 'stringy', inputSchema: { type: 'string' } },
    { name: 'deep', inputSchema: { type: 'object', properties: { x: deep(5_000) } } },
    { name: 'badOutput', inputSchema: { type: 'object' }, outputSchema: [1] },
    { name: 'echo', inputSchema: { type: 'object' } },
    42,
    { inputSchema: { type: 'object' } },
  ]);
  assert.deepEqual(
    tools.map((t) => t.name),
    ['echo'],
  );
  assert.deepEqual(dropped, [
    { name: 'broken', reason: 'inputSchema is not an object' },
    { name: 'stringy', reason: 'inputSchema root type is "string", not "object"' },
    { name: 'deep', reason: 'inputSchema nests deeper than 64 levels' },
    { name: 'badOutput', reason: 'outputSchema is not an object' },
    { name: 'echo', reason: 'another tool of this server has the same name' },
    { name: '#6', reason: 'the tool is not an object' },
    { name: '#7', reason: 'the tool has no name' },
  ]);
});

it('keeps optional fields only with the types the bridge reads, and bounded metadata', () => {
  const { tools } = screenMcpTools([
    { ...good, title: 'Echo', description: 7, annotations: { title: 'E' }, _meta: deep(100), icons: [{ src: 'x' }], extra: 1 },
  ]);
  assert.deepEqual(tools, [{ name: 'echo', inputSchema: good.inputSchema, title: 'Echo', annotations: { title: 'E' }, icons: [{ src: 'x' }] }]);
});
