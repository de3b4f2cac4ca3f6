import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { blockOfPart, partOf, X_MCP } from './content-parts.js';
import type { JsonValue } from './json.js';
import type { McpContentBlock } from './mcp-wire.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const annotations = { audience: ['user'], priority: 0.5, lastModified: '2026-10-01T09:00:00Z' };
/** What the MCP face does with one part (a string is text there). */
const back = (part: JsonValue) => (typeof part === 'string' ? { type: 'text', text: part } : blockOfPart(part));

describe('partOf: readable without MCP', () => {
  it('renders each kind readably, with no x-mcp when the part says everything', () => {
    const cases: [McpContentBlock, JsonValue][] = [
      [{ type: 'text', text: 'hi' }, 'hi'],
      [
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { contentEncoding: 'base64', contentMediaType: 'image/png', data: PNG },
      ],
      [
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'A' } },
        { uri: 'file:///a.txt', contentMediaType: 'text/plain', text: 'A' },
      ],
      [
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'A' } },
        { uri: 'file:///a.txt', text: 'A' },
      ],
      [
        { type: 'resource', resource: { uri: 'file:///a.bin', mimeType: 'application/zip', blob: 'AAE=' } },
        { uri: 'file:///a.bin', contentEncoding: 'base64', contentMediaType: 'application/zip', data: 'AAE=' },
      ],
      [
        { type: 'resource_link', uri: 'file:///r', name: 'r', title: 'R', description: 'd', mimeType: 'text/csv', size: 3 },
        { uri: 'file:///r', name: 'r', title: 'R', description: 'd', contentMediaType: 'text/csv', size: 3 },
      ],
    ];
    for (const [block, part] of cases) assert.deepEqual(partOf(block), part, block.type);
  });

  it('carries what the part leaves out under x-mcp, without repeating the payload', () => {
    assert.deepEqual(partOf({ type: 'text', text: 'hi', annotations }), { text: 'hi', [X_MCP]: { type: 'text', annotations } });
    const image = partOf({ type: 'image', data: PNG, mimeType: 'image/png', _meta: { k: 1 } }) as Record<string, JsonValue>;
    assert.deepEqual(image[X_MCP], { type: 'image', mimeType: 'image/png', _meta: { k: 1 } });
    const blob = partOf({ type: 'resource', resource: { uri: 'u:1', blob: 'AAE=', _meta: { k: 1 } }, annotations }) as Record<string, JsonValue>;
    assert.deepEqual(blob, {
      uri: 'u:1',
      contentEncoding: 'base64',
      data: 'AAE=',
      [X_MCP]: { type: 'resource', resource: { uri: 'u:1', _meta: { k: 1 } }, annotations },
    });
    const icons = [{ src: 'https://example.com/i.png' }];
    assert.deepEqual((partOf({ type: 'resource_link', uri: 'u:2', name: 'n', icons }) as Record<string, JsonValue>)[X_MCP], {
      type: 'resource_link',
      uri: 'u:2',
      name: 'n',
      icons,
    });
  });

  it('keeps a block it cannot render whole under x-mcp, instead of turning the whole content into MCP blocks', () => {
    for (const block of [
      { type: 'video', url: 'x' },
      { type: 'image', data: PNG },
      { type: 'resource', resource: { uri: 'u' } },
      { type: 'text', text: 5 },
    ] as McpContentBlock[]) {
      assert.deepEqual(partOf(block), { [X_MCP]: block }, JSON.stringify(block));
      assert.equal(blockOfPart(partOf(block)), undefined, 'and the MCP face does not pass it on as a block');
    }
    assert.deepEqual(partOf(null as unknown as McpContentBlock), { [X_MCP]: null });
  });
});

describe('blockOfPart: the MCP face', () => {
  it('gets every well-formed block back exactly (the round trip loses nothing)', () => {
    const blocks: McpContentBlock[] = [
      { type: 'text', text: 'hi' },
      { type: 'text', text: 'hi', annotations, _meta: { k: 1 } },
      { type: 'image', data: PNG, mimeType: 'image/png', annotations },
      { type: 'audio', data: 'AAE=', mimeType: 'audio/wav' },
      { type: 'image', data: PNG, mimeType: 'application/x-odd' },
      { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'A', _meta: { k: 1 } }, annotations, _meta: { k: 2 } },
      { type: 'resource', resource: { uri: 'file:///a.bin', blob: 'AAE=' } },
      { type: 'resource', resource: { uri: 'file:///a.bin', blob: 'AAE=' }, annotations: { priority: 1 } },
      { type: 'resource_link', uri: 'file:///r', name: 'r' },
      {
        type: 'resource_link',
        uri: 'file:///r',
        name: 'r',
        title: 'R',
        mimeType: 'text/csv',
        size: 3,
        icons: [{ src: 'https://e/i.png', mimeType: 'image/png', sizes: ['48x48'], theme: 'dark' }],
        annotations,
      },
    ];
    for (const block of blocks) assert.deepEqual(back(partOf(block)), block, JSON.stringify(block));
  });

  it('takes only MCP members of the right type from an untrusted x-mcp', () => {
    const part = {
      text: 'hi',
      [X_MCP]: {
        type: 'text',
        text: 'other',
        extra: 'x',
        annotations: { audience: ['user', 'root'], priority: 7, lastModified: 'yesterday', more: 1 },
        _meta: 'no',
      },
    };
    assert.deepEqual(
      blockOfPart(part),
      { type: 'text', text: 'hi', annotations: { lastModified: 'yesterday' } },
      "the part's payload wins; bad members dropped",
    );
    assert.deepEqual(
      blockOfPart({
        uri: 'u',
        name: 'n',
        [X_MCP]: { type: 'resource_link', uri: 'u', name: 'n', size: '3', icons: [{ src: 1 }, 'x', { src: 'https://e/i', sizes: [1] }] },
      }),
      {
        type: 'resource_link',
        uri: 'u',
        name: 'n',
        icons: [{ src: 'https://e/i' }],
      },
    );
    const bads: JsonValue[] = [
      { [X_MCP]: 'text' },
      { [X_MCP]: { type: 'video' } },
      { [X_MCP]: { type: 'image', mimeType: 'image/png' } },
      { [X_MCP]: { type: 'resource', resource: { text: 'no uri' } } },
      { text: 1, [X_MCP]: { type: 'text' } },
    ];
    for (const bad of bads) {
      assert.equal(blockOfPart(bad), undefined, JSON.stringify(bad));
    }
  });

  it('reads a part only by its exact keys: other objects stay values', () => {
    for (const value of [
      { text: 'a bare text object' },
      { uri: 'u', text: 't', extra: 1 },
      { uri: 'u', contentEncoding: 'hex', data: '00' },
      { contentEncoding: 'base64', contentMediaType: 'application/pdf', data: 'AA==' },
      'plain',
      [1],
    ]) {
      assert.equal(blockOfPart(value as JsonValue), undefined, JSON.stringify(value));
    }
  });
});
