/**
 * Near misses of the two hot shapes (a plain `tools/call` or `tools/list` of
 * either era), which the bridge classifies itself (src/forward/face/hot-classify.ts):
 * one member too many or too few, ids of the wrong type, the same methods as
 * notifications and inside batches, headers that disagree with the body,
 * unknown or missing protocol versions, duplicate keys, and envelopes the
 * SDK's schema accepts or refuses. Bodies are raw JSON text, so duplicate
 * keys and `1e999` reach the parser as a client would send them.
 *
 * Used twice: test/integration/differential.test.ts (the bridge must answer
 * each one as a plain SDK server does) and src/forward/face/hot-classify.test.ts
 * (the bridge's check must return the SDK classifier's outcome or defer).
 */

import { MODERN_REVISION } from './modern-revision.js';

export const HOT_TOOL = 'Math_Double';
const ARGS = { x: 21 };
const ACCEPT = 'application/json, text/event-stream';
const ENVELOPE: Record<string, unknown> = {
  'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
  'io.modelcontextprotocol/clientInfo': { name: 'near-miss', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const INFO = 'io.modelcontextprotocol/clientInfo';
const VERSION = 'io.modelcontextprotocol/protocolVersion';

export interface NearMiss {
  label: string;
  /** The category of the issue-24 list it belongs to. */
  category:
    | 'valid'
    | 'extra member'
    | 'missing member'
    | 'id type'
    | 'notification'
    | 'batch'
    | 'header/body mismatch'
    | 'protocol version'
    | 'duplicate key'
    | 'envelope';
  headers: Record<string, string>;
  body: string;
}

const modernHeaders = (method: string, name?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: ACCEPT,
  'mcp-protocol-version': MODERN_REVISION,
  'mcp-method': method,
  ...(name !== undefined ? { 'mcp-name': name } : {}),
});
const legacyHeaders = (version?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: ACCEPT,
  ...(version !== undefined ? { 'mcp-protocol-version': version } : {}),
});
const json = (value: unknown) => JSON.stringify(value);

