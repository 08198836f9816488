import { afterAll, beforeAll, expect, it } from 'vitest';
import { until } from '../support/assert.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { connectRelay } from '../support/fake-relay.js';
import { createLead, describeEachDialect, uniquePhone, type Client } from '../support/harness.js';
import { consoleClient } from '../console/support.js';
import { openStream } from '../console/stream.js';
import { Receiver } from '../support/receiver.js';
import { registerEndpoint } from '../support/webhooks.js';
import { ALWAYS_OPEN, placeCall, sendingNumber, TOKEN, twilioEnv } from './support.js';

const fake = await startFakeTwilio('ACtest', TOKEN);
afterAll(() => fake.close());
const receiver = await new Receiver().start();
afterAll(() => receiver.stop());

describeEachDialect(
  "The console's live transcript of a call (call.utterance)",
  (ctx) => {
    let acme: Client;
    startEachTestInDaytime(ctx);
    beforeAll(async () => {
      acme = ctx().acme;
      expect((await acme.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: sendingNumber() })).status).toBe(200);
      expect(
        (await acme.post('/customerProfiles', { name: 'talkers', questions: ['What is your budget?'] })).status,
      ).toBe(201);
      expect(
        (await acme.call('PUT', '/customerProfiles/talkers/voice', { welcomeGreeting: 'Hi {{firstName}}!' })).status,
      ).toBe(200);
    });

    it('streams each utterance as it is stored, in order, and a shortened one again after an interruption', async () => {
      const ts = ctx();
      const agent = await consoleClient(ts, 'agent');
      const stream = await openStream(ts.url, agent);
      const id = await createLead(acme, { phone: uniquePhone(), firstName: 'Dee', customerProfile: 'talkers' });
      const call = await placeCall(acme, fake, id);
      const relay = await connectRelay(ts.url, call.relayUrl, TOKEN);
      relay.setup(call.sid);
      await relay.say('Hello there');
      const utterances = () => stream.events.filter((e) => e.event === 'call.utterance' && e.data.leadId === id);
      await until(utterances, (u) => u.length >= 3);
      expect(utterances().map((e) => [e.data.direction, e.data.text])).toEqual([
        ['outbound', 'Hi Dee!'],
        ['inbound', 'Hello there'],
        ['outbound', 'What is your budget?'],
      ]);
      expect(utterances()[0]!.data).toMatchObject({ type: 'call.utterance', callId: call.id, at: expect.any(String) });
      // What the lead heard of the last answer: the same message, shortened.
      const last = utterances()[2]!.data.messageId as string;
      relay.send({ type: 'interrupt', utteranceUntilInterrupt: 'What is', durationUntilInterruptMs: 500 });
      const shortened = await until(utterances, (u) => u.length >= 4);
      expect(shortened[3]!.data).toMatchObject({ messageId: last, direction: 'outbound', text: 'What is' });
      relay.close();
      await stream.close();
    });

    it('is for the console only: not a webhook event, and no endpoint gets it', async () => {
      const refused = await acme.post('/webhooks', { url: receiver.url, events: ['call.utterance'] });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/events/);
      const all = await registerEndpoint(acme, receiver);
      const id = await createLead(acme, { phone: uniquePhone(), customerProfile: 'talkers' });
      const call = await placeCall(acme, fake, id);
      const relay = await connectRelay(ctx().url, call.relayUrl, TOKEN);
      relay.setup(call.sid);
      await relay.say('Hi');
      const db = ctx().server.store.db;
      // The lead's words were fanned out to the endpoint (message.received); the utterance beside them was not.
      const types = await until(
        async () =>
          (
            await db
              .selectFrom('webhook_deliveries')
              .innerJoin('events', (j) =>
                j
                  .onRef('events.organization_id', '=', 'webhook_deliveries.organization_id')
                  .onRef('events.id', '=', 'webhook_deliveries.event_id'),
              )
              .select('webhook_deliveries.event_type')
              .where('webhook_deliveries.endpoint_id', '=', all.id)
              .where('events.payload', 'like', `%${id}%`)
              .execute()
          ).map((r) => r.event_type),
        (t) => t.includes('message.received'),
      );
      expect(types).not.toContain('call.utterance');
      const stored = await db.selectFrom('events').select('type').where('payload', 'like', `%${id}%`).execute();
      expect(stored.map((r) => r.type)).toContain('call.utterance');
      relay.close();
      expect((await acme.call('DELETE', `/webhooks/${all.id}`)).status).toBe(200);
    });
  },
  { ...twilioEnv(fake), PARLEY_CONSOLE_EVENTS_POLL_MS: '100', PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS: 'true' },
);
