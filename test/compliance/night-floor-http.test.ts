import { afterAll, expect, it } from 'vitest';
import { messages, openAiAgentEnv, until, type MessageView } from '../agent/helpers.js';
import { outboxFor } from '../support/events.js';
import { call, startFakeOpenAi, tools } from '../support/fake-openai.js';
import { createLead, describeEachDialect, type Client, type TestServer } from '../support/harness.js';
import { statusAfterStep } from '../support/messages.js';

/**
 * The night floor through the API, as a new user meets it: an organization
 * whose own hours are 00:00-23:59 (the getting-started page's "try it at
 * night") and a lead in Madrid. Every contact the organization starts waits
 * for 08:00 there; the lead's own message opens a short reply window.
 */

const fake = await startFakeOpenAi('sk-test-parley-night-floor-01');
afterAll(() => fake.close());

/** 2026-07-01 22:09 in Madrid (CEST, UTC+2), a Wednesday. */
const MADRID_22_09 = new Date('2026-07-01T20:09:00Z');
/** 23:00 in Madrid the same night. */
const MADRID_23_00 = new Date('2026-07-01T21:00:00Z');
/** 08:00 in Madrid the next morning: when the legal window opens. */
const MADRID_08_00 = new Date('2026-07-02T06:00:00Z');
const FLOOR = 'outside the legal window 08:00-21:00 Europe/Madrid';
const OPEN_HOURS = { contactHours: { start: '00:00', end: '23:59' } };
const MINUTE = 60_000;

let seq = 0;
/** A Spanish mobile (+34 6..), unique within the run: placed in Europe/Madrid by its number alone. */
function spanishMobile(): string {
  seq += 1;
  return `+346${String(process.pid % 1000).padStart(3, '0')}${String(seq + Math.floor(Math.random() * 10_000) * 100)
    .padStart(5, '0')
    .slice(-5)}`;
}

async function organization(ts: TestServer): Promise<Client> {
  const c = ts.acme;
  const res = await c.patch('/settings', OPEN_HOURS);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toMatchObject({
    contactHours: { start: '00:00', end: '23:59' },
    regionalRules: true,
    replyWindowMinutes: 15,
  });
  return c;
}

const byText = (ms: MessageView[], text: string) => ms.find((m) => m.content.text === text);
const heldUntilMorning = (m: MessageView | undefined) =>
  m?.status === 'scheduled' && (m as { statusCode?: string }).statusCode === 'CONTACT_HOURS';

