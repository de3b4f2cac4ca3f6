/**
 * For the oxp-server tests: start the subcommand in this process (as the CLI
 * would configure it), talk OXP to it over real HTTP, and validate every body
 * against the OXP OpenAPI component schemas (test/schemas/oxp-openapi-1.0.json).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { loadConfig } from '../../src/config/load.js';
import { createLogger, type Logger } from '../../src/platform/log.js';
import { VERSION } from '../../src/platform/version.js';
import { OXP_SERVER_COMMAND } from '../../src/config/oxp-server-settings.js';
import { startOxpServer, type RunningOxpServer } from '../../src/commands/reverse.js';

const openapi = JSON.parse(readFileSync(new URL('../schemas/oxp-openapi-1.0.json', import.meta.url), 'utf8')) as {
  components: { schemas: Record<string, Record<string, unknown>> };
  paths: Record<string, Record<string, { responses: Record<string, { content?: { 'application/json': { schema: Record<string, unknown> } } }> }>>;
};

/**
 * CallToolResponse as published cannot accept any real body (notes/oxp.md §2
 * row 12: `additionalProperties: false` while `value`/`error` are declared
 * only inside `oneOf`). The copy used for 200s declares them at the top too;
 * nothing else changes.
 */
const components = structuredClone(openapi.components.schemas);
const callToolResponse = components.CallToolResponse as { properties: Record<string, unknown> };
callToolResponse.properties.value = {};
callToolResponse.properties.error = { $ref: '#/components/schemas/ToolError' };

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema({ $id: 'oxp', components: { schemas: components } });
const ref = (name: string) => ({ $ref: `oxp#/components/schemas/${name}` });
const responseSchema = (path: string, method: string, status: string) => {
  const schema = structuredClone(openapi.paths[path]![method]!.responses[status]!.content!['application/json'].schema);
  return JSON.parse(JSON.stringify(schema).replace(/"#\/components\/schemas\//g, '"oxp#/components/schemas/')) as Record<string, unknown>;
};
const validators = {
  ServerErrorResponse: ajv.compile(ref('ServerErrorResponse')),
  ValidationErrorResponse: ajv.compile(ref('ValidationErrorResponse')),
  ToolDefinition: ajv.compile(ref('ToolDefinition')),
  ListToolsResponse: ajv.compile(responseSchema('/tools', 'get', '200')),
  CallToolResponse200: ajv.compile(responseSchema('/tools/call', 'post', '200')),
};

export type OxpSchemaName = keyof typeof validators;

export function assertOxpSchema(name: OxpSchemaName, body: unknown): void {
  const validate = validators[name];
  assert.ok(validate(body), `${name} invalid: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`);
}

export interface OxpReply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** An OXP client over real HTTP that validates what it receives against the OpenAPI schemas. */
export class OxpClient {
  constructor(
    readonly url: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  async raw(path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<OxpReply> {
    const res = await fetch(`${this.url}${path}`, {
      method: init.method ?? 'GET',
      headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...this.headers, ...init.headers },
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  async list(): Promise<Record<string, unknown>[]> {
    return listed(await this.raw('/tools'));
  }

  /**
   * GET /tools as a client waiting for tools reads it: the list, or none while the server says no MCP server has
   * listed its tools yet (503 with Retry-After and `can_retry`, checked).
   */
  async listOrNone(): Promise<Record<string, unknown>[]> {
    const reply = await this.raw('/tools');
    if (reply.status !== 503) return listed(reply);
    assertOxpSchema('ServerErrorResponse', reply.body);
    assert.equal(reply.body.can_retry, true);
    assert.ok(Number(reply.headers.get('retry-after')) >= 1, 'Retry-After in whole seconds');
    return [];
  }

  /** POST /tools/call; the body is validated per status (200, 400, 401, 422). */
  async call(
    toolId: string,
    input?: unknown,
    extra: Record<string, unknown> = {},
    top: Record<string, unknown> = { $schema: 'urn:oxp:1.0' },
  ): Promise<OxpReply> {
    const reply = await this.raw('/tools/call', {
      method: 'POST',
      body: JSON.stringify({ ...top, request: { tool_id: toolId, ...(input !== undefined ? { input } : {}), ...extra } }),
    });
    assertReplyShape(reply);
    return reply;
  }

  /** The `result` of a 200. */
  async result(toolId: string, input?: unknown, extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const reply = await this.call(toolId, input, extra);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body.result as Record<string, unknown>;
  }
}

/** A `GET /tools` answer that must be a list: 200, checked against its schema. */
function listed(reply: OxpReply): Record<string, unknown>[] {
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  assertOxpSchema('ListToolsResponse', reply.body);
  assert.equal(reply.body.$schema, 'urn:oxp:1.0');
  const items = reply.body.items as Record<string, unknown>[];
  for (const item of items) assertOxpSchema('ToolDefinition', item);
  return items;
}

/** Every OXP answer the server may give, checked against its schema. */
export function assertReplyShape(reply: OxpReply): void {
  assert.equal(reply.body.$schema, 'urn:oxp:1.0', `every body carries $schema: ${JSON.stringify(reply.body)}`);
  if (reply.status === 200) assertOxpSchema('CallToolResponse200', reply.body);
  else if (reply.status === 400 || reply.status === 401 || reply.status === 503) assertOxpSchema('ServerErrorResponse', reply.body);
  else if (reply.status === 422) assertOxpSchema('ValidationErrorResponse', reply.body);
  else assert.fail(`unexpected status ${reply.status}: ${JSON.stringify(reply.body)}`);
}

export interface TestOxpServer extends RunningOxpServer {
  client: OxpClient;
}

/** The subcommand with CLI-style flags and environment (ephemeral port, silent logs unless a logger is given). */
export async function startTestOxpServer(
  argv: string[],
  env: Record<string, string> = {},
  log: Logger = createLogger('silent'),
  options: { noWait?: boolean } = {},
): Promise<TestOxpServer> {
  const loaded = loadConfig(['--port', '0', ...argv], env, OXP_SERVER_COMMAND);
  if (typeof loaded === 'string') throw new Error(`unexpected loadConfig answer: ${loaded}`);
  const running = await startOxpServer(loaded.config, log, VERSION, env);
  // The server listens before its upstreams connect; most tests want the full catalog first.
  if (!options.noWait) await running.upstreams.settled();
  return Object.assign(running, { client: new OxpClient(running.url) });
}

/** `CMD ARGS` for --mcp-command, quoting each word. */
export function commandLine(command: string, args: string[]): string {
  return [command, ...args].map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
}

/** Polls `check` until it returns true, or fails after `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`${what} did not hold within ${timeoutMs} ms`);
}

/** Writes a config file (JSON, which the YAML loader reads too) and returns its path. */
export function writeConfigFile(config: Record<string, unknown>): string {
  const path = join(mkdtempSync(join(tmpdir(), 'oxp-server-config-')), 'bridge.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
}
