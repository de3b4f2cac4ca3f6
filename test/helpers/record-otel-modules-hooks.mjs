// Module resolution hooks (run on the loader thread) for record-otel-modules.mjs.
import { appendFileSync } from 'node:fs';

const out = process.env.RECORD_OTEL_MODULES_FILE;

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (out && /\/node_modules\/@(opentelemetry|grpc)\//.test(resolved.url)) appendFileSync(out, `${resolved.url}\n`);
  return resolved;
}
