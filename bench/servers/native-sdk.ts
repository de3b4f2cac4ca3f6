/**
 * The peer: a native MCP server on the v2 SDK, as its documentation writes
 * one — `createMcpHandler` with a factory building an `McpServer` that
 * registers the trivial `echo` tool in process, served by `toNodeHandler` on
 * node:http. Legacy (2025-era) requests are served statelessly, as the
 * bridge serves them.
 */
import { createServer } from 'node:http';
import { McpServer, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { announce } from '../lib/child.js';
import { ECHO_INPUT_SCHEMA, TOOL_NAME } from '../lib/workload.js';

const inputSchema = fromJsonSchema<{ message: string }>(ECHO_INPUT_SCHEMA);

const handler = createMcpHandler(
  () => {
    const server = new McpServer({ name: 'bench-native', version: '1.0.0' });
    server.registerTool(TOOL_NAME, { description: 'Sends the message back.', inputSchema }, ({ message }) => ({ content: [{ type: 'text', text: message }] }));
    return server;
  },
  { legacy: 'stateless' },
);
const node = toNodeHandler(handler);
const server = createServer((req, res) => void node(req, res));

await announce(server, '/mcp');
