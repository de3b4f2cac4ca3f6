/**
 * The compile cache's directory (src/platform/compile-cache.ts): it holds code the
 * process will run, so it is used only when this user alone can write it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { safeCompileCacheDir } from './compile-cache.js';

const uid = process.getuid?.();

test('a fresh directory under XDG_CACHE_HOME is created private and used', { skip: uid === undefined }, () => {
  const base = mkdtempSync(join(tmpdir(), 'cc-'));
  try {
    const dir = safeCompileCacheDir({ XDG_CACHE_HOME: base }, uid);
    assert.equal(dir, join(base, 'mcp-oxp-bridge'));
    assert.equal(statSync(dir).mode & 0o777, 0o700);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('a directory others may write, or another user owns, is not used', { skip: uid === undefined }, () => {
  const base = mkdtempSync(join(tmpdir(), 'cc-'));
  try {
    mkdirSync(join(base, 'mcp-oxp-bridge'));
    chmodSync(join(base, 'mcp-oxp-bridge'), 0o777);
    assert.equal(safeCompileCacheDir({ XDG_CACHE_HOME: base }, uid), undefined);
    chmodSync(join(base, 'mcp-oxp-bridge'), 0o700);
    assert.equal(safeCompileCacheDir({ XDG_CACHE_HOME: base }, uid), join(base, 'mcp-oxp-bridge'));
    assert.equal(safeCompileCacheDir({ XDG_CACHE_HOME: base }, uid! + 1), undefined);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('a place that cannot be created is no cache, not a failure', { skip: uid === undefined }, () => {
  assert.equal(safeCompileCacheDir({ XDG_CACHE_HOME: '/proc/no-such-place' }, uid), undefined);
});
