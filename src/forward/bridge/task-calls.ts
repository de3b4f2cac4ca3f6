/**
 * MCP tasks in the forward direction (MCP client → bridge → OXP): whether a
 * tools/call becomes a task, running it as one, and the task methods.
 * docs/translation.md ("Tasks") is the user's view.
 *
 * A task's work is one ordinary bridge call (the call gate's one step:
 * access decision, input, limits — a task counts as one call, in flight
 * until it ends —, the OXP call, the log line and the audit record of its
 * end, calls/gate.ts), run with the
 * task's own abort signal, its OXP call_id fixed at creation and the task
 * deadline (`taskCallTimeoutMs`). OXP has no asynchronous call: the bridge
 * holds the POST open; the task record (src/calls/tasks) is what outlives
 * the request.
 *
 * Per revision (RevisionProfile.tasks):
 * - 2025-11-25 `core`: the client asks (`task` parameter) for a tool whose
 *   taskSupport allows it; a `required` tool refuses a plain call (-32601).
 * - 2026-07-28 `extension`: the server decides, only for a request whose
 *   client capabilities declare the extension: a `required` tool's call is a
 *   task at once; an `optional` tool's becomes one if still running after
 *   `tasks.taskAfterMs`. A `required` tool without the extension: -32021.
 * - earlier revisions know no tasks: every call is plain.
 */
import { randomUUID } from 'node:crypto';
import { newTaskId } from '../../calls/tasks/ids.js';
import { TaskLifecycle, type TaskControl, type TaskEnd } from '../../calls/tasks/lifecycle.js';
import { TaskQueries } from './task-queries.js';
import { missingTasksExtension, taskStoreUnavailable } from './task-errors.js';
import { ConnectionWaitNote } from './task-wait-note.js';
import { forwardWorkOf, ownerKey, workPrincipal, type ForwardWork } from '../../calls/tasks/records.js';
import type { JsonObject, TaskRecord } from '../../calls/tasks/store.js';
import type { TasksSettings } from '../../config/tasks-schema.js';
import { isMcpRevision, profileFor, type McpRevision, type TaskFlavour } from '../../core/mcp-versions.js';
import { JSONRPC_INTERNAL_ERROR, JSONRPC_METHOD_NOT_FOUND, JSONRPC_SERVER_REFUSED, type McpErrorReply, TASKS_EXTENSION } from '../../core/mcp-wire.js';
import type { CallOutcome } from '../../core/call-outcomes.js';
import type { Principal } from '../../core/principal.js';
import type { Logger } from '../../platform/log.js';
import type { CallContext, CallReply } from './call-types.js';

import type { ToolCallSettings } from '../../core/tool-settings.js';

/** What tasks need of the bridge (bridge.ts), named here so the bridge can hold its TaskCalls without a cycle. */
export interface TaskBridge {
  callTool(revision: McpRevision, name: string, args: unknown, ctx: CallContext): Promise<CallReply>;
  openCall(
    revision: McpRevision,
    name: string,
    args: unknown,
    ctx: CallContext,
  ): Promise<{ reply: CallReply } | { run: () => Promise<CallReply>; abandon: (outcome: CallOutcome) => void }>;
  taskTarget(name: string, principal: Principal | undefined): Promise<ToolCallSettings | undefined>;
  recordTaskCreated(revision: McpRevision, name: string, args: unknown, ctx: CallContext, taskId: string, callId: string): void;
  readonly access: { principalOf(principal: Principal | undefined): Principal };
  readonly upstreams: { readonly mayRequireTasks: boolean };
}

/** The shortest ttl granted, whatever the client asks: a task must live long enough to be read once. */
const MIN_TTL_MS = 1_000;
/** A re-driven task whose tool is gone: the deadline its call gets (it answers as an unknown tool at once anyway). */
const DEFAULT_TASK_DEADLINE_MS = 3_600_000;
/** Input rounds one task may go through (each an authorization the tool server asked for). */
const MAX_INPUT_ROUNDS = 8;

export type TaskSettings = Pick<TasksSettings, 'enabled' | 'defaultTtlMs' | 'maxTtlMs' | 'pollIntervalMs' | 'taskAfterMs'>;

