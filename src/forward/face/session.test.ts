import { it } from 'node:test';
import assert from 'node:assert/strict';
import { SessionCodec } from './session.js';

it('round-trips between replicas that share the secret, and hides the state', () => {
  const a = new SessionCodec('shared-secret-0123456789', 3600);
  const b = new SessionCodec('shared-secret-0123456789', 3600);
  const id = a.mint('2024-11-05', true);
  assert.deepEqual({ ...b.verify(id), issuedAt: 0 }, { revision: '2024-11-05', issuedAt: 0, urlElicitation: true });
  assert.ok(!Buffer.from(id.slice(3), 'base64url').toString('latin1').includes('2024-11-05'), 'encrypted, not just signed');
});

it('refuses other keys, altered bytes, garbage and expired ids', () => {
  let now = 1_000_000;
  const codec = new SessionCodec('secret-one-0123456789', 60, () => now);
  const id = codec.mint('2025-06-18');
  assert.equal(new SessionCodec('secret-two-0123456789', 60).verify(id), undefined);
  const bytes = Buffer.from(id.slice(3), 'base64url');
  bytes[20] = bytes[20]! ^ 1;
  assert.equal(codec.verify(`s2.${bytes.toString('base64url')}`), undefined);
  for (const junk of ['', 's2.', 's2.AAAA', 'x'.repeat(600), 's1.eyJ2IjoiMjAyNS0wNi0xOCJ9.abc']) assert.equal(codec.verify(junk), undefined);
  now += 61_000;
  assert.equal(codec.verify(id), undefined);
});

it("opens ids sealed before the sealing moved to platform/shared/seal.ts (a running deployment's sessions survive the upgrade)", () => {
  // Minted by the previous SessionCodec (its own AES-256-GCM code, 767e2b1) with this secret at this instant.
  const at = 1_790_000_000_000;
  const codec = new SessionCodec('vector-secret-0123456789', 3600, () => at);
  assert.deepEqual(codec.verify('s2.NebPhUKnsIW_oFXtYKnE5ugubfA3c0A9MMo0Ni_LA9jqJjMMCUeFojXBF1PYMMzE-Y1_oLtUrdMiFxFXkxiavAVg35UE'), {
    revision: '2025-06-18',
    issuedAt: at / 1000,
    urlElicitation: true,
  });
  assert.deepEqual(codec.verify('s2.0KEATYxw-IDDhOWb0g0qYuYOY-C7akJEAncqmCPQjybltXBFR5duhDc86rhXSz8HMSQg3tB9xL39yDhdfN9Q'), {
    revision: '2025-11-25',
    issuedAt: at / 1000,
    urlElicitation: false,
  });
});
