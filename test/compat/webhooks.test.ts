import { createHmac } from 'node:crypto';
import { Type, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { afterAll, describe, expect, it } from 'vitest';
import { issueUnsubscribeToken, unsubscribeKey } from '../../src/channels/unsubscribe-token.js';
import { call, startFakeOpenAi, tools } from '../support/fake-openai.js';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { createLead, describeEachDialect, uniquePhone, type Client, type TestServer } from '../support/harness.js';
import { Receiver, type Received } from '../support/receiver.js';
import { FAST_WEBHOOKS, freshOrg, registerEndpoint } from '../support/webhooks.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';

/**
 * Every webhook Parley emits, as a receiver gets it over real HTTP, checked
 * against the hosted service's reference page that documents it
 * (docs.apten.ai/webhooks/...): the envelope, every documented field with its
 * documented type and enum, the documented field order, and only Parley's
 * known additions besides. Each `describe` names the page it reproduces.
 */

const SID = 'ACcompat';
const TOKEN = 'compat-secret';
const PUBLIC = 'https://parley.example.com';
const twilio = await startFakeTwilio(SID, TOKEN);
const openai = await startFakeOpenAi('sk-test-compat-0123456789');
afterAll(async () => {
  await twilio.close();
  await openai.close();
});

const ENV = {
  ...FAST_WEBHOOKS,
  TWILIO_ACCOUNT_SID: SID,
  TWILIO_AUTH_TOKEN: TOKEN,
  TWILIO_API_BASE_URL: twilio.url,
  PARLEY_PUBLIC_URL: PUBLIC,
  PARLEY_JOB_RETRY_SCHEDULE: '50ms,50ms',
  PARLEY_AI_PROVIDER: 'openai',
  OPENAI_BASE_URL: openai.url,
  OPENAI_API_KEY: openai.key,
  PARLEY_AI_MODEL: 'fake-model-1',
  PARLEY_AI_TIMEOUT_MS: '1500',
};
const ALWAYS_OPEN = { contactHours: { start: '00:00', end: '00:00' } };

const S = Type.String();
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const OneOf = (...values: string[]) => Type.Union(values.map((v) => Type.Literal(v)));

/** A documented payload: its `data` properties in the reference's order, with their documented types. */
interface Documented {
  event: string;
  data: Record<string, TSchema>;
  /** Parley's own fields, sent after the documented ones. */
  additions: string[];
}

const OPT_OUT: Documented = {
  event: 'optOut',
  data: {
    leadId: S,
    externalLeadId: S,
    phone: S,
    channel: OneOf('sms', 'email', 'call'),
    optOutReason: Nullable(OneOf('MANUAL', 'COMPLAINT', 'BOUNCE', 'UNSUBSCRIBE_LINK')),
    isTwilioOptOut: Nullable(Type.Boolean()),
    optOutMessage: Nullable(S),
    isDoNotContact: Type.Boolean(),
  },
  additions: ['email', 'source'],
};

const DO_NOT_CONTACT: Documented = {
  event: 'doNotContact',
  data: { leadId: S, externalLeadId: S, phone: S, email: Nullable(S), optOutMessage: Nullable(S) },
  additions: ['source'],
};

const Content = Type.Object({ subject: Type.Optional(S), text: S }, { additionalProperties: false });

const MESSAGE_SENT: Documented = {
  event: 'message.sent',
  data: {
    leadId: S,
    externalLeadId: S,
    phone: S,
    channel: OneOf('sms', 'email'),
    profile: S,
    isFollowUp: Type.Boolean(),
    followUpStep: Nullable(Type.Number()),
    content: Content,
  },
  additions: ['messageId', 'email', 'text', 'isAiGenerated', 'campaignId'],
};

const MESSAGE_RECEIVED: Documented = {
  event: 'message.received',
  data: { leadId: S, phone: S, channel: OneOf('sms', 'email'), profile: S, content: Content },
  additions: ['externalLeadId', 'messageId', 'email', 'from', 'text'],
};

const LEAD_TAGGED: Documented = {
  event: 'leadTagged',
  data: { leadId: S, externalLeadId: S, phone: S, channel: OneOf('sms', 'email', 'call', 'manual'), tag: S },
  additions: ['tagId', 'condition'],
};

const NOTIFICATION: Documented = {
  event: 'notification',
  data: { leadId: S, phone: S, channel: OneOf('email', 'sms', 'call'), notificationName: S, notificationMessage: S },
  additions: ['externalLeadId'],
};

/** The envelope of docs.apten.ai/webhooks/overview, and `data` in the documented shape. */
function expectDocumented(d: Received, doc: Documented): Record<string, any> {
  expect(Object.keys(d.json)).toEqual(['event', 'timestamp', 'data']);
  expect(d.json.event).toBe(doc.event);
  expect(d.json.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  const data = d.json.data;
  const documented = Object.keys(doc.data);
  for (const [name, schema] of Object.entries(doc.data)) {
    expect(name in data, `${doc.event}: data.${name} is documented and missing`).toBe(true);
    expect(
      Value.Check(schema, data[name]),
      `${doc.event}: data.${name} = ${JSON.stringify(data[name])} is not of the documented type`,
    ).toBe(true);
  }
  // Documented fields first, in the reference's order; then only Parley's known additions.
  expect(Object.keys(data).slice(0, documented.length)).toEqual(documented);
  expect(
    Object.keys(data)
      .slice(documented.length)
      .every((k) => doc.additions.includes(k)),
    `unexpected fields: ${Object.keys(data).join(', ')}`,
  ).toBe(true);
  return data;
}

function twilioSign(url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, name) => acc + name + params[name], url);
  return createHmac('sha1', TOKEN).update(Buffer.from(data, 'utf-8')).digest('base64');
}

