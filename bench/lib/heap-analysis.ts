/**
 * A V8 heap snapshot (`.heapsnapshot`, as `v8.writeHeapSnapshot` writes it) summarised by constructor: how many
 * objects, their own size, and what they retain (the dominator tree, weak edges left out, as DevTools computes it),
 * so that two snapshots (two builds, or two moments) can be compared class by class without a browser.
 */
import { readFileSync } from 'node:fs';

interface RawSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] }; node_count: number };
  nodes: number[];
  edges: number[];
  strings: string[];
}

export interface ClassSummary {
  name: string;
  count: number;
  selfSize: number;
  /** The retained size of this class's outermost instances (those not dominated by another instance of it). */
  retainedSize: number;
}

export interface HeapSummary {
  totalSize: number;
  nodeCount: number;
  classes: Map<string, ClassSummary>;
}

/** The graph of a snapshot in flat arrays: each node's class, size and first edge, each edge's target and kind. */
export interface HeapGraph {
  names: string[];
  classOf: Int32Array;
  selfSize: Float64Array;
  firstEdge: Uint32Array;
  edgeTo: Uint32Array;
  edgeWeak: Uint8Array;
  edgeName: (e: number) => string;
  nodeName: (n: number) => string;
}

export function readGraph(path: string): HeapGraph {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as RawSnapshot;
  const { meta } = raw.snapshot;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const [typeI, nameI, sizeI, edgeCountI] = ['type', 'name', 'self_size', 'edge_count'].map((f) => meta.node_fields.indexOf(f)) as [
    number,
    number,
    number,
    number,
  ];
  const [eTypeI, eNameI, eToI] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f)) as [number, number, number];
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const n = raw.nodes.length / nf;
  const classIds = new Map<string, number>();
  const names: string[] = [];
  const classOf = new Int32Array(n);
  const selfSize = new Float64Array(n);
  const firstEdge = new Uint32Array(n + 1);
  const e = raw.edges.length / ef;
  const edgeTo = new Uint32Array(e);
  const edgeWeak = new Uint8Array(e);
  let edge = 0;
  for (let i = 0; i < n; i++) {
    const type = nodeTypes[raw.nodes[i * nf + typeI]!]!;
    // Objects and closures by their constructor's name, the rest by their kind, as DevTools' summary groups them.
    const cls = type === 'object' || type === 'closure' || type === 'native' ? raw.strings[raw.nodes[i * nf + nameI]!]! : `(${type})`;
    let id = classIds.get(cls);
    if (id === undefined) classIds.set(cls, (id = names.push(cls) - 1));
    classOf[i] = id;
    selfSize[i] = raw.nodes[i * nf + sizeI]!;
    firstEdge[i] = edge;
    const count = raw.nodes[i * nf + edgeCountI]!;
    for (let k = 0; k < count; k++, edge++) {
      edgeTo[edge] = raw.edges[edge * ef + eToI]! / nf;
      edgeWeak[edge] = edgeTypes[raw.edges[edge * ef + eTypeI]!] === 'weak' ? 1 : 0;
    }
  }
  firstEdge[n] = edge;
  return {
    names,
    classOf,
    selfSize,
    firstEdge,
    edgeTo,
    edgeWeak,
    edgeName: (x) => {
      const type = edgeTypes[raw.edges[x * ef + eTypeI]!]!;
      const v = raw.edges[x * ef + eNameI]!;
      return type === 'element' || type === 'hidden' ? `[${v}]` : raw.strings[v]!;
    },
    nodeName: (x) => `${nodeTypes[raw.nodes[x * nf + typeI]!]} ${raw.strings[raw.nodes[x * nf + nameI]!]!.slice(0, 80)}`,
  };
}

/** Immediate dominators from node 0 (the snapshot's root), Cooper–Harvey–Kennedy; -1 for nodes the root cannot reach. */
export function dominators(g: HeapGraph): { idom: Int32Array; postorder: Uint32Array; reached: number } {
  const n = g.classOf.length;
  const order = new Int32Array(n).fill(-1); // postorder number
  const postorder = new Uint32Array(n);
  const stack = new Uint32Array(n);
  const cursor = new Uint32Array(n);
  let top = 0;
  let count = 0;
  const seen = new Uint8Array(n);
  stack[top++] = 0;
  seen[0] = 1;
  cursor[0] = g.firstEdge[0]!;
  while (top > 0) {
    const v = stack[top - 1]!;
    if (cursor[v]! < g.firstEdge[v + 1]!) {
      const e = cursor[v]!++;
      if (g.edgeWeak[e]) continue;
      const w = g.edgeTo[e]!;
      if (seen[w]) continue;
      seen[w] = 1;
      cursor[w] = g.firstEdge[w]!;
      stack[top++] = w;
    } else {
      top--;
      order[v] = count;
      postorder[count++] = v;
    }
  }
  // Predecessors (strong edges between reached nodes), in compressed rows.
  const predCount = new Uint32Array(n + 1);
  for (let v = 0; v < n; v++) {
    if (order[v] === -1) continue;
    for (let e = g.firstEdge[v]!; e < g.firstEdge[v + 1]!; e++) if (!g.edgeWeak[e] && order[g.edgeTo[e]!] !== -1) predCount[g.edgeTo[e]! + 1]!++;
  }
  for (let v = 0; v < n; v++) predCount[v + 1]! += predCount[v]!;
  const preds = new Uint32Array(predCount[n]!);
  const fill = predCount.slice(0, n);
  for (let v = 0; v < n; v++) {
    if (order[v] === -1) continue;
    for (let e = g.firstEdge[v]!; e < g.firstEdge[v + 1]!; e++) if (!g.edgeWeak[e] && order[g.edgeTo[e]!] !== -1) preds[fill[g.edgeTo[e]!]!++] = v;
  }
  const idom = new Int32Array(n).fill(-1);
  idom[0] = 0;
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while (order[a]! < order[b]!) a = idom[a]!;
      while (order[b]! < order[a]!) b = idom[b]!;
    }
    return a;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (let i = count - 2; i >= 0; i--) {
      const v = postorder[i]!;
      let next = -1;
      for (let p = predCount[v]!; p < predCount[v + 1]!; p++) {
        const u = preds[p]!;
        if (idom[u] === -1) continue;
        next = next === -1 ? u : intersect(u, next);
      }
      if (next !== -1 && idom[v] !== next) {
        idom[v] = next;
        changed = true;
      }
    }
  }
  return { idom, postorder: postorder.subarray(0, count), reached: count };
}

