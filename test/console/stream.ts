import { until } from '../support/assert.js';
import type { ConsoleClient } from './support.js';

export interface Received {
  id: string;
  event: string;
  data: Record<string, any>;
}

/** An open /console/api/events stream: parsed events and comments as they come. */
export async function openStream(baseUrl: string, c: ConsoleClient) {
  const abort = new AbortController();
  const res = await fetch(`${baseUrl}/console/api/events`, { headers: { cookie: c.cookie }, signal: abort.signal });
  const events: Received[] = [];
  let text = '';
  let ended = false;
  const reader = res.body!.getReader();
  const pump = (async () => {
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = text.indexOf('\n\n')) >= 0) {
          const block = text.slice(0, cut);
          text = text.slice(cut + 2);
          const field = (name: string) =>
            block
              .split('\n')
              .find((l) => l.startsWith(`${name}: `))
              ?.slice(name.length + 2);
          const data = field('data');
          if (data) events.push({ id: field('id')!, event: field('event')!, data: JSON.parse(data) });
        }
      }
    } catch {
      /* aborted */
    }
    ended = true;
  })();
  return {
    res,
    events,
    get ended() {
      return ended;
    },
    async waitFor(pred: (e: Received) => boolean, ms = 8000): Promise<Received> {
      const hit = await until(
        () => events.find(pred),
        (e) => e !== undefined,
        ms,
        { what: () => `no such event; got ${JSON.stringify(events.map((e) => e.event))}` },
      );
      return hit as Received;
    },
    close: async () => {
      abort.abort();
      await pump;
    },
  };
}
