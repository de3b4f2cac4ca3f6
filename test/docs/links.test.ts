/**
 * Every relative link and #anchor in README.md and docs/*.md resolves: the
 * file exists (inside the repository), and an anchor names a heading (or an
 * explicit `<a id>`) of its target, as GitHub renders it. And every source
 * path those pages name in code spans exists, so a moved module is followed
 * in the docs (docs/benchmarks.md excepted: a log of past runs, naming the
 * files of their day). And every `bench/README.md#anchor` a comment in src/
 * names (where the figures behind the code's comments are) names a heading.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { anchorsOf, docFiles, relativeLinksOf, slugOf } from './markdown.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOC_FILES = docFiles(REPO_ROOT);

it('slugs headings as GitHub does', () => {
  assert.equal(slugOf('Metrics (`GET /metrics`, Prometheus text format)'), 'metrics-get-metrics-prometheus-text-format');
  assert.equal(slugOf('Traces (OpenTelemetry)'), 'traces-opentelemetry');
  assert.equal(slugOf('Inbound security (MCP HTTP face)'), 'inbound-security-mcp-http-face');
  assert.equal(slugOf('OXP clients → MCP servers (the `oxp-server` subcommand)'), 'oxp-clients--mcp-servers-the-oxp-server-subcommand');
  assert.deepEqual([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n## B <a id="x"></a>\n')], ['a', 'a-1', 'b', 'x']);
});

it('every relative link in README.md and docs/*.md resolves, anchors included', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const file of DOC_FILES) {
    for (const link of relativeLinksOf(file, readFileSync(join(REPO_ROOT, file), 'utf8'))) {
      checked++;
      const [path, anchor] = link.target.split('#', 2) as [string, string | undefined];
      const target = path === '' ? join(REPO_ROOT, file) : resolve(dirname(join(REPO_ROOT, file)), decodeURIComponent(path));
      const where = `${link.file}:${link.line} → ${link.target}`;
      if (relative(REPO_ROOT, target).startsWith('..')) broken.push(`${where}: outside the repository`);
      else if (!existsSync(target)) broken.push(`${where}: no such file`);
      else if (anchor !== undefined) {
        if (statSync(target).isDirectory() || !target.endsWith('.md')) broken.push(`${where}: an anchor into a file that is not Markdown`);
        else if (!anchorsOf(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${where}: no heading with that anchor`);
      }
    }
  }
  assert.ok(checked > 50, `only ${checked} links found: is the link reader broken?`);
  assert.deepEqual(broken, []);
});

it('every repository path README.md and docs/*.md name in a code span exists (but the benchmark log)', () => {
  const missing: string[] = [];
  for (const file of DOC_FILES.filter((f) => f !== 'docs/benchmarks.md')) {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    for (const m of text.matchAll(/`((?:src|test|bench|scripts|config|assets)\/[^`\s<…]*)/g)) {
      const path = m[1]!;
      if (path.includes('*') || path.startsWith('test/artifacts')) continue; // a pattern; made by the console tests, git-ignored
      if (!existsSync(join(REPO_ROOT, path))) missing.push(`${file}: ${path}`);
    }
  }
  assert.deepEqual(missing, []);
});

it('every bench/README.md#anchor that a comment in src/ names is a heading of bench/README.md', () => {
  const anchors = anchorsOf(readFileSync(join(REPO_ROOT, 'bench/README.md'), 'utf8'));
  const broken: string[] = [];
  let checked = 0;
  for (const file of readdirSync(join(REPO_ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
    for (const m of readFileSync(join(REPO_ROOT, 'src', file), 'utf8').matchAll(/bench\/README\.md#([\w-]+)/g)) {
      checked++;
      if (!anchors.has(m[1]!)) broken.push(`src/${file}: bench/README.md#${m[1]}`);
    }
  }
  assert.ok(checked >= 5, `only ${checked} links found: is the reader broken?`);
  assert.deepEqual(broken, []);
});