/** Count, own size and retained size per class. */
export function summarise(g: HeapGraph): HeapSummary & { retained: Float64Array; idom: Int32Array } {
  const { idom, postorder } = dominators(g);
  const retained = Float64Array.from(g.selfSize);
  for (const v of postorder) if (v !== 0) retained[idom[v]!]! += retained[v]!;
  const classes = new Map<string, ClassSummary>();
  let totalSize = 0;
  for (const v of postorder) {
    totalSize += g.selfSize[v]!;
    const name = g.names[g.classOf[v]!]!;
    const c = classes.get(name) ?? { name, count: 0, selfSize: 0, retainedSize: 0 };
    c.count++;
    c.selfSize += g.selfSize[v]!;
    // Outermost instances only: an instance inside another of its class is already in that one's retained size.
    let d = idom[v]!;
    while (d !== 0 && g.classOf[d] !== g.classOf[v]) d = idom[d]!;
    if (d === 0) c.retainedSize += retained[v]!;
    classes.set(name, c);
  }
  return { totalSize, nodeCount: postorder.length, classes, retained, idom };
}

/** Classes ordered by how much more (or less) the second snapshot holds, as a Markdown table. */
export function compareTable(a: HeapSummary, b: HeapSummary, top = 30, labels = ['A', 'B']): string {
  const names = new Set([...a.classes.keys(), ...b.classes.keys()]);
  const zero = (name: string): ClassSummary => ({ name, count: 0, selfSize: 0, retainedSize: 0 });
  const rows = [...names].map((name) => ({ x: a.classes.get(name) ?? zero(name), y: b.classes.get(name) ?? zero(name) }));
  const kb = (bytes: number) => (bytes / 1024).toFixed(0);
  const order = (r: (typeof rows)[number]) => Math.max(Math.abs(r.y.selfSize - r.x.selfSize), Math.abs(r.y.retainedSize - r.x.retainedSize));
  const lines = [
    `heap ${labels[0]}: ${(a.totalSize / 1048576).toFixed(1)} MB in ${a.nodeCount} objects; ${labels[1]}: ${(b.totalSize / 1048576).toFixed(1)} MB in ${b.nodeCount}`,
    '',
    `| class | count ${labels[0]} | count ${labels[1]} | self KB ${labels[0]} | self KB ${labels[1]} | Δ self KB | retained KB ${labels[0]} | retained KB ${labels[1]} | Δ retained KB |`,
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { x, y } of rows.sort((p, q) => order(q) - order(p)).slice(0, top)) {
    lines.push(
      `| ${x.name.slice(0, 60).replace(/\|/g, '\\|')} | ${x.count} | ${y.count} | ${kb(x.selfSize)} | ${kb(y.selfSize)} | ${kb(y.selfSize - x.selfSize)} | ${kb(x.retainedSize)} | ${kb(y.retainedSize)} | ${kb(y.retainedSize - x.retainedSize)} |`,
    );
  }
  return lines.join('\n');
}

/** One retaining path of the largest instances of `cls`, from the root: for finding who keeps them. */
export function retainers(g: HeapGraph, summary: { retained: Float64Array; idom: Int32Array }, cls: string, samples = 3): string[] {
  const id = g.names.indexOf(cls);
  if (id === -1) return [];
  const instances: number[] = [];
  for (let v = 0; v < g.classOf.length; v++) if (g.classOf[v] === id && summary.idom[v] !== -1) instances.push(v);
  instances.sort((p, q) => summary.retained[q]! - summary.retained[p]!);
  return instances.slice(0, samples).map((v) => {
    const chain: string[] = [];
    for (let x = v, guard = 0; x !== 0 && guard < 30; x = summary.idom[x]!, guard++)
      chain.push(`${g.nodeName(x)} (${(summary.retained[x]! / 1024).toFixed(0)} KB)`);
    return chain.join(' ← ');
  });
}
