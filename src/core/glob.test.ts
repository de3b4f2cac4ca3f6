import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { anyGlob, globMatch } from './glob.js';

describe('globMatch', () => {
  it('matches * as any run of characters and everything else literally', () => {
    const cases: Array<[string, string, boolean]> = [
      ['*', '', true],
      ['*', 'anything', true],
      ['Calc_*', 'Calc_Add', true],
      ['Calc_*', 'calc_Add', false],
      ['*_Add', 'Calc_Add', true],
      ['C*c*_A*d', 'Calc_Add', true],
      ['Calc_Add', 'Calc_Add', true],
      ['Calc_Add', 'Calc_Ad', false],
      ['Calc.Add@*', 'Calc.Add@1.0.0', true],
      ['a.c', 'abc', false], // '.' is literal, not a regexp dot
      ['[ab]', 'a', false],
      ['**', 'x', true],
      ['a*b*c', 'abxbc', true],
      ['a*b*c', 'abxbd', false],
      ['', '', true],
      ['', 'a', false],
    ];
    for (const [pattern, name, expected] of cases) assert.equal(globMatch(pattern, name), expected, `${pattern} vs ${name}`);
  });

  it('stays fast on the patterns that make a regexp backtrack (catastrophic near misses)', () => {
    const pattern = `${'*a'.repeat(30)}*b`;
    const name = 'a'.repeat(100_000);
    const started = performance.now();
    assert.equal(globMatch(pattern, name), false);
    // The walk is bounded by pattern × name steps (~6 M here); a backtracking regexp would not finish.
    assert.ok(performance.now() - started < 5_000);
  });
});

describe('anyGlob', () => {
  it('matches when any pattern does, and never for no patterns', () => {
    assert.equal(anyGlob([])('x'), false);
    assert.equal(anyGlob(['*'])(''), true);
    assert.equal(anyGlob(['a', 'b*'])('bz'), true);
    assert.equal(anyGlob(['a', 'b*'])('c'), false);
  });
});
