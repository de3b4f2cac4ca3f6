/**
 * An OXP 1.0 HTTP server for a set of local tools: `GET /health`,
 * `GET /tools`, `POST /tools/call` (and the `/call` alias some docs use).
 * Spec-strict in what it writes, tolerant in what it reads (`inputs`,
 * `$schema` spellings, GET bodies).
 */
import { randomUUID } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { isPlainObject, type JsonObject } from '../core/json.js';
import { OXP_SCHEMA_URN } from '../core/oxp-wire.js';
import { isAcceptedOxpSchema, resolveToolVersion } from '../core/oxp-versioning.js';
import type { LocalTool } from './toolkit.js';

export interface OxpAppOptions {
  maxBodyBytes: number;
}

export function createOxpApp(tools: readonly LocalTool[], options: OxpAppOptions): express.Express {
  const byKey = new Map<string, Map<string, LocalTool>>();
  for (const tool of tools) {
    const versions = byKey.get(tool.id) ?? new Map<string, LocalTool>();
    versions.set(tool.version, tool);
    byKey.set(tool.id, versions);
  }
  let ajv: Ajv2020 | undefined; // made on the first call: it costs start-up time
  const validators = new Map<LocalTool, ValidateFunction | null>();
  const validatorFor = (tool: LocalTool): ValidateFunction | null => {
    let v = validators.get(tool);
    if (v === undefined) {
      try {
        v = (ajv ??= new Ajv2020({ strict: false, allErrors: true })).compile(tool.input_schema);
      } catch {
        v = null; // an uncompilable schema is not enforced
      }
      validators.set(tool, v);
    }
    return v;
  };
  const definitions = tools.map((t) => {
    const def: JsonObject = { id: `${t.id}@${t.version}`, name: t.name, description: t.description, version: t.version, input_schema: t.input_schema, output_schema: t.output_schema };
    if (t.requirements) def.requirements = t.requirements;
    return def;
  });

  const app = express();
  app.disable('x-powered-by');
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/tools', (_req, res) => {
    res.json({ $schema: OXP_SCHEMA_URN, items: definitions });
  });
  const call = async (req: Request, res: Response) => {
    const body: unknown = req.body;
    if (!isPlainObject(body) || !isPlainObject(body.request)) return serverError(res, 'The request body must be a JSON object with a "request" member.');
    if (!isAcceptedOxpSchema(body.$schema)) return serverError(res, 'This tool server supports OXP 1.0 only.', `unsupported $schema ${JSON.stringify(body.$schema)}`);
    const request = body.request;
    if (typeof request.tool_id !== 'string') return serverError(res, 'The request has no tool_id.');
    const resolved = resolveToolVersion(request.tool_id, (key) => {
      const versions = byKey.get(key);
      return versions ? [...versions.keys()] : undefined;
    });
    const tool = resolved ? byKey.get(resolved.key)?.get(resolved.version) : undefined;
    if (!tool) return serverError(res, `Tool '${request.tool_id}' was not found`, `no tool or version matches ${request.tool_id}`);
    const input = isPlainObject(request.input) ? request.input : isPlainObject(request.inputs) ? request.inputs : {};
    const validate = validatorFor(tool);
    if (validate && !validate(input)) {
      const parameter_errors: Record<string, string> = {};
      for (const e of validate.errors ?? []) {
        const name = e.instancePath.split('/')[1] ?? (typeof e.params.missingProperty === 'string' ? e.params.missingProperty : '(input)');
        parameter_errors[name] ??= e.message ?? 'is invalid';
      }
      res.status(422).json({ $schema: OXP_SCHEMA_URN, message: 'Some input parameters are invalid', parameter_errors });
      return;
    }
    const call_id = typeof request.call_id === 'string' && request.call_id ? request.call_id : randomUUID();
    const started = performance.now();
    let outcome;
    try {
      outcome = await tool.run(input as JsonObject, isPlainObject(request.context) ? (request.context as JsonObject) : undefined);
    } catch (error) {
      outcome = { error: { message: 'The tool failed unexpectedly.', developer_message: error instanceof Error ? error.message : String(error) } };
    }
    const duration = Math.round((performance.now() - started) * 1000) / 1000;
    const result = 'error' in outcome ? { call_id, duration, success: false, error: outcome.error } : { call_id, duration, success: true, value: outcome.value };
    res.json({ $schema: OXP_SCHEMA_URN, result });
  };
  const json = express.json({ limit: options.maxBodyBytes, type: () => true });
  app.post('/tools/call', json, call);
  app.post('/call', json, call);
  app.use((_req, res) => {
    res.status(404).json({ $schema: OXP_SCHEMA_URN, message: 'Not found' });
  });
  // Body-parser failures (bad JSON, too large) → spec-shaped 400, never a stack trace.
  app.use((err: { status?: number; message?: string }, _req: Request, res: Response, _next: express.NextFunction) => {
    res.status(err.status === 413 ? 413 : 400).json({ $schema: OXP_SCHEMA_URN, message: err.status === 413 ? 'Request body too large' : 'The request body is not valid JSON.' });
  });
  return app;
}

function serverError(res: Response, message: string, developer_message?: string): void {
  res.status(400).json({ $schema: OXP_SCHEMA_URN, message, ...(developer_message ? { developer_message } : {}) });
}
