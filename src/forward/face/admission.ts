/**
 * What every MCP request passes before anything reads its body: drain state
 * (503 once the drain delay has passed), Host/Origin (403, DNS rebinding), authentication (401/403), then
 * per-client admission (429). A JSON-RPC batch is charged per message once
 * its body is read (`chargeBatch`).
 */
import type { IncomingMessage } from 'node:http';
import type { Metrics } from '../../platform/metrics.js';
import { InFlight } from '../../platform/shared/in-flight.js';
import { DrainPhase } from '../../platform/net/drain-phase.js';
import { ClientLimits, type Admitted, type ClientLimitsConfig } from './client-limits.js';
import type { AuthOutcome, HttpRefusal, InboundAuth, Principal } from './inbound-auth.js';
import { JSONRPC_INVALID_REQUEST, JSONRPC_SERVER_REFUSED } from '../../core/mcp-wire.js';

export interface AdmissionOptions {
  auth: InboundAuth;
  limits: ClientLimitsConfig;
  metrics?: Metrics | undefined;
  maxBatchSize: number;
  /** The Host/Origin verdict: undefined when allowed, else the refusal's message. */
  hostOriginProblem: (host: string | undefined, origin: string | undefined) => string | undefined;
}

export type AdmissionVerdict = { ok: true; principal?: Principal; admission?: Admitted } | ({ ok: false } & HttpRefusal);

export function createAdmission(options: AdmissionOptions) {
  const limits = new ClientLimits(options.limits);
  // Host and Origin values repeat from request to request: remember the verdicts (bounded).
  const verdicts = new Map<string, string | undefined>();
  const hostOriginProblem = (host: string | undefined, origin: string | undefined): string | undefined => {
    const key = `${host ?? ''}\n${origin ?? ''}`;
    if (verdicts.has(key)) return verdicts.get(key);
    const problem = options.hostOriginProblem(host, origin);
    if (verdicts.size >= 256) verdicts.clear();
    verdicts.set(key, problem);
    return problem;
  };
  const reject = (reason: string, answer: HttpRefusal): AdmissionVerdict => {
    options.metrics?.rejections.inc({ reason });
    return { ok: false, ...answer };
  };
  /** After the Host and Origin check: the authentication's outcome, then the per-client limits. */
  const admitted = (req: IncomingMessage, auth: AuthOutcome): AdmissionVerdict => {
    if (!auth.ok) return reject(auth.status === 403 ? 'forbidden' : 'unauthenticated', auth);
    if (!limits.enabled) return auth;
    const admission = limits.admit(auth.principal?.subject ?? req.socket.remoteAddress ?? 'unknown');
    if (!admission.ok) return reject(admission.reason, tooMany(admission));
    return { ...auth, admission };
  };

  return {
    /** The verdict, at once unless authentication has to wait (a JWT verified). */
    admit(req: IncomingMessage): AdmissionVerdict | Promise<AdmissionVerdict> {
      const problem = hostOriginProblem(req.headers.host, req.headers.origin);
      if (problem !== undefined) return reject('host_or_origin', refusal(403, JSONRPC_SERVER_REFUSED, problem));
      const auth = options.auth.authenticate(req.headers.authorization);
      return auth instanceof Promise ? auth.then((outcome) => admitted(req, outcome)) : admitted(req, auth);
    },
    /** A batch costs one admission per message: the HTTP request took one, this charges the rest, or refuses it all. */
    chargeBatch(batch: unknown[], admission: Admitted | undefined): HttpRefusal | undefined {
      if (batch.length > options.maxBatchSize) {
        options.metrics?.rejections.inc({ reason: 'batch_too_large' });
        return refusal(400, JSONRPC_INVALID_REQUEST, `Batch of ${batch.length} messages refused: at most ${options.maxBatchSize} per batch.`);
      }
      const refused = admission?.charge(batch.length - 1);
      if (!refused) return undefined;
      options.metrics?.rejections.inc({ reason: refused.reason });
      return tooMany(refused);
    },
  };
}

export type HttpAdmission = ReturnType<typeof createAdmission>;

/**
 * Drain state (platform/net/drain-phase.ts) and the count of MCP requests being served: `drain` turns readiness
 * 503, serves on for the drain delay, then refuses new requests (the face answers 503) and waits for those in flight.
 */
export class DrainTracker {
  private readonly requests = new InFlight();
  readonly phase = new DrainPhase();

  /** Readiness answers 503. */
  get draining(): boolean {
    return this.phase.draining;
  }

  /** New MCP requests are refused. */
  get refusing(): boolean {
    return this.phase.refusing;
  }

  get inFlight(): number {
    return this.requests.size;
  }

  /** Resolves when no MCP request is in flight, or after `deadlineMs`. */
  idle(deadlineMs: number): Promise<number> {
    return this.requests.idle(deadlineMs);
  }

  /** Counts one request until `done` (idempotent) is called. */
  enter(): () => void {
    this.requests.enter();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.requests.leave();
    };
  }

  /**
   * Not ready from now; serving for `delayMs`, refusing after; resolves with the requests still in flight at
   * `deadlineMs` (counted from now, the delay included).
   */
  async drain(delayMs: number, deadlineMs: number): Promise<number> {
    await this.phase.begin(delayMs);
    return this.requests.idle(Math.max(0, deadlineMs - delayMs));
  }
}

export function refusal(status: number, code: number, message: string, headers: Record<string, string> = {}): HttpRefusal {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }) };
}

function tooMany(refused: { retryAfterSeconds: number; message: string }): HttpRefusal {
  return refusal(429, JSONRPC_SERVER_REFUSED, `${refused.message} Retry after ${refused.retryAfterSeconds} s.`, {
    'retry-after': String(refused.retryAfterSeconds),
  });
}
