/**
 * How long an orderly stop may take, and how it is spent (docs/production.md, "Shutdown, probes and scaling").
 *
 * From the signal, readiness answers 503; for the drain delay new requests are still served, because a load
 * balancer (a Kubernetes Service's endpoints, a sidecar's neighbours) keeps sending them until it has seen the
 * readiness change or the endpoint's removal, and a listener that refused them would fail each one; then new
 * requests are answered 503 with Retry-After and `Connection: close`, and the requests still running finish. The
 * delay is part of the grace, so the process is still gone within `http.shutdownGraceSeconds` plus a second, and a
 * `terminationGracePeriodSeconds` (or `docker stop --stop-timeout`) above the grace covers the whole stop.
 */
import { isLoopbackHost } from '../platform/net/loopback.js';
import { ConfigError } from './errors.js';
import type { BridgeConfig } from './types.js';

/**
 * The drain delay in Kubernetes (KUBERNETES_SERVICE_HOST set in every pod). Kubernetes removes a terminating pod's
 * endpoint while the pod receives SIGTERM, not before: the endpoints controller, then every node's kube-proxy and any
 * ingress controller, each apply the removal in turn, usually within a few seconds (the usual advice is a preStop
 * sleep of 5 to 15 s, which this delay makes unnecessary). 5 s, and the 25 s default grace leaves 20 s for running
 * calls.
 */
export const DEFAULT_DRAIN_DELAY_SECONDS = 5;

/**
 * Elsewhere beyond loopback (`docker run -p`, a VM): what routes there stops with the process, so the delay only
 * covers requests already on their way when the signal came; a stop is not held 5 s for nothing (`docker stop`).
 * Behind another load balancer that keeps routing after SIGTERM, configure its deregistration time.
 */
export const DEFAULT_DRAIN_DELAY_OUTSIDE_KUBERNETES_SECONDS = 1;

export interface ShutdownTimes {
  /** From the signal to the exit, at most (the last-resort exit comes 0.75 s after). */
  graceMs: number;
  /** From the signal, how long new requests are still served (0: refused at once). */
  delayMs: number;
}

/** Where the command listens: stdio, or an HTTP listen address. */
export type Listening = { transport: 'stdio' } | { transport: 'http'; host: string };

/**
 * The stop's times for a command listening where `listening` says: the configured drain delay, or the default one
 * (Kubernetes 5 s, elsewhere beyond loopback 1 s; nothing routes to stdio or to a loopback address: 0 there), never
 * more than the grace. A configured delay longer than the grace is refused (ConfigError): it would leave the requests
 * it admits no time to finish.
 */
export function shutdownTimes(
  http: Pick<BridgeConfig['http'], 'shutdownGraceSeconds' | 'drainDelaySeconds'>,
  listening: Listening,
  env: NodeJS.ProcessEnv = process.env,
): ShutdownTimes {
  const grace = http.shutdownGraceSeconds;
  const configured = http.drainDelaySeconds;
  if (configured !== undefined && configured > grace)
    throw new ConfigError(
      `http.drainDelaySeconds (${configured}) is longer than http.shutdownGraceSeconds (${grace}): the delay is part of the grace; shorten it or lengthen the grace`,
    );
  const routed = listening.transport === 'http' && !isLoopbackHost(listening.host);
  const byDefault = env.KUBERNETES_SERVICE_HOST ? DEFAULT_DRAIN_DELAY_SECONDS : DEFAULT_DRAIN_DELAY_OUTSIDE_KUBERNETES_SECONDS;
  const delay = configured ?? (routed ? Math.min(byDefault, grace) : 0);
  return { graceMs: grace * 1000, delayMs: delay * 1000 };
}

/** Where each command listens, from its configuration. */
export function listeningOf(config: BridgeConfig, oxpServer: boolean): Listening {
  if (oxpServer) return { transport: 'http', host: config.oxpServer.host };
  return config.transport === 'stdio' ? { transport: 'stdio' } : { transport: 'http', host: config.host };
}
