import { it } from 'node:test';
import assert from 'node:assert/strict';
import { compareVersions, isAcceptedOxpSchema, resolveToolVersion } from './oxp-versioning.js';

it('accepts the $schema spellings OXP 1.x servers must accept', () => {
  for (const ok of [
    undefined,
    'urn:oxp:1.0',
    'urn:oxp:1.3',
    'otc://1.0',
    'https://github.com/OpenToolCalling/Specification/tree/main/spec/http/1.0/openapi.json',
  ])
    assert.ok(isAcceptedOxpSchema(ok), String(ok));
  for (const bad of ['urn:oxp:2.0', 'https://example.com/openapi.json', 1, null]) assert.ok(!isAcceptedOxpSchema(bad), String(bad));
});

it('resolves versions exactly as the call-tool page says', () => {
  const versions = (key: string) => (key === 'Calc.Add' ? ['1.0.0', '1.10.0', '2.0.0', '1.9.0'] : undefined);
  assert.deepEqual(resolveToolVersion('Calc.Add', versions), { key: 'Calc.Add', version: '2.0.0' });
  assert.deepEqual(resolveToolVersion('Calc.Add@1', versions), { key: 'Calc.Add', version: '1.0.0' });
  assert.deepEqual(resolveToolVersion('Calc.Add@1.10.0', versions), { key: 'Calc.Add', version: '1.10.0' });
  for (const missing of ['Calc.Add@3', 'Calc.Add@1.2', 'Calc.Add@1.0.1', 'Nope.x', 'Calc.Add@abc'])
    assert.equal(resolveToolVersion(missing, versions), undefined, missing);
});

it('compares versions numerically at any size (beyond safe integers, leading zeros) instead of throwing', () => {
  assert.equal(compareVersions('1.10.0', '1.9.0'), 1);
  assert.equal(compareVersions('99999999999999999999.0.0', '2.0.0'), 1);
  assert.equal(compareVersions('99999999999999999999.0.0', '100000000000000000000.0.0'), -1);
  assert.equal(compareVersions('01.0.0', '1.0.0'), 0);
  const versions = () => ['1.0.0', '99999999999999999999.0.0'];
  assert.deepEqual(resolveToolVersion('Calc.Add', versions), { key: 'Calc.Add', version: '99999999999999999999.0.0' });
});
