// `node --import ./record-otel-modules.mjs`: appends the URL of every module
// resolved under node_modules/@opentelemetry or node_modules/@grpc to $RECORD_OTEL_MODULES_FILE
// (the tracing tests' proof that tracing off loads no OpenTelemetry code).
import { register } from 'node:module';

register('./record-otel-modules-hooks.mjs', import.meta.url);
