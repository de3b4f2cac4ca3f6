/** The OXP face's view of a source's catalog: indexed for lookups and serialised for `GET /tools`. */
import { OXP_SCHEMA_URN } from '../core/oxp-wire.js';
import { resolveToolVersion } from '../core/oxp-versioning.js';
import type { SourceTool, ToolSource } from './tool-source.js';

/** The catalog indexed for lookups, rebuilt whenever the source hands out a new array. */
export class CatalogIndex<T extends SourceTool> {
  private seen: readonly T[] | undefined;
  private byKey = new Map<string, Map<string, T>>();
  private listBody = '';

  constructor(private readonly source: ToolSource<T>) {}

  private refresh(): void {
    const tools = this.source.tools();
    if (tools === this.seen) return;
    this.seen = tools;
    this.byKey = new Map();
    for (const tool of tools) {
      const versions = this.byKey.get(tool.key) ?? new Map<string, T>();
      versions.set(tool.version, tool);
      this.byKey.set(tool.key, versions);
    }
    // Serialised once per catalog: listing is the hot path of many clients.
    this.listBody = JSON.stringify({ $schema: OXP_SCHEMA_URN, items: tools.map((t) => t.definition) });
  }

  list(): string {
    this.refresh();
    return this.listBody;
  }

  resolve(toolId: string): T | undefined {
    this.refresh();
    const resolved = resolveToolVersion(toolId, (key) => {
      const versions = this.byKey.get(key);
      return versions ? [...versions.keys()] : undefined;
    });
    return resolved ? this.byKey.get(resolved.key)?.get(resolved.version) : undefined;
  }

  has(key: string): boolean {
    this.refresh();
    return this.byKey.has(key);
  }
}
