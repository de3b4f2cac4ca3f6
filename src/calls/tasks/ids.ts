/**
 * Task ids: 144 random bits from the operating system's CSPRNG, base64url
 * (24 characters). The spec asks for ids nobody can guess; ownership
 * (records.ts) is checked as well, so a guessed id of another caller's task
 * still answers as unknown.
 */
import { randomBytes } from 'node:crypto';

export const TASK_ID_BYTES = 18;

export function newTaskId(): string {
  return randomBytes(TASK_ID_BYTES).toString('base64url');
}

/** A string that could be a task id of ours: anything else is unknown without asking the store. */
export function isTaskIdShape(value: unknown): value is string {
  return typeof value === 'string' && value.length === 24 && /^[A-Za-z0-9_-]{24}$/.test(value);
}
