import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { profileFor } from './mcp-versions.js';
import { projectCallToolResult, projectContentBlock, projectTool } from './project.js';
import type { McpTool } from './mcp-wire.js';

const full: McpTool = {
  name: 't',
  title: 'T',
  description: 'd',
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object' },
  annotations: { readOnlyHint: true },
  icons: [{ src: 'https://x/i.png' }],
  execution: { taskSupport: 'optional' },
  _meta: { k: 1 },
};

describe('projectTool', () => {
  it('keeps exactly the fields each revision defines', () => {
    const keys = (v: Parameters<typeof profileFor>[0]) => Object.keys(projectTool(full, profileFor(v))).sort();
    assert.deepEqual(keys('2024-11-05'), ['description', 'inputSchema', 'name']);
    assert.deepEqual(keys('2025-03-26'), ['annotations', 'description', 'inputSchema', 'name']);
    assert.deepEqual(keys('2025-06-18'), ['_meta', 'annotations', 'description', 'inputSchema', 'name', 'outputSchema', 'title']);
    // execution.taskSupport: 2025-11-25 only (2026-07-28 tasks are an extension without a per-tool flag).
    assert.deepEqual(keys('2025-11-25'), ['_meta', 'annotations', 'description', 'execution', 'icons', 'inputSchema', 'name', 'outputSchema', 'title']);
    assert.deepEqual(keys('2026-07-28'), ['_meta', 'annotations', 'description', 'icons', 'inputSchema', 'name', 'outputSchema', 'title']);
  });
  it('copies title into annotations.title for 2025-03-26 without overriding one', () => {
    assert.equal(projectTool(full, profileFor('2025-03-26')).annotations?.title, 'T');
    assert.equal(projectTool({ ...full, annotations: { title: 'own' } }, profileFor('2025-03-26')).annotations?.title, 'own');
  });
  it('is copy-on-write: an input that needs no change comes back as is', () => {
    const modern: McpTool = { name: 't', title: 'T', inputSchema: { type: 'object' }, outputSchema: { type: 'array' } };
    assert.equal(projectTool(modern, profileFor('2026-07-28')), modern);
    const bare: McpTool = { name: 't', inputSchema: { type: 'object' } };
    assert.equal(projectTool(bare, profileFor('2024-11-05')), bare);
  });
});

describe('projectCallToolResult', () => {
  const array = { content: [{ type: 'text', text: '[1]' }], structuredContent: [1] };
  it('strips, wraps or passes structured content per revision', () => {
    assert.equal(projectCallToolResult(array, profileFor('2025-03-26'), { type: 'array' }).structuredContent, undefined);
    assert.deepEqual(projectCallToolResult(array, profileFor('2025-11-25'), { type: 'array' }).structuredContent, { result: [1] });
    assert.deepEqual(projectCallToolResult(array, profileFor('2026-07-28'), { type: 'array' }).structuredContent, [1]);
    // no advertised schema: a 2025-era peer only gets object values
    assert.equal(projectCallToolResult(array, profileFor('2025-06-18'), undefined).structuredContent, undefined);
  });
  it('stamps resultType only for 2026-07-28', () => {
    assert.equal(projectCallToolResult(array, profileFor('2025-11-25'), undefined).resultType, undefined);
    assert.equal(projectCallToolResult(array, profileFor('2026-07-28'), undefined).resultType, 'complete');
  });
});

describe('projectContentBlock', () => {
  it('turns resource_link and audio into text where the revision lacks them', () => {
    assert.deepEqual(projectContentBlock({ type: 'resource_link', uri: 'file:///a', name: 'a' }, profileFor('2025-03-26')), {
      type: 'text',
      text: 'a: file:///a',
    });
    assert.equal(projectContentBlock({ type: 'audio', data: 'AA==', mimeType: 'audio/wav' }, profileFor('2024-11-05')).type, 'text');
    const audio = { type: 'audio', data: 'AA==', mimeType: 'audio/wav' };
    assert.equal(projectContentBlock(audio, profileFor('2025-03-26')), audio);
  });
  it('drops content _meta and annotations.lastModified before 2025-06-18', () => {
    const block = { type: 'text', text: 'x', _meta: { a: 1 }, annotations: { priority: 1, lastModified: '2025-01-01T00:00:00Z' } };
    assert.deepEqual(projectContentBlock(block, profileFor('2025-03-26')), { type: 'text', text: 'x', annotations: { priority: 1 } });
    assert.equal(projectContentBlock(block, profileFor('2025-06-18')), block);
  });
  it("drops an embedded resource's contents _meta before 2025-06-18, and resource link icons before 2025-11-25", () => {
    const embedded = { type: 'resource', resource: { uri: 'file:///a', text: 'A', _meta: { a: 1 } } };
    assert.deepEqual(projectContentBlock(embedded, profileFor('2025-03-26')), { type: 'resource', resource: { uri: 'file:///a', text: 'A' } });
    assert.equal(projectContentBlock(embedded, profileFor('2025-06-18')), embedded);
    const link = { type: 'resource_link', uri: 'file:///a', name: 'a', icons: [{ src: 'https://e/i.png' }] };
    assert.deepEqual(projectContentBlock(link, profileFor('2025-06-18')), { type: 'resource_link', uri: 'file:///a', name: 'a' });
    assert.equal(projectContentBlock(link, profileFor('2025-11-25')), link);
  });
});
