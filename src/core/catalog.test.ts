import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildCatalog, derivedName, hash8, latestVersions, MCP_NAME_RE } from './catalog.js';
import type { OxpTool } from './oxp-wire.js';

const tool = (key: string, extra: Partial<OxpTool> = {}): OxpTool => ({ key, inputSchema: { type: 'object' }, ...extra });

describe('latestVersions', () => {
  it('picks the highest version by numeric semver, not string order', () => {
    const tools = ['1.0.0', '1.10.0', '1.9.0', '1.2.0'].map((version) => tool('Calc.Add', { version }));
    assert.equal(latestVersions(tools)[0]!.version, '1.10.0');
  });
  it('keeps the catalog when a version is beyond safe integers: it is simply the highest', () => {
    const tools = ['1.0.0', '99999999999999999999.0.0', '2.0.0'].map((version) => tool('Calc.Add', { version }));
    assert.equal(latestVersions(tools)[0]!.version, '99999999999999999999.0.0');
    assert.equal(buildCatalog([...tools, tool('Other.tool', { version: '1.0.0' })]).entries.length, 2);
  });
  it('prefers a versioned entry over an unversioned one', () => {
    assert.equal(latestVersions([tool('A.b', { version: '0.1.0' }), tool('A.b')])[0]!.version, '0.1.0');
  });
});

describe('buildCatalog names', () => {
  it('uses the OXP name when valid and free, and calls the pinned version', () => {
    const c = buildCatalog([tool('Calculator.Add', { name: 'Calculator_Add', version: '1.0.0' })]);
    assert.equal(c.entries[0]!.name, 'Calculator_Add');
    assert.equal(c.entries[0]!.callId, 'Calculator.Add@1.0.0');
  });
  it('derives names for missing, invalid and colliding names', () => {
    const c = buildCatalog([tool('A.one', { name: 'same' }), tool('B.two', { name: 'same' }), tool('C.three', { name: 'has space' }), tool('D.four')]);
    assert.deepEqual(
      c.entries.map((e) => [e.tool.key, e.name]),
      [
        ['B.two', 'B_two'],
        ['C.three', 'C_three'],
        ['D.four', 'D_four'],
        ['A.one', 'same'],
      ].sort((x, y) => (x[1]! < y[1]! ? -1 : 1)),
    );
  });
  it('grammar breakers get unique, valid, bounded names', () => {
    const keys = ['echo', 'My-Kit.Tool', 'A.B.C', 'Math.Add', 'math.add', 'A_B.C', 'A.B_C', 'X'.repeat(200), 'Kalkül.Addiere', '工具.加', '工具.减'];
    const c = buildCatalog(keys.map((k) => tool(k)));
    const names = c.entries.map((e) => e.name);
    assert.equal(new Set(names).size, keys.length);
    for (const n of names) assert.match(n, MCP_NAME_RE);
    assert.equal(c.nameByKey.get('Math.Add'), 'Math_Add');
    assert.equal(c.nameByKey.get('math.add'), 'math_add');
    assert.notEqual(c.nameByKey.get('A_B.C'), c.nameByKey.get('A.B_C'));
  });
  it('names do not depend on listing order (stable across restarts)', () => {
    const tools = [tool('A_B.C'), tool('A.B_C'), tool('X.y', { name: 'dup' }), tool('W.z', { name: 'dup' })];
    const forward = buildCatalog(tools).entries.map((e) => `${e.tool.key}=${e.name}`);
    const backward = buildCatalog([...tools].reverse()).entries.map((e) => `${e.tool.key}=${e.name}`);
    assert.deepEqual(forward, backward);
  });
  it('two-way map: every name resolves to its tool and back', () => {
    const c = buildCatalog([tool('A.b'), tool('C.d', { name: 'Cd' })]);
    for (const e of c.entries) {
      assert.equal(c.byName.get(e.name), e);
      assert.equal(c.nameByKey.get(e.tool.key), e.name);
    }
  });
  it('orders entries by name, code-unit order', () => {
    const c = buildCatalog([tool('b.x'), tool('B.x'), tool('a.x')]);
    assert.deepEqual(
      c.entries.map((e) => e.name),
      ['B_x', 'a_x', 'b_x'],
    );
  });
});

describe('derivedName', () => {
  it('is readable when lossless and hashed when not', () => {
    assert.equal(derivedName('Gmail.GetEmails'), 'Gmail_GetEmails');
    assert.equal(derivedName('Kalkül.Addiere'), `Kalk_l_Addiere_${hash8('Kalkül.Addiere')}`);
    assert.equal(derivedName('X'.repeat(100)).length, 64);
  });
});