/** A tools/call as tasks see it: the bridge call's own arguments, and what the request says about tasks. */
export interface TaskableCall {
  revision: McpRevision;
  name: string;
  args: unknown;
  /** The call's context; its `signal` is the request's (the client going away), which a task stops listening to. */
  ctx: CallContext;
  /** 2025-11-25: the request's `task` parameter (undefined: a plain call). */
  taskParam?: { ttl?: unknown } | undefined;
  /** 2026-07-28: the request's client capabilities declare the tasks extension. */
  extension: boolean;
  /** The 2025-era session id, which binds tasks of callers nobody authenticated (records.ts). */
  sessionId?: string | undefined;
  /** 2025-11-25: the connection can carry the bridge's elicitation requests (stdio), so a task may ask for input. */
  requestsToClient?: boolean;
}

/** What a tools/call came to: a plain reply, or a task the face answers with a CreateTaskResult. */
export type TaskableReply = { reply: CallReply } | { task: TaskRecord };

export { missingTasksExtension, taskStoreUnavailable } from './task-errors.js';

/** The task records and store as the forward face reads them (a face reaches calls/ only through the bridge and the gate). */
export { isTerminal, type TaskRecord, type TaskStore } from '../../calls/tasks/store.js';

export class TaskCalls {
  /** The task methods (tasks/get, tasks/result, tasks/list, tasks/cancel, tasks/update). */
  readonly queries: TaskQueries;

  constructor(
    private readonly bridge: TaskBridge,
    readonly lifecycle: TaskLifecycle,
    private settings: TaskSettings,
    private readonly log: Logger,
  ) {
    this.queries = new TaskQueries(lifecycle.store);
  }

  get enabled(): boolean {
    return this.settings.enabled;
  }

  /** The owner key of a request's tasks. */
  ownerOf(principal: Principal | undefined, sessionId?: string): string {
    return ownerKey(principal ?? this.bridge.access.principalOf(undefined), sessionId);
  }

  /**
   * Whether a tools/call may come to anything but a plain call (a task, or a refusal of a plain call for a tool that
   * requires tasks): when not, a face calls the bridge directly, past this service (its steps are garbage every call
   * would leave, bench/README.md issue 39). The same reading of the request as `callTool`'s.
   */
  mayTakeTask(revision: McpRevision, taskParam: TaskableCall['taskParam'], extension: boolean): boolean {
    const flavour = profileFor(revision).tasks;
    if (!this.settings.enabled || flavour === 'none') return false;
    const asTask = flavour === 'core' ? taskParam !== undefined : extension;
    // A plain call needs no look at the tool's task settings unless some tool requires tasks.
    return asTask || this.bridge.upstreams.mayRequireTasks;
  }

  /** One tools/call: plain, or a task, as its revision, the tool's taskSupport and the request decide. */
  async callTool(call: TaskableCall): Promise<TaskableReply> {
    const flavour = profileFor(call.revision).tasks;
    const plain = async () => ({ reply: await this.bridge.callTool(call.revision, call.name, call.args, call.ctx) });
    if (!this.mayTakeTask(call.revision, call.taskParam, call.extension)) return plain();
    const asTask = flavour === 'core' ? call.taskParam !== undefined : call.extension;
    const settings = await this.bridge.taskTarget(call.name, call.ctx.principal);
    // A tool this caller cannot call: the usual answer (unknown tool), from the usual path.
    if (!settings) return plain();
    const support = settings.taskSupport;
    if (flavour === 'core') {
      if (asTask && support === 'forbidden')
        return refusal(JSONRPC_METHOD_NOT_FOUND, `Tool ${call.name} does not support task-augmented calls (execution.taskSupport is "forbidden").`);
      if (!asTask && support === 'required')
        return refusal(JSONRPC_METHOD_NOT_FOUND, `Tool ${call.name} must be called as a task (execution.taskSupport is "required"): add the task parameter.`);
      return asTask ? this.startTask(call, flavour, settings.taskCallTimeoutMs) : plain();
    }
    if (support === 'forbidden') return plain();
    if (!asTask) {
      if (support !== 'required') return plain();
      return { reply: { error: missingTasksExtension(`Tool ${call.name} runs only as a task: the client must declare the ${TASKS_EXTENSION} extension.`) } };
    }
    return support === 'required' ? this.startTask(call, flavour, settings.taskCallTimeoutMs) : this.raceToTask(call, settings.taskCallTimeoutMs);
  }

