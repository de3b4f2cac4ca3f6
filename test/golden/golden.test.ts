/**
 * Golden files: what each MCP revision receives for each OXP case.
 *
 * cases/<case>.json holds an OXP ToolDefinition and a raw OXP call response;
 * oxp-to-mcp/<version>/<case>.json holds the projected MCP tool and reply.
 * Every golden output is validated against that revision's official schema
 * (closed: no field the revision does not define). No silent skips: a case
 * without a golden file, or a golden file without a case, fails.
 * Regenerate with `npm run golden:update` and review the diff.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { buildCatalog } from '../../src/core/catalog.js';
import { decodeCallResponse, decodeToolDefinition } from '../../src/core/oxp-decode.js';
import { profileFor } from '../../src/core/mcp-versions.js';
import { toMcpCallReply, toMcpTool } from '../../src/core/oxp-to-mcp.js';
import { projectCallToolResult, projectTool } from '../../src/core/project.js';
import { assertValid, filesOf, REVISIONS } from '../helpers/mcp-schema.js';

const here = new URL('.', import.meta.url);
const update = process.env.GOLDEN_UPDATE === '1';
const cases = readdirSync(new URL('cases/', here))
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -5))
  .sort();

interface Case {
  description: string;
  tool: unknown;
  response: { status: number; headers?: Record<string, string>; body: unknown };
}

function run(c: Case, version: (typeof REVISIONS)[number]) {
  const tool = decodeToolDefinition(c.tool);
  if (typeof tool === 'string') throw new Error(tool);
  const entry = buildCatalog([tool]).entries[0]!;
  const profile = profileFor(version);
  const mcpTool = projectTool(toMcpTool(entry), profile);
  const body = typeof c.response.body === 'string' ? c.response.body : JSON.stringify(c.response.body);
  const outcome = decodeCallResponse({ status: c.response.status, headers: { 'content-type': 'application/json', ...c.response.headers }, body });
  const reply = toMcpCallReply(outcome, entry);
  const projected = 'error' in reply ? reply : { result: projectCallToolResult(reply.result, profile, entry.tool.outputSchema) };
  return { tool: mcpTool, reply: projected };
}

for (const version of REVISIONS) {
  describe(`golden ${version}`, () => {
    const dir = new URL(`oxp-to-mcp/${filesOf(version)}/`, here);
    for (const name of cases) {
      it(name, () => {
        const c = JSON.parse(readFileSync(new URL(`cases/${name}.json`, here), 'utf8')) as Case;
        const actual = run(c, version);
        assertValid(version, 'Tool', actual.tool);
        if ('result' in actual.reply) assertValid(version, 'CallToolResult', actual.reply.result);
        assert.ok(!JSON.stringify(actual).includes('does not exist.'), 'developer_message leaked');
        const file = new URL(`${name}.json`, dir);
        const text = `${JSON.stringify({ description: c.description, ...actual }, null, 2)}\n`;
        if (update) {
          mkdirSync(dir, { recursive: true });
          writeFileSync(file, text);
          return;
        }
        assert.ok(existsSync(file), `missing golden file ${version}/${name}.json (run npm run golden:update)`);
        assert.deepEqual(JSON.parse(text), JSON.parse(readFileSync(file, 'utf8')));
      });
    }
    it('has no golden file without a case', () => {
      if (!existsSync(dir)) return assert.fail(`missing golden folder ${version}`);
      const orphans = readdirSync(dir).filter((f) => !cases.includes(f.replace(/\.json$/, '')));
      assert.deepEqual(orphans, []);
    });
  });
}
