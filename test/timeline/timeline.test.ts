import { expect, it } from 'vitest';
import { insertMessage } from '../../src/messages/messages.repository.js';
import { newId } from '../../src/platform/ids.js';
import { ALWAYS_OPEN, FAST_AGENT_ENV, inbound, say } from '../agent/helpers.js';
import { createLead, describeEachDialect, uniquePhone, type Client, type TestServer } from '../support/harness.js';
import { messageOf } from '../support/assert.js';
import { statusAfterStep } from '../support/messages.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';

const EPOCH = '2000-01-01T00:00:00Z';

interface LeadEvent {
  id: string;
  roomId: string;
  orgId: string;
  type: string;
  timestamp: string;
  updatedAt: string;
  data: any;
}

async function events(
  c: Client,
  leadId: string,
  query = `since=${EPOCH}`,
): Promise<{ events: LeadEvent[]; nextToken: string | null }> {
  const res = await c.get(`/leads/${leadId}/events?${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Every event from `since` on, page by page. */
async function allPages(c: Client, leadId: string, query: string): Promise<{ all: LeadEvent[]; pages: number }> {
  const all: LeadEvent[] = [];
  let token: string | null = null;
  let pages = 0;
  do {
    const page = await events(c, leadId, token ? `${query}&nextToken=${encodeURIComponent(token)}` : query);
    all.push(...page.events);
    token = page.nextToken;
    pages += 1;
    expect(pages).toBeLessThan(100);
  } while (token !== null);
  return { all, pages };
}

async function orgIdOf(ts: TestServer, leadId: string): Promise<string> {
  return (
    await ts.server.store.db
      .selectFrom('leads')
      .select('organization_id')
      .where('id', '=', leadId)
      .executeTakeFirstOrThrow()
  ).organization_id;
}

describeEachDialect(
  'GET /leads/{leadId}/events (the lead timeline)',
  (ctx) => {
    startEachTestInDaytime(ctx);
    it("lists messages, emails, calls, the agent's turns, context notes and blocked sends, oldest change first", async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      await ts.acme.post('/customerProfiles', { name: 'quiz', questions: ['What is your budget?'] });
      const phone = uniquePhone();
      const leadId = await createLead(ts.acme, {
        phone,
        email: `tl-${Date.now()}@example.com`,
        customerProfile: 'quiz',
      });
      const orgId = await orgIdOf(ts, leadId);

      const { messageId: inboundId } = await say(ts.acme, leadId, phone, 'Hi, I am interested');
      const sms = (await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'Text from a person' })).body;
      const email = (await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'An email', channel: 'email' }))
        .body;
      const call = (await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'A call', channel: 'call' })).body;
      expect(call.channel).toBe('voice');
      await ts.acme.post(`/leads/${leadId}/addContext`, {
        context: 'Met at the fair',
        command: 'send message: see you soon',
      });
      for (const m of [sms, email, call]) await statusAfterStep(ts, ts.acme, leadId, m.id, (s) => s === 'sent');
      // A send the gate stops: the phone goes on the DNC list, then a message is asked for.
      expect((await ts.acme.post('/dnc/register', { phone })).status).toBe(200);
      const blocked = (await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'Not allowed' })).body;
      expect(blocked.status).toBe('blocked');

      const { events: list, nextToken } = await events(ts.acme, leadId);
      expect(nextToken).toBeNull();
      const sorted = [...list].sort((a, b) =>
        a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : a.id < b.id ? -1 : 1,
      );
      expect(list.map((e) => e.id)).toEqual(sorted.map((e) => e.id));
      for (const e of list) expect(e).toMatchObject({ roomId: leadId, orgId });

      const byId = new Map(list.map((e) => [e.id, e]));
      // The reference's MESSAGE example, field for field (Parley adds status and the like).
      expect(byId.get(inboundId)).toMatchObject({
        type: 'MESSAGE',
        data: {
          direction: 'INBOUND',
          content: { text: 'Hi, I am interested' },
          isAiGenerated: false,
          deliveryChannel: 'SMS',
        },
      });
      expect(byId.get(sms.id)).toMatchObject({
        type: 'MESSAGE',
        data: {
          direction: 'OUTBOUND',
          content: { text: 'Text from a person' },
          isAiGenerated: false,
          deliveryChannel: 'SMS',
          status: 'sent',
        },
      });
      expect(byId.get(email.id)).toMatchObject({
        type: 'EMAIL',
        data: { direction: 'OUTBOUND', deliveryChannel: 'EMAIL', content: { text: 'An email' } },
      });
      expect(byId.get(call.id)).toMatchObject({
        type: 'CALL',
        data: { direction: 'OUTBOUND', deliveryChannel: 'CALL', durationSeconds: null },
      });
      // A blocked send is COMPLIANCE_BLOCKED (with the reason), not a MESSAGE.
      expect(byId.get(blocked.id)).toMatchObject({
        type: 'COMPLIANCE_BLOCKED',
        data: {
          channel: 'sms',
          reason: 'DNC',
          source: 'http',
          triggeredBy: 'user',
          messageId: blocked.id,
          reasonText: 'phone is on the Do Not Contact list',
        },
      });
      // The agent's turn ("interested" marks the lead hot; it asks the profile's question) and its reply.
      const turn = list.find((e) => e.type === 'TOOL_CALL');
      expect(turn).toMatchObject({
        data: {
          kind: 'turn',
          status: 'done',
          tools: ['markHot', 'tagLead', 'reply'],
          triggerMessageId: inboundId,
          error: null,
        },
      });
      expect(
        list.some(
          (e) => e.type === 'MESSAGE' && e.data.isAiGenerated && e.data.content.text === 'What is your budget?',
        ),
      ).toBe(true);
      // addContext: a context note and a command.
      expect(list.filter((e) => e.type === 'CUSTOM').map((e) => [e.data.name, e.data.text])).toEqual([
        ['context', 'Met at the fair'],
        ['command', 'send message: see you soon'],
      ]);
    });

    it('types filters (MESSAGE,CALL as in the reference), and since keeps what changed at or after it', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      const leadId = await createLead(ts.acme, { email: `tf-${Date.now()}@example.com` });
      const first = (await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'one' })).body;
      await statusAfterStep(ts, ts.acme, leadId, first.id, (s) => s === 'sent');
      const call = (await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'ring', channel: 'voice' })).body;
      const mail = (await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'mail', channel: 'email' })).body;
      await ts.acme.post(`/leads/${leadId}/addContext`, { context: 'note' });
      await statusAfterStep(ts, ts.acme, leadId, mail.id, (s) => s === 'sent');
      await statusAfterStep(ts, ts.acme, leadId, call.id, (s) => s === 'sent');

      const onlyCalls = await events(ts.acme, leadId, `since=${EPOCH}&types=MESSAGE,CALL`);
      expect(new Set(onlyCalls.events.map((e) => e.type))).toEqual(new Set(['MESSAGE', 'CALL']));
      expect(onlyCalls.events.map((e) => e.id).sort()).toEqual([first.id, call.id].sort());
      expect((await events(ts.acme, leadId, `since=${EPOCH}&types=custom`)).events.map((e) => e.type)).toEqual([
        'CUSTOM',
      ]);

      // since: every event whose updatedAt is at or after it; the first message's last change was before.
      const all = (await events(ts.acme, leadId)).events;
      const firstEvent = all.find((e) => e.id === first.id)!;
      const later = all.filter((e) => e.updatedAt > firstEvent.updatedAt);
      const cut = later.map((e) => e.updatedAt).sort()[0]!;
      const since = (await events(ts.acme, leadId, `since=${encodeURIComponent(cut)}`)).events;
      expect(since.map((e) => e.id).sort()).toEqual(
        all
          .filter((e) => e.updatedAt >= cut)
          .map((e) => e.id)
          .sort(),
      );
      expect(since.some((e) => e.id === first.id)).toBe(false);
      // A zone offset means the same instant.
      const offset = new Date(cut).toISOString().replace('Z', '+00:00');
      expect((await events(ts.acme, leadId, `since=${encodeURIComponent(offset)}`)).events).toHaveLength(since.length);
    });

    it('a send that changes after a sync shows again with its new state (updatedAt moves)', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      const leadId = await createLead(ts.acme);
      const at = new Date(ts.clock.now().getTime() + 1500);
      const later = (
        await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'Later', scheduledTime: at.toISOString() })
      ).body;
      const before = (await events(ts.acme, leadId)).events;
      expect(before).toHaveLength(1);
      expect(before[0]).toMatchObject({ id: later.id, data: { status: 'scheduled' } });
      ts.clock.set(at);
      await statusAfterStep(ts, ts.acme, leadId, later.id, (s) => s === 'sent');
      const after = (await events(ts.acme, leadId, `since=${encodeURIComponent(before[0]!.updatedAt)}`)).events;
      expect(after).toHaveLength(1);
      expect(after[0]).toMatchObject({ id: later.id, timestamp: before[0]!.timestamp, data: { status: 'sent' } });
      expect(after[0]!.updatedAt > before[0]!.updatedAt).toBe(true);
    });

    it('pages with nextToken (keyset on updatedAt then id, ties included): every event once, in order', async () => {
      const ts = ctx();
      const leadId = await createLead(ts.acme);
      const orgId = await orgIdOf(ts, leadId);
      // 23 messages, many sharing one timestamp, plus notes at the same instants: ties across sources.
      const stamps = ['2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.000Z', '2026-03-01T10:00:01.000Z'];
      for (let i = 0; i < 23; i++) {
        await insertMessage(ts.server.store.db, orgId, {
          id: newId(),
          lead_id: leadId,
          channel: 'sms',
          direction: i % 2 ? 'inbound' : 'outbound',
          owner: i % 2 ? 'lead' : 'user',
          text: `m${i}`,
          is_ai_generated: 0,
          status: i % 2 ? 'received' : 'sent',
          status_reason: null,
          scheduled_at: null,
          created_at: stamps[i % 3]!,
        });
      }
      for (let i = 0; i < 4; i++) {
        await ts.server.store.db
          .insertInto('lead_notes')
          .values({
            organization_id: orgId,
            id: newId(),
            lead_id: leadId,
            kind: 'context',
            text: `n${i}`,
            created_at: stamps[i % 3]!,
            consumed_at: null,
          })
          .execute();
      }
      const whole = (await events(ts.acme, leadId, `since=${EPOCH}&limit=1000`)).events;
      expect(whole).toHaveLength(27);
      const { all, pages } = await allPages(ts.acme, leadId, `since=${EPOCH}&limit=5`);
      expect(pages).toBe(6);
      expect(all.map((e) => e.id)).toEqual(whole.map((e) => e.id));
      expect(new Set(all.map((e) => e.id)).size).toBe(27);
      // With a filter a page may be short, but the walk still ends with every match once.
      const notes = await allPages(ts.acme, leadId, `since=${EPOCH}&limit=3&types=CUSTOM`);
      expect(notes.all.map((e) => e.data.text).sort()).toEqual(['n0', 'n1', 'n2', 'n3']);
      // The default page is 100: 27 fit, no token.
      expect((await events(ts.acme, leadId)).nextToken).toBeNull();
    });

    it('answers a clear 400 for a missing or bad since, unknown types, a bad limit or cursor; 404 for another organization; 403 without leads:read', async () => {
      const ts = ctx();
      const leadId = await createLead(ts.acme);
      const bad = async (query: string) => {
        const res = await ts.acme.get(`/leads/${leadId}/events${query}`);
        expect(res.status, query).toBe(400);
        return messageOf(res);
      };
      expect(await bad('')).toBe(
        'since is required: an ISO 8601 timestamp such as 2026-05-14T15:00:00Z (events updated at or after it are listed)',
      );
      expect(await bad('?since=yesterday')).toBe('since must be an ISO 8601 timestamp such as 2026-05-14T15:00:00Z');
      expect(await bad('?since=2026-02-31T00:00:00Z&types=MESSAGE')).toBe(
        'since must be an ISO 8601 timestamp such as 2026-05-14T15:00:00Z',
      );
      expect(await bad(`?since=${EPOCH}&types=MESSAGE,SMS`)).toBe(
        'types must be a comma-separated list of: MESSAGE, CALL, EMAIL, TOOL_CALL, CUSTOM, COMPLIANCE_BLOCKED',
      );
      expect(await bad(`?since=${EPOCH}&types=,`)).toBe(
        'types must be a comma-separated list of: MESSAGE, CALL, EMAIL, TOOL_CALL, CUSTOM, COMPLIANCE_BLOCKED',
      );
      expect(await bad(`?since=${EPOCH}&nextToken=not-a-cursor`)).toBe('nextToken is not a valid cursor');
      expect((await ts.acme.get(`/leads/${leadId}/events?since=${EPOCH}&limit=0`)).status).toBe(400);
      expect((await ts.acme.get(`/leads/${leadId}/events?since=${EPOCH}&limit=1001`)).status).toBe(400);

      const other = await ts.beta.get(`/leads/${leadId}/events?since=${EPOCH}`);
      expect(other).toMatchObject({ status: 404, body: { message: `Resource not found: Lead with id ${leadId}` } });
      const missing = await ts.acme.get(`/leads/00000000-0000-7000-8000-000000000000/events?since=${EPOCH}`);
      expect(missing).toMatchObject({
        status: 404,
        body: { message: 'Resource not found: Lead with id 00000000-0000-7000-8000-000000000000' },
      });
      const reader = await ts.clientWithScopes(['leads:read']);
      expect((await reader.get(`/leads/${leadId}/events?since=${EPOCH}`)).status).toBe(200);
      const writer = await ts.clientWithScopes(['messages:write']);
      expect((await writer.get(`/leads/${leadId}/events?since=${EPOCH}`)).status).toBe(403);
    });

    it('shows the opening the agent wrote, and one it could not write, as TOOL_CALL events', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      const leadId = await createLead(ts.acme, { firstName: 'Ivy' });
      await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, { profile: 'default', sendMessage: true });
      await ts.runDue();
      const list = await events(ts.acme, leadId);
      const opening = list.events.find((e) => e.type === 'TOOL_CALL')!;
      expect(opening.data).toMatchObject({
        kind: 'opening',
        profile: 'default',
        status: 'scheduled',
        tools: ['reply'],
        error: null,
      });
      const message = list.events.find((e) => e.id === opening.data.messageId);
      expect(message).toMatchObject({
        type: 'MESSAGE',
        data: {
          isAiGenerated: true,
          content: { text: 'Hi Ivy! Thanks for your interest. How can we help you today?' },
        },
      });
      // A failed one (recorded so by the job after its last attempt) carries its reason.
      const orgId = await orgIdOf(ts, leadId);
      await ts.server.store.db
        .insertInto('lead_openings')
        .values({
          organization_id: orgId,
          id: newId(),
          lead_id: leadId,
          profile: 'default',
          kind: 'composed',
          status: 'failed',
          message_id: null,
          send_at: ts.clock.now().toISOString(),
          error: 'the agent could not write the opening message: model endpoint answered HTTP 503',
          created_at: ts.clock.now().toISOString(),
          updated_at: ts.clock.now().toISOString(),
        })
        .execute();
      const failed = (await events(ts.acme, leadId, `since=${EPOCH}&types=TOOL_CALL`)).events.find(
        (e) => e.data.status === 'failed',
      );
      expect(failed?.data).toMatchObject({
        kind: 'opening',
        tools: [],
        error: 'the agent could not write the opening message: model endpoint answered HTTP 503',
      });
    });

    it("an inbound STOP and the lead's own opt-out: the confirmation is a MESSAGE, later sends are COMPLIANCE_BLOCKED", async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      const phone = uniquePhone();
      const leadId = await createLead(ts.acme, { phone });
      await inbound(ts.acme, phone, 'STOP');
      const after = (await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'Still there?', sendWhenOff: true }))
        .body;
      const list = (await events(ts.acme, leadId, `since=${EPOCH}&types=COMPLIANCE_BLOCKED`)).events;
      expect(list.map((e) => e.id)).toEqual([after.id]);
      expect(list[0]!.data).toMatchObject({
        channel: 'sms',
        reason: 'OPTED_OUT',
        reasonText: 'lead is unsubscribed from sms',
      });
    });
  },
  FAST_AGENT_ENV,
);
