/**
 * doctor's note on task capacity: more tasks may run at once than the upstreams' connections can carry. A task's OXP
 * call holds a connection for as long as the tool works; past `upstream.connections` (summed over the upstreams) the
 * calls wait in the bridge, `working` but not started (docs/configuration.md, "Tasks and upstream connections").
 * A note, not a failed check: short tasks may never meet the bound.
 */
export interface TaskCapacity {
  readonly enabled: boolean;
  readonly maxTasks: number;
  readonly maxPerPrincipal: number;
  /** Callers that can hold tasks, when the configuration bounds them (static tokens only); undefined: unbounded. */
  readonly principals: number | undefined;
  /** Each upstream's `upstream.connections`. */
  readonly connections: readonly number[];
}

/** The note's line, or undefined when the connections can run every task the bounds admit. */
export function taskCapacityNote(c: TaskCapacity): string | undefined {
  if (!c.enabled || c.connections.length === 0) return undefined;
  const byCallers = c.principals === undefined ? undefined : c.maxPerPrincipal * c.principals;
  const atOnce = Math.min(c.maxTasks, byCallers ?? Infinity);
  const connections = c.connections.reduce((a, b) => a + b, 0);
  if (atOnce <= connections) return undefined;
  const bound =
    byCallers !== undefined && byCallers < c.maxTasks
      ? `tasks.maxPerPrincipal ${c.maxPerPrincipal} × ${c.principals} callers = ${byCallers}`
      : `tasks.maxTasks ${c.maxTasks}`;
  const upstreams = c.connections.length === 1 ? 'upstream.connections' : `upstream.connections over ${c.connections.length} upstreams`;
  return (
    `tasks: up to ${atOnce} tasks may run at once (${bound}) but ${connections} OXP calls can (${upstreams}): ` +
    `past that, task calls wait in the bridge for a connection (their statusMessage says so, mcp_oxp_bridge_upstream_queued_calls counts them). ` +
    `For many long tasks raise upstream.connections or lower tasks.maxTasks (docs/configuration.md, "Tasks and upstream connections")`
  );
}