export function hotNearMisses(): NearMiss[] {
  const out: NearMiss[] = [];
  let next = 9000;
  const add = (category: NearMiss['category'], label: string, headers: Record<string, string>, body: unknown) =>
    out.push({ category, label, headers, body: typeof body === 'string' ? body : json(body) });
  const call = (meta?: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    jsonrpc: '2.0',
    id: next++,
    method: 'tools/call',
    params: { name: HOT_TOOL, arguments: ARGS, ...(meta ? { _meta: meta } : {}) },
    ...extra,
  });
  const list = (meta?: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    jsonrpc: '2.0',
    id: next++,
    method: 'tools/list',
    params: { ...(meta ? { _meta: meta } : {}) },
    ...extra,
  });
  const mCall = modernHeaders('tools/call', HOT_TOOL);
  const mList = modernHeaders('tools/list');
  const legacy = legacyHeaders('2025-11-25');
  const envelope = (change: Record<string, unknown>) => ({ ...ENVELOPE, ...change });
  const caps = (capabilities: unknown) => envelope({ [CAPS]: capabilities });

  // The shapes themselves, as the bridge must recognise them.
  add('valid', 'modern tools/call', mCall, call(ENVELOPE));
  add('valid', 'modern tools/list', mList, list(ENVELOPE));
  add('valid', 'modern tools/list with a cursor-less, params-less body', mList, {
    jsonrpc: '2.0',
    id: next++,
    method: 'tools/list',
    params: { _meta: ENVELOPE },
  });
  add('valid', 'legacy tools/call', legacy, call());
  add('valid', 'legacy tools/list without params', legacy, { jsonrpc: '2.0', id: next++, method: 'tools/list' });
  add('valid', 'header-less legacy tools/call', legacyHeaders(), call());
  add('valid', 'legacy 2024-11-05 tools/list', legacyHeaders('2024-11-05'), list());
  add('valid', 'modern tools/call, id a string', mCall, { ...call(ENVELOPE), id: 'req-1' });
  add(
    'valid',
    'modern tools/call, every capability',
    mCall,
    call(
      caps({
        roots: { listChanged: true },
        sampling: { context: {}, tools: {} },
        elicitation: { form: { applyDefaults: true } },
        experimental: { 'x.y': { a: [1, null, 'b'] } },
        extensions: { 'io.example/e': { on: true } },
      }),
    ),
  );
  add('valid', 'modern tools/call, no clientInfo', mCall, call({ [VERSION]: MODERN_REVISION, [CAPS]: {} }));
  add(
    'valid',
    'modern tools/list, clientInfo with title and a member the SDK ignores',
    mList,
    list(envelope({ [INFO]: { name: 'c', version: '1', title: 'C', other: { x: 1 } } })),
  );
  add('valid', 'modern tools/call, capabilities the 2026 schema ignores (tasks)', mCall, call(caps({ tasks: 5, unknown: 'x' })));

  // Extra members
  add('extra member', 'modern tools/call with a top-level result member', mCall, call(ENVELOPE, { result: {} }));
  add('extra member', 'modern tools/call with a top-level error member', mCall, call(ENVELOPE, { error: { code: 1, message: 'x' } }));
  add(
    'extra member',
    'legacy tools/list with a top-level __proto__ member',
    legacy,
    `{"jsonrpc":"2.0","id":${next++},"method":"tools/list","__proto__":{},"params":{}}`,
  );
  add('extra member', 'modern tools/call with params.task', mCall, {
    ...call(ENVELOPE),
    params: { name: HOT_TOOL, arguments: ARGS, task: { ttl: 1 }, _meta: ENVELOPE },
  });
  add('extra member', 'modern tools/list with params.name', mList, list(ENVELOPE, { params: { name: HOT_TOOL, _meta: ENVELOPE } }));
  add('extra member', 'legacy tools/call with params.inputResponses', legacy, { ...call(), params: { name: HOT_TOOL, arguments: ARGS, inputResponses: {} } });
  add('extra member', 'modern tools/call with _meta.progressToken', mCall, call(envelope({ progressToken: 'p' })));
  add('extra member', 'modern tools/call with _meta.logLevel', mCall, call(envelope({ 'io.modelcontextprotocol/logLevel': 'debug' })));
  add('extra member', 'modern tools/call with an invalid _meta.logLevel', mCall, call(envelope({ 'io.modelcontextprotocol/logLevel': 'loud' })));
  add('extra member', 'legacy tools/call with _meta.progressToken a float', legacy, call({ progressToken: 1.5 }));
  add('extra member', 'legacy tools/list with a related-task _meta', legacy, list({ 'io.modelcontextprotocol/related-task': { taskId: 7 } }));
  add('extra member', 'legacy tools/call with a modern envelope key but no claim', legacy, call({ [CAPS]: {} }));

  // Missing members
  add('missing member', 'modern tools/call without params', mCall, { jsonrpc: '2.0', id: next++, method: 'tools/call' });
  add('missing member', 'modern tools/list without params', mList, { jsonrpc: '2.0', id: next++, method: 'tools/list' });
  add('missing member', 'modern tools/call without _meta', mCall, call());
  add('missing member', 'modern tools/list without clientCapabilities', mList, list({ [VERSION]: MODERN_REVISION, [INFO]: { name: 'c', version: '1' } }));
  add('missing member', 'modern tools/call, clientInfo without name', mCall, call(envelope({ [INFO]: { version: '1' } })));
  add('missing member', 'modern tools/call without name', mCall, { ...call(ENVELOPE), params: { arguments: ARGS, _meta: ENVELOPE } });
  add('missing member', 'legacy tools/call without jsonrpc', legacy, (({ jsonrpc: _, ...rest }) => rest)(call()));
  add('missing member', 'legacy tools/list without method', legacy, { jsonrpc: '2.0', id: next++, params: {} });

  // Wrong id types
  for (const [what, id] of [
    ['null', 'null'],
    ['true', 'true'],
    ['1.5', '1.5'],
    ['2^53', '9007199254740992'],
    ['1e999', '1e999'],
    ['an array', '[1]'],
    ['-0', '-0'],
    ['a large negative', '-9007199254740991'],
  ] as const) {
    add('id type', `modern tools/call, id ${what}`, mCall, json(call(ENVELOPE)).replace(/"id":\d+/, `"id":${id}`));
    add('id type', `legacy tools/list, id ${what}`, legacy, json(list()).replace(/"id":\d+/, `"id":${id}`));
  }

  // Notifications with these methods
  const notify = (method: string, meta?: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    method,
    params: { ...(method === 'tools/call' ? { name: HOT_TOOL, arguments: ARGS } : {}), ...(meta ? { _meta: meta } : {}) },
  });
  add('notification', 'modern tools/call notification', mCall, notify('tools/call', ENVELOPE));
  add('notification', 'modern tools/list notification', mList, notify('tools/list', ENVELOPE));
  add('notification', 'legacy tools/call notification', legacy, notify('tools/call'));
  add('notification', 'legacy tools/list notification', legacy, notify('tools/list'));
  add('notification', 'tools/list notification with a modern header and no envelope', mList, notify('tools/list'));
  add(
    'notification',
    'tools/call notification with id undefined and a claim naming a legacy revision',
    mCall,
    notify('tools/call', envelope({ [VERSION]: '2025-11-25' })),
  );

  // Batches containing them
  add('batch', 'legacy batch of one tools/call', legacy, [call()]);
  add('batch', 'legacy batch of tools/call and tools/list', legacy, [call(), list()]);
  add('batch', 'batch with a modern tools/call', mCall, [call(ENVELOPE)]);
  add('batch', 'batch of a tools/call and a tools/list notification', legacy, [call(), notify('tools/list')]);
  add('batch', 'batch with a tools/call with an extra member', legacy, [call(undefined, { extra: 1 })]);
  add('batch', 'batch nested in a batch', legacy, [[call()]]);

  // Header/body mismatches
  add('header/body mismatch', 'modern tools/call with Mcp-Method tools/list', modernHeaders('tools/list', HOT_TOOL), call(ENVELOPE));
  add('header/body mismatch', 'modern tools/list with Mcp-Method tools/call', modernHeaders('tools/call'), list(ENVELOPE));
  add('header/body mismatch', 'modern tools/call with Mcp-Name of another tool', modernHeaders('tools/call', 'Math_Add'), call(ENVELOPE));
  add('header/body mismatch', 'modern tools/call with Mcp-Name in another case', modernHeaders('tools/call', HOT_TOOL.toLowerCase()), call(ENVELOPE));
  add('header/body mismatch', 'modern tools/call with Mcp-Name on a tools/list', modernHeaders('tools/list', HOT_TOOL), list(ENVELOPE));
  add('header/body mismatch', 'modern tools/call with a 2025-11-25 version header', { ...mCall, 'mcp-protocol-version': '2025-11-25' }, call(ENVELOPE));
  add('header/body mismatch', 'legacy tools/call with a modern version header', { ...legacy, 'mcp-protocol-version': MODERN_REVISION }, call());
  add('header/body mismatch', 'legacy tools/call with Mcp-Method and Mcp-Name', { ...legacy, 'mcp-method': 'tools/call', 'mcp-name': HOT_TOOL }, call());
  add('header/body mismatch', 'legacy tools/list with Mcp-Method of another method', { ...legacy, 'mcp-method': 'tools/call' }, list());
  add('header/body mismatch', 'modern tools/call with an empty Mcp-Name', modernHeaders('tools/call', ''), call(ENVELOPE));

  // Unknown or missing protocol versions
  add('protocol version', 'modern tools/call without a version header', (({ 'mcp-protocol-version': _, ...rest }) => rest)(mCall), call(ENVELOPE));
  add(
    'protocol version',
    'modern tools/list, envelope and header 2027-01-01',
    { ...mList, 'mcp-protocol-version': '2027-01-01' },
    list(envelope({ [VERSION]: '2027-01-01' })),
  );
  add('protocol version', `modern tools/call, envelope 2027-01-01, header ${MODERN_REVISION}`, mCall, call(envelope({ [VERSION]: '2027-01-01' })));
  add(
    'protocol version',
    'tools/call, envelope and header 2025-11-25',
    { ...mCall, 'mcp-protocol-version': '2025-11-25' },
    call(envelope({ [VERSION]: '2025-11-25' })),
  );
  add('protocol version', 'modern tools/list, envelope version a number', mList, list(envelope({ [VERSION]: 20260728 })));
  add('protocol version', 'legacy tools/call, version header 2025-01-01 (unknown, pre-2026)', legacyHeaders('2025-01-01'), call());
  add('protocol version', 'legacy tools/list, version header 2024-10-07', legacyHeaders('2024-10-07'), list());
  add('protocol version', 'legacy tools/list, version header not a date', legacyHeaders('latest'), list());
  add('protocol version', 'legacy tools/call, empty version header', legacyHeaders(''), call());
  add('protocol version', 'legacy tools/call, version header 2026-07-29', legacyHeaders('2026-07-29'), call());

  // Duplicate keys (JSON.parse keeps the last)
  add(
    'duplicate key',
    'legacy tools/call with id twice',
    legacy,
    `{"jsonrpc":"2.0","id":1,"id":"two","method":"tools/call","params":${json({ name: HOT_TOOL, arguments: ARGS })}}`,
  );
  add('duplicate key', 'legacy method ping then tools/list', legacy, `{"jsonrpc":"2.0","id":${next++},"method":"ping","method":"tools/list"}`);
  add('duplicate key', 'legacy method tools/list then ping', legacy, `{"jsonrpc":"2.0","id":${next++},"method":"tools/list","method":"ping"}`);
  add('duplicate key', 'legacy jsonrpc 1.0 then 2.0', legacy, `{"jsonrpc":"1.0","jsonrpc":"2.0","id":${next++},"method":"tools/list"}`);
  add('duplicate key', 'legacy jsonrpc 2.0 then 1.0', legacy, `{"jsonrpc":"2.0","jsonrpc":"1.0","id":${next++},"method":"tools/list"}`);
  add(
    'duplicate key',
    'modern envelope version twice, 2025 last',
    mList,
    `{"jsonrpc":"2.0","id":${next++},"method":"tools/list","params":{"_meta":{"${VERSION}":"2026-07-28","${VERSION}":"2025-11-25","${CAPS}":{}}}}`,
  );
  add(
    'duplicate key',
    'modern params twice, the envelope-less one last',
    mCall,
    `{"jsonrpc":"2.0","id":${next++},"method":"tools/call","params":${json({ name: HOT_TOOL, arguments: ARGS, _meta: ENVELOPE })},"params":${json({ name: HOT_TOOL, arguments: ARGS })}}`,
  );

  // Envelopes the SDK's schema accepts or refuses
  add('envelope', 'capabilities an array', mCall, call(caps([])));
  add('envelope', 'capabilities null', mList, list(caps(null)));
  add('envelope', 'roots.listChanged a string', mCall, call(caps({ roots: { listChanged: 'yes' } })));
  add('envelope', 'elicitation.form.applyDefaults a number', mCall, call(caps({ elicitation: { form: { applyDefaults: 1 } } })));
  add('envelope', 'elicitation {} (form only)', mCall, call(caps({ elicitation: {} })));
  add('envelope', 'elicitation with a non-object member', mList, list(caps({ elicitation: { form: {}, other: 5 } })));
  add('envelope', 'elicitation.url', mCall, call(caps({ elicitation: { url: {} } })));
  add('envelope', 'sampling.context an array', mCall, call(caps({ sampling: { context: [] } })));
  add('envelope', 'experimental member not an object', mList, list(caps({ experimental: { a: 1 } })));
  add('envelope', 'extensions a string', mCall, call(caps({ extensions: 'x' })));
  add('envelope', 'an infinite number inside experimental', mCall, json(call(caps({ experimental: { a: { b: 7 } } }))).replace('"b":7', '"b":1e999'));
  add('envelope', 'clientInfo.title a number', mCall, call(envelope({ [INFO]: { name: 'c', version: '1', title: 1 } })));
  add(
    'envelope',
    'clientInfo with icons',
    mList,
    list(envelope({ [INFO]: { name: 'c', version: '1', icons: [{ src: 'https://example.com/i.png', theme: 'dark' }] } })),
  );
  add('envelope', 'clientInfo with a bad icon theme', mList, list(envelope({ [INFO]: { name: 'c', version: '1', icons: [{ src: 'x', theme: 'blue' }] } })));
  add('envelope', 'a __proto__ key inside experimental', mCall, json(call(caps({ experimental: { a: { b: 1 } } }))).replace('"a":', '"__proto__":'));
  add('envelope', '_meta an array with a modern header', mCall, { ...call(), params: { name: HOT_TOOL, arguments: ARGS, _meta: [] } });

  return out;
}
