import { afterAll, expect, it } from 'vitest';
import { call, startFakeOpenAi, tools } from '../support/fake-openai.js';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { startSmtpSink } from '../support/smtp-sink.js';
import { createLead, describeEachDialect, uniquePhone } from '../support/harness.js';
import { expectError, until } from '../support/assert.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';
import { signIn } from '../console/support.js';
import { freshOrganization, makeRep } from './support.js';
import { Receiver } from '../support/receiver.js';
import { FAST_WEBHOOKS, registerEndpoint } from '../support/webhooks.js';

const SID = 'AChandoffs';
const TOKEN = 'handoffs-secret';
const twilio = await startFakeTwilio(SID, TOKEN);
const openai = await startFakeOpenAi('sk-test-handoffs-0123456789');
const smtp = await startSmtpSink();
const receivers: Receiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.stop();
  await twilio.close();
  await openai.close();
  await smtp.close();
});

const ENV = {
  ...FAST_WEBHOOKS,
  TWILIO_ACCOUNT_SID: SID,
  TWILIO_AUTH_TOKEN: TOKEN,
  TWILIO_API_BASE_URL: twilio.url,
  PARLEY_PUBLIC_URL: 'https://parley.example.com',
  SMTP_URL: smtp.url,
  PARLEY_JOB_RETRY_SCHEDULE: '50ms,50ms',
  PARLEY_AI_PROVIDER: 'openai',
  OPENAI_BASE_URL: openai.url,
  OPENAI_API_KEY: openai.key,
  PARLEY_AI_MODEL: 'fake-model-1',
  PARLEY_AI_TIMEOUT_MS: '3000',
};

const mailsTo = (email: string) => smtp.received.filter((m) => m.rcptTo.includes(email));
const smsTo = (phone: string) => twilio.accepted('Messages', (p) => p.To === phone);

