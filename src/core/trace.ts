/** W3C Trace Context → OXP `trace_id`. */

const TRACEPARENT_RE = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The 32-hex trace id of a valid `traceparent`, else undefined (all-zero ids are invalid). */
export function traceIdFromTraceparent(traceparent: unknown): string | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const m = TRACEPARENT_RE.exec(traceparent.trim().toLowerCase());
  if (!m || m[1] === 'ff' || /^0+$/.test(m[2]!)) return undefined;
  return m[2];
}

/**
 * The `traceparent` an MCP request continues: the W3C HTTP header when it is
 * valid, else the MCP `_meta.traceparent` when that is valid (the header wins:
 * it is what HTTP-level tracing between client and bridge — proxies, load
 * balancers — maintains). Repeated headers arrive joined and are invalid.
 */
export function pickTraceparent(header: unknown, meta: unknown): string | undefined {
  if (traceIdFromTraceparent(header)) return (header as string).trim();
  if (traceIdFromTraceparent(meta)) return (meta as string).trim();
  return undefined;
}
