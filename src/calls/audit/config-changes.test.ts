import { it } from 'node:test';
import assert from 'node:assert/strict';
import { configChanges } from './config-changes.js';

it('names the keys that changed, two levels deep, and upstreams by name; never a value', () => {
  const before = {
    logLevel: 'info',
    catalog: { pageSize: 500, refreshSeconds: 300 },
    requirements: { secrets: { API_KEY: { env: 'OLD_VAR' } } },
    upstreams: [
      { name: 'a', url: 'http://a' },
      { name: 'b', url: 'http://b' },
    ],
  };
  const after = {
    logLevel: 'debug',
    catalog: { refreshSeconds: 300, pageSize: 100 },
    requirements: { secrets: { API_KEY: { env: 'NEW_VAR' } } },
    upstreams: [
      { name: 'b', url: 'http://b2' },
      { name: 'c', url: 'http://c' },
    ],
    port: 9999,
  };
  const changes = configChanges(before, after);
  assert.deepEqual(changes, [
    'catalog.pageSize',
    'logLevel',
    'port',
    'requirements.secrets',
    'upstreams: added c',
    'upstreams: removed a',
    'upstreams: changed b',
  ]);
  assert.ok(!JSON.stringify(changes).includes('VAR'), 'names, not values');
});

it('the same configuration with its keys in another order changes nothing', () => {
  const a = { catalog: { pageSize: 1, refreshSeconds: 2 }, upstreams: [{ name: 'a', url: 'http://a', tools: { allow: ['x', 'y'] } }] };
  const b = { upstreams: [{ tools: { allow: ['x', 'y'] }, url: 'http://a', name: 'a' }], catalog: { refreshSeconds: 2, pageSize: 1 } };
  assert.deepEqual(configChanges(a, b), []);
  assert.deepEqual(
    configChanges(a, { ...b, upstreams: [{ name: 'a', url: 'http://a', tools: { allow: ['y', 'x'] } }] }),
    ['upstreams: changed a'],
    'list order counts',
  );
});
