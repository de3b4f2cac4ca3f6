import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildCatalog, MCP_NAME_RE } from './catalog.js';
import { mergeCatalogs, unmatchedToolKeys, type UpstreamCatalog } from './merge.js';
import type { OxpTool } from './oxp-wire.js';

const tool = (key: string, name?: string, extra: Partial<OxpTool> = {}): OxpTool => ({
  key,
  version: '1.0.0',
  inputSchema: { type: 'object' },
  ...(name ? { name } : {}),
  ...extra,
});
const part = (upstream: string, tools: OxpTool[], rest: Partial<UpstreamCatalog> = {}): UpstreamCatalog => ({
  upstream,
  catalog: buildCatalog(tools),
  policy: {},
  ...rest,
});

describe('mergeCatalogs', () => {
  it('keeps names as they are until they collide, then prefixes with the upstream name', () => {
    const merged = mergeCatalogs([part('crm', [tool('Crm.Search', 'Search'), tool('Crm.Add', 'Add_Contact')]), part('docs', [tool('Docs.Search', 'Search')])]);
    assert.deepEqual(
      merged.entries.map((e) => [e.name, e.upstream, e.callId]),
      [
        ['Add_Contact', 'crm', 'Crm.Add@1.0.0'],
        ['crm_Search', 'crm', 'Crm.Search@1.0.0'],
        ['docs_Search', 'docs', 'Docs.Search@1.0.0'],
      ],
    );
  });

  it('always prefixes an upstream that configured a prefix', () => {
    const merged = mergeCatalogs([part('a', [tool('A.x', 'X')], { prefix: 'alpha' }), part('b', [tool('B.y', 'Y')])]);
    assert.deepEqual(
      merged.entries.map((e) => e.name),
      ['Y', 'alpha_X'],
    );
  });

  it('applies allow/deny globs, renames and description overrides', () => {
    const merged = mergeCatalogs([
      part('gh', [tool('GitHub.CreateIssue', 'GitHub_CreateIssue'), tool('GitHub.DeleteRepo', 'GitHub_DeleteRepo'), tool('Slack.Post', 'Slack_Post')], {
        policy: {
          allow: ['GitHub_*'],
          deny: ['*Delete*'],
          rename: { GitHub_CreateIssue: 'new_issue' },
          descriptions: { GitHub_CreateIssue: 'Open an issue.' },
        },
      }),
    ]);
    assert.deepEqual(
      merged.entries.map((e) => [e.name, e.tool.description]),
      [['new_issue', 'Open an issue.']],
    );
  });

  it('hides fixed arguments from the schema clients see and keeps them for the call', () => {
    const merged = mergeCatalogs([
      part(
        't',
        [
          tool('T.send', 'send', {
            inputSchema: { type: 'object', properties: { to: { type: 'string' }, from: { type: 'string' } }, required: ['to', 'from'] },
          }),
        ],
        {
          policy: { fixedArguments: { send: { from: 'noreply@example.com' } } },
        },
      ),
    ]);
    const e = merged.entries[0]!;
    assert.deepEqual(e.tool.inputSchema, { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] });
    assert.deepEqual(e.fixedArguments, { from: 'noreply@example.com' });
  });

  it('keeps every name valid and unique even when prefixing overflows 64 characters', () => {
    const long = 'T'.repeat(60);
    const merged = mergeCatalogs([part('upstream-one', [tool('A.a', long)]), part('upstream-two', [tool('B.b', long)])]);
    const names = merged.entries.map((e) => e.name);
    assert.equal(new Set(names).size, 2);
    for (const n of names) assert.match(n, MCP_NAME_RE);
  });

  it('maps each merged name back to its upstream and tool, and is deterministic', () => {
    const parts = [part('x', [tool('X.t', 'same')]), part('y', [tool('Y.t', 'same')])];
    const a = mergeCatalogs(parts);
    const b = mergeCatalogs(parts);
    assert.deepEqual(
      a.entries.map((e) => e.name),
      b.entries.map((e) => e.name),
    );
    assert.equal(a.nameByKey.get('y/Y.t'), 'y_same');
    assert.equal(a.byName.get('x_same')?.upstream, 'x');
  });
});

describe('unmatchedToolKeys', () => {
  const catalog = buildCatalog([tool('Crm.Add', 'Crm_AddContact'), tool('Crm.Delete', 'Crm_DeleteContact')]);

  it('names the rename, descriptions and fixedArguments keys that match no published tool', () => {
    const keys = unmatchedToolKeys(
      {
        deny: ['*Delete*'],
        rename: { Crm_AddContact: 'add_contact', Crm_AddContcat: 'typo' },
        descriptions: { Crm_DeleteContact: 'denied, so it does nothing' },
        fixedArguments: { 'Crm.Add': { from: 'an OXP id is not a key' }, Crm_AddContact: { from: 'x' } },
      },
      catalog,
    );
    assert.deepEqual(keys, ['tools.descriptions.Crm_DeleteContact', 'tools.fixedArguments.Crm.Add', 'tools.rename.Crm_AddContcat']);
  });

  it('is empty when every key names a published tool, or there are none', () => {
    assert.deepEqual(unmatchedToolKeys({ rename: { Crm_AddContact: 'add' } }, catalog), []);
    assert.deepEqual(unmatchedToolKeys({}, catalog), []);
  });
});
