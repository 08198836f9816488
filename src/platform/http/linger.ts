import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How much of a refused upload is still read, and for how long, before the connection is closed anyway. */
export const LINGER_BYTES = 16 * 1024 * 1024;
export const LINGER_MS = 5_000;

const lingering = new WeakSet<Socket>();

/**
 * A lingering close for an answer given before its request's body was read
 * (413, an import refused mid-upload). Node closes such a connection as soon
 * as the answer is written; the rest of the upload then arrives at a closed
 * socket, the kernel answers it with a reset, and a reset can overtake the
 * answer: the client sees ECONNRESET or EPIPE instead of the 413. Here the
 * close is a half-close (our FIN after the answer) followed by reading and
 * discarding what the client still sends, until it closes its side, or
 * LINGER_BYTES have come, or LINGER_MS have passed: bounded, so a client
 * cannot hold the connection by sending forever.
 */
export function lingerOnClose(request: IncomingMessage): void {
  const socket = request.socket;
  if (!socket || lingering.has(socket)) return;
  lingering.add(socket);
  // Node's HTTP server calls destroySoon once the last answer on a closing connection is written.
  socket.destroySoon = function lingeringDestroySoon(this: Socket) {
    const start = this.bytesRead;
    const deadline = Date.now() + LINGER_MS;
    // Polled, as the HTTP parser reads the socket natively (no 'data' events); often, since loopback brings
    // tens of MB in 50 ms and the bound must hold there too.
    const timer = setInterval(() => {
      if (this.destroyed || this.bytesRead - start > LINGER_BYTES || Date.now() > deadline) close();
    }, 5);
    timer.unref();
    const close = () => {
      clearInterval(timer);
      this.destroy();
    };
    this.once('end', close);
    this.once('close', () => clearInterval(timer));
    this.end();
    this.resume();
  };
}
