/**
 * Bounds on what upstreams send, in both directions (OXP catalogs and
 * results into MCP; MCP tool lists and results into OXP). Everything the
 * bridge does afterwards — projection, serialisation, ajv — recurses over
 * these values, so they are checked once, iteratively, where they enter.
 *
 * - Schemas: 64 levels of JSON nesting is about 30 levels of nested
 *   parameters (each level is `properties` → name → schema), far beyond real
 *   tools; 20,000 values is a very large generated API schema. A tool over
 *   either bound is dropped from the catalog with a log line.
 * - Results: 100 levels, the common parser/serialiser comfort zone (and
 *   above the MCP face's 64 for requests, since results legitimately carry
 *   documents). Deeper results become a clear tool error.
 * - OXP call input (the oxp-server): 64 levels, as the MCP face's default
 *   `http.maxJsonDepth` for requests; deeper input is a 422.
 */
import { jsonBoundExceeded } from './json.js';

export const MAX_SCHEMA_DEPTH = 64;
export const MAX_SCHEMA_VALUES = 20_000;
export const MAX_RESULT_DEPTH = 100;
export const MAX_INPUT_DEPTH = 64;

/** Why a tool's schema is unusable (`<what> nests deeper than 64 levels`), or undefined when within bounds. */
export function schemaBoundProblem(schema: unknown, what: string): string | undefined {
  const exceeded = jsonBoundExceeded(schema, MAX_SCHEMA_DEPTH, MAX_SCHEMA_VALUES);
  if (exceeded === 'depth') return `${what} nests deeper than ${MAX_SCHEMA_DEPTH} levels`;
  if (exceeded === 'size') return `${what} has more than ${MAX_SCHEMA_VALUES} values`;
  return undefined;
}

/** The user-facing text for a result over MAX_RESULT_DEPTH. */
export const DEEP_RESULT_MESSAGE = `The tool returned a value nested more than ${MAX_RESULT_DEPTH} levels deep, which the bridge does not pass on.`;
