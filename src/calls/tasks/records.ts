/**
 * What a task record holds beyond its lifecycle: who owns it (the owner key)
 * and what it runs (`work`, enough to send the same call again on another
 * replica). Direction-neutral values; each direction fills `work` with its
 * own call description.
 */
import { createHash } from 'node:crypto';
import type { Principal } from '../../core/principal.js';

/**
 * The owner of the tasks a principal creates: its kind and subject (the same
 * caller on every replica and every request). Nobody authenticated is one
 * caller per 2025-era session when there is one (a session id carries its
 * own state, so any replica derives the same key), else one shared caller:
 * then only the task id, 144 random bits, protects a task (docs/translation.md,
 * "Tasks", says so).
 */
export function ownerKey(principal: Principal, sessionId?: string): string {
  const base = `${principal.kind}:${principal.subject}`;
  if (principal.kind !== 'anonymous' || sessionId === undefined) return base;
  return `${base}#${createHash('sha256').update(sessionId).digest('base64url').slice(0, 22)}`;
}

/** The caller as a re-driven task needs it (its OXP user_id, and who the access policy and audit trail name). */
export interface WorkPrincipal {
  readonly subject: string;
  readonly name: string;
  readonly kind: Principal['kind'];
  readonly groups: readonly string[];
}

/** A forward (MCP → OXP) task's work: one tools/call, with its OXP call_id fixed at creation. */
export interface ForwardWork {
  readonly direction: 'forward';
  /** The MCP revision the task was created in: its result is projected for it. */
  readonly revision: string;
  /** The MCP tool name called. */
  readonly tool: string;
  readonly arguments: unknown;
  /** The OXP call_id every attempt and every re-drive sends (idempotent upstream). */
  readonly callId: string;
  readonly principal: WorkPrincipal;
  /** The client could take a URL elicitation (an authorization met mid-task becomes input_required). */
  readonly urlElicitation: boolean;
}

/** A record's work as a forward task, or undefined for anything else (another direction's, a newer format). */
export function forwardWorkOf(work: unknown): ForwardWork | undefined {
  const w = work as Partial<ForwardWork> | null;
  if (w === null || typeof w !== 'object' || w.direction !== 'forward') return undefined;
  if (typeof w.revision !== 'string' || typeof w.tool !== 'string' || typeof w.callId !== 'string') return undefined;
  const p = w.principal;
  if (!p || typeof p.subject !== 'string' || typeof p.name !== 'string' || typeof p.kind !== 'string' || !Array.isArray(p.groups)) return undefined;
  return { ...(w as ForwardWork), urlElicitation: w.urlElicitation === true };
}

export function workPrincipal(principal: Principal): WorkPrincipal {
  return { subject: principal.subject, name: principal.name, kind: principal.kind, groups: [...principal.groups] };
}
