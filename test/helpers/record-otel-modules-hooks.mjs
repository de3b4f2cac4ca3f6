// Module resolution hooks (run on the loader thread) for record-otel-modules.mjs.
import { appendFileSync } from 'node:fs';

const out = process.env.RECORD_OTEL_MODULES_FILE;

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (out && resolved.url.includes('/node_modules/@opentelemetry/')) appendFileSync(out, `${resolved.url}\n`);
  return resolved;
}
