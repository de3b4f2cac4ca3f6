import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AccessPolicy, type AccessPolicyConfig, type ToolFacts } from './access-policy.js';
import type { Principal } from './principal.js';

const alice: Principal = { subject: 'alice', name: 'alice', kind: 'token', groups: ['eng'], scopes: [] };
const bob: Principal = { subject: 'bob', name: 'bob', kind: 'token', groups: ['sales'], scopes: [] };
const carol: Principal = {
  subject: 'carol',
  name: 'carol',
  kind: 'oauth',
  groups: [],
  scopes: ['tools:admin'],
  claims: { tenant: 'acme', roles: ['ops', 'dev'] },
};
const add: ToolFacts = { name: 'Calculator_Add', oxpId: 'Calculator.Add', upstream: 'math' };
const wipe: ToolFacts = { name: 'Admin_Wipe', oxpId: 'Admin.Wipe', upstream: 'ops' };

const allowed = (config: AccessPolicyConfig, who: Principal, tool: ToolFacts) => {
  const policy = new AccessPolicy(config);
  return policy.decide(policy.view(who), tool).allow;
};

describe('AccessPolicy', () => {
  it('without rules allows everything and is inactive (today’s behaviour)', () => {
    const policy = new AccessPolicy();
    assert.equal(policy.active, false);
    assert.equal(policy.dependsOnCaller, false);
    assert.equal(policy.decide(policy.view(alice), wipe).allow, true);
  });

  it('the first rule matching both principal and tool decides; none matching, the default', () => {
    const config: AccessPolicyConfig = {
      rules: [
        { id: 'eng-admin', effect: 'allow', principals: { groups: ['eng'] }, tools: { upstreams: ['ops'] } },
        { effect: 'deny', tools: { names: ['Admin_*'] } },
      ],
    };
    assert.equal(allowed(config, alice, wipe), true);
    assert.equal(allowed(config, bob, wipe), false);
    assert.equal(allowed(config, bob, add), true);
    const policy = new AccessPolicy(config);
    assert.deepEqual(policy.decide(policy.view(bob), wipe), { allow: false, rule: { index: 1 } });
    assert.deepEqual(policy.decide(policy.view(alice), wipe), { allow: true, rule: { index: 0, id: 'eng-admin' } });
    assert.equal(allowed({ ...config, default: 'deny' }, bob, add), false);
  });

  it('conditions: any value within one, all of them across', () => {
    const rule = {
      effect: 'allow' as const,
      principals: { names: ['a*', 'zed'], kinds: ['token' as const] },
      tools: { oxpIds: ['Calculator.*'], upstreams: ['math'] },
    };
    const config: AccessPolicyConfig = { default: 'deny', rules: [rule] };
    assert.equal(allowed(config, alice, add), true);
    assert.equal(allowed(config, bob, add), false); // name
    assert.equal(allowed(config, { ...alice, kind: 'oauth' }, add), false); // kind
    assert.equal(allowed(config, alice, { ...add, upstream: 'other' }), false); // upstream
  });

  it('matches scopes and claims (array claims by any element), never claims of another type', () => {
    const config: AccessPolicyConfig = {
      default: 'deny',
      rules: [{ effect: 'allow', principals: { scopes: ['tools:admin'], claims: { tenant: ['acme'], roles: ['ops'] } } }],
    };
    assert.equal(allowed(config, carol, wipe), true);
    assert.equal(allowed(config, { ...carol, claims: { tenant: 'acme', roles: ['dev'] } }, wipe), false);
    assert.equal(allowed(config, { ...carol, claims: { tenant: { name: 'acme' }, roles: ['ops'] } }, wipe), false);
    assert.equal(allowed(config, { ...carol, scopes: [] }, wipe), false);
  });

  it('limits ride on allow rules, with defaults for what a rule leaves out', () => {
    const policy = new AccessPolicy({ rules: [{ effect: 'allow', principals: { names: ['alice'] }, limits: { requestsPerMinute: 60 } }] });
    assert.deepEqual(policy.decide(policy.view(alice), add), {
      allow: true,
      rule: { index: 0 },
      limits: { requestsPerMinute: 60, burst: 10, maxInFlight: 0, per: 'principal' },
    });
    assert.deepEqual(policy.decide(policy.view(bob), add), { allow: true });
  });

  it('a view key is equal for principals the rules cannot tell apart', () => {
    const policy = new AccessPolicy({ rules: [{ effect: 'deny', principals: { groups: ['sales'] }, tools: { names: ['Admin_*'] } }] });
    assert.equal(policy.dependsOnCaller, true);
    assert.equal(policy.view(alice).key, policy.view(carol).key);
    assert.notEqual(policy.view(alice).key, policy.view(bob).key);
  });

  it('a rule about tools only does not make lists depend on the caller', () => {
    const policy = new AccessPolicy({ rules: [{ effect: 'deny', tools: { names: ['Admin_*'] } }] });
    assert.equal(policy.active, true);
    assert.equal(policy.dependsOnCaller, false);
  });
});
