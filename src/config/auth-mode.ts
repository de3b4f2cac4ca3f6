/** The inbound auth mode a configuration means: explicit, else bearer when tokens are set, oauth when configured, else none. */
import type { BridgeConfig } from './types.js';

export function effectiveAuthMode(auth: BridgeConfig['auth']): 'none' | 'bearer' | 'oauth' {
  return auth.mode ?? (auth.tokens?.length || auth.tokensFile ? 'bearer' : auth.oauth ? 'oauth' : 'none');
}
