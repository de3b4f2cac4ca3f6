import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { RequirementsConfig } from './upstream-settings.js';
import { boundRequirements, unboundSecretVariables } from './grants.js';

const global: RequirementsConfig = {
  secrets: { SHARED_KEY: { env: 'SHARED_SOURCE' } },
  authorization: { github: { env: 'GITHUB_TOKEN' } },
  authorizationHeaderPrefix: 'X-OXP-Authorization-',
};

it('the only upstream without grants receives every global value, as before', () => {
  assert.deepEqual(boundRequirements(global, []), [global]);
  const [only] = boundRequirements(global, [{ name: 'a', secrets: { OWN: { env: 'OWN' } } }]);
  assert.deepEqual(only, { ...global, secrets: { SHARED_KEY: { env: 'SHARED_SOURCE' }, OWN: { env: 'OWN' } } });
  assert.equal('granted' in only, false);
});

it('several upstreams: global values reach the granting ones only; own secrets stay own', () => {
  const [a, b] = boundRequirements(global, [
    { name: 'a', grants: { secrets: ['SHARED_KEY'], authorization: ['GitHub'] } },
    { name: 'b', secrets: { SHARED_KEY: { env: 'B_KEY' } } },
  ]);
  assert.deepEqual(a, { ...global, granted: { secrets: ['SHARED_KEY'], authorization: ['github'] } });
  assert.deepEqual(b, { ...global, secrets: { SHARED_KEY: { env: 'B_KEY' } }, authorization: {}, granted: { secrets: [], authorization: [] } });
});

it('a global value no upstream may receive is refused with the key to add', () => {
  const entries = [{ name: 'trusted' }, { name: 'other' }];
  assert.throws(
    () => boundRequirements(global, entries),
    /requirements\.secrets\.SHARED_KEY reaches no upstream.*name: trusted → grants: \{ secrets: \[SHARED_KEY\] \}/,
  );
  assert.throws(
    () => boundRequirements({ ...global, secrets: {} }, entries),
    /requirements\.authorization\.github reaches no upstream.*grants: \{ authorization: \[github\] \}/,
  );
  // Granting, or one upstream with grants that leave a global value out, is judged the same way.
  assert.doesNotThrow(() =>
    boundRequirements(global, [{ name: 'trusted', grants: { secrets: ['SHARED_KEY'], authorization: ['github'] } }, { name: 'other' }]),
  );
  assert.throws(() => boundRequirements(global, [{ name: 'only', grants: { authorization: ['github'] } }]), /SHARED_KEY reaches no upstream/);
});

it('lists the OXP_SECRET_<ID> variables no upstream may read', () => {
  const bound = boundRequirements({ ...global, secrets: {}, authorization: {} }, [{ name: 'a', grants: { secrets: ['shared-key'] } }, { name: 'b' }]);
  assert.deepEqual(unboundSecretVariables(bound, { OXP_SECRET_SHARED_KEY: 'x', OXP_SECRET_OTHER: 'y', OXP_SECRET_EMPTY: '', PATH: '/bin' }), [
    'OXP_SECRET_OTHER',
  ]);
  assert.deepEqual(unboundSecretVariables(boundRequirements(global, []), { OXP_SECRET_OTHER: 'y' }), [], 'one upstream reads them all');
});
