/**
 * The SDK's endpoint for the pipeline, loaded when the first request needs it. The hot shapes never do
 * (classify-http.ts, hot-path.ts): the first plain tools/list or tools/call after ready is answered without waiting
 * for the SDK's load, the largest module graph of the warm-up (bench/README.md, issue 39). The face's warm-up loads
 * it after the pipeline (http.ts), so it is usually in before a request needs it.
 */
import type { Bridge } from '../bridge/bridge.js';
import type { SdkClassifier } from './classify-http.js';
import type { McpHttpOptions, SdkEndpoint, ServerIdentity } from './mcp-server-sdk.js';

export interface LoadedSdk {
  endpoint: SdkEndpoint;
  classifier: SdkClassifier;
  isJsonContentType(header: string | null): boolean;
}

export function lazySdk(bridge: Bridge, identity: ServerIdentity, options: McpHttpOptions) {
  let loaded: LoadedSdk | undefined;
  let loading: Promise<LoadedSdk> | undefined;
  return {
    /** The SDK once it is in, else undefined. */
    get loaded(): LoadedSdk | undefined {
      return loaded;
    },
    load: (): Promise<LoadedSdk> =>
      (loading ??= import('./mcp-server-sdk.js').then(
        (m) => (loaded = { endpoint: m.createSdkEndpoint(bridge, identity, options), classifier: m, isJsonContentType: m.isJsonContentType }),
      )),
    /** Subscribers are the SDK's: none before it is in. */
    notifyToolsChanged: (): void => loaded?.endpoint.notifyToolsChanged(),
    close: async (): Promise<void> => {
      const sdk = await loading?.catch(() => undefined);
      await sdk?.endpoint.close();
    },
  };
}

export type LazySdk = ReturnType<typeof lazySdk>;
