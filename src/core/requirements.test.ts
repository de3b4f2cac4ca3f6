import { it } from 'node:test';
import assert from 'node:assert/strict';
import { buildCallContext, secretEnvName, type AvailableValues } from './requirements.js';
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
  assert.deepEqual(buildCallContext(tool({ secrets: [{ id: 'NOPE' }], user_id: true }), { ...values, userId: undefined }), { ok: false, missingSecrets: ['NOPE'], missingUserId: true });
  assert.deepEqual(buildCallContext(tool({ authorization: [{ id: 'slack' }] }), values), { ok: true });
});

it('names the default environment variable of a secret', () => {
  assert.equal(secretEnvName('twilio-api.key'), 'OXP_SECRET_TWILIO_API_KEY');
});
