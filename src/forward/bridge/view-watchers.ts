/**
 * Who is told when a configuration reload changes what a client may see. A connection of one principal (stdio:
 * nobody authenticated, `principal` undefined) is told only when its own view changed; `everyone` (HTTP
 * subscriptions, whose subscribers the SDK holds) is told whenever any view may have changed.
 */
import type { Principal } from '../../core/principal.js';

interface Watcher {
  listener: () => void;
  principal: Principal | undefined;
  all: boolean;
}

export class ViewWatchers {
  private readonly watchers = new Set<Watcher>();

  /** Starts watching; returns the function that stops it. */
  add(listener: () => void, principal: Principal | undefined | 'everyone'): () => void {
    const watcher: Watcher = principal === 'everyone' ? { listener, principal: undefined, all: true } : { listener, principal, all: false };
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /**
   * Applies `change` and tells each watcher whose view it changed: `view` names what a principal sees (compared
   * before and after), `changed` whether the policy itself changed (what `everyone` watchers are told on).
   */
  around(view: (principal: Principal | undefined) => string, changed: boolean, change: () => void): void {
    const watchers = [...this.watchers];
    const before = watchers.map((w) => (w.all ? '' : view(w.principal)));
    change();
    watchers.forEach((w, i) => {
      if (w.all ? changed : view(w.principal) !== before[i]) w.listener();
    });
  }
}
