/**
 * The `tasks` section of the configuration: MCP tasks (2025-11-25 core
 * tasks, and the 2026-07-28 extension `io.modelcontextprotocol/tasks`), where
 * a tool call outlives the request that started it. Which tools may or must
 * run as tasks, and their deadlines, are per upstream and per tool
 * (`upstream.taskSupport`, `upstream.toolSettings`). Part of CONFIG_SCHEMA
 * (schema.ts); docs/configuration.md ("Tasks") says what each key does.
 */
import type { FromSchema } from './from-schema.js';

const int = (description: string, def: number, min: number, max: number) =>
  ({ type: 'integer', minimum: min, maximum: max, default: def, description }) as const;

export const TASK_SUPPORT = {
  enum: ['forbidden', 'optional', 'required'],
  description:
    "Whether a tool's calls may run as tasks: 'forbidden' (never), 'optional' (when the client asks, 2025-11-25, or when the call is still running after tasks.taskAfterMs, 2026-07-28), 'required' (always, where the client can do tasks).",
} as const;

export const TASKS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'MCP tasks: tool calls that outlive the request that started them.',
  properties: {
    enabled: { type: 'boolean', default: true, description: 'Offer tasks at all (the capability, the extension, execution.taskSupport).' },
    defaultTtlMs: int('How long a task and its result are kept after its creation when the client asks for no ttl.', 3_600_000, 1_000, 604_800_000),
    maxTtlMs: int("Longest ttl granted: a client's longer request is cut to it.", 86_400_000, 1_000, 604_800_000),
    pollIntervalMs: int('The polling interval suggested to clients (pollInterval, pollIntervalMs).', 1_000, 50, 600_000),
    taskAfterMs: int(
      "2026-07-28: an 'optional' tool's call becomes a task when it is still running after this long (and the client declared the extension); shorter calls stay plain results.",
      1_000,
      0,
      60_000,
    ),
    maxPerPrincipal: int('Tasks one principal may hold at once (any status, until they expire); more are refused.', 100, 1, 100_000),
    maxTasks: int('Tasks held at once in all.', 10_000, 1, 1_000_000),
    leaseMs: int(
      'How long the replica running a task holds it without renewing (renewed every third of it): with store.redis, another replica re-drives a task whose replica died once this has passed (the same OXP call and call_id).',
      30_000,
      1_000,
      600_000,
    ),
    maxRedrives: int(
      'Times one task may be taken over after its replica stopped renewing its lease (with store.redis): the next take-over ends it failed, saying so, instead of running its call again. Bounds a call that brings down every replica that runs it.',
      3,
      0,
      100,
    ),
    maxResultBytes: int('Largest task result kept (JSON bytes); a larger one ends the task failed, saying so.', 8_388_608, 1_024, 268_435_456),
  },
} as const;

export type TasksSettings = FromSchema<typeof TASKS_SCHEMA>;
