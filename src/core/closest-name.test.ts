import assert from 'node:assert/strict';
import { it } from 'node:test';
import { closestName, editDistance } from './closest-name.js';

const FLAGS = ['config', 'oxp-url', 'oxp-api-key-header', 'oxp-jwt-audience', 'port', 'host', 'oauth-resource-url', 'oauth-issuer', 'help', 'version'];

it('counts insertions, deletions, substitutions and swaps as one edit each', () => {
  assert.equal(editDistance('oxp-ur', 'oxp-url'), 1);
  assert.equal(editDistance('prot', 'port'), 1);
  assert.equal(editDistance('hots', 'host'), 1);
  assert.equal(editDistance('', 'abc'), 3);
  assert.equal(editDistance('kitten', 'sitting'), 3);
});

it('names the flag a typo was meant to be, and none when nothing is close', () => {
  assert.equal(closestName('oxp-ur', FLAGS), 'oxp-url');
  assert.equal(closestName('prot', FLAGS), 'port');
  assert.equal(closestName('OXP-URL', FLAGS), 'oxp-url');
  assert.equal(closestName('confg', FLAGS), 'config');
  assert.equal(closestName('oauth-res', FLAGS), 'oauth-resource-url', 'the start of exactly one');
  assert.equal(closestName('oxp', FLAGS), undefined, 'the start of several: no guess');
  assert.equal(closestName('mcp-command', FLAGS), undefined);
  assert.equal(closestName('x', FLAGS), undefined);
});

it('bounds the work a caller can ask for: the same answers with the cut-off, none for a word past 128 characters', () => {
  const tools = Array.from({ length: 2000 }, (_, i) => `Toolkit_Tool${i}_${'x'.repeat(i % 40)}`);
  assert.equal(closestName('Toolkit_Tool17_xxxxxxxxxxxxxxxxxx', tools), 'Toolkit_Tool17_xxxxxxxxxxxxxxxxx');
  assert.ok(editDistance('kitten', 'sitting', 1) > 1, 'past max: above max');
  assert.equal(editDistance('kitten', 'sitting', 3), 3);
  assert.equal(closestName('a'.repeat(129), ['a'.repeat(128)]), undefined);
  const started = performance.now();
  for (let i = 0; i < 20; i++) closestName('y'.repeat(128), tools);
  assert.ok(performance.now() - started < 5000, 'a long name against 2,000 tools is cut off early');
});
