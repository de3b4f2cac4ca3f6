/**
 * The bridge's classification of the hot shapes (src/forward/face/hot-classify.ts)
 * against the SDK's `classifyInboundRequest`, input by input: wherever the
 * bridge's check answers, its outcome is exactly the SDK's; where it is not
 * sure it defers. The valid shapes must be recognised (or the check would
 * hold nothing), and the near misses the SDK refuses must never be.
 * test/integration/differential.test.ts holds the whole face to a plain SDK
 * server on the same inputs.
 */
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { it } from 'node:test';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { classifyHotShape } from './hot-classify.js';
import { hotNearMisses } from '../../../test/helpers/hot-near-misses.js';

function sdkOutcome(headers: IncomingHttpHeaders, body: unknown) {
  const h = (name: string) => (typeof headers[name] === 'string' ? headers[name] : undefined);
  return classifyInboundRequest({
    httpMethod: 'POST',
    ...(h('mcp-protocol-version') !== undefined ? { protocolVersionHeader: h('mcp-protocol-version')! } : {}),
    ...(h('mcp-method') !== undefined ? { mcpMethodHeader: h('mcp-method')! } : {}),
    ...(h('mcp-name') !== undefined ? { mcpNameHeader: h('mcp-name')! } : {}),
    body,
  });
}

it('answers exactly as the SDK classifier, or defers to it', () => {
  const cases = hotNearMisses();
  const differences: string[] = [];
  let recognised = 0;
  for (const input of cases) {
    const body = JSON.parse(input.body) as unknown;
    const ours = classifyHotShape('POST', input.headers, body);
    const theirs = sdkOutcome(input.headers, body);
    if (input.category === 'valid' && ours === undefined) differences.push(`${input.label}: a hot shape, not recognised`);
    if (ours === undefined) continue;
    recognised++;
    try {
      assert.deepEqual(ours, theirs);
    } catch {
      differences.push(`${input.label}\n    bridge: ${JSON.stringify(ours)}\n    sdk:    ${JSON.stringify(theirs)}`);
    }
  }
  assert.equal(differences.length, 0, `${differences.length} of ${cases.length}:\n  ${differences.join('\n  ')}`);
  assert.ok(recognised >= cases.filter((c) => c.category === 'valid').length);
});

it('defers on anything but a POST', () => {
  const valid = hotNearMisses().find((c) => c.category === 'valid')!;
  assert.equal(classifyHotShape('PUT', valid.headers, JSON.parse(valid.body)), undefined);
  assert.notEqual(classifyHotShape('POST', valid.headers, JSON.parse(valid.body)), undefined);
});
