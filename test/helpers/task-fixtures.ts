/**
 * What the task suites share: OXP tools that take their time, a bridge
 * configuration that publishes them with task settings, and small waits.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FixtureTool } from '../fixtures/oxp-fixture-server.js';

const text = { type: 'object', properties: { label: { type: 'string' } } };

/**
 * - `slow_work` (optional): 1.5 s, then "done <label>";
 * - `echo` (optional): at once;
 * - `failing_job` (optional): a tool error after 0.3 s;
 * - `hang` (optional): a minute (cancelled in the tests);
 * - `research` (required by configuration): 0.5 s;
 * - `plain_only` (forbidden by configuration): at once.
 */
export function taskFixtureTools(): FixtureTool[] {
  const tool = (id: string, name: string, reply: FixtureTool['handler']): FixtureTool => ({
    id,
    name,
    version: '1.0.0',
    description: `${name} (a task test tool)`,
    input_schema: text,
    handler: reply,
  });
  const label = (input: unknown) => String((input as { label?: unknown } | undefined)?.label ?? '');
  return [
    tool('Slow.Work', 'slow_work', (req) => ({ delayMs: 1500, then: { value: `done ${label(req.input)}` } })),
    tool('Echo.Now', 'echo', (req) => ({ value: `echo ${label(req.input)}` })),
    tool('Failing.Job', 'failing_job', () => ({ delayMs: 300, then: { error: { message: 'the job failed', can_retry: false } } })),
    tool('Hang.Forever', 'hang', () => ({ delayMs: 60_000, then: { value: 'too late' } })),
    tool('Research.Deep', 'research', (req) => ({ delayMs: 500, then: { value: `found ${label(req.input)}` } })),
    tool('Plain.Only', 'plain_only', () => ({ value: 'plain' })),
  ];
}

/** A config file publishing the fixture at `oxpUrl` with the tools' task settings; `extra` merges over it. */
export function taskConfigFile(oxpUrl: string, extra: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-tasks-'));
  const file = join(dir, 'bridge.json');
  const base = {
    upstream: {
      url: oxpUrl,
      toolSettings: [
        { tools: ['research'], taskSupport: 'required' },
        { tools: ['plain_only'], taskSupport: 'forbidden' },
      ],
    },
    tasks: { pollIntervalMs: 100, taskAfterMs: 300 },
  };
  writeFileSync(file, JSON.stringify(merge(base, extra)));
  return file;
}

function merge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const current = out[k];
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) && current && typeof current === 'object' && !Array.isArray(current)
        ? merge(current as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

export async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(25);
  }
}

export const AUTH_URL = 'https://auth.example.test/authorize?state=abc';

/**
 * An OXP tool (`mail_read`) that asks for authorization (400 `missing_requirements.authorization` with a
 * `check_url`) until its call_id has been authorized, and the provider's status endpoint, which authorizes every
 * call seen so far when polled. `calls` lists the call_ids the tool saw.
 */
export async function authorizationFixture(): Promise<{ tool: FixtureTool; checkOrigin: string; calls: string[]; close(): void }> {
  const { createServer } = await import('node:http');
  const authorized = new Set<string>();
  const calls: string[] = [];
  const server = createServer((_req, res) => {
    for (const id of calls) authorized.add(id);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ status: 'completed' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  const checkUrl = `http://127.0.0.1:${address.port}/status`;
  const tool: FixtureTool = {
    id: 'Mail.Read',
    name: 'mail_read',
    version: '1.0.0',
    input_schema: { type: 'object' },
    requirements: { authorization: [{ id: 'google', oauth2: { scopes: ['mail'] } }] },
    handler: (req) => {
      calls.push(req.call_id!);
      if (authorized.has(req.call_id!)) return { value: 'mail read' };
      return {
        http: {
          status: 400,
          body: { message: 'Authorization required', missing_requirements: { authorization: [{ id: 'google', url: AUTH_URL, check_url: checkUrl }] } },
        },
      };
    },
  };
  return { tool, checkOrigin: new URL(checkUrl).origin, calls, close: () => server.close() };
}