  /**
   * A task now. The call is opened through the call gate first (decided, checked and charged to its limits at the task's
   * creation): a refusal is the request's answer and no task is made. Then the task is stored, the request answered
   * at once, and the call runs on, detached from the request, holding its limit until it ends.
   */
  private async startTask(call: TaskableCall, flavour: TaskFlavour, deadlineMs: number): Promise<TaskableReply> {
    const callId = randomUUID();
    const abort = new AbortController();
    const holder: { id?: string } = {};
    const note = new ConnectionWaitNote();
    const ctx: CallContext = {
      ...this.taskContext(call.ctx, abort.signal, callId, deadlineMs),
      task: holder,
      connectionWait: note.onWait,
      ...(flavour === 'core' && call.requestsToClient && call.ctx.urlElicitation ? { inputViaTask: true } : {}),
    };
    const opened = await this.bridge.openCall(call.revision, call.name, call.args, ctx);
    if ('reply' in opened) return { reply: flavour === 'core' ? refusalAsError(opened.reply) : opened.reply };
    const created = await this.create(call, callId, this.ttlFor(call.taskParam?.ttl));
    if ('error' in created) {
      opened.abandon((created.error.data as { kind?: unknown } | undefined)?.kind === 'task_store_unavailable' ? 'task_store_unavailable' : 'too_many_tasks');
      return { reply: created };
    }
    holder.id = created.record.taskId;
    void this.lifecycle.drive(created.record, abort, this.taskWork(called(call), flavour, ctx, note, opened.run));
    return { task: created.record };
  }

  /**
   * 2026-07-28, an `optional` tool: the call starts as a plain one; if it is still running after `taskAfterMs` it
   * becomes a task (same call, same call_id) and the request is answered with it. Short calls stay plain results.
   */
  private async raceToTask(call: TaskableCall, deadlineMs: number): Promise<TaskableReply> {
    const callId = randomUUID();
    const abort = new AbortController();
    const requestSignal = call.ctx.signal;
    const onRequestAbort = () => abort.abort(requestSignal?.reason);
    if (requestSignal?.aborted) abort.abort(requestSignal.reason);
    else requestSignal?.addEventListener('abort', onRequestAbort, { once: true });
    const holder: { id?: string } = {};
    const note = new ConnectionWaitNote();
    const ctx: CallContext = { ...this.taskContext(call.ctx, abort.signal, callId, deadlineMs), task: holder, connectionWait: note.onWait };
    const running = this.bridge.callTool(call.revision, call.name, call.args, ctx);
    const early = await settlesWithin(running, this.settings.taskAfterMs);
    if (early) {
      requestSignal?.removeEventListener('abort', onRequestAbort);
      return { reply: await running };
    }
    const created = await this.create(call, callId, this.settings.defaultTtlMs);
    // No room for another task: the call goes on as a plain one (the client declared it can take either).
    if ('error' in created) {
      try {
        return { reply: await running };
      } finally {
        requestSignal?.removeEventListener('abort', onRequestAbort);
      }
    }
    // From here the call is the task's: the request ending no longer aborts it.
    requestSignal?.removeEventListener('abort', onRequestAbort);
    holder.id = created.record.taskId;
    void this.lifecycle.drive(created.record, abort, this.taskWork(called(call), 'extension', ctx, note, running));
    return { task: created.record };
  }

