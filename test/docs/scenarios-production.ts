/** docs/production.md's examples: a bearer token on 0.0.0.0, many upstreams, grants. */
import assert from 'node:assert/strict';
import { assertExit, mcpPost, type Scenario } from './example-run.js';

interface Readiness {
  ready: boolean;
  upstreams: Record<string, { ready: boolean; lastError?: string; circuit: string }>;
}

export const productionScenarios: Scenario[] = [
  {
    name: 'production.md: static bearer tokens on every interface',
    steps: [
      {
        id: 'production-bearer',
        run: async (r) => {
          await r.serve('production-bearer', 'http://127.0.0.1:8080/readyz', { status: 200 });
          const refused = await mcpPost(r.url('http://127.0.0.1:8080/mcp'), { id: 1, method: 'tools/list' });
          assert.equal(refused.status, 401);
          const wrong = await mcpPost(r.url('http://127.0.0.1:8080/mcp'), { id: 1, method: 'tools/list' }, { authorization: 'Bearer not-the-token' });
          assert.equal(wrong.status, 401);
        },
      },
    ],
  },
  {
    name: 'production.md: many upstreams',
    steps: [
      {
        id: 'production-many-upstreams',
        run: async (r) => {
          const env = { CRM_OXP_KEY: 'crm-key', DOCS_SMTP: 'smtp-password' };
          const { path, config } = r.load('production-many-upstreams', 'bridge.yaml', env);
          assert.deepEqual(
            config.upstreams?.map((u) => u.name),
            ['crm', 'docs'],
          );
          // crm-tools and docs-tools are names of the example's own network: /readyz says, per upstream, they are not ready.
          await r.cli(['--config', path], 'http://127.0.0.1:8080/readyz', { env, status: 503 });
          let readiness: Readiness | undefined;
          for (let i = 0; i < 100 && !readiness?.upstreams.crm?.lastError; i++) {
            readiness = (await (await fetch(r.url('http://127.0.0.1:8080/readyz'))).json()) as Readiness;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          assert.equal(readiness?.ready, false);
          assert.deepEqual(Object.keys(readiness.upstreams).sort(), ['crm', 'docs']);
          assert.match(readiness.upstreams.crm!.lastError ?? '', /GET \/tools/);
        },
      },
    ],
  },
  {
    name: 'production.md: grants',
    steps: [
      {
        id: 'production-grants-secret',
        run: async (r) => assertExit(await r.shell('production-grants-secret')),
      },
      {
        id: 'production-grants',
        run: async (r) => {
          const env = { PARTNER_KEY: 'partner-key', OXP_SECRET_TWILIO_KEY: 'twilio-key' };
          const { path, config } = r.load('production-grants', 'bridge.yaml', env);
          assert.deepEqual(config.upstreams?.[0]?.grants, { secrets: ['SHARED_KEY', 'TWILIO_KEY'], authorization: ['github'] });
          await r.cli(['--config', path], 'http://127.0.0.1:8080/healthz', { env, status: 200 });
        },
      },
    ],
  },
];
