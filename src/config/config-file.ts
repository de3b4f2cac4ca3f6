/**
 * The config file, read: YAML or JSON (one parser, loaded only when a file is given), a mapping of keys to values,
 * or an error that says why it cannot be read and what to do.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { isPlainObject } from '../core/json.js';
import { ConfigError } from './errors.js';

export function readConfigFile(path: string, givenBy: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(unreadableFile(path, givenBy, error as NodeJS.ErrnoException));
  }
  let parsed: unknown;
  try {
    // YAML is a superset of JSON: one parser for both. Loaded only when a config file is given (start-up time).
    const { parse: parseYaml } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
    parsed = parseYaml(text);
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid YAML/JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isPlainObject(parsed)) throw new ConfigError(`config file ${path} must hold a mapping of keys to values`);
  return parsed;
}

/** Why the config file cannot be read, in words, with what to do (the error code alone, ENOENT, said neither). */
function unreadableFile(path: string, givenBy: string, error: NodeJS.ErrnoException): string {
  const where = isAbsolute(path) ? path : `${path} (${resolve(path)})`;
  const what =
    error.code === 'ENOENT'
      ? `no such file; check the path given by ${givenBy} (a relative path is read from the current directory), or copy an example from the config/ folder (bridge.example.yaml, oxp-server.example.yaml)`
      : error.code === 'EACCES'
        ? 'permission denied: the user the bridge runs as cannot read it'
        : error.code === 'EISDIR'
          ? `it is a directory; ${givenBy} names the YAML or JSON file itself`
          : (error.message ?? String(error));
  return `cannot read the config file ${where}: ${what}`;
}
