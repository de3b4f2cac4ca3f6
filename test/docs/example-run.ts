/**
 * One scenario's run of documented examples in the sandbox: its fences by
 * id, the terminals it leaves running (stopped at its end), and the checks
 * its steps make over HTTP, as a reader's client would.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { FORWARD_COMMAND, loadConfig, type BridgeConfig } from '../../src/config/load.js';
import { OXP_SERVER_COMMAND } from '../../src/config/oxp-server-settings.js';
import type { Fence } from './markdown.js';
import { runShell, startShell, type Background, type Sandbox, type ShellResult } from './sandbox.js';

/**
 * A documented example and what it must do: the text around it says so, and the step asserts that. A scenario's
 * steps run in order in one sandbox (a terminal an earlier step left serving is still there), and what they started
 * is stopped at the scenario's end.
 */
export interface Step {
  /** The fence's marker id, `<!-- example: ID -->`. */
  id: string;
  run(r: ExampleRun): Promise<void>;
}

export interface Scenario {
  name: string;
  /** Programs the examples call that the sandbox takes from the machine. */
  needs?: readonly 'curl'[];
  /** Parties the text presumes (an OXP server of the reader's own…); returns how to stop them. */
  setup?(r: ExampleRun): Promise<() => Promise<void>>;
  steps: Step[];
}

/** Asserts a finished shell example's exit code, with its output as the message. */
export function assertExit(result: ShellResult, expected = 0): void {
  assert.equal(result.code, expected, `exit ${result.code}, expected ${expected}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
}

export interface RunOptions {
  env?: Record<string, string>;
  timeoutMs?: number;
  /** For a terminal left serving: the HTTP status its ready URL must answer (default: any answer). */
  status?: number;
}

export class ExampleRun {
  /** What the run did that a reader would want to see: the substitutions made, per example. */
  readonly notes: string[] = [];
  private readonly running: Background[] = [];

  constructor(
    readonly sandbox: Sandbox,
    private readonly fences: ReadonlyMap<string, Fence>,
  ) {}

  fence(id: string): Fence {
    const fence = this.fences.get(id);
    assert.ok(fence, `no fence is marked <!-- example: ${id} -->`);
    return fence;
  }

  /** The example's text as it runs here (the sandbox's substitutions made, and noted). */
  text(id: string): string {
    const { text, changes } = this.sandbox.localize(this.fence(id).text);
    if (changes.length) this.notes.push(`${id}: ${changes.join('; ')}`);
    return text;
  }

  /** A documented URL as it is reached here (its port mapped). */
  url(documented: string): string {
    return this.sandbox.localize(documented).text;
  }

  /** Runs a shell example to its end. */
  async shell(id: string, options: RunOptions = {}): Promise<ShellResult> {
    return runShell(this.text(id), this.sandbox.dir, this.sandbox.env(options.env), options.timeoutMs);
  }

  /** Runs a shell example that keeps serving (a terminal left open) until `ready` (a documented URL) answers. */
  async serve(id: string, ready: string, options: RunOptions = {}): Promise<Background> {
    return this.background(this.text(id), ready, options);
  }

  /** The built CLI (`node dist/src/cli.js ARGS`) in the background, until `ready` answers. */
  async cli(args: string[], ready: string, options: RunOptions = {}): Promise<Background> {
    const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    return this.background(`exec node dist/src/cli.js ${quoted}`, ready, options);
  }

  /** Writes a file into the sandbox (a path relative to it: nothing outside it is written, nor redirected); returns its path. */
  write(path: string, content: string): string {
    assert.ok(!isAbsolute(path), `${path}: the sandbox's own files only`);
    const target = join(this.sandbox.dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content, { mode: 0o600 });
    return target;
  }

  /** A file an example made in the sandbox (a path relative to it), trimmed. */
  read(path: string): string {
    return readFileSync(join(this.sandbox.dir, path), 'utf8').trim();
  }

  /** Writes a configuration example to `name` in the sandbox; returns the path. */
  configFile(id: string, name: string): string {
    return this.write(name, this.text(id));
  }

  /**
   * Writes a configuration example to `name` in the sandbox and loads it with the real loader, as `--config name`
   * with `env` (the schema, every key's source); returns its path and the loaded configuration.
   */
  load(id: string, name: string, env: Record<string, string> = {}, command: 'bridge' | 'oxp-server' = 'bridge'): { path: string; config: BridgeConfig } {
    const path = this.configFile(id, name);
    const loaded = loadConfig(['--config', path], env, command === 'oxp-server' ? OXP_SERVER_COMMAND : FORWARD_COMMAND);
    assert.ok(typeof loaded === 'object', `loadConfig answered ${String(loaded)}`);
    return { path, config: loaded.config };
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.running.splice(0).map((b) => b.stop()));
  }

  private async background(script: string, ready: string, options: RunOptions): Promise<Background> {
    const started = startShell(script, this.sandbox.dir, this.sandbox.env(options.env));
    this.running.push(started);
    const url = this.url(ready);
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    let exited: number | string | undefined;
    void started.exited.then((code) => (exited = code));
    for (;;) {
      if (exited !== undefined) assert.fail(`exited (${exited}) before ${url} answered:\n${started.output()}`);
      if (Date.now() > deadline) assert.fail(`${url} did not answer ${options.status ?? ''} within ${options.timeoutMs ?? 60_000} ms:\n${started.output()}`);
      const status = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
        (response) => response.status,
        () => undefined,
      );
      if (status !== undefined && (options.status === undefined || status === options.status)) return started;
      await sleep(200);
    }
  }
}

/** The JSON values printed one after the other (as curl prints bodies without a newline between them). */
export function jsonValues(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (depth++ === 0) start = i;
    } else if ((c === '}' || c === ']') && --depth === 0) values.push(JSON.parse(text.slice(start, i + 1)));
  }
  return values;
}

/** The JSON-RPC messages of an MCP answer, whether plain JSON or server-sent events. */
export function mcpMessages(body: string): Record<string, unknown>[] {
  const trimmed = body.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return [JSON.parse(trimmed) as Record<string, unknown>].flat();
  return trimmed
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>);
}

/** The one JSON-RPC answer with `id` in an MCP answer's body. */
export function mcpAnswer(body: string, id: number): Record<string, unknown> {
  const answer = mcpMessages(body).find((m) => m.id === id);
  assert.ok(answer, `no JSON-RPC answer with id ${id} in:\n${body}`);
  return answer;
}

/** POSTs one MCP request as the README's curl does (2025-06-18); the JSON-RPC answer. */
export async function mcpPost(
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; answer?: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', ...body }),
  });
  const text = await response.text();
  return response.ok ? { status: response.status, answer: mcpAnswer(text, body.id as number) } : { status: response.status };
}
