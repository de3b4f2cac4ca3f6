/**
 * Validates MCP messages against the official schema.json of the revision in
 * force. Two strictness levels:
 * - `official`: the schema as published (open objects);
 * - `closed`: every top-level protocol definition gets
 *   `additionalProperties: false`, so a field the revision does not define
 *   (e.g. `outputSchema` sent to a 2025-03-26 client) fails. JSON Schema
 *   payloads (inputSchema/outputSchema) are nested property schemas and stay
 *   open, so pass-through keywords like `$defs` remain legal.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Ajv, ValidateFunction } from 'ajv';
import { MCP_REVISIONS, profileFor, type McpRevision } from '../../src/core/mcp-versions.js';

/** Every revision of src/core/mcp-versions.ts (the live list: a revision registered for a test is in it). */
export const REVISIONS: readonly McpRevision[] = MCP_REVISIONS;

/** Revisions whose test files (schema, golden files) are another's: a revision registered for a test with its rules. */
const standIns = new Map<McpRevision, McpRevision>();

/** From now on, `version` is checked against `filesOf`'s schema and golden files (synthetic-revision.ts). */
export function useFilesOf(revision: McpRevision, filesOf: McpRevision): void {
  standIns.set(revision, filesOf);
}

/** The revision whose folder under test/schemas (and test/golden/oxp-to-mcp) holds `version`'s files. */
export function filesOf(revision: McpRevision): McpRevision {
  return standIns.get(revision) ?? revision;
}

/** The 2026-07-28 tasks extension's schema (test/schemas/ext-tasks), validated like a revision's. */
export const TASKS_EXTENSION_SCHEMA = 'ext-tasks';
type SchemaName = McpRevision | typeof TASKS_EXTENSION_SCHEMA;

type Strictness = 'official' | 'closed';

/** A revision's schema as this file validates with it: its definitions (closed or not) and what names its compiled validators. */
interface LoadedSchema {
  schema: Record<string, unknown>;
  defsKey: string;
  id: string;
  defs: Record<string, unknown>;
  /** What its validators are compiled from (the schema as used, ajv's and ajv-formats' releases, the options). */
  hash: string;
  ajv?: Ajv;
}
const cache = new Map<string, LoadedSchema>();

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const requireHere = createRequire(import.meta.url);
const AJV_OPTIONS = { strict: false, allErrors: true, code: { source: true } };
/** The releases the compiled code comes from: a new one compiles again. */
const COMPILER = ['ajv', 'ajv-formats'].map((pkg) => readFileSync(join(REPO_ROOT, 'node_modules', pkg, 'package.json'), 'utf8')).join('\n');

function load(version: SchemaName, strictness: Strictness): LoadedSchema {
  const key = `${version}:${strictness}`;
  let entry = cache.get(key);
  if (!entry) {
    const folder = version === TASKS_EXTENSION_SCHEMA ? version : filesOf(version);
    const schema = JSON.parse(readFileSync(new URL(`../schemas/${folder}/schema.json`, import.meta.url), 'utf8')) as Record<string, unknown>;
    // The extension's schema names itself; ajv must not see two schemas with one $id.
    delete schema.$id;
    const defsKey = 'definitions' in schema ? 'definitions' : '$defs';
    const defs = schema[defsKey] as Record<string, Record<string, unknown>>;
    if (strictness === 'closed') {
      for (const [name, def] of Object.entries(defs)) {
        // `_meta` objects are open by design (any namespaced key).
        if (/MetaObject$/.test(name)) continue;
        if (def.properties && def.additionalProperties === undefined && !def.allOf && !def.anyOf) def.additionalProperties = false;
      }
    }
    const id = `https://mcp.test/${version}/${strictness}`;
    const withId = { ...schema, $id: id };
    const hash = createHash('sha256')
      .update(JSON.stringify([withId, COMPILER, AJV_OPTIONS]))
      .digest('hex')
      .slice(0, 24);
    entry = { schema: withId, defsKey, id, defs, hash };
    cache.set(key, entry);
  }
  return entry;
}

/** The schema's ajv instance, made when a validator is first compiled (a process that finds them all compiled loads no ajv). */
function ajvOf(entry: LoadedSchema): Ajv {
  if (!entry.ajv) {
    const { Ajv: Draft7 } = requireHere('ajv') as typeof import('ajv');
    const { Ajv2020 } = requireHere('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
    const addFormats = requireHere('ajv-formats') as (a: Ajv) => void;
    const ajv = entry.defsKey === '$defs' ? new Ajv2020(AJV_OPTIONS) : new Draft7(AJV_OPTIONS);
    addFormats(ajv);
    ajv.addSchema(entry.schema);
    entry.ajv = ajv;
  }
  return entry.ajv;
}

/**
 * Compiled validators kept on disk, shared by the run's processes and later runs: about thirty test files each
 * compiled the same definitions of the same schemas, ajv's code generation a fifth to a quarter of such a file's CPU
 * (test/README.md, "Towards five minutes"). Keyed by what they are compiled from (LoadedSchema.hash), written whole
 * (a rename), loaded as ajv's standalone code (CommonJS: its formats are `require`d).
 */
const COMPILED_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'mcp-schema-validators');

