/**
 * Golden files for the full round trip MCP server → oxp-server → MCP face:
 * what an MCP tool and its result become in OXP (validated against the OXP
 * OpenAPI schemas), and what each MCP revision then receives from the
 * bridge's MCP face (validated against that revision's closed schema).
 *
 * mcp-cases/<case>.json holds an MCP Tool and a CallToolResult;
 * mcp-round-trip/<version>/<case>.json holds the OXP definition and response
 * and the projected MCP tool and reply. No silent skips: a case without a
 * golden file, or a golden file without a case, fails. Regenerate with
 * `npm run golden:update` and review the diff.
 *
 * Beyond the golden comparison, "nothing lost" is asserted directly: every
 * content block (annotations, resources and links included), the title and
 * the tool annotations come back as the MCP server sent them, as far as each
 * revision defines them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { buildCatalog } from '../../src/core/catalog.js';
import type { JsonObject } from '../../src/core/json.js';
import { buildOxpCatalog, toOxpReply } from '../../src/core/mcp-to-oxp.js';
import { profileFor } from '../../src/core/mcp-versions.js';
import type { McpCallToolResult, McpTool } from '../../src/core/mcp-wire.js';
import { decodeCallResponse, decodeToolDefinition } from '../../src/core/oxp-decode.js';
import { toMcpCallReply, toMcpTool } from '../../src/core/oxp-to-mcp.js';
import { projectCallToolResult, projectContentBlock, projectTool } from '../../src/core/project.js';
import { assertValid, filesOf, REVISIONS } from '../helpers/mcp-schema.js';
import { assertOxpSchema } from '../helpers/oxp-server-harness.js';

const here = new URL('.', import.meta.url);
const update = process.env.GOLDEN_UPDATE === '1';
const cases = readdirSync(new URL('mcp-cases/', here))
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -5))
  .sort();

interface Case {
  description: string;
  tool: McpTool;
  result: McpCallToolResult;
}

/** The oxp-server half: MCP tool and result → OXP ToolDefinition and call response body. */
function toOxp(c: Case) {
  const [entry] = buildOxpCatalog([{ upstream: 0, toolkit: 'Kit', version: '1.0.0', tools: [c.tool] }]);
  assert.ok(entry, 'the tool is published');
  const { reply } = toOxpReply({ kind: 'result', result: c.result }, entry);
  assert.ok('value' in reply || 'error' in reply, 'a 200 reply');
  const result =
    'value' in reply ? { call_id: 'c1', duration: 1, success: true, value: reply.value } : { call_id: 'c1', duration: 1, success: false, error: reply.error };
  return { definition: entry.definition, response: { $schema: 'urn:oxp:1.0', result } };
}

/** The MCP face half, as bridge.ts runs it: OXP definition and response → the MCP tool and reply one revision receives. */
function toMcp(oxp: ReturnType<typeof toOxp>, version: (typeof REVISIONS)[number]) {
  const tool = decodeToolDefinition(oxp.definition);
  if (typeof tool === 'string') throw new Error(tool);
  const entry = buildCatalog([tool]).entries[0]!;
  const profile = profileFor(version);
  const outcome = decodeCallResponse({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(oxp.response) });
  const reply = toMcpCallReply(outcome, entry);
  return {
    tool: projectTool(toMcpTool(entry), profile),
    reply: 'error' in reply ? reply : { result: projectCallToolResult(reply.result, profile, entry.tool.outputSchema) },
  };
}

for (const version of REVISIONS) {
  describe(`golden round trip MCP → OXP → MCP ${version}`, () => {
    const dir = new URL(`mcp-round-trip/${filesOf(version)}/`, here);
    const has = profileFor(version).has;
    for (const name of cases) {
      it(name, () => {
        const c = JSON.parse(readFileSync(new URL(`mcp-cases/${name}.json`, here), 'utf8')) as Case;
        const oxp = toOxp(c);
        assertOxpSchema('ToolDefinition', oxp.definition);
        assertOxpSchema('CallToolResponse200', oxp.response);
        const mcp = toMcp(oxp, version);
        assertValid(version, 'Tool', mcp.tool);
        assert.ok('result' in mcp.reply);
        assertValid(version, 'CallToolResult', mcp.reply.result);

        // Nothing lost, where the revision can carry it.
        assert.equal(mcp.tool.name, c.tool.name, 'the MCP name survives');
        if (c.tool.title !== undefined) {
          if (has.toolTitle) assert.equal(mcp.tool.title, c.tool.title);
          else if (has.toolAnnotations) assert.equal((mcp.tool.annotations as JsonObject).title, c.tool.title);
        }
        if (c.tool.annotations !== undefined && has.toolAnnotations) {
          for (const [k, v] of Object.entries(c.tool.annotations)) assert.equal((mcp.tool.annotations as JsonObject)[k], v, k);
        }
        if (c.result.structuredContent === undefined) {
          // A lone text is the OXP value itself (its annotations are not carried); any other content comes back
          // block for block, as the revision can carry it (project.ts).
          const [only] = c.result.content;
          const expected =
            c.result.content.length === 1 && only!.type === 'text'
              ? [{ type: 'text', text: only!.text }]
              : c.result.content.map((b) => projectContentBlock(b, profileFor(version)));
          assert.deepEqual(mcp.reply.result.content, expected, 'every block the revision defines comes back as sent');
        } else {
          assert.deepEqual(mcp.reply.result.structuredContent ?? JSON.parse(String(mcp.reply.result.content[0]!.text)), c.result.structuredContent);
        }

        const file = new URL(`${name}.json`, dir);
        const text = `${JSON.stringify({ description: c.description, oxp, mcp }, null, 2)}\n`;
        if (update) {
          mkdirSync(dir, { recursive: true });
          writeFileSync(file, text);
          return;
        }
        assert.ok(existsSync(file), `missing golden file mcp-round-trip/${version}/${name}.json (run npm run golden:update)`);
        assert.deepEqual(JSON.parse(text), JSON.parse(readFileSync(file, 'utf8')));
      });
    }
    it('has no golden file without a case', () => {
      if (!existsSync(dir)) return assert.fail(`missing golden folder mcp-round-trip/${version}`);
      assert.deepEqual(
        readdirSync(dir).filter((f) => !cases.includes(f.replace(/\.json$/, ''))),
        [],
      );
    });
  });
}
