import { it } from 'node:test';
import assert from 'node:assert/strict';
import { resolveToolSettings } from './tool-settings.js';

const upstream = { taskSupport: 'optional', callTimeoutMs: 300_000, taskCallTimeoutMs: 3_600_000 } as const;

it("a tool takes its upstream's settings unless an entry matching its MCP name or OXP id sets one; the first entry that sets a key decides", () => {
  const entries = [
    { tools: ['research_*'], taskSupport: 'required' as const },
    { tools: ['Research.*'], callTimeoutMs: 1000, taskSupport: 'forbidden' as const },
    { tools: ['*'], taskCallTimeoutMs: 60_000 },
  ];
  assert.deepEqual(resolveToolSettings(upstream, entries, { name: 'research_deep', oxpId: 'Research.Deep' }), {
    taskSupport: 'required',
    callTimeoutMs: 1000,
    taskCallTimeoutMs: 60_000,
  });
  assert.deepEqual(resolveToolSettings(upstream, entries, { name: 'other', oxpId: 'Research.Other' }), {
    taskSupport: 'forbidden',
    callTimeoutMs: 1000,
    taskCallTimeoutMs: 60_000,
  });
  assert.equal(resolveToolSettings(upstream, [], { name: 'x', oxpId: 'X' }), upstream);
  assert.equal(resolveToolSettings(upstream, [{ tools: ['y'] }], { name: 'x', oxpId: 'X' }), upstream);
});
