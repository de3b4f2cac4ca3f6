/**
 * Shared harness for HTTP integration tests: an OXP fixture server plus a
 * bridge in this process, and raw Streamable HTTP helpers.
 */
import { loadConfig, type BridgeConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { parseBody } from './it-http.js';
import { MODERN_REVISION } from './modern-revision.js';
import { demoFixtureTools, startOxpFixture, type FixtureOptions, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';

/** Headers every Streamable HTTP POST carries. */
export const MCP_HEADERS: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** The per-request `_meta` envelope of a modern revision (2026-07-28: modern-revision.ts). */
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** Headers of a modern request (`Mcp-Method`, and `Mcp-Name` for tools/call). */
export function modernHeaders(method: string, name?: string): Record<string, string> {
  return { ...MCP_HEADERS, 'mcp-protocol-version': MODERN_REVISION, 'mcp-method': method, ...(name !== undefined ? { 'mcp-name': name } : {}) };
}

/** The JSON-RPC messages of a response: a JSON body (object or batch) or SSE `data:` events. */
export async function readMessages(res: Response): Promise<Record<string, unknown>[]> {
  return parseBody(await res.text(), res.headers.get('content-type'));
}

/**
 * Formerly chose between the HTTP fast path and the SDK pipeline; there is
 * one pipeline now (src/forward/face/pipeline.ts), so there is nothing to choose.
 * Kept (empty) for the suites that still spread it.
 */
export function httpPathArgs(): string[] {
  return [];
}

/** A full bridge config from CLI-style flags and environment (ephemeral port, silent logs unless overridden). */
export function testConfig(argv: string[] = [], env: Record<string, string> = {}): BridgeConfig {
  const loaded = loadConfig([...httpPathArgs(), '--port', '0', '--log-level', 'silent', ...argv], env);
  if (typeof loaded === 'string') throw new Error(`unexpected loadConfig answer: ${loaded}`);
  return loaded.config;
}

export interface Harness {
  fixture: OxpFixtureServer;
  bridge: RunningBridge;
  mcpUrl: string;
  close(): Promise<void>;
}

/** Fixture (demo catalog unless given) + bridge over HTTP. */
export async function startHarness(options: { fixture?: Partial<FixtureOptions>; args?: string[]; env?: Record<string, string> } = {}): Promise<Harness> {
  const fixture = await startOxpFixture({ tools: demoFixtureTools(), ...options.fixture });
  const bridge = await startBridge(testConfig(['--oxp-url', fixture.url, ...(options.args ?? [])], options.env), createLogger('silent'));
  return {
    fixture,
    bridge,
    mcpUrl: bridge.mcpUrl!,
    close: async () => {
      await bridge.close();
      await fixture.close();
    },
  };
}

/** Polls `predicate` every 10 ms until it holds; throws after `ms`. */
export async function until(predicate: () => boolean | Promise<boolean>, ms = 8000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
