/**
 * A 2026-07-28 `subscriptions/listen` read as it streams (the task status notifications of the tasks extension):
 * its messages, each validated against the 2026-07-28 schema (and the extension's for `notifications/tasks`),
 * until `enough` says so; then the client closes the stream. A JSON answer (an error) is the one message.
 */
import { assertValidServerMessage } from './mcp-schema.js';
import { MODERN_META, modernHeaders } from './bridge-harness.js';
import { MODERN_REVISION } from './modern-revision.js';

const EXT = 'io.modelcontextprotocol/tasks';

export async function listen(
  url: string,
  id: number,
  notifications: Record<string, unknown>,
  declaresExtension: boolean,
  enough: (messages: Record<string, unknown>[]) => boolean,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>[]> {
  const capabilities = declaresExtension ? { extensions: { [EXT]: {} } } : {};
  const client = new AbortController();
  const res = await fetch(url, {
    method: 'POST',
    signal: client.signal,
    headers: { ...modernHeaders('subscriptions/listen'), ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: { notifications, _meta: { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': capabilities } },
    }),
  });
  const messages: Record<string, unknown>[] = [];
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    messages.push((await res.json()) as Record<string, unknown>);
    return messages;
  }
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = setTimeout(() => client.abort(), 15_000);
  try {
    while (!enough(messages)) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = text.indexOf('\n\n')) !== -1) {
        const data = text
          .slice(0, cut)
          .split('\n')
          .find((line) => line.startsWith('data:'));
        text = text.slice(cut + 2);
        if (!data) continue;
        const message = JSON.parse(data.slice(5)) as Record<string, unknown>;
        assertValidServerMessage(MODERN_REVISION, message, 'subscriptions/listen');
        messages.push(message);
      }
    }
  } finally {
    clearTimeout(deadline);
    client.abort();
  }
  return messages;
}
