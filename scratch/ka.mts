import { startOxpFixture } from '../test/fixtures/oxp-fixture-server.ts';
import { CallPool } from '../src/oxp-client/call-pool.ts';
import { CallAbort } from '../src/oxp-client/call-abort.ts';
import * as http from 'node:http';
const fx = await startOxpFixture({ idleCloseMs: 300, tools: [{ id: 'E.F', name: 'E_F', version: '1.0.0', description: 'x', input_schema: { type: 'object' }, handler: () => ({ value: 'ok' }) }] });
const pool = new CallPool(new URL(fx.url + '/tools/call'), { connections: 8, connectTimeoutMs: 2000, maxResponseBytes: 1e6 });
// instrument: wrap http.request to see errors
const orig = (pool as any).send.bind(pool);
(pool as any).send = async (...a: any[]) => { try { return await orig(...a); } catch (e: any) { console.log('send error', e?.constructor?.name, e?.code, e?.message, 'cause', e?.cause?.code); throw e; } };
let fails = 0;
for (let i = 0; i < 120; i++) {
  await new Promise((r) => setTimeout(r, 295 + (i % 11)));
  try { await pool.post(JSON.stringify({ $schema: 'urn:oxp:1.0', request: { tool_id: 'E.F', call_id: String(i), input: {} } }), { 'content-type': 'application/json' }, new CallAbort()); }
  catch (e: any) { fails++; console.log('FAIL', i, e?.code, e?.message); }
}
console.log('fails', fails, 'retried', pool.retriedOnFreshConnection);
await fx.close(); pool.destroy();
