/** The `audit` section of the configuration: where the audit trail goes (src/calls/audit/sink.ts). Part of CONFIG_SCHEMA (schema.ts). */
export const AUDIT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description:
    'The audit trail: one JSON line per tool-call decision and per configuration reload, apart from the log (docs/observability.md, "Audit trail"). A change takes effect after a restart.',
  properties: {
    sink: {
      enum: ['off', 'stdout', 'file'],
      description:
        'Where the records go. Default: file when `path` is set, else off. stdout is refused with transport stdio (standard output is then the MCP protocol channel).',
    },
    path: {
      type: 'string',
      minLength: 1,
      description: 'The JSON-lines file (sink file): appended to, created with mode 0600 if missing (its directory must exist), reopened on SIGHUP.',
    },
  },
} as const;
