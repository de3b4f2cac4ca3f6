/** The OXP face's view of a source's catalog: indexed for lookups and serialised for `GET /tools`. */
import { OXP_SCHEMA_URN } from '../../core/oxp-wire.js';
import { resolveToolVersion } from '../../core/oxp-versioning.js';
import { closestName } from '../../core/closest-name.js';
import type { SourceTool, ToolSource } from './tool-source.js';

/**
 * A set of tools, indexed by key and version: a whole catalog, or the part of it one kind of caller may call
 * (reverse/face/access.ts). Lookups and the list only ever see the tools of one index, so a tool left out of it is
 * unknown to whoever is served from it, in every answer.
 */
export class ToolIndex<T extends SourceTool> {
  private readonly byKey = new Map<string, Map<string, T>>();
  private listBody: string | undefined;

  constructor(readonly tools: readonly T[]) {
    for (const tool of tools) {
      const versions = this.byKey.get(tool.key) ?? new Map<string, T>();
      versions.set(tool.version, tool);
      this.byKey.set(tool.key, versions);
    }
  }

  /** `GET /tools`'s body, serialised once per index: listing is the hot path of many clients. */
  list(): string {
    return (this.listBody ??= JSON.stringify({ $schema: OXP_SCHEMA_URN, items: this.tools.map((t) => t.definition) }));
  }

  resolve(toolId: string): T | undefined {
    const resolved = resolveToolVersion(toolId, (key) => {
      const versions = this.byKey.get(key);
      return versions ? [...versions.keys()] : undefined;
    });
    return resolved ? this.byKey.get(resolved.key)?.get(resolved.version) : undefined;
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  /** The `Toolkit.Tool` of this index a mistyped tool id (its version aside) most likely meant, if one is close. */
  closestKey(toolId: string): string | undefined {
    return closestName(toolId.split('@')[0]!, [...this.byKey.keys()]);
  }
}

/** The source's catalog indexed, rebuilt whenever the source hands out a new array. */
export class CatalogIndex<T extends SourceTool> {
  private seen: readonly T[] | undefined;
  private index = new ToolIndex<T>([]);

  constructor(private readonly source: ToolSource<T>) {}

  /** The index of the current catalog: the same object until the catalog changes (caches key on it). */
  current(): ToolIndex<T> {
    const tools = this.source.tools();
    if (tools !== this.seen) {
      this.seen = tools;
      this.index = new ToolIndex(tools);
    }
    return this.index;
  }
}