/** An SMS from the lead, through Twilio's signed webhook. */
async function twilioSms(ts: TestServer, from: string, to: string, body: string): Promise<void> {
  const path = '/v1/providers/twilio/sms';
  const params = {
    AccountSid: SID,
    MessageSid: `SM${Math.random().toString(16).slice(2).padEnd(32, '0')}`,
    From: from,
    To: to,
    Body: body,
  };
  const res = await ts.raw(path, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': twilioSign(PUBLIC + path, params),
    },
    body: new URLSearchParams(params).toString(),
  });
  expect(res.status).toBe(200);
}

let numbers = 0;
let externals = 0;

describeEachDialect(
  'webhook payloads in the documented shapes',
  (ctx) => {
    startEachTestInDaytime(ctx);
    const receivers: Receiver[] = [];
    afterAll(async () => {
      await Promise.all(receivers.map((r) => r.stop()));
    });

    /** A new organization (its own sending number, contact hours always open) and a receiver registered for `events`. */
    async function setUp(events?: string[]) {
      const ts = ctx();
      const client = await freshOrg(ts, 'compat');
      numbers += 1;
      // One database per dialect: the number only has to be unique within this server.
      const number = `+1628556${String(1000 + numbers).padStart(4, '0')}`;
      expect((await client.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: number })).status).toBe(200);
      const receiver = await new Receiver().start();
      receivers.push(receiver);
      await registerEndpoint(client, receiver, events);
      return { ts, client, receiver, number };
    }

    async function newLead(client: Client, fields: Record<string, unknown> = {}) {
      externals += 1;
      const phone = uniquePhone();
      const externalLeadId = `003XX${String(externals).padStart(10, '0')}`;
      const id = await createLead(client, { phone, externalLeadId, ...fields });
      return { id, phone, externalLeadId };
    }

    const ofType = (r: Receiver, event: string, leadId?: string) =>
      r.acknowledged.filter((d) => d.json.event === event && (leadId === undefined || d.json.data.leadId === leadId));

    async function waitFor(r: Receiver, event: string, leadId: string | undefined, count = 1): Promise<Received[]> {
      await r.until(() => ofType(r, event, leadId).length >= count, 10_000);
      return ofType(r, event, leadId);
    }

    describe('docs.apten.ai/webhooks/opt-out', () => {
      it('an SMS STOP through Twilio: channel sms, optOutReason null, isTwilioOptOut true, optOutMessage the text (the SMS example)', async () => {
        const { ts, client, receiver, number } = await setUp(['optOut']);
        const lead = await newLead(client);
        await twilioSms(ts, lead.phone, number, 'STOP');
        const [d] = await waitFor(receiver, 'optOut', lead.id);
        const data = expectDocumented(d!, OPT_OUT);
        expect(data).toMatchObject({
          leadId: lead.id,
          externalLeadId: lead.externalLeadId,
          phone: lead.phone,
          channel: 'sms',
          optOutReason: null,
          isTwilioOptOut: true,
          optOutMessage: 'STOP',
          isDoNotContact: false,
        });
      });

      it('an API opt-out of voice is channel call, null reason, isTwilioOptOut false, no optOutMessage', async () => {
        const { client, receiver } = await setUp(['optOut']);
        const lead = await newLead(client);
        expect((await client.post(`/leads/${lead.id}/unsubscribe`, { channels: ['voice'] })).status).toBe(200);
        const [d] = await waitFor(receiver, 'optOut', lead.id);
        expect(expectDocumented(d!, OPT_OUT)).toMatchObject({
          channel: 'call',
          optOutReason: null,
          isTwilioOptOut: false,
          optOutMessage: null,
          isDoNotContact: false,
          source: 'api',
        });
      });

      it('email opt-outs carry their reason: UNSUBSCRIBE_LINK, BOUNCE, COMPLAINT, and MANUAL with the reply text; isTwilioOptOut null (the email example)', async () => {
        const { ts, client, receiver } = await setUp(['optOut']);
        const byLink = await newLead(client, { email: `link-${numbers}-${ts.dialect}@example.com` });
        const bounced = await newLead(client, { email: `bounce-${numbers}-${ts.dialect}@example.com` });
        const complained = await newLead(client, { email: `spam-${numbers}-${ts.dialect}@example.com` });
        const replied = await newLead(client, { email: `reply-${numbers}-${ts.dialect}@example.com` });

        const organizationId = (
          await ts.server.store.db
            .selectFrom('leads')
            .select('organization_id')
            .where('id', '=', byLink.id)
            .executeTakeFirstOrThrow()
        ).organization_id;
        const token = issueUnsubscribeToken(await unsubscribeKey({ config: ts.config, db: ts.server.store.db }), {
          organizationId,
          leadId: byLink.id,
          channel: 'email',
          issuedAt: new Date(),
        });
        expect((await ts.raw(`/v1/unsubscribe/${token}`, { method: 'POST' })).status).toBe(200);
        expect(
          (
            await client.post('/inbound/emailEvents', {
              event: 'bounce',
              email: `bounce-${numbers}-${ts.dialect}@example.com`,
            })
          ).status,
        ).toBe(200);
        expect(
          (
            await client.post('/inbound/emailEvents', {
              event: 'complaint',
              email: `spam-${numbers}-${ts.dialect}@example.com`,
            })
          ).status,
        ).toBe(200);
        const text = 'Please unsubscribe me from all future emails.';
        expect(
          (
            await client.post('/inbound', {
              channel: 'email',
              from: `reply-${numbers}-${ts.dialect}@example.com`,
              subject: 'Re: hello',
              text,
            })
          ).status,
        ).toBe(200);

        const expected = [
          [byLink, 'UNSUBSCRIBE_LINK', null],
          [bounced, 'BOUNCE', null],
          [complained, 'COMPLAINT', null],
          [replied, 'MANUAL', text],
        ] as const;
        for (const [lead, reason, message] of expected) {
          // (How many channels a reply reaches is the recogniser's call: the email one is checked here.)
          await receiver.until(
            () => ofType(receiver, 'optOut', lead.id).some((d) => d.json.data.channel === 'email'),
            10_000,
          );
          const d = ofType(receiver, 'optOut', lead.id).find((x) => x.json.data.channel === 'email');
          expect(expectDocumented(d!, OPT_OUT)).toMatchObject({
            leadId: lead.id,
            externalLeadId: lead.externalLeadId,
            phone: lead.phone,
            channel: 'email',
            optOutReason: reason,
            isTwilioOptOut: null,
            optOutMessage: message,
            isDoNotContact: false,
          });
        }
      });
    });

    describe('docs.apten.ai/webhooks/do-not-contact', () => {
      it('"never contact me" fires doNotContact first, then an optOut per channel with isDoNotContact true', async () => {
        const { client, receiver } = await setUp(['doNotContact', 'optOut']);
        const lead = await newLead(client);
        const text = 'Never text me again';
        expect((await client.post('/inbound', { channel: 'sms', from: lead.phone, text })).body.action).toBe(
          'do_not_contact',
        );
        await waitFor(receiver, 'optOut', lead.id, 2);
        // Deliveries run concurrently; the event ids (time-ordered, the webhook-id header) give the order they were fired in.
        const [first, ...rest] = receiver.acknowledged
          .filter((d) => d.json.data.leadId === lead.id)
          .sort((a, b) => (a.id < b.id ? -1 : 1));
        expect(first!.json.event).toBe('doNotContact');
        expect(expectDocumented(first!, DO_NOT_CONTACT)).toEqual({
          leadId: lead.id,
          externalLeadId: lead.externalLeadId,
          phone: lead.phone,
          email: null,
          optOutMessage: text,
          source: 'message',
        });
        expect(rest.map((d) => d.json.event)).toEqual(['optOut', 'optOut']);
        for (const d of rest)
          expect(expectDocumented(d, OPT_OUT)).toMatchObject({
            isDoNotContact: true,
            optOutMessage: text,
            optOutReason: null,
          });
        expect(rest.map((d) => d.json.data.channel).sort()).toEqual(['call', 'sms']);
      });
    });

    describe('docs.apten.ai/webhooks/message-sent', () => {
      it('sms: content.text only; email: content.subject and content.text; profile, isFollowUp false, followUpStep null', async () => {
        const { ts, client, receiver } = await setUp(['message.sent']);
        const lead = await newLead(client, { email: `sent-${numbers}-${ts.dialect}@example.com` });
        expect(
          (await client.post(`/leads/${lead.id}/sendMessage`, { message: 'Hi there! Just checking in.' })).status,
        ).toBe(200);
        expect(
          (await client.post(`/leads/${lead.id}/sendMessage`, { message: 'Here is the quote.', channel: 'email' }))
            .status,
        ).toBe(200);
        const sent = await waitFor(receiver, 'message.sent', lead.id, 2);
        const sms = expectDocumented(sent.find((d) => d.json.data.channel === 'sms')!, MESSAGE_SENT);
        expect(sms).toMatchObject({
          leadId: lead.id,
          externalLeadId: lead.externalLeadId,
          phone: lead.phone,
          profile: 'default',
          isFollowUp: false,
          followUpStep: null,
          content: { text: 'Hi there! Just checking in.' },
        });
        expect(Object.keys(sms.content)).toEqual(['text']);
        const email = expectDocumented(sent.find((d) => d.json.data.channel === 'email')!, MESSAGE_SENT);
        expect(email.content).toEqual({ subject: expect.stringMatching(/^Message from /), text: 'Here is the quote.' });
        expect(Object.keys(email.content)).toEqual(['subject', 'text']);
      });
    });

    describe('docs.apten.ai/webhooks/message-received', () => {
      it("sms: content.text; email: content.subject and content.text; with the lead's profile", async () => {
        const { ts, client, receiver } = await setUp(['message.received']);
        const address = `recv-${numbers}-${ts.dialect}@example.com`;
        const lead = await newLead(client, { email: address });
        expect(
          (await client.post('/inbound', { channel: 'sms', from: lead.phone, text: 'hello, are you available?' }))
            .status,
        ).toBe(200);
        expect(
          (
            await client.post('/inbound', {
              channel: 'email',
              from: address,
              subject: 'Re: Information about your services',
              text: 'Tell me more.',
            })
          ).status,
        ).toBe(200);
        const got = await waitFor(receiver, 'message.received', lead.id, 2);
        const sms = expectDocumented(got.find((d) => d.json.data.channel === 'sms')!, MESSAGE_RECEIVED);
        expect(sms).toMatchObject({
          leadId: lead.id,
          phone: lead.phone,
          profile: 'default',
          content: { text: 'hello, are you available?' },
          externalLeadId: lead.externalLeadId,
        });
        expect(Object.keys(sms.content)).toEqual(['text']);
        const email = expectDocumented(got.find((d) => d.json.data.channel === 'email')!, MESSAGE_RECEIVED);
        expect(email.content).toEqual({ subject: 'Re: Information about your services', text: 'Tell me more.' });
      });
    });

    describe('docs.apten.ai/webhooks/lead-tagged', () => {
      it("tag is a string: hasReplied on the first reply, isHot and isQualified when the agent marks them, and the agent's own tags, each once", async () => {
        const { client, receiver } = await setUp(['leadTagged']);
        // The organization knows "solar" already (another lead's): the event must name that tag's id.
        const earlier = await newLead(client);
        openai.program(earlier.phone, tools(call('tagLead', { name: 'solar', condition: 'asked about panels' })));
        expect((await client.post('/inbound', { channel: 'sms', from: earlier.phone, text: 'Panels?' })).status).toBe(
          200,
        );
        await waitFor(receiver, 'leadTagged', earlier.id, 2);
        const lead = await newLead(client);
        openai.program(
          lead.phone,
          tools(
            call('markHot'),
            call('markQualified'),
            call('tagLead', { name: 'solar', condition: 'asked about panels' }),
          ),
          tools(call('markHot')),
        );
        expect(
          (await client.post('/inbound', { channel: 'sms', from: lead.phone, text: 'Tell me about panels' })).status,
        ).toBe(200);
        await waitFor(receiver, 'leadTagged', lead.id, 4);
        expect(
          (await client.post('/inbound', { channel: 'sms', from: lead.phone, text: 'and batteries?' })).status,
        ).toBe(200);
        await ctx().runDue();
        expect(openai.requestsFor(lead.phone)).toHaveLength(2);
        const tagged = ofType(receiver, 'leadTagged', lead.id).sort((a, b) => (a.id < b.id ? -1 : 1));
        expect(tagged.map((d) => d.json.data.tag)).toEqual(['hasReplied', 'isHot', 'isQualified', 'solar']);
        for (const d of tagged) {
          expect(expectDocumented(d, LEAD_TAGGED)).toMatchObject({
            leadId: lead.id,
            externalLeadId: lead.externalLeadId,
            phone: lead.phone,
            channel: 'sms',
          });
        }
        const shown = (await client.get(`/leads/${lead.id}`)).body.tags as { id: string; name: string }[];
        const solarId = shown.find((t) => t.name === 'solar')!.id;
        expect(tagged[3]!.json.data).toMatchObject({ tag: 'solar', tagId: solarId, condition: 'asked about panels' });
        expect(
          ofType(receiver, 'leadTagged', earlier.id).find((d) => d.json.data.tag === 'solar')!.json.data.tagId,
        ).toBe(solarId);
      });
    });

    describe('docs.apten.ai/webhooks/notification-created', () => {
      it('the agent handing the conversation to a human is a notification with its reason', async () => {
        const { client, receiver } = await setUp(['notification']);
        const lead = await newLead(client);
        openai.program(
          lead.phone,
          tools(
            call('reply', { text: 'A colleague will call you shortly.' }),
            call('handOff', { reason: 'The lead asks to speak with a person.' }),
          ),
        );
        expect(
          (await client.post('/inbound', { channel: 'sms', from: lead.phone, text: 'Can I talk to a person?' })).status,
        ).toBe(200);
        const [d] = await waitFor(receiver, 'notification', lead.id);
        expect(expectDocumented(d!, NOTIFICATION)).toEqual({
          leadId: lead.id,
          phone: lead.phone,
          channel: 'sms',
          notificationName: 'Human handoff',
          notificationMessage: 'The lead asks to speak with a person.',
          externalLeadId: lead.externalLeadId,
        });
      });
    });
  },
  ENV,
);
