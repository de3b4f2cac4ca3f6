import { it } from 'node:test';
import assert from 'node:assert/strict';
import { linearRegExp, toRe2Syntax } from './linear-regexp.js';

it('rewrites ECMAScript \\u escapes to RE2 syntax, leaving everything else as written', () => {
  assert.equal(toRe2Syntax('^\\d+$'), '^\\d+$');
  assert.equal(toRe2Syntax('caf\\u00e9'), 'caf\\x{e9}');
  assert.equal(toRe2Syntax('[\\u0041-\\u005A]'), '[\\x{41}-\\x{5a}]');
  assert.equal(toRe2Syntax('\\u{1F600}'), '\\x{1F600}');
  assert.equal(toRe2Syntax('\\uD83D\\uDE00'), '\\x{1f600}');
  assert.equal(toRe2Syntax('\\\\u0041'), '\\\\u0041', 'an escaped backslash then u0041 stays literal');
  assert.equal(toRe2Syntax('\\uZZ'), '\\uZZ', 'not an escape: left for RE2 to refuse');
});

it('gives each pattern its own cache key (ajv caches compiled patterns by toString)', () => {
  assert.notEqual(String(linearRegExp('^a$', 'u')), String(linearRegExp('^b$', 'u')));
  assert.equal(linearRegExp('^a$', 'u').test('a'), true);
  assert.equal(linearRegExp('^b$', 'u').test('a'), false);
});

it('refuses what RE2 cannot do in linear time instead of falling back to backtracking', () => {
  for (const p of ['(?=a)', '(?!a)', '(a)\\1', '(?<=a)b']) assert.throws(() => linearRegExp(p, 'u'), p);
});
