import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InFlight } from './in-flight.js';

test('idle resolves at once with 0 when nothing is in flight', async () => {
  assert.equal(await new InFlight().idle(10_000), 0);
});

test('idle resolves when the last one leaves, before the deadline', async () => {
  const work = new InFlight();
  work.enter();
  work.enter();
  const started = Date.now();
  const idle = work.idle(10_000);
  setTimeout(() => work.leave(), 20);
  setTimeout(() => work.leave(), 40);
  assert.equal(await idle, 0);
  assert.ok(Date.now() - started < 5_000);
  assert.equal(work.size, 0);
});

test('idle resolves at the deadline with those left, and a later leave wakes nobody twice', async () => {
  const work = new InFlight();
  work.enter();
  assert.equal(await work.idle(30), 1);
  work.leave();
  assert.equal(work.size, 0);
});
