/**
 * Validates tool arguments against the tool's input schema before calling
 * upstream, so bad arguments are answered without a round trip.
 *
 * Compiled validators are cached in an LRU keyed by the tool id (with its version); a
 * catalog refresh that changes the schema object recompiles. A schema that
 * does not compile (or uses a dialect we cannot load) never breaks the tool:
 * validation is skipped and the upstream validates, as OXP requires of it,
 * and the failure is logged once per tool version.
 *
 * Upstream schemas are untrusted, client arguments too; validation must stay
 * cheap whatever either holds:
 * - `pattern`/`patternProperties` run on RE2 (linear-regexp.ts), never on
 *   the backtracking engine; a pattern RE2 cannot read leaves the tool to
 *   the upstream's validation;
 * - `uniqueItems` is checked by hashing canonical JSON (linear) instead of
 *   ajv's pairwise deep comparison (quadratic: linear-unique-items.ts);
 * - schemas over MAX_VALIDATED_SCHEMA_VALUES values are not compiled (ajv's
 *   compile time grows with the schema, paid on the event loop: a huge schema
 *   would stall every request on the tool's first call; the figure:
 *   bench/README.md#figures-behind-comments-in-the-code); their tools are
 *   validated upstream;
 * - arguments nested too deeply for a (recursive) validator are refused.
 */
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { LRUCache } from 'lru-cache';
import { jsonBoundExceeded, type JsonObject } from '../../core/json.js';
import { linearRegExp, loadLinearRegExp } from './linear-regexp.js';
import { withLinearUniqueItems, withUniqueKeyword } from './linear-unique-items.js';
import type { ParameterError } from '../../core/oxp-wire.js';
import type { Logger } from '../log.js';

/** A tool as validation sees it: a stable id (one version of one tool) and its input schema. */
export interface ValidatedTool {
  id: string;
  inputSchema: JsonObject;
}

interface Compiled {
  schema: JsonObject;
  validate: ValidateFunction | null;
}

const MAX_REPORTED_ERRORS = 20;
/** Largest schema the bridge compiles (values, as jsonBoundExceeded counts them); larger ones are validated upstream. */
export const MAX_VALIDATED_SCHEMA_VALUES = 2_000;

/**
 * Options every Ajv instance gets: linear regexes, no backtracking checks at compile time either. `validateSchema` off:
 * a schema is checked against its meta-schema before it is compiled (checkSchema), as ajv would.
 */
const AJV_OPTIONS = {
  strict: false,
  allErrors: true,
  validateFormats: false,
  allowMatchingProperties: true,
  validateSchema: false,
  code: { regExp: linearRegExp },
} as const;

/** Each dialect's own meta-schema, as ajv names it: a schema whose `$schema` is another is checked by ajv itself. */
const META_IDS = { draft2020: 'https://json-schema.org/draft/2020-12/schema', draft07: 'http://json-schema.org/draft-07/schema' } as const;

type MetaValidators = typeof import('./generated/meta-validators.js');
let metaValidators: MetaValidators | undefined;

/**
 * Loads the meta-schemas' precompiled validators (scripts/generate-validators.ts): without them a dialect's first
 * compile has ajv compile its meta-schema, ~200 M instructions for 2020-12, on the first tool call (bench/README.md,
 * issue 39). The HTTP face loads them with its pipeline; they are not on the start-up path (96 KB of code).
 */
export async function loadMetaValidators(): Promise<void> {
  metaValidators ??= await import('./generated/meta-validators.js');
}

