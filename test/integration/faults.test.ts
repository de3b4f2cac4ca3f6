/**
 * Issue 37, held to invariants under faults: three replicas of the real CLI behind a real nginx, sharing a real Redis,
 * in front of an OXP fixture that records when each call_id was open; a steady load of plain calls and tasks (through
 * nginx, and straight to each replica); Redis frozen longer than tasks.leaseMs, then killed and restarted; one
 * replica SIGKILLed, another sent SIGTERM as a rolling update does, each started again (test/helpers/fault-scenario.ts).
 * Then one case per invariant (test/helpers/fault-invariants.ts), each failing with its first violations; the whole
 * summary is printed. The same scenario for minutes, with each replica's RSS over time: `npm run bench:faults`
 * (docs/testing.md).
 *
 * FAULTS_SEED=N repeats a run's random choices (the seed is printed).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startDeployment, type Deployment } from '../helpers/fault-deployment.js';
import { INVARIANTS } from '../helpers/fault-invariants.js';
import { faultRound, type RoundResult } from '../helpers/fault-scenario.js';
import { requireNginx } from '../helpers/nginx.js';
import { requireRedisServer } from '../helpers/redis-server.js';

const nginx = requireNginx();
const redisMissing = requireRedisServer().why;
const SEED = Number(process.env.FAULTS_SEED ?? Date.now() % 1_000_000);

describe('a deployment under faults: nothing lost, nothing run twice', { skip: nginx.why ?? redisMissing ?? false, timeout: 240_000 }, () => {
  let deployment: Deployment | undefined;
  let result: RoundResult | undefined;

  before(async () => {
    deployment = await startDeployment(nginx.path!);
    result = await faultRound(deployment, 0, { seed: SEED });
    process.stdout.write(`${result.report}\n`);
    if (result.verdicts.some((v) => v.violations.length > 0)) {
      const dir = mkdtempSync(join(tmpdir(), 'bridge-faults-'));
      writeFileSync(join(dir, 'replicas.log'), `${deployment.logs().join('\n')}\n`);
      writeFileSync(join(dir, 'evidence.json'), JSON.stringify(result.evidence));
      process.stdout.write(`the replicas' log lines and the evidence checked (fault-invariants.ts Evidence): ${dir}\n`);
    }
  });
  after(async () => {
    await deployment?.close();
  });

  for (const name of INVARIANTS) {
    it(name, () => {
      const verdict = result?.verdicts.find((v) => v.name === name);
      assert.ok(verdict, 'the scenario ran');
      assert.ok(verdict.checked > 0, 'something was checked');
      const first = verdict.violations.slice(0, 5).join('\n');
      assert.equal(verdict.violations.length, 0, `${verdict.violations.length} violations (seed ${SEED}), the first:\n${first}`);
    });
  }
});
