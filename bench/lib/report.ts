/** The bench's one table, its target verdicts, and a hand-written SVG bar chart. */

/** `bridge` runs with `--log-level warn`, `bridge-info` at the default level (a line per call, to a drained pipe). */
export type TargetName = 'bare' | 'native' | 'bridge' | 'bridge-info' | 'forwarder' | 'oxp-direct';

export interface Cell {
  target: TargetName;
  protocol: 'modern' | 'legacy' | 'oxp';
  connections: number;
  rps: number;
  requests: number;
  /** ms */
  p50: number;
  p99: number;
  mean: number;
  errors: number;
  /** Peak RSS of the target process during the cell. */
  rssMB: number;
  /** CPU time (user+sys) of the target process per completed request, µs: the whole process, every thread (/proc/<pid>/stat). */
  cpuUsPerReq?: number | undefined;
  /** Of that, the main thread's (the rest: libuv's thread pool, V8's GC and compiler threads). */
  mainCpuUsPerReq?: number | undefined;
  /** The OXP server's CPU per request, for targets that call it. */
  upstreamCpuUsPerReq?: number | undefined;
}

export interface BenchReport {
  date: string;
  command: string;
  seconds: number;
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGB: number;
    node: string;
    platform: string;
    loadAverageBefore: number[];
    loadAverageAfter: number[];
    /** Where the parties ran (lib/machine.ts); absent in runs before issue 33. */
    placement?: string;
  };
  cells: Cell[];
  coldStart?: { runs: number[]; medianMs: number; minMs: number; nodeHelloMedianMs: number };
  catalog?: {
    tools: number;
    readyMs: number;
    /** The first request after ready (a server/discover): the pipeline's warm-up; the first page is timed after it. */
    warmUpMs?: number;
    rssReadyMB: number;
    rssAfterListingMB: number;
    listing: Record<string, { firstPageMs: number; firstPageWarmMs: number; fullListingMs: number; pages: number; tools: number }>;
  };
  sessions?: {
    legacySessions: number;
    modernClients: number;
    seconds: number;
    calls: number;
    rps: number;
    errors: number;
    rssAfterInitializeMB: number;
    peakRssMB: number;
  };
}

export interface Verdict {
  target: string;
  measured: string;
  met: boolean;
}

const find = (r: BenchReport, target: TargetName, protocol: string, c: number) =>
  r.cells.find((x) => x.target === target && x.protocol === protocol && x.connections === c);

