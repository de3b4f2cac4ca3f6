/**
 * The conformance suite's client under test: `conformance client --command
 * "node --import tsx test/conformance/oxp-server-client.ts"` appends the
 * scenario server's URL. This starts the bridge's oxp-server (in this
 * process, configured as the CLI would be) with that URL as its one MCP
 * upstream, so the bridge is the MCP client; then, as an OXP client, lists
 * the tools and calls each with arguments made from its input schema.
 *
 * Exit 0 when every OXP exchange answered 200, 1 otherwise. Progress goes to
 * stderr (the suite keeps it in stderr.txt).
 */
import { loadConfig } from '../../src/config/load.js';
import { isPlainObject } from '../../src/core/json.js';
import { createLogger } from '../../src/platform/log.js';
import { VERSION } from '../../src/platform/version.js';
import { OXP_SERVER_COMMAND } from '../../src/config/oxp-server-settings.js';
import { startOxpServer } from '../../src/commands/reverse.js';

/** A value that satisfies a simple JSON Schema: its default, first enum value, or a small value of its type. */
function sample(schema: unknown): unknown {
  if (!isPlainObject(schema)) return null;
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  switch (Array.isArray(schema.type) ? schema.type[0] : schema.type) {
    case 'number':
    case 'integer':
      return 1;
    case 'string':
      return 'conformance';
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object': {
      const properties = isPlainObject(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? schema.required : Object.keys(properties);
      return Object.fromEntries(required.map((k) => [k, sample(properties[String(k)])]));
    }
    default:
      return null;
  }
}

async function main(): Promise<number> {
  const url = process.argv[process.argv.length - 1]!;
  const loaded = loadConfig(
    ['--port', '0', '--log-level', process.env.OXP_CLIENT_LOG ?? 'warn', '--mcp-url', `Conformance=${url}`, '--connect-timeout-ms', '10000'],
    process.env,
    OXP_SERVER_COMMAND,
  );
  if (typeof loaded === 'string') return 1;
  const server = await startOxpServer(loaded.config, createLogger(loaded.config.logLevel), VERSION);
  let ok: boolean;
  try {
    // The server listens before its upstream connects: wait for the first attempt.
    await server.upstreams.settled();
    const status = server.upstreams.status()[0]!;
    process.stderr.write(`upstream: ${JSON.stringify(status)}\n`);
    if (!status.connected) return 1;
    const list = await fetch(`${server.url}/tools`);
    const { items } = (await list.json()) as { items: { id: string; input_schema?: unknown }[] };
    process.stderr.write(`GET /tools → ${list.status}: ${items.map((t) => t.id).join(', ')}\n`);
    ok = list.status === 200;
    for (const tool of items) {
      const input = sample(tool.input_schema ?? { type: 'object' });
      const res = await fetch(`${server.url}/tools/call`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ $schema: 'urn:oxp:1.0', request: { tool_id: tool.id, input } }),
      });
      process.stderr.write(`POST /tools/call ${tool.id} ${JSON.stringify(input)} → ${res.status}: ${await res.text()}\n`);
      ok &&= res.status === 200;
    }
  } finally {
    await server.close();
  }
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`oxp-server-client: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