describeEachDialect(
  'hand-offs',
  (ctx) => {
    startEachTestInDaytime(ctx);

    it('a hot lead is assigned round-robin, its owner is alerted by email and SMS within 5 s, and an unacknowledged hand-off escalates', async () => {
      const ts = ctx();
      const org = await freshOrganization(ts);
      const a = await makeRep(ts, org, { phone: uniquePhone() });
      const b = await makeRep(ts, org, { phone: uniquePhone() });
      const admin = await makeRep(ts, org, { phone: uniquePhone() }, 'admin');
      const reps = new Map([
        [a.userId, a],
        [b.userId, b],
      ]);
      const phones = new Map<string, string>();
      for (const u of [a, b, admin]) phones.set(u.userId, (await org.client.get(`/users/${u.userId}`)).body.phone!);
      const settings = await org.client.patch('/settings', {
        assignment: { mode: 'roundRobin', pool: [a.userId, b.userId], ackWithinMinutes: 10 },
      });
      expect(settings.body.assignment).toEqual({
        mode: 'roundRobin',
        pool: [a.userId, b.userId],
        on: 'handoff',
        ackWithinMinutes: 10,
      });

      const phone = uniquePhone();
      const leadId = await createLead(org.client, { phone, firstName: 'Hana', lastName: 'Ito' });
      openai.program(
        phone,
        tools(
          call('markHot'),
          call('reply', { text: 'Great! A colleague will call you shortly.' }),
          call('handOff', { reason: 'Ready to buy, wants a call' }),
        ),
      );
      const t0 = Date.now();
      expect(
        (
          await org.client.post('/inbound', {
            channel: 'sms',
            from: phone,
            text: "I'm ready to buy, can someone call me?",
          })
        ).status,
      ).toBe(200);

      // The owner is the pool's first rep (nobody holds a hand-off yet); alerted by email and by SMS to the rep's own phone.
      // The "within 5 s" is the worker's own loop (woken by the inbound's commit), so these two waits stay
      // bounded polls of the real loop rather than a step.
      const lead = await until(
        () => org.client.get(`/leads/${leadId}`),
        (r) => r.body.owner !== null && r.body.isAiOn === false,
      );
      expect(lead.body.isHot).toBe(true);
      const owner = reps.get(lead.body.owner!)!;
      expect(owner).toBeDefined();
      await until(
        () => mailsTo(owner.email).length + smsTo(phones.get(owner.userId)!).length,
        (n) => n >= 2,
        5000,
      );
      const elapsed = Date.now() - t0;
      expect(elapsed).toBeLessThan(5000);
      const [mail] = mailsTo(owner.email);
      expect(mail!.headers.get('subject')).toBe('Hand-off: Hana Ito needs a person');
      expect(mail!.text).toContain('Reason: Ready to buy, wants a call');
      expect(mail!.text).toContain(`/console/leads/${leadId}`);
      const [sms] = smsTo(phones.get(owner.userId)!);
      expect(sms!.params.Body).toContain('Hana Ito');
      expect(sms!.params.From).toBe((await org.client.get('/settings')).body.sendingNumber);

      // The alert is no message of the lead's: its conversation holds the lead's words and the AI's reply only.
      await ts.runDue();
      expect(twilio.accepted('Messages', (p) => p.To === phone)).toHaveLength(1);
      const messages = (await org.client.get(`/leads/${leadId}/messages`)).body.messages as {
        content: { text: string };
      }[];
      expect(messages.map((m) => m.content.text).sort()).toEqual(
        ["I'm ready to buy, can someone call me?", 'Great! A colleague will call you shortly.'].sort(),
      );

      let list = await org.client.get(`/handoffs?ownerId=${owner.userId}&status=open`);
      expect(list.body.handoffs).toHaveLength(1);
      expect(list.body.handoffs[0]).toMatchObject({
        leadId,
        ownerId: owner.userId,
        reason: 'Ready to buy, wants a call',
        escalationLevel: 0,
        acknowledgedAt: null,
      });

      // Nobody acknowledges: after 10 minutes it goes to the other rep, who is alerted; after 10 more to the admins.
      const other = [a, b].find((u) => u.userId !== owner.userId)!;
      expect(mailsTo(other.email)).toHaveLength(0);
      ts.clock.advance(10 * 60_000 + 1000);
      await ts.runDue();
      expect(mailsTo(other.email).length + smsTo(phones.get(other.userId)!).length).toBeGreaterThanOrEqual(2);
      expect(mailsTo(other.email)[0]!.text).toContain('escalated');
      list = await org.client.get('/handoffs');
      expect(list.body.handoffs[0]).toMatchObject({ ownerId: other.userId, escalationLevel: 1, status: 'open' });
      expect((await org.client.get(`/leads/${leadId}`)).body.owner).toBe(other.userId);

      ts.clock.advance(10 * 60_000 + 1000);
      await ts.runDue();
      expect(mailsTo(admin.email).length + smsTo(phones.get(admin.userId)!).length).toBeGreaterThanOrEqual(2);
      expect((await org.client.get('/handoffs')).body.handoffs[0]).toMatchObject({ escalationLevel: 2 });

      // One click in the console (a session is its own user): acknowledged, the first human touch recorded.
      const session = await signIn(ts, other);
      const ack = await session.call('POST', `/v1/leads/${leadId}/handoff/ack`, {});
      expect(ack.status).toBe(200);
      expect(ack.body).toMatchObject({
        status: 'acknowledged',
        acknowledgedBy: other.userId,
        firstTouchKind: 'acknowledgement',
      });
      expect(ack.body.secondsToFirstTouch).toBeGreaterThanOrEqual(20 * 60);
      const stats = (await org.client.get('/handoffs')).body.stats;
      expect(stats.overall).toMatchObject({ count: 1, touched: 1 });
      expect(stats.overall.p50Seconds).toBe(ack.body.secondsToFirstTouch);
      expect(stats.byOwner).toEqual([
        {
          ownerId: other.userId,
          count: 1,
          touched: 1,
          p50Seconds: ack.body.secondsToFirstTouch,
          p90Seconds: ack.body.secondsToFirstTouch,
        },
      ]);

      // Acknowledging again changes nothing.
      const again = await org.client.post(`/leads/${leadId}/handoff/ack`, {});
      expect(again.body.acknowledgedAt).toBe(ack.body.acknowledgedAt);
    }, 30_000);

    it("a profile's plain-English notification is judged by the agent: the notification webhook goes out and the owner is alerted", async () => {
      const ts = ctx();
      const org = await freshOrganization(ts);
      const receiver = await new Receiver().start();
      receivers.push(receiver);
      await registerEndpoint(org.client, receiver, ['notification']);
      const rep = await makeRep(ts, org, { phone: uniquePhone() });
      const repPhone = (await org.client.get(`/users/${rep.userId}`)).body.phone as string;
      const profile = await org.client.post('/customerProfiles', {
        name: 'demo-seekers',
        instructions: 'Help the lead.',
        notifications: [{ name: 'Wants a demo', condition: 'the lead asks for a product demo' }],
      });
      expect(profile.body.notifications).toEqual([
        { name: 'Wants a demo', condition: 'the lead asks for a product demo' },
      ]);
      const phone = uniquePhone();
      const leadId = await createLead(org.client, { phone, customerProfile: 'demo-seekers', firstName: 'Dee' });
      expect((await org.client.call('PUT', `/leads/${leadId}/owner`, { userId: rep.userId })).status).toBe(200);
      // A name the profile does not list is dropped; the listed one, in any case, goes out under the profile's spelling.
      openai.program(
        phone,
        tools(
          call('reply', { text: 'Sure, happy to show you.' }),
          call('notify', { name: 'made up' }),
          call('notify', { name: 'wants a DEMO', message: 'Dee asked for a demo on Friday' }),
        ),
      );
      expect(
        (await org.client.post('/inbound', { channel: 'sms', from: phone, text: 'Could I get a demo on Friday?' }))
          .status,
      ).toBe(200);

      await ts.runDue();
      const [event] = receiver.acknowledged.filter((d) => d.json.data.leadId === leadId);
      expect(event!.json.data).toMatchObject({
        leadId,
        channel: 'sms',
        notificationName: 'Wants a demo',
        notificationMessage: 'Dee asked for a demo on Friday',
      });
      expect(mailsTo(rep.email).length + smsTo(repPhone).length).toBeGreaterThanOrEqual(2);
      expect(mailsTo(rep.email)[0]!.headers.get('subject')).toBe('Wants a demo: Dee Lee');
      expect(mailsTo(rep.email)[0]!.text).toContain('Dee asked for a demo on Friday');
      // The agent saw the condition; notify leaves the AI on and raises no hand-off.
      const prompt = JSON.stringify(openai.requestsFor(phone)[0]!.body.messages[0]);
      expect(prompt).toContain('Wants a demo: the lead asks for a product demo');
      expect((await org.client.get(`/leads/${leadId}`)).body.isAiOn).toBe(true);
      expect((await org.client.get('/handoffs')).body.handoffs).toHaveLength(0);
      expect(receiver.acknowledged.filter((d) => d.json.data.leadId === leadId)).toHaveLength(1);
    });

    it('an acknowledged hand-off does not escalate', async () => {
      const ts = ctx();
      const org = await freshOrganization(ts);
      const a = await makeRep(ts, org);
      const b = await makeRep(ts, org);
      await org.client.patch('/settings', {
        assignment: { mode: 'roundRobin', pool: [a.userId, b.userId], ackWithinMinutes: 5 },
      });
      const leadId = await createLead(org.client);
      const raised = await org.client.post(`/leads/${leadId}/handoff`, {});
      await ts.runDue();
      expect(mailsTo(a.email)).toHaveLength(1);
      expect((await org.client.post(`/leads/${leadId}/handoff/ack`, { userId: a.userId })).body).toMatchObject({
        acknowledgedBy: a.userId,
      });
      ts.clock.advance(5 * 60_000 + 1000);
      // The escalation step ran (its job is done) and found the hand-off acknowledged: nobody else was alerted.
      const db = ts.server.store.db;
      await ts.runDue();
      const rows = await db
        .selectFrom('jobs')
        .select('status')
        .where('name', '=', 'handoff.escalate')
        .where('payload', 'like', `%${raised.body.id}%`)
        .execute();
      expect(rows.map((r) => r.status)).toEqual(['done']);
      expect(mailsTo(b.email)).toHaveLength(0);
      expect((await org.client.get('/handoffs')).body.handoffs[0]).toMatchObject({
        ownerId: a.userId,
        escalationLevel: 0,
        status: 'acknowledged',
      });
    });

    it('a human reply is the first touch; a closed hand-off frees its rep', async () => {
      const ts = ctx();
      const org = await freshOrganization(ts);
      const a = await makeRep(ts, org);
      await org.client.patch('/settings', { assignment: { mode: 'roundRobin', pool: [a.userId] } });
      const leadId = await createLead(org.client);
      const raised = await org.client.post(`/leads/${leadId}/handoff`, { reason: 'asked for a person' });
      expect(raised.status).toBe(200);
      expect(raised.body).toMatchObject({ ownerId: a.userId, status: 'open', firstTouchAt: null });
      expect((await org.client.get(`/leads/${leadId}`)).body).toMatchObject({ owner: a.userId, isAiOn: false });
      // Raising it again keeps the one open hand-off.
      expect((await org.client.post(`/leads/${leadId}/handoff`, {})).body.id).toBe(raised.body.id);

      ts.clock.advance(90_000);
      const sent = await org.client.post(`/leads/${leadId}/sendMessage`, {
        message: 'Hi, this is Ann from sales.',
        sendWhenOff: true,
      });
      expect(sent.body).toMatchObject({ status: 'scheduled' });
      const [h] = (await org.client.get('/handoffs')).body.handoffs;
      expect(h).toMatchObject({ firstTouchKind: 'reply', acknowledgedAt: null, status: 'open' });
      expect(h!.secondsToFirstTouch).toBeGreaterThanOrEqual(90);
      expect(h!.secondsToFirstTouch).toBeLessThan(120);

      const closed = await org.client.post(`/leads/${leadId}/handoff/close`, {});
      expect(closed.body.status).toBe('closed');
      expectError(
        await org.client.post(`/leads/${leadId}/handoff/ack`, {}),
        404,
        `Resource not found: Hand-off of lead with id ${leadId}`,
      );
      expect((await org.client.get('/handoffs?status=closed')).body.handoffs).toHaveLength(1);
    });

    it('skips reps who are away, outside their hours or at capacity; with nobody available the admins are alerted', async () => {
      const ts = ctx();
      const org = await freshOrganization(ts);
      // DAYTIME is Wednesday 09:00 in Los Angeles.
      const away = await makeRep(ts, org, { isAway: true });
      const offHours = await makeRep(ts, org, {
        workingHours: { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '10:00', end: '18:00' },
        timeZone: 'America/Los_Angeles',
      });
      const weekend = await makeRep(ts, org, {
        workingHours: { days: ['sat', 'sun'], start: '00:00', end: '23:59' },
        timeZone: 'America/Los_Angeles',
      });
      const working = await makeRep(ts, org, {
        capacity: 1,
        workingHours: { days: ['wed'], start: '08:00', end: '17:00' },
        timeZone: 'America/Los_Angeles',
      });
      const admin = await makeRep(ts, org, {}, 'admin');
      await org.client.patch('/settings', {
        assignment: {
          mode: 'roundRobin',
          pool: [away.userId, offHours.userId, weekend.userId, working.userId],
          ackWithinMinutes: 1440,
        },
      });

      const first = await createLead(org.client);
      expect((await org.client.post(`/leads/${first}/handoff`, {})).body.ownerId).toBe(working.userId);
      // At capacity (1 open), nobody is left: no owner, and the admins hear of it.
      const second = await createLead(org.client, { firstName: 'Nobody' });
      expect((await org.client.post(`/leads/${second}/handoff`, {})).body.ownerId).toBeNull();
      await ts.runDue();
      expect(smtp.received.filter((m) => m.rcptTo.includes(admin.email) && m.text.includes(second))).toHaveLength(1);

      // An hour later (10:00) the rep back from their hours takes the next one; the away switch off brings the other back.
      ts.clock.advance(60 * 60_000 + 60_000);
      const third = await createLead(org.client);
      expect((await org.client.post(`/leads/${third}/handoff`, {})).body.ownerId).toBe(offHours.userId);
      await org.client.patch(`/users/${away.userId}`, { isAway: false });
      const fourth = await createLead(org.client);
      expect((await org.client.post(`/leads/${fourth}/handoff`, {})).body.ownerId).toBe(away.userId);
    });

    it("sets and clears a lead's owner, refusing unknown users and other organizations' users", async () => {
      const ts = ctx();
      const org = await freshOrganization(ts);
      const other = await freshOrganization(ts);
      const rep = await makeRep(ts, org);
      const stranger = await makeRep(ts, other);
      const leadId = await createLead(org.client);
      expect((await org.client.get(`/leads/${leadId}`)).body.owner).toBeNull();

      expect((await org.client.call('PUT', `/leads/${leadId}/owner`, { userId: rep.userId })).body).toEqual({
        leadId,
        owner: rep.userId,
      });
      expect((await org.client.get(`/leads/${leadId}`)).body.owner).toBe(rep.userId);
      expectError(
        await org.client.call('PUT', `/leads/${leadId}/owner`, { userId: stranger.userId }),
        400,
        `userId: no user with id ${stranger.userId} in this organization`,
      );
      expectError(
        await org.client.call('PUT', `/leads/${leadId}/owner`, { userId: 'no-such-user' }),
        400,
        'userId: no user with id no-such-user in this organization',
      );
      expectError(
        await other.client.call('PUT', `/leads/${leadId}/owner`, { userId: stranger.userId }),
        404,
        `Resource not found: Lead with id ${leadId}`,
      );
      expectError(
        await org.client.patch(`/users/${stranger.userId}`, { isAway: true }),
        404,
        `Resource not found: User with id ${stranger.userId}`,
      );
      expectError(
        await org.client.patch('/settings', { assignment: { mode: 'roundRobin', pool: [stranger.userId] } }),
        400,
        `assignment.pool: no user with id ${stranger.userId} in this organization`,
      );

      // The owner, when available, takes the lead's hand-off whatever the pool says.
      expect((await org.client.post(`/leads/${leadId}/handoff`, {})).body.ownerId).toBe(rep.userId);
      expect((await org.client.call('PUT', `/leads/${leadId}/owner`, { userId: null })).body.owner).toBeNull();
      expect((await org.client.get('/handoffs')).body.handoffs[0]!.ownerId).toBeNull();
    });

    it("validates rep fields, and a deleted user's leads and hand-offs become nobody's", async () => {
      const ts = ctx();
      const org = await freshOrganization(ts);
      const rep = await makeRep(ts, org);
      const admin = await signIn(ts, await makeRep(ts, org, {}, 'admin'));
      const set = await org.client.patch(`/users/${rep.userId}`, {
        phone: '(415) 555-0142',
        capacity: 3,
        timeZone: 'Europe/Paris',
        workingHours: { days: ['mon', 'tue'], start: '22:00', end: '06:00' },
      });
      expect(set.body).toMatchObject({
        id: rep.userId,
        phone: '+14155550142',
        capacity: 3,
        timeZone: 'Europe/Paris',
        workingHours: { days: ['mon', 'tue'], start: '22:00', end: '06:00' },
        isAway: false,
      });
      expect((await org.client.get('/users')).body.users.find((u: { id: string }) => u.id === rep.userId)).toEqual(
        set.body,
      );
      expect((await org.client.patch(`/users/${rep.userId}`, { timeZone: 'Mars/Olympus' })).status).toBe(400);
      expectError(
        await org.client.patch(`/users/${rep.userId}`, {
          workingHours: { days: ['mon'], start: '09:00', end: '09:00' },
        }),
        400,
        'workingHours: start and end must differ (leave workingHours null for any time)',
      );
      expect(
        (
          await org.client.patch(`/users/${rep.userId}`, {
            workingHours: { days: ['mon'], start: '9am', end: '17:00' },
          })
        ).status,
      ).toBe(400);
      expect((await org.client.patch(`/users/${rep.userId}`, { capacity: 0 })).status).toBe(400);

      const leadId = await createLead(org.client);
      await org.client.call('PUT', `/leads/${leadId}/owner`, { userId: rep.userId });
      // A hand-off raised through the API fires the documented notification too.
      const receiver = await new Receiver().start();
      receivers.push(receiver);
      await registerEndpoint(org.client, receiver, ['notification']);
      await org.client.patch(`/users/${rep.userId}`, { workingHours: null });
      expect((await org.client.post(`/leads/${leadId}/handoff`, { reason: 'call me' })).body.ownerId).toBe(rep.userId);
      await ts.runDue();
      expect(receiver.acknowledged.find((d) => d.json.data.leadId === leadId)!.json.data).toMatchObject({
        notificationName: 'Human handoff',
        notificationMessage: 'call me',
      });

      expect((await admin.call('DELETE', `/console/api/users/${rep.userId}`)).status).toBe(204);
      expect((await org.client.get(`/leads/${leadId}`)).body.owner).toBeNull();
      expect((await org.client.get('/handoffs')).body.handoffs[0]!.ownerId).toBeNull();
    });

    it('an alert whose SMS fails is retried without emailing twice; the AI back on closes the hand-off', async () => {
      const ts = ctx();
      const org = await freshOrganization(ts);
      const rep = await makeRep(ts, org, { phone: uniquePhone() });
      const repPhone = (await org.client.get(`/users/${rep.userId}`)).body.phone as string;
      await org.client.patch('/settings', { assignment: { mode: 'roundRobin', pool: [rep.userId] } });
      twilio.failNext((r) => r.params.To === repPhone, 429, 1);
      const leadId = await createLead(org.client);
      await org.client.post(`/leads/${leadId}/handoff`, {});
      await ts.runDue();
      ts.clock.advance(1_000); // the SMS's retry (PARLEY_JOB_RETRY_SCHEDULE 50ms) comes due
      await ts.runDue();
      expect(smsTo(repPhone)).toHaveLength(1);
      expect(twilio.requests.filter((r) => r.params.To === repPhone).map((r) => r.status)).toEqual([429, 201]);
      expect(mailsTo(rep.email)).toHaveLength(1);

      expect((await org.client.post(`/leads/${leadId}/turnOnAi`, {})).status).toBe(200);
      expect((await org.client.get('/handoffs')).body.handoffs[0]!.status).toBe('closed');
    });

    it('a call placed by a person is the first touch', async () => {
      const ts = ctx();
      const org = await freshOrganization(ts);
      const leadId = await createLead(org.client);
      await org.client.post(`/leads/${leadId}/handoff`, {});
      expect(
        (
          await org.client.post(`/leads/${leadId}/sendMessage`, {
            message: 'Calling you now.',
            channel: 'voice',
            sendWhenOff: true,
          })
        ).body.status,
      ).toBe('scheduled');
      expect((await org.client.get('/handoffs')).body.handoffs[0]).toMatchObject({
        firstTouchKind: 'call',
        ownerId: null,
      });
    });

    it('assigns on creation when the settings say so', async () => {
      const ts = ctx();
      const org = await freshOrganization(ts);
      const a = await makeRep(ts, org);
      const b = await makeRep(ts, org);
      await org.client.patch('/settings', {
        assignment: { mode: 'roundRobin', pool: [a.userId, b.userId], on: 'creation' },
      });
      const first = await createLead(org.client);
      const second = await createLead(org.client);
      const third = await createLead(org.client);
      const owners = await Promise.all(
        [first, second, third].map(async (id) => (await org.client.get(`/leads/${id}`)).body.owner),
      );
      expect(owners).toEqual([a.userId, b.userId, a.userId]);
      // Its hand-off goes to its owner.
      expect((await org.client.post(`/leads/${second}/handoff`, {})).body.ownerId).toBe(b.userId);
    });
  },
  ENV,
);