export function verdicts(r: BenchReport): Verdict[] {
  const out: Verdict[] = [];
  for (const protocol of ['modern', 'legacy']) {
    for (const c of [8, 64]) {
      const b = find(r, 'bridge', protocol, c);
      const n = find(r, 'native', protocol, c);
      if (b && n) {
        const x = b.rps / n.rps;
        out.push({
          target: `bridge ≥ 2× native SDK throughput, ${protocol}, c=${c}`,
          measured: `${x.toFixed(2)}× (${fmt(b.rps)} vs ${fmt(n.rps)} req/s)`,
          met: x >= 2,
        });
      }
    }
  }
  const direct = find(r, 'oxp-direct', 'oxp', 1);
  for (const protocol of ['modern', 'legacy']) {
    const b = find(r, 'bridge', protocol, 1);
    if (b && direct) {
      const added = b.p50 - direct.p50;
      out.push({
        target: `added p50 latency at c=1 over a direct OXP call ≤ 0.5 ms, ${protocol}`,
        measured: `${added.toFixed(3)} ms (${b.p50.toFixed(3)} vs ${direct.p50.toFixed(3)} ms)`,
        met: added <= 0.5,
      });
    }
  }
  for (const protocol of ['modern', 'legacy']) {
    for (const c of [1, 8, 64]) {
      const b = find(r, 'bridge', protocol, c);
      const f = find(r, 'forwarder', protocol, c);
      if (b && f)
        out.push({ target: `bridge ≥ 0.5× raw forwarder (aim), ${protocol}, c=${c}`, measured: `${(b.rps / f.rps).toFixed(2)}×`, met: b.rps / f.rps >= 0.5 });
    }
  }
  // The one-pipeline issue's CPU targets: per 2026-07-28 tools/call, at both log levels users run.
  for (const bridgeTarget of ['bridge', 'bridge-info'] as const) {
    for (const c of [8, 64]) {
      const b = find(r, bridgeTarget, 'modern', c);
      const f = find(r, 'forwarder', 'modern', c);
      const n = find(r, 'native', 'modern', c);
      if (b?.cpuUsPerReq === undefined) continue;
      const level = bridgeTarget === 'bridge' ? 'warn' : 'info';
      if (f?.cpuUsPerReq !== undefined) {
        const x = b.cpuUsPerReq / f.cpuUsPerReq;
        out.push({
          target: `bridge CPU/call ≤ 1.25× raw forwarder, modern, c=${c}, log ${level}`,
          measured: `${x.toFixed(2)}× (${b.cpuUsPerReq.toFixed(0)} vs ${f.cpuUsPerReq.toFixed(0)} µs)`,
          met: x <= 1.25,
        });
      }
      if (n?.cpuUsPerReq !== undefined) {
        const x = b.cpuUsPerReq / n.cpuUsPerReq;
        out.push({
          target: `bridge CPU/call ≤ 1/3 native SDK, modern, c=${c}, log ${level}`,
          measured: `${x.toFixed(2)}× (${b.cpuUsPerReq.toFixed(0)} vs ${n.cpuUsPerReq.toFixed(0)} µs)`,
          met: x <= 1 / 3,
        });
      }
    }
  }
  if (r.catalog) {
    for (const [protocol, l] of Object.entries(r.catalog.listing)) {
      out.push({
        target: `${r.catalog.tools} tools: first tools/list page well under 1 s (< 250 ms), ${protocol}`,
        measured: `${l.firstPageMs.toFixed(1)} ms (again: ${l.firstPageWarmMs.toFixed(1)} ms)`,
        met: l.firstPageMs < 250,
      });
      out.push({
        target: `${r.catalog.tools} tools: full paged listing well under 1 s (< 250 ms), ${protocol}`,
        measured: `${l.fullListingMs.toFixed(1)} ms, ${l.pages} pages`,
        met: l.fullListingMs < 250,
      });
    }
    const rss = Math.max(r.catalog.rssReadyMB, r.catalog.rssAfterListingMB);
    out.push({ target: `${r.catalog.tools} tools: bridge RSS < 150 MB`, measured: `${rss.toFixed(1)} MB`, met: rss < 150 });
  }
  const s = r.sessions;
  if (s) {
    out.push({
      target: `${s.legacySessions} concurrent legacy sessions + ${s.modernClients} modern clients: RSS < 200 MB, no error`,
      measured: `${s.peakRssMB.toFixed(1)} MB, ${s.errors} errors, ${fmt(s.rps)} calls/s`,
      met: s.peakRssMB < 200 && s.errors === 0,
    });
  }
  if (r.coldStart) {
    const x = r.coldStart.medianMs / r.coldStart.nodeHelloMedianMs;
    out.push({
      target: 'cold start to /readyz 200 (demo toolkit) ≤ 2.5× a Node hello-world server',
      measured: `${x.toFixed(1)}× (${r.coldStart.medianMs.toFixed(0)} ms median of ${r.coldStart.runs.length}; hello-world ${r.coldStart.nodeHelloMedianMs.toFixed(0)} ms)`,
      met: x <= 2.5,
    });
  }
  return out;
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function pad(s: string, n: number, right = false): string {
  return right ? s.padEnd(n) : s.padStart(n);
}

export function renderTable(r: BenchReport): string {
  const lines: string[] = [];
  lines.push(
    `tools/call, ${r.seconds} s per cell — ${r.date.slice(0, 10)}, ${r.machine.cpus} cores (${r.machine.cpuModel}), Node ${r.machine.node}, load average before ${r.machine.loadAverageBefore[0]!.toFixed(2)}, after ${r.machine.loadAverageAfter[0]!.toFixed(2)}${r.machine.placement ? `; ${r.machine.placement}` : ''}; CPU: the whole process (every thread)`,
  );
  const head = ['target', 'request', 'conc', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'RSS MB', '× native', '× forwarder', 'errors'];
  const widths = [11, 7, 4, 7, 7, 8, 10, 6, 8, 11, 6];
  const row = (cols: string[]) => cols.map((c, i) => pad(c, widths[i]!, i < 2)).join('  ');
  lines.push(row(head));
  lines.push(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const c of [1, 8, 64]) {
    const direct = find(r, 'oxp-direct', 'oxp', c);
    if (direct)
      lines.push(
        row([
          'oxp-direct',
          'oxp',
          String(c),
          fmt(direct.rps),
          direct.p50.toFixed(3),
          direct.p99.toFixed(3),
          direct.cpuUsPerReq?.toFixed(0) ?? '–',
          direct.rssMB.toFixed(0),
          '',
          '',
          String(direct.errors),
        ]),
      );
    for (const protocol of ['modern', 'legacy']) {
      const native = find(r, 'native', protocol, c);
      const fwd = find(r, 'forwarder', protocol, c);
      for (const target of ['bare', 'native', 'bridge', 'bridge-info', 'forwarder'] as const) {
        const x = find(r, target, protocol, c);
        if (!x) continue;
        const cpu =
          x.cpuUsPerReq === undefined
            ? '–'
            : x.upstreamCpuUsPerReq !== undefined
              ? `${x.cpuUsPerReq.toFixed(0)}+${x.upstreamCpuUsPerReq.toFixed(0)}`
              : x.cpuUsPerReq.toFixed(0);
        lines.push(
          row([
            target,
            protocol,
            String(c),
            fmt(x.rps),
            x.p50.toFixed(3),
            x.p99.toFixed(3),
            cpu,
            x.rssMB.toFixed(0),
            native ? `${(x.rps / native.rps).toFixed(2)}×` : '',
            fwd ? `${(x.rps / fwd.rps).toFixed(2)}×` : '',
            String(x.errors),
          ]),
        );
      }
    }
  }
  lines.push('CPU µs/req: the target process (+ the OXP server it calls). RSS: peak of the target process during the cell.');
  lines.push('');
  if (r.coldStart)
    lines.push(
      `cold start to /readyz 200, demo toolkit: median ${r.coldStart.medianMs.toFixed(0)} ms, min ${r.coldStart.minMs.toFixed(0)} ms (Node hello-world server: ${r.coldStart.nodeHelloMedianMs.toFixed(0)} ms)`,
    );
  const cat = r.catalog;
  if (cat) {
    lines.push(
      `catalog of ${cat.tools} tools: ready in ${cat.readyMs.toFixed(0)} ms${cat.warmUpMs !== undefined ? ` (the first request after it waited ${cat.warmUpMs.toFixed(0)} ms for the pipeline's warm-up)` : ''}, RSS ${cat.rssReadyMB.toFixed(1)} MB after load, ${cat.rssAfterListingMB.toFixed(1)} MB after listing both eras`,
    );
    for (const [protocol, l] of Object.entries(cat.listing)) {
      lines.push(
        `  ${protocol}: first page ${l.firstPageMs.toFixed(1)} ms (again ${l.firstPageWarmMs.toFixed(1)} ms), full listing ${l.pages} pages in ${l.fullListingMs.toFixed(1)} ms`,
      );
    }
  }
  const s = r.sessions;
  if (s)
    lines.push(
      `${s.legacySessions} legacy sessions + ${s.modernClients} modern clients for ${s.seconds.toFixed(1)} s: ${fmt(s.rps)} calls/s, ${s.errors} errors, bridge RSS ${s.rssAfterInitializeMB.toFixed(1)} MB after the ${s.legacySessions} initializes, peak ${s.peakRssMB.toFixed(1)} MB`,
    );
  lines.push('');
  lines.push('targets:');
  for (const v of verdicts(r)) lines.push(`  ${v.met ? 'met   ' : 'MISSED'}  ${v.target}: ${v.measured}`);
  return lines.join('\n');
}

const COLORS: Record<string, string> = { bare: '#9e9e9e', native: '#1f77b4', bridge: '#d62728', 'bridge-info': '#ff7f0e', forwarder: '#2ca02c' };

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Grouped bars: req/s per target for each (request, concurrency), with value labels. */
export function renderSvg(r: BenchReport): string {
  const groups: { protocol: string; c: number }[] = [];
  for (const protocol of ['modern', 'legacy']) for (const c of [1, 8, 64]) groups.push({ protocol, c });
  const targets = ['bare', 'native', 'bridge', 'forwarder'] as const;
  const max = Math.max(1, ...r.cells.filter((c) => c.target !== 'oxp-direct').map((c) => c.rps));
  const niceMax = Math.ceil(max / 5000) * 5000;
  const W = 900;
  const H = 420;
  const left = 70;
  const top = 50;
  const bottom = 70;
  const plotH = H - top - bottom;
  const groupW = (W - left - 20) / groups.length;
  const barW = (groupW - 24) / targets.length;
  const y = (v: number) => top + plotH - (v / niceMax) * plotH;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="11">`,
  );
  parts.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
  parts.push(`<text x="${W / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">tools/call throughput (req/s), ${r.seconds} s per cell</text>`);
  parts.push(
    `<text x="${W / 2}" y="36" text-anchor="middle" fill="#555">${esc(`${r.date.slice(0, 10)} · ${r.machine.cpus} cores · Node ${r.machine.node} · npm run bench`)}</text>`,
  );
  for (let i = 0; i <= 5; i++) {
    const v = (niceMax / 5) * i;
    parts.push(`<line x1="${left}" x2="${W - 20}" y1="${y(v)}" y2="${y(v)}" stroke="#e0e0e0"/>`);
    parts.push(`<text x="${left - 6}" y="${y(v) + 4}" text-anchor="end" fill="#555">${fmt(v)}</text>`);
  }
  groups.forEach((g, gi) => {
    const x0 = left + gi * groupW + 12;
    targets.forEach((t, ti) => {
      const cell = find(r, t, g.protocol, g.c);
      if (!cell) return;
      const x = x0 + ti * barW;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${y(cell.rps).toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${(top + plotH - y(cell.rps)).toFixed(1)}" fill="${COLORS[t]}"><title>${t} ${g.protocol} c=${g.c}: ${fmt(cell.rps)} req/s</title></rect>`,
      );
      parts.push(
        `<text x="${(x + barW / 2 - 1).toFixed(1)}" y="${(y(cell.rps) - 3).toFixed(1)}" text-anchor="middle" font-size="9" fill="#333">${cell.rps >= 1000 ? `${(cell.rps / 1000).toFixed(1)}k` : fmt(cell.rps)}</text>`,
      );
    });
    parts.push(`<text x="${(x0 + (groupW - 24) / 2).toFixed(1)}" y="${top + plotH + 16}" text-anchor="middle">${g.protocol} c=${g.c}</text>`);
  });
  parts.push(`<line x1="${left}" x2="${W - 20}" y1="${top + plotH}" y2="${top + plotH}" stroke="#333"/>`);
  targets.forEach((t, i) => {
    const x = left + i * 190;
    const label = {
      bare: 'bare JSON-RPC handler (upper bound)',
      native: 'native v2 SDK server',
      bridge: 'mcp-oxp-bridge → OXP',
      forwarder: 'raw forwarder → OXP (floor)',
    }[t];
    parts.push(`<rect x="${x}" y="${H - 28}" width="12" height="12" fill="${COLORS[t]}"/>`);
    parts.push(`<text x="${x + 16}" y="${H - 18}">${label}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
