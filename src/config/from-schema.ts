/**
 * The TypeScript type of a value that passed a JSON Schema, derived from the
 * schema's `as const` literal: CONFIG_SCHEMA (schema.ts) is the one
 * definition of the configuration, and its types cannot drift from it.
 *
 * Covers the keywords the config schema uses: `type` (object, array,
 * string, integer, number, boolean), `enum`, `properties` / `required` /
 * `default` (a key with a default is always present once validated, as the
 * validator fills defaults in), `additionalProperties`, `items`, `oneOf`,
 * and `$ref` to `#/$defs/NAME`. Anything else types as `unknown`.
 */
import type { JsonObject } from '../core/json.js';

type Defs = Record<string, unknown>;
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- "no properties": the identity of an intersection, the `$defs` of a schema without any
type Empty = {};

/** The value type of `S`, resolving `$ref`s against `D` (the root's `$defs`). */
export type FromSchema<S, D extends Defs = S extends { $defs: infer X extends Defs } ? X : Empty> = S extends { $ref: `#/$defs/${infer N}` }
  ? N extends keyof D
    ? FromSchema<D[N], D>
    : unknown
  : S extends { enum: readonly (infer E)[] }
    ? E
    : S extends { oneOf: readonly (infer O)[] }
      ? S extends { properties: object }
        ? ObjectOf<S, D>
        : O extends unknown
          ? FromSchema<O, D>
          : never
      : S extends { type: 'object' }
        ? ObjectOf<S, D>
        : S extends { type: 'array'; items: infer I }
          ? FromSchema<I, D>[]
          : S extends { type: 'string' }
            ? string
            : S extends { type: 'integer' | 'number' }
              ? number
              : S extends { type: 'boolean' }
                ? boolean
                : unknown;

type RequiredKeys<S> = S extends { required: readonly (infer R)[] } ? R : never;
type Present<P, S> = { [K in keyof P]: K extends RequiredKeys<S> ? K : P[K] extends { default: unknown } ? K : never }[keyof P];

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type KnownProperties<S, D extends Defs> = S extends { properties: infer P }
  ? Simplify<{ -readonly [K in Present<P, S> & keyof P]: FromSchema<P[K], D> } & { -readonly [K in Exclude<keyof P, Present<P, S>>]?: FromSchema<P[K], D> }>
  : Empty;

type ObjectOf<S, D extends Defs> = S extends { additionalProperties: false }
  ? KnownProperties<S, D>
  : S extends { additionalProperties: infer A }
    ? S extends { properties: object }
      ? KnownProperties<S, D> & Record<string, unknown>
      : Record<string, FromSchema<A, D>>
    : S extends { properties: object }
      ? KnownProperties<S, D> & Record<string, unknown>
      : JsonObject; // any object: configuration comes from JSON, YAML, flags and the environment

/** A schema with every `default` removed, at any depth (the type of schema.ts's withoutDefaults). */
export type WithoutDefaults<T> = T extends readonly unknown[]
  ? { [K in keyof T]: WithoutDefaults<T[K]> }
  : T extends object
    ? { [K in keyof T as K extends 'default' ? never : K]: WithoutDefaults<T[K]> }
    : T;
