/**
 * What the documentation tests read from README.md and docs/*.md: the fenced
 * blocks with the example marker before each, and the links with the anchors
 * their targets define (pure functions over the files' text), and which
 * files those are.
 *
 * A marker is an HTML comment on the line before a fence (blank lines
 * between are allowed), invisible where the Markdown is rendered:
 *
 *   <!-- example: ID -->                 run by the scenario step named ID (test/docs/scenarios.ts)
 *   <!-- example: not run — REASON -->   cannot run here (Docker, a host application…): counted with its reason
 *   <!-- example: pending ID — WHAT -->  waits for a fix elsewhere: counted; its step (ID) is skipped until the
 *                                        marker is made `<!-- example: ID -->` when the fix lands
 *   <!-- example: sample — WHAT -->      output or data to read, not a command or a configuration
 *
 * A fence tagged `text`, or untagged, is no example (a diagram, a file
 * format) and takes no marker; an untagged one that looks like a command or
 * a configuration is refused (`looksRunnable`), so none slips by unmarked.
 */

import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The documentation these tests read, relative to the repository root: README.md and docs/*.md. */
export function docFiles(root: string): string[] {
  const pages = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md'));
  return ['README.md', ...pages.sort().map((f) => `docs/${f}`)];
}

export type Marker =
  | { kind: 'run'; id: string }
  | { kind: 'not-run'; reason: string }
  | { kind: 'pending'; id: string; reason: string }
  | { kind: 'sample'; reason: string }
  | { kind: 'none' }
  | { kind: 'bad'; text: string };

export interface Fence {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** The block's text, without the fences, ending with a newline. */
  text: string;
  marker: Marker;
}

const MARKER = /^<!--\s*example:\s*(.*?)\s*-->$/;

export function parseMarker(body: string): Marker {
  const pending = /^pending ([a-z0-9][a-z0-9-]*)\s*[—–-]\s*(\S.*)$/.exec(body);
  if (pending) return { kind: 'pending', id: pending[1]!, reason: pending[2]! };
  const labelled = /^(not run|sample)\s*[—–-]\s*(\S.*)$/.exec(body);
  if (labelled) return labelled[1] === 'not run' ? { kind: 'not-run', reason: labelled[2]! } : { kind: 'sample', reason: labelled[2]! };
  if (/^[a-z0-9][a-z0-9-]*$/.test(body)) return { kind: 'run', id: body };
  return { kind: 'bad', text: body };
}

/** Every fenced block of a Markdown file, with the marker before it. */
export function fencesOf(file: string, markdown: string): Fence[] {
  const lines = markdown.split('\n');
  const fences: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(```+|~~~+)\s*([^\s`]*)/.exec(lines[i]!);
    if (!open) continue;
    const close = open[1]!;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.startsWith(close); i++) body.push(lines[i]!);
    let before = start - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const comment = before >= 0 ? MARKER.exec(lines[before]!.trim()) : null;
    fences.push({
      file,
      line: start + 1,
      lang: open[2]!,
      text: body.join('\n') + '\n',
      marker: comment ? parseMarker(comment[1]!) : { kind: 'none' },
    });
  }
  return fences;
}

/** Whether an untagged block's first line reads like a shell command or a YAML/JSON configuration. */
export function looksRunnable(text: string): boolean {
  const first =
    text
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? '';
  return (
    /^(\$ )?(npm|npx|node|curl|docker|mcp-oxp-bridge|export|cd|git|claude|[A-Z_]+=\S*)\b/.test(first) ||
    /^[a-zA-Z_][\w.-]*:(\s|$)/.test(first) ||
    /^[{[]/.test(first)
  );
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens (github-slugger's rule). */
export function slugOf(heading: string): string {
  const plain = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text only
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return plain.replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors a Markdown file defines: one per heading (a repeated one gets -1, -2…), and explicit `<a id>`/`name`. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const slug = slugOf(heading[1]!);
      const n = seen.get(slug) ?? 0;
      seen.set(slug, n + 1);
      anchors.add(n === 0 ? slug : `${slug}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  }
  return anchors;
}

export interface Link {
  file: string;
  line: number;
  target: string;
}

/** Every inline link and image target outside fences and code spans, but external ones (a scheme) and mail. */
export function relativeLinksOf(file: string, markdown: string): Link[] {
  const links: Link[] = [];
  let inFence = false;
  markdown.split('\n').forEach((line, index) => {
    if (/^(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence) return;
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ file, line: index + 1, target });
    }
  });
  return links;
}
