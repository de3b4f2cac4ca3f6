/**
 * The doctor's checks of a bridge that is serving, wherever it runs (`--url`, or the one the doctor started): it is
 * reachable (/healthz), its upstreams (/readyz, each one's problem in the bridge's words), the tools as each MCP
 * revision lists them over real MCP HTTP, and the call `--call` names.
 */
import { isPlainObject, type JsonObject } from '../../core/json.js';
import { MCP_REVISIONS, newestRevision, profileFor } from '../../core/mcp-versions.js';
import { listToolNames, openSession, ProbeError, unreachable, PROBE_TIMEOUT_MS, type ProbeOptions } from './mcp-probe.js';
import type { StepReport } from './report.js';
import { CREDENTIALS_HINT, isCredentialsRefusal } from './credentials.js';
import { isNotReadyYet, NOT_READY_HINT, pendingNote } from './catalog-hints.js';
import { callFailureHint } from './call-hints.js';
import { reportRunningCaller } from './token-access.js';
import type { DoctorArgs } from './args.js';

export async function checkRunning(report: StepReport, probe: ProbeOptions, options: DoctorArgs): Promise<void> {
  const base = new URL(probe.url);
  const healthz = new URL('/healthz', base).href;
  try {
    const res = await fetch(healthz, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await res.body?.cancel();
    if (res.ok) report.pass(`bridge reachable (${healthz})`);
    else report.skip('bridge health', `${healthz} answered HTTP ${res.status}; a proxy may expose /mcp only`);
  } catch (error) {
    const problem = unreachable(base.origin, error);
    report.fail('bridge reachable', problem.message, problem.hint);
    report.skip('upstreams and tools', 'the bridge cannot be reached');
    return;
  }
  if (probe.token !== undefined) await reportRunningCaller(report, probe.url, probe.token);
  if (await checkReadiness(report, new URL('/readyz', base).href)) await checkMcp(report, probe, options);
  else report.skip('tools as each MCP revision lists them', 'no upstream catalog loaded');
}

/** The running bridge's upstreams, from /readyz (which names each one's problem in the bridge's words). */
/** @returns whether tools can be listed: some upstream has a catalog, or readiness is not known. */
async function checkReadiness(report: StepReport, readyz: string): Promise<boolean> {
  let body: unknown;
  try {
    const res = await fetch(readyz, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    body = res.headers.get('content-type')?.includes('json') ? await res.json() : undefined;
  } catch {
    body = undefined;
  }
  const upstreams = isPlainObject(body) && isPlainObject(body.upstreams) ? body.upstreams : undefined;
  if (!upstreams) {
    report.skip('upstreams', `${readyz} did not answer with the bridge's readiness`);
    return true;
  }
  if (isPlainObject(body) && body.draining === true) report.fail('bridge', 'it is draining (shutting down)', 'wait for it to restart');
  if (isPlainObject(body)) reportTaskStore(report, body.taskStore);
  const list = Object.entries(upstreams);
  for (const [name, status] of list) {
    const s = isPlainObject(status) ? status : {};
    if (s.ready === true && s.circuit !== 'open') {
      report.pass(`upstream ${name}: reachable, catalog of ${String(s.tools)} tools`);
      const pending = pendingNote(s.pending);
      if (pending) report.note(pending);
    } else {
      const reason =
        s.ready === true ? 'its circuit breaker is open after repeated failures' : typeof s.lastError === 'string' ? s.lastError : 'no catalog loaded yet';
      const hint = isCredentialsRefusal(reason)
        ? CREDENTIALS_HINT
        : isNotReadyYet(reason)
          ? NOT_READY_HINT
          : "check that upstream's URL, credentials and that it is running; the bridge retries on its own";
      report.fail(`upstream ${name}`, reason, hint);
    }
  }
  return list.some(([, s]) => isPlainObject(s) && s.ready === true);
}

/** The shared task store's state as the bridge last found it (/readyz `taskStore`, only with store.redis). */
function reportTaskStore(report: StepReport, store: unknown): void {
  if (!isPlainObject(store)) return;
  if (store.available === true) report.pass('task store (Redis): answers');
  else
    report.fail(
      'task store (Redis)',
      `does not answer since ${String(store.since)}: new tasks are refused (task_store_unavailable), plain calls go on`,
      "check Redis (store.redis.url) and the bridge's warn lines; it retries every second on its own",
    );
}

/** tools/list as every revision sees it, then the asked-for call. */
export async function checkMcp(report: StepReport, probe: ProbeOptions, options: DoctorArgs): Promise<void> {
  for (const revision of MCP_REVISIONS) {
    const what = `MCP ${revision} (${profileFor(revision).era === 'modern' ? 'per-request envelope' : 'initialize session'}): tools/list`;
    try {
      const session = await openSession(probe, revision);
      try {
        const names = await listToolNames(session);
        if (names.length === 0) report.fail(what, 'no tools listed', "the upstreams' catalogs are empty or not loaded: see the upstream lines above");
        else report.pass(`${what}: ${names.length} tools (${preview(names)})`);
      } finally {
        await session.close();
      }
    } catch (error) {
      failWith(report, what, error);
      // The same cause would fail every other revision: say it once.
      if (error instanceof ProbeError && /^(401|403|404|cannot reach)/.test(error.message))
        return report.skip('the other revisions and the call', 'same cause');
    }
  }
  if (options.call !== undefined) await checkCall(report, probe, options.call, options.args);
}

async function checkCall(report: StepReport, probe: ProbeOptions, tool: string, args: JsonObject): Promise<void> {
  const what = `tools/call ${tool}`;
  try {
    const session = await openSession(probe, newestRevision());
    const result = await session.request('tools/call', { name: tool, arguments: args }, tool);
    const text = Array.isArray(result.content)
      ? result.content.map((c) => (isPlainObject(c) && typeof c.text === 'string' ? c.text : isPlainObject(c) ? `[${String(c.type)}]` : '')).join(' ')
      : '';
    if (result.resultType === 'input_required')
      report.fail(what, 'the tool needs the user to authorize first (input_required)', 'call it from an MCP client that can open the authorization URL');
    else if (result.isError === true) report.fail(what, `the tool answered with an error: ${clip(text) || '(no text)'}`, callFailureHint(result._meta));
    else report.pass(`${what}: ${clip(text) || (result.structuredContent !== undefined ? clip(JSON.stringify(result.structuredContent)) : 'ok')}`);
  } catch (error) {
    failWith(report, what, error);
  }
}

function failWith(report: StepReport, what: string, error: unknown): void {
  if (error instanceof ProbeError) report.fail(what, error.message, error.hint);
  else report.fail(what, error instanceof Error ? error.message : String(error));
}

function preview(names: string[]): string {
  return names.length <= 5 ? names.join(', ') : `${names.slice(0, 5).join(', ')}, …`;
}

function clip(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > 120 ? `${oneLine.slice(0, 117)}…` : oneLine;
}