  private async create(call: TaskableCall, callId: string, ttlMs: number): Promise<{ record: TaskRecord } | { error: McpErrorReply }> {
    const principal = call.ctx.principal ?? this.bridge.access.principalOf(undefined);
    const work: ForwardWork = {
      direction: 'forward',
      revision: call.revision,
      tool: call.name,
      arguments: call.args ?? {},
      callId,
      principal: workPrincipal(principal),
      urlElicitation: call.ctx.urlElicitation === true,
    };
    const taskId = newTaskId();
    let created;
    try {
      created = await this.lifecycle.create({
        taskId,
        owner: this.ownerOf(call.ctx.principal, call.sessionId),
        ttlMs,
        pollIntervalMs: this.settings.pollIntervalMs,
        work: work as unknown as JsonObject,
      });
    } catch (error) {
      // The store did not answer, or answered garbage (Redis): no task, one clear answer, nothing held.
      this.log.warn({ tool: call.name, reason: error instanceof Error ? error.message : String(error) }, 'task not created: the task store failed');
      return { error: taskStoreUnavailable('Tasks cannot be created right now: the task store does not answer. Try again shortly.') };
    }
    if (!created.ok) {
      const retryAfterMs = Math.max(1000, created.retryAfterMs);
      const message =
        created.reason === 'owner_full'
          ? `Too many tasks: this caller holds ${created.held}, the most it may (tasks.maxPerPrincipal). A task is kept until its ttl passes; try again in ${Math.ceil(retryAfterMs / 1000)} s.`
          : `Too many tasks: the bridge holds ${created.held}, the most it may (tasks.maxTasks); try again in ${Math.ceil(retryAfterMs / 1000)} s.`;
      this.log.info({ tool: call.name, reason: created.reason, held: created.held }, 'task refused');
      return { error: { code: JSONRPC_SERVER_REFUSED, message, data: { kind: 'too_many_tasks', retry_after_ms: retryAfterMs } } };
    }
    this.bridge.recordTaskCreated(call.revision, call.name, call.args, call.ctx, taskId, callId);
    return { record: created.record };
  }

  /** The call's context as a task runs it: the task's signal, call_id and deadline; no progress (the request is over). */
  private taskContext(ctx: CallContext, signal: AbortSignal, callId: string, deadlineMs: number): CallContext {
    const { progress: _progress, signal: _signal, ...rest } = ctx;
    return { ...rest, signal, callId, deadlineMs };
  }

  /**
   * The work `drive` runs, made here rather than as a closure of the request's handler: such a closure would share
   * that function's context, and with it the request's (its signal, its progress callback, the request's SDK
   * pipeline behind them), for as long as the task runs. `first`: the call already running, or how to start it.
   */
  private taskWork(call: CalledTool, flavour: TaskFlavour, ctx: CallContext, note: ConnectionWaitNote, first: Promise<CallReply> | (() => Promise<CallReply>)) {
    return (control: TaskControl): Promise<TaskEnd> => {
      note.attach(control);
      return this.work(call, flavour, ctx, control, typeof first === 'function' ? first() : first);
    };
  }

  /** The task's work: the call, then (2026-07-28) as many authorization rounds as the tool server asks for. */
  private async work(call: CalledTool, flavour: TaskFlavour, ctx: CallContext, control: TaskControl, first: Promise<CallReply>): Promise<TaskEnd> {
    let reply = await first;
    for (let round = 1; 'inputRequired' in reply; round++) {
      if (round > MAX_INPUT_ROUNDS)
        return failed(JSONRPC_INTERNAL_ERROR, `The tool server asked for authorization ${MAX_INPUT_ROUNDS} times; the task gives up.`);
      const { key, message, url, resume } = reply.inputRequired;
      // A key is never reused over a task's lifetime (the extension's rule): one per round.
      const inputKey = `${key}-${round}`;
      // 2025-11-25 URL elicitations carry an id (the key); 2026-07-28 ones do not.
      const params = { mode: 'url', message, url, ...(flavour === 'core' ? { elicitationId: inputKey } : {}) };
      const answers = await control.askInput({ [inputKey]: { method: 'elicitation/create', params } }, message);
      const accepted = (answers[inputKey] as { action?: unknown } | undefined)?.action === 'accept';
      reply = await this.bridge.callTool(call.revision, call.name, call.args, { ...ctx, resume: { state: resume, accepted } });
    }
    return endOf(reply, flavour);
  }

