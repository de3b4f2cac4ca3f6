/**
 * A task record as the Redis task store keeps it (redis-scripts.ts's hash) and back. Redis is trusted with nothing
 * it did not get from us: whatever it answers is read as untrusted input — a hash whose fields are missing, of the
 * wrong shape, or larger than MAX_RECORD_BYTES is garbage (TaskStoreError), never a record.
 */
import { isPlainObject } from '../../core/json.js';
import { isTerminal, type TaskRecord, type TaskStatus } from './store.js';

/** Largest body read back: a result over the lifecycle's bound never gets here, so anything larger is not ours. */
export const MAX_RECORD_BYTES = 32 * 1024 * 1024;

const STATUSES: ReadonlySet<string> = new Set<TaskStatus>(['working', 'input_required', 'completed', 'failed', 'cancelled']);

/** Why the store could not answer; the message names where Redis is, never its credentials. */
export class TaskStoreError extends Error {
  constructor(
    readonly code: 'unavailable' | 'garbage' | 'busy',
    message: string,
  ) {
    super(message);
    this.name = 'TaskStoreError';
  }
}

/** What of a record lives in the hash's `json` field: everything a compare-and-set changes. */
export type RecordBody = Pick<TaskRecord, 'status' | 'statusMessage' | 'pollIntervalMs' | 'work' | 'outcome' | 'inputRequests' | 'inputResponses'>;

export function bodyOf(record: RecordBody): string {
  const { status, statusMessage, pollIntervalMs, work, outcome, inputRequests, inputResponses } = record;
  return JSON.stringify({ status, statusMessage, pollIntervalMs, work, outcome, inputRequests, inputResponses });
}

/**
 * The body of a hash: its `json`, or for a listing's row (which reads no body, redis-scripts.ts LIST_PAGE_LUA) what a
 * listing shows, from the fields beside it (`msg`, `poll`); such a record has no work, outcome or input requests.
 */
function bodyOfHash(hash: Record<string, string>, garbage: (what: string) => TaskStoreError): unknown {
  const json = hash.json;
  if (json === undefined && hash.poll !== undefined)
    return { status: hash.status, pollIntervalMs: Number(hash.poll), work: {}, ...(hash.msg !== undefined && { statusMessage: hash.msg }) };
  if (typeof json !== 'string' || json.length > MAX_RECORD_BYTES) throw garbage('body');
  try {
    return JSON.parse(json) as unknown;
  } catch {
    throw garbage('body');
  }
}

/** The record a hash holds, or undefined for none (an empty hash: unknown or expired). */
export function recordOf(taskId: string, hash: Record<string, string> | null | undefined): TaskRecord | undefined {
  if (!hash || Object.keys(hash).length === 0) return undefined;
  const garbage = (what: string) => new TaskStoreError('garbage', `The task store answered an unreadable record (${what}).`);
  const body = bodyOfHash(hash, garbage);
  const number = (name: string) => {
    const value = Number(hash[name]);
    if (!Number.isSafeInteger(value) || value < 0) throw garbage(name);
    return value;
  };
  if (!isPlainObject(body) || !isPlainObject(body.work)) throw garbage('body');
  const status = hash.status;
  if (typeof status !== 'string' || !STATUSES.has(status) || body.status !== status) throw garbage('status');
  if (typeof hash.owner !== 'string' || hash.owner === '') throw garbage('owner');
  const record: TaskRecord = {
    taskId,
    owner: hash.owner,
    status: status as TaskStatus,
    ...(typeof body.statusMessage === 'string' && { statusMessage: body.statusMessage }),
    createdAt: number('created'),
    lastUpdatedAt: number('updated'),
    ttlMs: number('ttl'),
    pollIntervalMs: Number(body.pollIntervalMs) || 0,
    work: body.work,
    ...(isPlainObject(body.outcome) && { outcome: body.outcome as unknown as NonNullable<TaskRecord['outcome']> }),
    ...(isPlainObject(body.inputRequests) && { inputRequests: body.inputRequests }),
    ...(isPlainObject(body.inputResponses) && { inputResponses: body.inputResponses }),
    ...(!isTerminal(status as TaskStatus) && typeof hash.holder === 'string' && { lease: { holder: hash.holder, until: number('until') } }),
    redrives: number('redrives'),
    revision: number('rev'),
  };
  return record;
}

/** What a store step throws when Redis answered something it cannot read (`step`: which one). */
export function unreadable(step: string): TaskStoreError {
  return new TaskStoreError('garbage', `The task store answered something unreadable (${step}).`);
}

/** A script's rows (redis-scripts.ts): each a task id followed by its hash's fields and values, read back as records. */
export function recordsOfRows(reply: unknown, what: string): TaskRecord[] {
  if (!Array.isArray(reply)) throw unreadable(what);
  const records: TaskRecord[] = [];
  for (const row of reply) {
    if (!Array.isArray(row) || row.length % 2 !== 1 || !row.every((cell) => typeof cell === 'string')) throw unreadable(what);
    const [taskId, ...cells] = row;
    const hash: Record<string, string> = {};
    for (let i = 0; i < cells.length; i += 2) hash[cells[i]!] = cells[i + 1]!;
    const record = recordOf(taskId!, hash);
    if (record) records.push(record);
  }
  return records;
}