// ajv (CommonJS) is required on the first compile, not imported: a process that validates nothing yet (the bridge
// answering /readyz, the demo toolkit listing its tools) does not pay for loading it at start-up.
const requireAjv = createRequire(import.meta.url);
let ajvClasses: { Ajv: typeof import('ajv').Ajv; Ajv2020: typeof import('ajv/dist/2020.js').Ajv2020 } | undefined;
const newAjv07 = (): Ajv => new (ajvClasses?.Ajv ?? (requireAjv('ajv') as typeof import('ajv')).Ajv)(AJV_OPTIONS);
const newAjv2020 = (): Ajv2020 => new (ajvClasses?.Ajv2020 ?? (requireAjv('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020)(AJV_OPTIONS);

/**
 * Loads ajv (both dialects), the meta-schemas' validators and the regex engine now (the face's warm-up, or the bridge
 * before its first call), so that no call waits for them. Dynamic imports, so that `npm run build` bundles ajv into a
 * chunk of its own (scripts/build.mjs): as installed, its CommonJS files cost Node a resolve, a read and a compile
 * each, ~200 M instructions to load ajv 2020 and make an instance against ~76 M bundled (bench/README.md, issue 39).
 * A compile before it is in requires ajv as installed.
 */
export async function loadValidation(): Promise<void> {
  const [draft2020, draft07] = await Promise.all([import('ajv/dist/2020.js'), import('ajv'), loadMetaValidators()]);
  // CommonJS seen from an ES module: the exports object is the default (a bundled chunk exports nothing else).
  const exportsOf = <T>(namespace: T) => (namespace as { default?: T }).default ?? namespace;
  ajvClasses ??= { Ajv: exportsOf(draft07).Ajv, Ajv2020: exportsOf(draft2020).Ajv2020 };
  loadLinearRegExp();
}

export class InputValidator {
  private readonly cache: LRUCache<string, Compiled>;
  // Two dialects: 2020-12 is the MCP 2025-11-25+ default; draft-07 and older via Ajv's default build.
  // Made on first use: an Ajv instance costs start-up time, and most tools share one dialect.
  private ajv2020?: Ajv2020;
  private ajv07?: Ajv;

  constructor(
    maxValidators: number,
    private readonly log: Logger,
  ) {
    this.cache = new LRUCache({ max: maxValidators });
  }

  /** Parameter errors, or undefined when the arguments are valid (or cannot be checked here). */
  check(tool: ValidatedTool, args: JsonObject): ParameterError[] | undefined {
    const validate = this.validatorFor(tool);
    if (!validate) return undefined;
    try {
      if (validate(args)) return undefined;
    } catch (error) {
      // Generated validators recurse with the data under recursive schemas ($ref to itself).
      if (error instanceof RangeError) return [{ parameter: '(arguments)', message: 'are nested too deeply to validate' }];
      throw error;
    }
    return toParameterErrors(validate.errors ?? []);
  }

  private validatorFor(tool: ValidatedTool): ValidateFunction | null {
    const schema = tool.inputSchema;
    const cached = this.cache.get(tool.id);
    if (cached && cached.schema === schema) return cached.validate;
    let validate: ValidateFunction | null = null;
    try {
      if (jsonBoundExceeded(schema, Infinity, MAX_VALIDATED_SCHEMA_VALUES)) throw new Error(`the schema has more than ${MAX_VALIDATED_SCHEMA_VALUES} values`);
      const draft = typeof schema.$schema === 'string' && /draft-0[4-7]/.test(schema.$schema);
      // Ajv caches schemas by $id: strip it so two tools sharing an $id never collide.
      const { $id: _id, ...withoutId } = withLinearUniqueItems(schema);
      const ajv = draft ? (this.ajv07 ??= withUniqueKeyword(newAjv07())) : (this.ajv2020 ??= withUniqueKeyword(newAjv2020()));
      checkSchema(ajv, withoutId, draft ? 'draft07' : 'draft2020');
      validate = ajv.compile(withoutId);
    } catch (error) {
      this.log.warn(
        { oxp_tool: tool.id, err: error instanceof Error ? error.message : String(error) },
        'input schema does not compile; the upstream will validate this tool',
      );
    }
    this.cache.set(tool.id, { schema, validate });
    return validate;
  }
}

/**
 * Throws as ajv's compile does for a schema its meta-schema refuses ("schema is invalid: …"): by the precompiled
 * validator when it is in and the schema names no other meta-schema, else by ajv's own `validateSchema`.
 */
function checkSchema(ajv: Ajv | Ajv2020, schema: JsonObject, dialect: keyof typeof META_IDS): void {
  const named = schema.$schema;
  const own = named === undefined || (typeof named === 'string' && named.replace(/#$/, '') === META_IDS[dialect]);
  const precompiled = own ? metaValidators?.[dialect] : undefined;
  if (!precompiled) {
    // Throws when it refuses the schema (the promise it may return is for $async schemas' data, not this check).
    void ajv.validateSchema(schema, true);
    return;
  }
  if (!precompiled(schema)) throw new Error(`schema is invalid: ${ajv.errorsText(precompiled.errors)}`);
}

/** Ajv errors → one message per parameter, named as the user wrote it. */
export function toParameterErrors(errors: ErrorObject[]): ParameterError[] {
  const byParameter = new Map<string, string>();
  for (const e of errors) {
    let parameter = e.instancePath.split('/').slice(1).map(decodePointer).join('.');
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') parameter = [parameter, String(e.params.missingProperty)].filter(Boolean).join('.');
    if (e.keyword === 'additionalProperties') {
      parameter = [parameter, String(e.params.additionalProperty)].filter(Boolean).join('.');
      message = 'is not an accepted parameter';
    }
    if (e.keyword === 'enum') message = `must be one of: ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    if (!byParameter.has(parameter || '(arguments)')) byParameter.set(parameter || '(arguments)', message);
    if (byParameter.size >= MAX_REPORTED_ERRORS) break;
  }
  return [...byParameter].map(([parameter, message]) => ({ parameter, message }));
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}
