/**
 * Starting the bridge for integration tests: in-process over HTTP, or as the
 * real CLI child process over stdio; plus the fixture catalog the suites use.
 */
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { demoFixtureTools, type FixtureTool } from '../fixtures/oxp-fixture-server.js';
import type { StdioServerCommand } from './it-clients.js';
import { httpPathArgs } from './bridge-harness.js';
import { cliArgs } from './ts-entry.js';

/** The repository root (where package.json and node_modules live). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface HttpBridge extends RunningBridge {
  mcpUrl: string;
}

/** Starts the bridge in this process, on an ephemeral loopback port, against `oxpUrl`. */
export async function startHttpBridge(oxpUrl: string, extraArgs: string[] = [], env: Record<string, string> = {}): Promise<HttpBridge> {
  const loaded = loadConfig([...httpPathArgs(), '--oxp-url', oxpUrl, '--port', '0', '--log-level', 'silent', ...extraArgs], env);
  if (typeof loaded === 'string') throw new Error(`unexpected loadConfig answer: ${loaded}`);
  const running = await startBridge(loaded.config, createLogger('silent'));
  if (!running.mcpUrl) {
    await running.close();
    throw new Error('the bridge started without an MCP URL');
  }
  return running as HttpBridge;
}

/** This process's environment minus anything that could configure the bridge (or the test runner), for child processes. */
export function cleanChildEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => typeof e[1] === 'string' && !/^(OXP_|MCP_|BRIDGE_|OTEL_|LOG_LEVEL$|NODE_OPTIONS$|NODE_TEST|TEST_JS_TREE$)/.test(e[0]),
    ),
  );
}

/** The command line that runs the CLI as an MCP stdio server against `oxpUrl`. */
export function stdioCommand(oxpUrl: string, logLevel = 'warn', extraArgs: string[] = []): StdioServerCommand {
  return {
    command: process.execPath,
    args: cliArgs(['--transport', 'stdio', '--oxp-url', oxpUrl, '--log-level', logLevel, ...extraArgs]),
    cwd: REPO_ROOT,
    // The SDKs' default child environment is minimal; keep PATH/HOME and drop anything that could configure the bridge.
    env: cleanChildEnv(),
  };
}

/** A tool whose output is a bare number (the demo Calculator.Add's latest version, 2.0.0, returns an object). */
export function numberOutputTool(): FixtureTool {
  return {
    id: 'Math.Double',
    name: 'Math_Double',
    description: 'Doubles a number.',
    version: '1.0.0',
    input_schema: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
    output_schema: { type: 'number' },
    handler: (req) => ({ value: (req.input?.['x'] as number) * 2 }),
  };
}

/** The demo catalog plus one tool of each output kind it lacks. */
export function integrationTools(): FixtureTool[] {
  return [...demoFixtureTools(), numberOutputTool()];
}

/** 1,200 (by default) generated tools, listed in a scrambled order. */
export function generatedTools(count = 1200): FixtureTool[] {
  const tools: FixtureTool[] = [];
  for (let i = 0; i < count; i++) {
    const n = String(i).padStart(4, '0');
    tools.push({
      id: `Gen.Tool${n}`,
      name: `Gen_Tool${n}`,
      description: `Generated tool ${n}.`,
      version: '1.0.0',
      input_schema: { type: 'object', properties: {} },
      handler: () => ({ value: n }),
    });
  }
  // A fixed permutation (multiplication by a unit mod count), so upstream order is not name order.
  const step = 7;
  return tools.map((_, i) => tools[(i * step) % count]!);
}
