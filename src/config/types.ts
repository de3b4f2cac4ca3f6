/**
 * The configuration's types, derived from CONFIG_SCHEMA (schema.ts): what a
 * validated configuration holds. Types flow from config/ outwards: modules
 * that take settings import them from here, never the other way round.
 */
import type { FromSchema } from './from-schema.js';
import type { CONFIG_SCHEMA } from './schema.js';

/** A whole validated configuration (defaults applied). */
export type BridgeConfig = FromSchema<typeof CONFIG_SCHEMA>;

/** One `upstreams[]` entry: what it does not set, it inherits from the `upstream` section. */
export type UpstreamEntryConfig = NonNullable<BridgeConfig['upstreams']>[number];

/** The `oxpServer` section: the oxp-server subcommand. */
export type OxpServerConfig = BridgeConfig['oxpServer'];

/** One MCP server the oxp-server serves (`oxpServer.upstreams[]`). */
export type OxpServerUpstreamConfig = OxpServerConfig['upstreams'][number];

/** `{env: NAME}` or `{file: PATH}`: where a secret value is read. */
export type ValueSourceConfig = NonNullable<UpstreamEntryConfig['apiKey']>;
