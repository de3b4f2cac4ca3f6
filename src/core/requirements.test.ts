import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildCallContext, declaredContext, missingContext, secretEnvName, type AvailableValues } from './requirements.js';
import type { OxpTool } from './oxp-wire.js';

const values: AvailableValues = {
  secret: (id) => ({ TWILIO_API_KEY: 'tw', OTHER: 'other' })[id],
  userId: 'alice',
  authorization: new Map([
    ['google', 'g-token'],
    ['github', 'gh-token'],
  ]),
};
const tool = (requirements?: OxpTool['requirements']): OxpTool => ({ key: 'T.t', inputSchema: { type: 'object' }, ...(requirements ? { requirements } : {}) });

it('sends nothing to a tool that declares nothing', () => {
  assert.deepEqual(buildCallContext(tool(), values), { ok: true });
});

it('sends exactly the declared secrets, user id and providers', () => {
  assert.deepEqual(buildCallContext(tool({ secrets: [{ id: 'TWILIO_API_KEY' }], user_id: true, authorization: [{ id: 'Google' }] }), values), {
    ok: true,
    context: { secrets: [{ id: 'TWILIO_API_KEY', value: 'tw' }], user_id: 'alice', authorization: [{ id: 'Google', token: 'g-token' }] },
  });
});

it('reports missing secrets and user id; leaves tokenless providers to the server challenge', () => {
  assert.deepEqual(buildCallContext(tool({ secrets: [{ id: 'NOPE' }], user_id: true }), { ...values, userId: undefined }), {
    ok: false,
    missingSecrets: ['NOPE'],
    missingUserId: true,
  });
  assert.deepEqual(buildCallContext(tool({ authorization: [{ id: 'slack' }] }), values), { ok: true });
});

it('names the default environment variable of a secret', () => {
  assert.equal(secretEnvName('twilio-api.key'), 'OXP_SECRET_TWILIO_API_KEY');
});

describe('server side: the context a call brings', () => {
  const requirements = { secrets: [{ id: 'KEY' }], authorization: [{ id: 'github' }], user_id: true };
  const full = {
    secrets: [
      { id: 'KEY', value: 's' },
      { id: 'OTHER', value: 'x' },
    ],
    authorization: [
      { id: 'github', token: 't' },
      { id: 'google', token: 'g' },
    ],
    user_id: 'u1',
    extra: 1,
  };

  it('passes on only what the tool declared', () => {
    assert.equal(missingContext(requirements, full), undefined);
    assert.deepEqual(declaredContext(requirements, full), {
      secrets: [{ id: 'KEY', value: 's' }],
      authorization: [{ id: 'github', token: 't' }],
      user_id: 'u1',
    });
    assert.equal(declaredContext(undefined, full), undefined);
    assert.equal(declaredContext({ secrets: [{ id: 'NOPE' }] }, full), undefined);
  });

  it('names everything missing, and flags a missing user id the spec way', () => {
    assert.deepEqual(missingContext(requirements, undefined), {
      message: 'The tool needs an authorization token for github and the secret KEY and a user id, which the call did not provide.',
      missing_requirements: { user_id: true },
    });
    assert.deepEqual(missingContext({ secrets: [{ id: 'A' }, { id: 'B' }] }, { secrets: [{ id: 'A', value: 1 }] }), {
      message: 'The tool needs the secrets A, B, which the call did not provide.',
    });
    assert.equal(missingContext(undefined, undefined), undefined);
  });
});
