/**
 * Hostile OXP scenarios: schemas and values (served by ../hostile-oxp-server.ts,
 * written with ../oxp-kit.ts). Each catalog lists a harmless `Hostile.normal`
 * beside the hostile part, so a test can check the rest still serves.
 */
import { catalogScenario, sendJson, toolDefinition, type HostileOxpScenario } from '../oxp-kit.js';

/** A catastrophic-backtracking pattern: `^(a+)+$` on `a…a!` takes exponential time in a backtracking engine. */
export const REDOS_PATTERN = '^(a+)+$';
/** The patternProperties form: unanchored at the start, so every start position backtracks. */
export const REDOS_PROPERTY_PATTERN = '(a+)+$';
/** Nesting of the deep schema and the deep result: far beyond any bound, far below a parser's limits. */
export const DEEP = 5_000;

/** JSON text of `{"a":{"a":…1…}}` nested `depth` objects deep (built as text: no recursion on either side). */
export function deepJsonText(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

const normal = () => toolDefinition('normal', { input_schema: { type: 'object', properties: { text: { type: 'string' } } } });

/** `GET /tools` as raw JSON text, for definitions that must not go through JSON.stringify. */
function rawCatalogScenario(itemsText: () => string): HostileOxpScenario {
  const inner = catalogScenario(() => []);
  return (req, res, ctx) => {
    if (req.method === 'GET' && ctx.path.startsWith('/tools')) return sendJson(res, 200, `{"$schema":"urn:oxp:1.0","items":${itemsText()}}`);
    return inner(req, res, ctx);
  };
}

export const SCHEMA_SCENARIOS: Record<string, HostileOxpScenario> = {
  /** A string parameter whose pattern backtracks catastrophically. */
  'redos-pattern': catalogScenario(() => [
    normal(),
    toolDefinition('redos', { input_schema: { type: 'object', properties: { text: { type: 'string', pattern: REDOS_PATTERN } } } }),
  ]),
  /** The same through patternProperties: every property name of the arguments is matched. */
  'redos-pattern-properties': catalogScenario(() => [
    normal(),
    toolDefinition('redos_keys', { input_schema: { type: 'object', patternProperties: { [REDOS_PROPERTY_PATTERN]: { type: 'string' } } } }),
  ]),
  /** One tool whose input schema nests 5,000 levels deep, beside a normal one. */
  'deep-schema': rawCatalogScenario(() => {
    const deep = `{"id":"Hostile.deep@1.0.0","name":"deep","description":"Deep.","version":"1.0.0","input_schema":{"type":"object","properties":{"x":${deepJsonText(DEEP)}}}}`;
    return `[${JSON.stringify(normal())},${deep}]`;
  }),
  /** A call whose result value nests 5,000 levels deep. */
  'deep-result': catalogScenario(
    () => [normal()],
    (_req, res) => sendJson(res, 200, `{"$schema":"urn:oxp:1.0","result":{"call_id":"c1","success":true,"value":${deepJsonText(DEEP)}}}`),
  ),
  /** Two versions of one tool, one beyond Number.MAX_SAFE_INTEGER (the ToolId grammar allows any digits). */
  'huge-version': catalogScenario(() => [
    normal(),
    toolDefinition('versioned', { id: 'Hostile.versioned@1.0.0', version: '1.0.0' }),
    toolDefinition('versioned', { id: 'Hostile.versioned@99999999999999999999.0.0', version: '99999999999999999999.0.0' }),
  ]),
  /** A 200 whose `result` is an array: no CallToolResponse (no success, value or error) at all. */
  'result-array': catalogScenario(
    () => [normal()],
    (_req, res) => sendJson(res, 200, { result: [1, 2, 3] }),
  ),
  /** The upstream refuses the call as too large. */
  'too-large': catalogScenario(
    () => [normal()],
    (_req, res) => sendJson(res, 413, { message: 'Payload Too Large' }),
  ),
};