function compiled(entry: LoadedSchema, definition: string): ValidateFunction {
  const file = join(COMPILED_DIR, `${entry.hash}-${definition}.cjs`);
  if (existsSync(file)) return requireHere(file) as ValidateFunction;
  const ajv = ajvOf(entry);
  const validate = ajv.getSchema(`${entry.id}#/${entry.defsKey}/${definition}`);
  if (!validate) throw new Error(`cannot compile ${definition} for ${entry.id}`);
  const { default: standaloneCode } = requireHere('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js');
  mkdirSync(COMPILED_DIR, { recursive: true });
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, standaloneCode(ajv, validate));
  renameSync(partial, file);
  return validate as ValidateFunction;
}

const validators = new Map<string, ValidateFunction>();

export function validatorFor(version: SchemaName, definition: string, strictness: Strictness = 'closed'): ValidateFunction {
  const key = `${version}:${strictness}:${definition}`;
  let v = validators.get(key);
  if (!v) {
    const entry = load(version, strictness);
    if (!(definition in entry.defs)) throw new Error(`schema ${version} has no definition ${definition}`);
    v = compiled(entry, definition);
    validators.set(key, v);
  }
  return v;
}

export function hasDefinition(version: SchemaName, definition: string): boolean {
  return definition in load(version, 'official').defs;
}

/** Throws with a readable report when `value` is not a valid `definition` of `version`. */
export function assertValid(version: SchemaName, definition: string, value: unknown, strictness: Strictness = 'closed'): void {
  const validate = validatorFor(version, definition, strictness);
  if (!validate(value)) {
    const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('\n  ');
    throw new Error(`not a valid ${version} ${definition} (${strictness}):\n  ${errors}\nvalue: ${JSON.stringify(value).slice(0, 2000)}`);
  }
}

const RESULT_DEFINITION: Record<string, string> = {
  initialize: 'InitializeResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'server/discover': 'DiscoverResult',
  ping: 'EmptyResult',
  'logging/setLevel': 'EmptyResult',
  'tasks/get': 'GetTaskResult',
  'tasks/list': 'ListTasksResult',
  'tasks/cancel': 'CancelTaskResult',
};

/** 2026-07-28 results of the tasks extension, validated against its own schema. */
const EXTENSION_RESULT_DEFINITION: Record<string, string> = {
  'tasks/get': 'GetTaskResult',
  'tasks/update': 'UpdateTaskResult',
  'tasks/cancel': 'CancelTaskResult',
};

/**
 * Validates one server→client JSON-RPC message: the envelope, and the result
 * payload against the definition for the request `method` it answers.
 */
export function assertValidServerMessage(revision: McpRevision, message: unknown, method?: string): void {
  const m = message as Record<string, unknown>;
  if ('error' in m) {
    assertValid(revision, hasDefinition(revision, 'JSONRPCErrorResponse') ? 'JSONRPCErrorResponse' : 'JSONRPCError', message, 'official');
    return;
  }
  if ('result' in m) {
    assertValid(revision, hasDefinition(revision, 'JSONRPCResultResponse') ? 'JSONRPCResultResponse' : 'JSONRPCResponse', message, 'official');
    const result = m.result as Record<string, unknown>;
    const modern = profileFor(revision).tasks === 'extension';
    const extensionDef = modern && method ? EXTENSION_RESULT_DEFINITION[method] : undefined;
    const def = method ? RESULT_DEFINITION[method] : undefined;
    // 2025-11-25 tasks/result: what the tools/call would have answered (a CallToolResult carrying the related-task key).
    if (method === 'tasks/result') assertValid(revision, 'CallToolResult', result);
    else if (extensionDef) assertValid(TASKS_EXTENSION_SCHEMA, extensionDef, result);
    else if (def) {
      // 2026-07-28 tools/call may answer input_required, or (tasks extension) a task, instead of a final result; 2025-11-25 a task.
      if (def === 'CallToolResult' && result.resultType === 'input_required') assertValid(revision, 'InputRequiredResult', result);
      else if (def === 'CallToolResult' && modern && result.resultType === 'task') assertValid(TASKS_EXTENSION_SCHEMA, 'CreateTaskResult', result);
      else if (def === 'CallToolResult' && !modern && 'task' in result) assertValid(revision, 'CreateTaskResult', result);
      else assertValid(revision, def, result);
    }
    return;
  }
  // A request of the server's own (2025 era: elicitation/create, sampling, roots).
  if ('method' in m && 'id' in m && hasDefinition(revision, 'ServerRequest')) {
    assertValid(revision, 'ServerRequest', message, 'official');
    return;
  }
  if ('method' in m) {
    if (profileFor(revision).tasks === 'extension' && m.method === 'notifications/tasks')
      assertValid(TASKS_EXTENSION_SCHEMA, 'TaskStatusNotification', message, 'official');
    else assertValid(revision, 'ServerNotification', message, 'official');
    return;
  }
  throw new Error(`not a JSON-RPC message: ${JSON.stringify(message).slice(0, 500)}`);
}
