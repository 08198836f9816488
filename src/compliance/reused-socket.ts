import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

/**
 * Tells whether a request that failed went out on a reused keep-alive
 * connection and got not one byte back: the race where the server closes an
 * idle connection just as the next request is written on it. Such a request
 * can be sent again on a new connection; one whose answer had started, or
 * that went out on a fresh connection, cannot.
 *
 * undici does not say which connection carried a request, so this listens to
 * its diagnostics channel for the request headers as they are written: the
 * connection, how many requests it carried before, and how many bytes it had
 * read then. A request is found by a header value unique to it (its
 * `webhook-id`).
 */
interface Sent {
  socket: Socket;
  reused: boolean;
  bytesReadBefore: number;
}

const carried = new WeakMap<Socket, number>();
const watched = new Map<string, Sent | null>();
const ID_HEADER = /\r\nwebhook-id: ([^\r\n]+)/i;

subscribe('undici:client:sendHeaders', (message) => {
  const { headers, socket } = message as { headers: string; socket: Socket };
  const before = carried.get(socket) ?? 0;
  carried.set(socket, before + 1);
  if (watched.size === 0) return;
  const id = ID_HEADER.exec(headers)?.[1];
  if (id !== undefined && watched.has(id))
    watched.set(id, { socket, reused: before > 0, bytesReadBefore: socket.bytesRead });
});

/** The connection was lost (reset, closed, broken pipe) rather than refused or timed out. */
const CONNECTION_LOST = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * Runs `send` with the request id `id` watched; answers its result, or
 * `{ retry: true }` when it failed on a reused connection before any byte of
 * an answer, which is safe to send once more. Any other failure is thrown.
 */
export async function unlessResetOnReuse<T>(
  id: string,
  send: () => Promise<T>,
): Promise<{ retry: false; value: T } | { retry: true }> {
  watched.set(id, null);
  try {
    return { retry: false, value: await send() };
  } catch (err) {
    const sent = watched.get(id);
    const code = (err as { code?: unknown } | null)?.code;
    if (
      sent &&
      sent.reused &&
      sent.socket.bytesRead === sent.bytesReadBefore &&
      typeof code === 'string' &&
      CONNECTION_LOST.has(code)
    )
      return { retry: true };
    throw err;
  } finally {
    watched.delete(id);
  }
}
