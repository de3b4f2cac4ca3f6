/**
 * src/platform/net/host-origin.ts answers every Host and Origin value as the MCP SDK's
 * own checks do (verdict and message): the face applies them before the SDK
 * is loaded, so they are a copy, and this table keeps the copy honest.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  localhostAllowedHostnames as sdkHostNames,
  localhostAllowedOrigins as sdkOriginNames,
  validateHostHeader as sdkHost,
  validateOriginHeader as sdkOrigin,
} from '@modelcontextprotocol/server';
import { hostOriginProblem, localhostAllowedHostnames, localhostAllowedOrigins, validateHostHeader, validateOriginHeader } from './host-origin.js';

const HOSTS = [
  undefined,
  '',
  'localhost',
  'localhost:8080',
  'LOCALHOST',
  '127.0.0.1',
  '127.0.0.1:1',
  '127.1',
  '0x7f.0.0.1',
  '[::1]',
  '[::1]:80',
  '::1',
  'evil.example',
  'evil.example:80',
  'localhost.evil.example',
  'localhost@evil.example',
  'user:pw@localhost',
  'localhost/x',
  'localhost?x',
  'localhost#x',
  'local host',
  'localhost:99999',
  'localhost:',
  '[::ffff:127.0.0.1]',
  'xn--nxasmq6b',
  'ex\u00e4mple.com',
  '%6cocalhost',
  'localhost.',
  ' localhost',
  'a'.repeat(300),
];
const ORIGINS = [
  undefined,
  '',
  'null',
  'http://localhost',
  'http://localhost:3000',
  'https://127.0.0.1',
  'http://[::1]:8080',
  'http://evil.example',
  'https://localhost.evil.example',
  'chrome-extension://abcdef',
  'moz-extension://1234-5678',
  'file://',
  'file:///etc/passwd',
  'localhost',
  '//localhost',
  'http://',
  'http://user@localhost',
  'HTTP://LOCALHOST',
  'data:text/plain,x',
  'javascript:alert(1)',
  'http://localhost/path?q',
  'ws://localhost',
  'http://0x7f000001',
];
const HOST_LISTS = [localhostAllowedHostnames(), ['evil.example'], ['localhost', 'example.com'], []];
const ORIGIN_LISTS = [localhostAllowedOrigins(), ['moz-extension://*', 'localhost'], ['abcdef', 'chrome-extension://*'], ['http://*', 'evil.example'], []];

const shape = (v: { ok: boolean; message?: string; hostname?: string }) => (v.ok ? { ok: true, hostname: v.hostname } : { ok: false, message: v.message });

test("the localhost lists are the SDK's", () => {
  assert.deepEqual(localhostAllowedHostnames(), sdkHostNames());
  assert.deepEqual(localhostAllowedOrigins(), sdkOriginNames());
});

test('Host verdicts and messages match the SDK on every value and list', () => {
  for (const list of HOST_LISTS)
    for (const host of HOSTS)
      assert.deepEqual(shape(validateHostHeader(host, list)), shape(sdkHost(host, list)), `Host ${JSON.stringify(host)} against ${JSON.stringify(list)}`);
});

test('Origin verdicts and messages match the SDK on every value and list', () => {
  for (const list of ORIGIN_LISTS)
    for (const origin of ORIGINS)
      assert.deepEqual(
        shape(validateOriginHeader(origin, list)),
        shape(sdkOrigin(origin, list)),
        `Origin ${JSON.stringify(origin)} against ${JSON.stringify(list)}`,
      );
});

test('hostOriginProblem: Host first, then Origin, each only against a list that is given', () => {
  const hosts = ['localhost'];
  const origins = ['localhost'];
  assert.equal(hostOriginProblem('localhost:3000', undefined, hosts, origins), undefined);
  assert.equal(hostOriginProblem('evil.example', 'http://evil.example', hosts, origins), 'Invalid Host: evil.example');
  assert.equal(hostOriginProblem('localhost', 'http://evil.example', hosts, origins), 'Invalid Origin: evil.example');
  assert.equal(hostOriginProblem('evil.example', undefined, undefined, origins), undefined);
  assert.equal(hostOriginProblem('localhost', 'http://evil.example', hosts, undefined), undefined);
});
