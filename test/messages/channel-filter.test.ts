import { expect, it } from 'vitest';
import { ALWAYS_OPEN } from '../agent/helpers.js';
import { createLead, describeEachDialect } from '../support/harness.js';

describeEachDialect(
  'GET /leads/{id}/messages?channel= (call is voice)',
  (ctx) => {
    it('lists one channel, pages it with nextToken, and reads call as voice', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      const leadId = await createLead(ts.acme, { email: `cf-${Date.now()}@example.com` });
      const sent: { sms: string[]; voice: string[]; email: string[] } = { sms: [], voice: [], email: [] };
      for (const [i, channel] of ['sms', 'call', 'email', 'voice', 'sms', 'call'].entries()) {
        const res = await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: `m${i}`, channel });
        expect(res.status).toBe(200);
        sent[res.body.channel as keyof typeof sent].push(res.body.id);
      }
      const voice = await ts.acme.get(`/leads/${leadId}/messages?channel=call`);
      expect(voice.status).toBe(200);
      expect(voice.body.messages.map((m: { id: string }) => m.id)).toEqual(sent.voice);
      expect(voice.body.messages.every((m: { channel: string }) => m.channel === 'voice')).toBe(true);
      expect((await ts.acme.get(`/leads/${leadId}/messages?channel=voice`)).body.messages).toHaveLength(3);
      const first = await ts.acme.get(`/leads/${leadId}/messages?channel=sms&limit=1`);
      expect(first.body.messages.map((m: { id: string }) => m.id)).toEqual([sent.sms[0]]);
      const second = await ts.acme.get(
        `/leads/${leadId}/messages?channel=sms&limit=1&nextToken=${first.body.nextToken}`,
      );
      expect(second.body).toMatchObject({ messages: [{ id: sent.sms[1] }], nextToken: null });
      expect((await ts.acme.get(`/leads/${leadId}/messages`)).body.messages).toHaveLength(6);
      const bad = await ts.acme.get(`/leads/${leadId}/messages?channel=fax`);
      expect(bad.status).toBe(400);
      expect(bad.body.message).toMatch(/channel/);
    });
  },
  { PARLEY_WORKER_POLL_MS: '20' },
);
