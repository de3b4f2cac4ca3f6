/**
 * The default connection bound (src/platform/net/server-limits.ts): half the open-files
 * limit, between 256 and 16,384; 1,024 when the limit cannot be read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultMaxConnections } from './server-limits.js';

const limits = (soft: string, hard = soft) =>
  `Limit                     Soft Limit           Hard Limit           Units     \nMax open files            ${soft.padEnd(20)} ${hard.padEnd(20)} files     \n`;

test('half the open-files limit, within 256 and 16,384', () => {
  assert.equal(defaultMaxConnections(limits('20000')), 10_000);
  assert.equal(defaultMaxConnections(limits('4096')), 2_048);
  assert.equal(defaultMaxConnections(limits('1024')), 512);
  assert.equal(defaultMaxConnections(limits('256')), 256);
  assert.equal(defaultMaxConnections(limits('1048576')), 16_384);
  assert.equal(defaultMaxConnections(limits('unlimited')), 16_384);
});

test('1,024 where the limit cannot be read', () => {
  assert.equal(defaultMaxConnections(''), 1_024);
  assert.equal(defaultMaxConnections('Max processes 100 100 processes\n'), 1_024);
});

test('this process: a number in range', () => {
  const n = defaultMaxConnections();
  assert.ok(Number.isInteger(n) && n >= 256 && n <= 16_384, String(n));
});
