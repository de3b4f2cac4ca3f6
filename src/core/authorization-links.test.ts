import { it } from 'node:test';
import assert from 'node:assert/strict';
import { linkProblem, MAX_LINK_LENGTH, mayPollCheckUrl, vetChallenges } from './authorization-links.js';
import type { OxpCallOutcome } from './oxp-wire.js';

it('only absolute http(s) links of bounded length may reach a client', () => {
  assert.equal(linkProblem('https://auth.example/authorize?x=1'), undefined);
  assert.equal(linkProblem('http://127.0.0.1:8080/a'), undefined);
  assert.equal(linkProblem('javascript:alert(1)'), 'uses javascript: instead of https');
  assert.equal(linkProblem('JavaScript:alert(1)'), 'uses javascript: instead of https');
  assert.equal(linkProblem('data:text/html,<b>x</b>'), 'uses data: instead of https');
  assert.equal(linkProblem('file:///etc/passwd'), 'uses file: instead of https');
  assert.equal(linkProblem('/relative/path'), 'is not an absolute URL');
  assert.equal(linkProblem(`https://a.example/${'x'.repeat(MAX_LINK_LENGTH)}`), `is longer than ${MAX_LINK_LENGTH} characters`);
});

it('a check_url may be polled on the upstream origin or an allowed one only', () => {
  const upstream = 'http://127.0.0.1:9000/tools-server';
  assert.equal(mayPollCheckUrl('http://127.0.0.1:9000/auth/status', upstream, []), true);
  assert.equal(mayPollCheckUrl('http://127.0.0.1:9001/admin', upstream, []), false, 'another port is another origin');
  assert.equal(mayPollCheckUrl('http://localhost:9000/auth/status', upstream, []), false);
  assert.equal(mayPollCheckUrl('http://[::ffff:7f00:1]:9000/x', upstream, []), false);
  assert.equal(mayPollCheckUrl('https://auth.example/status', upstream, ['https://auth.example']), true);
  assert.equal(mayPollCheckUrl('http://auth.example/status', upstream, ['https://auth.example']), false);
  assert.equal(mayPollCheckUrl('file:///etc/passwd', upstream, []), false);
});

it('vetChallenges: bad links refuse the outcome, foreign check_urls are dropped, the rest is untouched (same reference)', () => {
  const policy = { upstreamUrl: 'https://tools.example/oxp', allowedOrigins: [] };
  const missing = (authorization: { id: string; url: string; checkUrl?: string }[]): OxpCallOutcome => ({
    kind: 'requirements_missing',
    message: 'm',
    authorization,
    userId: false,
    secrets: [],
  });
  const fine = missing([{ id: 'g', url: 'https://auth.example/a', checkUrl: 'https://tools.example/check' }]);
  assert.deepEqual(vetChallenges(fine, policy), { ok: true, outcome: fine, ignoredCheckOrigins: [] });
  assert.equal((vetChallenges(fine, policy) as { outcome: unknown }).outcome, fine);
  const foreign = vetChallenges(missing([{ id: 'g', url: 'https://auth.example/a', checkUrl: 'http://10.0.0.5/admin?delete=1' }]), policy);
  assert.deepEqual(foreign, { ok: true, outcome: missing([{ id: 'g', url: 'https://auth.example/a' }]), ignoredCheckOrigins: ['http://10.0.0.5'] });
  const bad = vetChallenges(missing([{ id: 'g', url: 'javascript:alert(1)' }]), policy);
  assert.equal(bad.ok, false);
  assert.match((bad as { message: string }).message, /authorization link that uses javascript: instead of https/);
  assert.ok(!(bad as { message: string }).message.includes('alert'));
  const badCheck = vetChallenges(missing([{ id: 'g', url: 'https://auth.example/a', checkUrl: 'file:///etc/passwd' }]), policy);
  assert.match((badCheck as { message: string }).message, /authorization check URL that uses file:/);
  const success: OxpCallOutcome = { kind: 'success', value: 1 };
  assert.equal((vetChallenges(success, policy) as { outcome: unknown }).outcome, success);
});