describeEachDialect(
  "the night floor: 08:00-21:00 where the lead is, whatever the organization's hours",
  (ctx) => {
    it('holds the opening to a Madrid lead created at 22:09 until 08:00 there, and sends it then', async () => {
      const ts = ctx();
      ts.clock.set(MADRID_22_09);
      const c = await organization(ts);
      const profile = `madrid-welcome-${Math.random().toString(36).slice(2, 8)}`;
      expect((await c.post('/customerProfiles', { name: profile, openingMessage: 'Hola {{firstName}}' })).status).toBe(
        201,
      );
      // Placed by its number alone: no timeZone on the lead.
      const leadId = await createLead(c, { firstName: 'Lucía', phone: spanishMobile(), customerProfile: profile });
      // The worker judged it (its reason is recorded): held, with the reason and the time it will go.
      await ts.runDue();
      const [held] = await messages(c, leadId);
      expect(heldUntilMorning(held)).toBe(true);
      expect(held).toMatchObject({
        content: { text: 'Hola Lucía' },
        status: 'scheduled',
        statusCode: 'CONTACT_HOURS',
        statusReason: FLOOR,
        scheduledTime: MADRID_08_00.toISOString(),
      });
      expect(await outboxFor(ts, leadId, 'message.sent')).toHaveLength(0);
      ts.clock.set(MADRID_08_00);
      await statusAfterStep(ctx(), c, leadId, held!.id, (s) => s === 'sent');
      expect((await outboxFor(ts, leadId, 'message.sent')).map((e) => e.data.messageId)).toEqual([held!.id]);
    });

    it('holds sendMessage at night, with or without overrideBusinessHours, and says when it will go', async () => {
      const ts = ctx();
      ts.clock.set(MADRID_22_09);
      const c = await organization(ts);
      const leadId = await createLead(c, { phone: spanishMobile(), timeZone: 'Europe/Madrid' });
      for (const body of [
        { message: 'Good evening' },
        { message: 'Good evening, overridden', overrideBusinessHours: true },
      ]) {
        const res = await c.post(`/leads/${leadId}/sendMessage`, body);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({
          status: 'waiting',
          statusCode: 'CONTACT_HOURS',
          statusReason: FLOOR,
          scheduledTime: MADRID_08_00.toISOString(),
        });
      }
    });

    it("answers the lead's own message at 23:00 at once (the AI reply and a STOP confirmation), and holds a reply 20 minutes late", async () => {
      const ts = ctx();
      ts.clock.set(MADRID_23_00);
      const c = await organization(ts);
      const phone = spanishMobile();
      const leadId = await createLead(c, { phone, timeZone: 'Europe/Madrid' });
      fake.program(phone, tools(call('reply', { text: 'Claro, te cuento mañana los detalles.' })));
      const asked = await c.post('/inbound', { channel: 'sms', from: phone, text: '¿Seguís abiertos?' });
      expect(asked.body.action).toBe('conversation');
      await ts.runDue();
      const reply = await messages(c, leadId);
      expect(byText(reply, 'Claro, te cuento mañana los detalles.')).toMatchObject({
        isAiGenerated: true,
        status: 'sent',
        statusReason: null,
      });

      // A model that answers 20 minutes after the lead wrote: past the reply window, the reply waits for 08:00 like any contact.
      const late = spanishMobile();
      const lateId = await createLead(c, { phone: late, timeZone: 'Europe/Madrid' });
      fake.program(late, { kind: 'tools', calls: [call('reply', { text: 'Perdona la tardanza.' })], delayMs: 700 });
      await c.post('/inbound', { channel: 'sms', from: late, text: 'Hola?' });
      // A race on purpose: the worker's own loop (woken by the inbound) has the model's answer in flight when
      // the clock passes the floor, so this waits for the call to reach the model instead of stepping.
      await until(
        async () => fake.requestsFor(late).length,
        (n) => n > 0,
      );
      ts.clock.advance(20 * MINUTE);
      await ts.runDue(); // waits for the turn in flight, and the send it made
      const held = await messages(c, lateId);
      expect(heldUntilMorning(byText(held, 'Perdona la tardanza.'))).toBe(true);
      expect(byText(held, 'Perdona la tardanza.')).toMatchObject({
        statusReason: FLOOR,
        scheduledTime: MADRID_08_00.toISOString(),
      });
      expect(await outboxFor(ts, lateId, 'message.sent')).toHaveLength(0);

      // STOP at night: its confirmation is a reply too, and goes at once.
      ts.clock.set(MADRID_23_00);
      const stopper = spanishMobile();
      const stopperId = await createLead(c, { phone: stopper, timeZone: 'Europe/Madrid' });
      expect((await c.post('/inbound', { channel: 'sms', from: stopper, text: 'STOP' })).body.action).toBe('opted_out');
      await ts.runDue();
      const confirmation = await messages(c, stopperId);
      expect(confirmation.filter((m) => m.direction === 'outbound').map((m) => m.status)).toEqual(['sent']);
      expect(confirmation.find((m) => m.direction === 'outbound')!.content.text).toMatch(/^You have been unsubscribed/);
    });

    it('holds a follow-up step that falls due at night', async () => {
      const ts = ctx();
      ts.clock.set(new Date('2026-07-01T18:30:00Z')); // 20:30 in Madrid
      const c = await organization(ts);
      const phone = spanishMobile();
      const leadId = await createLead(c, { phone, timeZone: 'Europe/Madrid' });
      fake.program(phone, tools(call('reply', { text: '¿Te viene bien una llamada?' })));
      expect((await c.patch(`/leads/${leadId}`, { followUpConfig: { 1: { hours: 2, channel: 'text' } } })).status).toBe(
        200,
      );
      ts.clock.advance(2 * 60 * MINUTE + MINUTE); // 22:31 in Madrid: the step is due
      await ts.runDue();
      const held = await messages(c, leadId);
      expect(heldUntilMorning(byText(held, '¿Te viene bien una llamada?'))).toBe(true);
      expect(byText(held, '¿Te viene bien una llamada?')).toMatchObject({
        statusReason: FLOOR,
        scheduledTime: MADRID_08_00.toISOString(),
      });
    });
  },
  openAiAgentEnv(fake),
);