  /**
   * The work of a task taken over from a replica that died (TaskLifecycle.redriveLapsed): the same tools/call, with
   * the same call_id (idempotent upstream), for the principal the record names. What only the original request had
   * — its per-user authorization headers, its token for token exchange, OAuth claims beyond groups — is not there.
   */
  resume(record: TaskRecord): ((control: TaskControl) => Promise<TaskEnd>) | undefined {
    const work = forwardWorkOf(record.work);
    if (!work || !isMcpRevision(work.revision)) return undefined;
    const revision = work.revision;
    const principal: Principal = { ...work.principal, groups: work.principal.groups, scopes: [] };
    return async (control) => {
      const settings = await this.bridge.taskTarget(work.tool, principal);
      const deadlineMs = settings?.taskCallTimeoutMs ?? DEFAULT_TASK_DEADLINE_MS;
      const note = new ConnectionWaitNote();
      note.attach(control);
      const ctx: CallContext = {
        connectionWait: note.onWait,
        principal,
        signal: control.signal,
        callId: work.callId,
        deadlineMs,
        task: { id: record.taskId },
        urlElicitation: work.urlElicitation,
        redrive: true,
      };
      const call: TaskableCall = { revision, name: work.tool, args: work.arguments, ctx, extension: profileFor(revision).tasks === 'extension' };
      return this.work(call, profileFor(revision).tasks, ctx, control, this.bridge.callTool(revision, work.tool, work.arguments, ctx));
    };
  }

  private ttlFor(requested: unknown): number {
    const ttl = typeof requested === 'number' && Number.isFinite(requested) ? Math.round(requested) : this.settings.defaultTtlMs;
    return Math.min(this.settings.maxTtlMs, Math.max(MIN_TTL_MS, ttl));
  }

  updateSettings(settings: TaskSettings): void {
    this.settings = settings;
  }
}

/** What a task's work needs of the tools/call that started it: the tool and its arguments in their revision. */
type CalledTool = Pick<TaskableCall, 'revision' | 'name' | 'args'>;

/**
 * The call as a running task keeps it: not the request's context (its signal, its progress callback), which kept the
 * request's whole SDK pipeline — its server, transport, web Request and streams — alive for as long as the task ran
 * (bench/README.md, "Tasks at scale").
 */
function called(call: TaskableCall): CalledTool {
  return { revision: call.revision, name: call.name, args: call.args };
}

function refusal(code: number, message: string): TaskableReply {
  return { reply: { error: { code, message } } };
}

/**
 * 2025-11-25: a task-augmented call the gate refused answers a JSON-RPC error, not a tool result the client cannot
 * take as its CreateTaskResult: a limit's refusal (an `isError` result) becomes -32000 with its words and its
 * `kind` and `retry_after_ms`; an error (an unknown or denied tool) stays as it is.
 */
function refusalAsError(reply: CallReply): CallReply {
  if (!('result' in reply) || !reply.result.isError) return reply;
  const meta = reply.result._meta?.['mcp-oxp-bridge/error'];
  return { error: { code: JSONRPC_SERVER_REFUSED, message: toolErrorText(reply.result.content), ...(meta !== undefined ? { data: meta } : {}) } };
}

function failed(code: number, message: string): TaskEnd {
  return { status: 'failed', statusMessage: message, outcome: { kind: 'error', error: { code, message } } };
}

/**
 * How a call's reply ends its task. A JSON-RPC error fails it in both revisions. A tool error (`isError`) fails it
 * in 2025-11-25 (its `tasks/result` still returns the result) but completes it in 2026-07-28, where `failed` is for
 * protocol errors only.
 */
function endOf(reply: CallReply, flavour: TaskFlavour): TaskEnd {
  if ('inputRequired' in reply) return failed(JSONRPC_INTERNAL_ERROR, 'The tool server asked for input the task cannot pass on.');
  if ('error' in reply) return { status: 'failed', statusMessage: reply.error.message, outcome: { kind: 'error', error: reply.error } };
  const result = reply.result as unknown as JsonObject;
  if (reply.result.isError && flavour === 'core')
    return { status: 'failed', statusMessage: toolErrorText(reply.result.content), outcome: { kind: 'result', result } };
  return { status: 'completed', outcome: { kind: 'result', result } };
}

/** The state a call's reply leaves its task in (the console's Calls view): the end it makes, or input_required. */
export function taskStateOf(reply: CallReply, flavour: TaskFlavour): string {
  return 'inputRequired' in reply ? 'input_required' : endOf(reply, flavour).status;
}

function toolErrorText(content: readonly { type: string; text?: unknown }[]): string {
  const first = content.find((c) => c.type === 'text' && typeof c.text === 'string');
  const text = typeof first?.text === 'string' ? first.text : 'The tool reported an error.';
  return text.length > 500 ? `${text.slice(0, 499)}…` : text;
}

/** The promise's value if it settles within `ms`, else undefined (it keeps running). */
async function settlesWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
