/**
 * `mcp_oxp_bridge_requests_total` as plain numbers: one series object per
 * label set, found through nested maps keyed by the label values, so that
 * counting a request allocates nothing once its label set has been seen
 * (prom-client's `inc(labels)` builds a string of all five labels per call
 * to find the series). platform/metrics.ts hands the series to prom-client when
 * `/metrics` is scraped. The label sets are the ones the callers pass, so
 * their number is bounded as before: methods × protocol versions ×
 * upstreams × catalog tools (or '(unknown)') × outcomes.
 */

export interface RequestSeries {
  /** In the order prom-client prints them (the order inc() was given them before). */
  readonly labels: { method: string; tool: string; upstream: string; protocol_version: string; outcome: string };
  value: number;
}

type Level<T> = Map<string, T>;

export class RequestCounts {
  /** Every series, in the order it was first counted. */
  readonly series: RequestSeries[] = [];
  /** method → protocol version → upstream → tool → outcome → series. */
  private readonly tree: Level<Level<Level<Level<Level<RequestSeries>>>>> = new Map();

  add(method: string, version: string, upstream: string, tool: string, outcome: string): void {
    let byVersion = this.tree.get(method);
    if (!byVersion) this.tree.set(method, (byVersion = new Map() as Level<Level<Level<Level<RequestSeries>>>>));
    let byUpstream = byVersion.get(version);
    if (!byUpstream) byVersion.set(version, (byUpstream = new Map() as Level<Level<Level<RequestSeries>>>));
    let byTool = byUpstream.get(upstream);
    if (!byTool) byUpstream.set(upstream, (byTool = new Map() as Level<Level<RequestSeries>>));
    let byOutcome = byTool.get(tool);
    if (!byOutcome) byTool.set(tool, (byOutcome = new Map() as Level<RequestSeries>));
    let series = byOutcome.get(outcome);
    if (!series) {
      series = { labels: { method, tool, upstream, protocol_version: version, outcome }, value: 0 };
      byOutcome.set(outcome, series);
      this.series.push(series);
    }
    series.value += 1;
  }
}

export interface PrincipalSeries {
  readonly labels: { principal: string; kind: string; outcome: string };
  value: number;
}

/**
 * `mcp_oxp_bridge_principal_calls_total` as plain numbers, kept like RequestCounts (no allocation once a label set
 * has been seen). Bounded: `principal` is a configured name or a kind (core/principal.ts, principalLabel), so the
 * series are (configured names + kinds) × outcomes.
 */
export class PrincipalCounts {
  readonly series: PrincipalSeries[] = [];
  /** principal label → kind → outcome → series. */
  private readonly tree: Level<Level<Level<PrincipalSeries>>> = new Map();

  add(principal: string, kind: string, outcome: string): void {
    let byKind = this.tree.get(principal);
    if (!byKind) this.tree.set(principal, (byKind = new Map() as Level<Level<PrincipalSeries>>));
    let byOutcome = byKind.get(kind);
    if (!byOutcome) byKind.set(kind, (byOutcome = new Map() as Level<PrincipalSeries>));
    let series = byOutcome.get(outcome);
    if (!series) {
      series = { labels: { principal, kind, outcome }, value: 0 };
      byOutcome.set(outcome, series);
      this.series.push(series);
    }
    series.value += 1;
  }
}
