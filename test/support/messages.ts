import type { Client } from './harness.js';

/** Polls a lead's history until the message reaches a wanted status; fails with where it stayed. */
export async function waitForStatus(
  client: Client,
  leadId: string,
  messageId: string,
  wanted: (s: string) => boolean,
  ms = 10_000,
) {
  const end = Date.now() + ms;
  for (;;) {
    const msg = (await client.get(`/leads/${leadId}/messages`)).body.messages.find(
      (m: { id: string }) => m.id === messageId,
    );
    if (msg && wanted(msg.status)) return msg;
    if (Date.now() > end) throw new Error(`message ${messageId} stayed ${msg?.status} (${msg?.statusReason})`);
    await new Promise((r) => setTimeout(r, 30));
  }
}
