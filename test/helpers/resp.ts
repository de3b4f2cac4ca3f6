/** Just enough RESP for a stand-in Redis server in tests: the commands a client sends, read off a connection's buffer. */

/** Info as a Redis that is ready answers it (ioredis's ready check reads `loading:0`). */
export const READY_INFO = '# Server\r\nredis_version:7.0.0\r\nloading:0';

/** Commands out of RESP arrays of bulk strings, as the client sends them (enough for ioredis); a partial one stays in `buffer`. */
export function* commands(buffer: { data: string }): Generator<string[]> {
  for (;;) {
    const match = /^\*(\d+)\r\n/.exec(buffer.data);
    if (!match) return;
    let at = match[0].length;
    const parts: string[] = [];
    for (let i = 0; i < Number(match[1]); i++) {
      const head = /^\$(\d+)\r\n/.exec(buffer.data.slice(at));
      if (!head) return;
      const start = at + head[0].length;
      const end = start + Number(head[1]);
      if (buffer.data.length < end + 2) return;
      parts.push(buffer.data.slice(start, end));
      at = end + 2;
    }
    buffer.data = buffer.data.slice(at);
    yield parts;
  }
}

/** A bulk string reply. */
export const bulk = (text: string): string => `$${Buffer.byteLength(text, 'latin1')}\r\n${text}\r\n`;
