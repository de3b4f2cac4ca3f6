/**
 * What `doctor` says of an upstream whose catalog is not there yet, or not whole: "connecting", not "no tools". An
 * oxp-server answers `GET /tools` 503 until one of its MCP servers has listed its tools, then says in a header how
 * many have not (docs/oxp-server.md); the bridge's reason for the first (its own words, as /readyz serves them) and
 * its `pending` count for the second are what these read.
 */

/** Whether a catalog failure is the tool server answering "not ready yet" (HTTP 503 from GET /tools). */
export function isNotReadyYet(reason: string | undefined): boolean {
  return reason !== undefined && reason.includes('not ready yet (HTTP 503');
}

export const NOT_READY_HINT =
  'it answers, but has no tools to list yet (an oxp-server says so until one of its MCP servers has listed its tools: see its /health). The bridge asks again within seconds on its own; run doctor again shortly';

/** The note for a catalog its server said is not whole yet. */
export function pendingNote(pending: unknown): string | undefined {
  if (typeof pending !== 'number' || pending <= 0) return undefined;
  return `its server says ${pending} of its own tool servers ${pending === 1 ? 'has' : 'have'} not listed their tools yet (still connecting): more tools may come; the bridge asks again within seconds`;
}
