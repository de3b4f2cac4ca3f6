/**
 * The console's static files (assets/console/ in the package): read once at
 * start-up, served from memory with a content hash as ETag. The folder is
 * found from this module's place, which differs between the sources
 * (src/console/) and the build (dist/src/console/).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

/** Served file name → content type. Nothing else under the folder is served. */
const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};

export function consoleAssetsDir(): string {
  for (const up of ['../../assets/console/', '../../../assets/console/']) {
    const dir = fileURLToPath(new URL(up, import.meta.url));
    if (existsSync(`${dir}index.html`)) return dir;
  }
  throw new Error('the console assets (assets/console/) are missing from the installation');
}

let loaded: Map<string, Asset> | undefined;

export function consoleAssets(): Map<string, Asset> {
  if (loaded) return loaded;
  const dir = consoleAssetsDir();
  loaded = new Map(
    Object.entries(FILES).map(([name, type]) => {
      const body = readFileSync(dir + name);
      return [name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` }];
    }),
  );
  return loaded;
}
