/**
 * Validates tool arguments against the tool's input schema before calling
 * upstream, so bad arguments are answered without a round trip.
 *
 * Compiled validators are cached in an LRU keyed by the tool id (with its version); a
 * catalog refresh that changes the schema object recompiles. A schema that
 * does not compile (or uses a dialect we cannot load) never breaks the tool:
 * validation is skipped and the upstream validates, as OXP requires of it,
 * and the failure is logged once per tool version.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { LRUCache } from 'lru-cache';
import type { JsonObject } from '../core/json.js';
import type { ParameterError } from '../core/oxp-wire.js';
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

export class InputValidator {
  private readonly cache: LRUCache<string, Compiled>;
  // Two dialects: 2020-12 is the MCP 2025-11-25+ default; draft-07 and older via Ajv's default build.
  // Made on first use: an Ajv instance costs start-up time, and most tools share one dialect.
  private ajv2020?: Ajv2020;
  private ajv07?: Ajv;

  constructor(maxValidators: number, private readonly log: Logger) {
    this.cache = new LRUCache({ max: maxValidators });
  }

  /** Parameter errors, or undefined when the arguments are valid (or cannot be checked here). */
  check(tool: ValidatedTool, args: JsonObject): ParameterError[] | undefined {
    const validate = this.validatorFor(tool);
    if (!validate || validate(args)) return undefined;
    return toParameterErrors(validate.errors ?? []);
  }

  private validatorFor(tool: ValidatedTool): ValidateFunction | null {
    const schema = tool.inputSchema;
    const cached = this.cache.get(tool.id);
    if (cached && cached.schema === schema) return cached.validate;
    let validate: ValidateFunction | null = null;
    try {
      const draft = typeof schema.$schema === 'string' && /draft-0[4-7]/.test(schema.$schema);
      // Ajv caches schemas by $id: strip it so two tools sharing an $id never collide.
      const { $id: _id, ...withoutId } = schema;
      const ajv = draft ? (this.ajv07 ??= new Ajv({ strict: false, allErrors: true, validateFormats: false })) : (this.ajv2020 ??= new Ajv2020({ strict: false, allErrors: true, validateFormats: false }));
      validate = ajv.compile(withoutId);
    } catch (error) {
      this.log.warn({ oxp_tool: tool.id, err: error instanceof Error ? error.message : String(error) }, 'input schema does not compile; the upstream will validate this tool');
    }
    this.cache.set(tool.id, { schema, validate });
    return validate;
  }
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
