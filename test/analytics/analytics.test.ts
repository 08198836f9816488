import { afterAll, beforeEach, expect, it } from 'vitest';
import { expectError } from '../support/assert.js';
import { DAYTIME } from '../support/clock-hours.js';
import { createLead, describeEachDialect, uniquePhone } from '../support/harness.js';
import { createCampaign } from '../campaigns/helpers.js';
import { importCsv } from '../imports/support.js';
import { addNumber, numberIn } from '../sending-numbers/helpers.js';
import {
  envFor,
  messagesOf,
  organization,
  providerIdOf,
  sendAndSettle,
  startFakeTwilio,
  statusCallback,
} from './support.js';

const fake = await startFakeTwilio('ACanalytics', 'analytics-secret');
afterAll(() => fake.close());

const DAY = DAYTIME.toISOString().slice(0, 10);

describeEachDialect(
  'analytics: a scripted scenario through the API and Twilio callbacks',
  (ctx) => {
    beforeEach(() => ctx().clock.set(DAYTIME));

    it('answers the exact funnel, speed to lead and deliverability, in JSON and CSV', async () => {
      const ts = ctx();
      const { client, number } = await organization(ts, 'scenario');
      const phones = [uniquePhone(), uniquePhone(), uniquePhone(), uniquePhone()];
      const [a, b, c, d] = await Promise.all(phones.map((phone) => createLead(client, { phone, isAiOn: false })));

      // A and B are sent to; C's send is refused by Twilio (HTTP 400; the fake answers error code 20500); D is never contacted.
      const ma = await sendAndSettle(ctx(), client, a!, 'Hello A');
      const mb = await sendAndSettle(ctx(), client, b!, 'Hello B');
      fake.failNext((r) => r.params.To === phones[2], 400, 1);
      const mc = await sendAndSettle(ctx(), client, c!, 'Hello C');
      expect([ma.status, mb.status, mc.status]).toEqual(['sent', 'sent', 'failed']);

      // A minute later A's message is delivered (twice: a repeated callback counts once); B's is filtered (30007).
      ts.clock.advance(60_000);
      const sidA = await providerIdOf(ts, ma.id);
      await statusCallback(ts, number, phones[0]!, sidA, 'delivered');
      await statusCallback(ts, number, phones[0]!, sidA, 'delivered');
      await statusCallback(ts, number, phones[1]!, await providerIdOf(ts, mb.id), 'undelivered', '30007');

      // A replies and is tagged hot and qualified (twice: counted once); B opts out.
      expect(
        (await client.post('/inbound', { channel: 'sms', from: phones[0], text: 'Yes, tell me more' })).status,
      ).toBe(200);
      expect((await client.patch(`/leads/${a}`, { isHot: true, isQualified: true })).status).toBe(200);
      expect((await client.patch(`/leads/${a}`, { isHot: false })).status).toBe(200);
      expect((await client.patch(`/leads/${a}`, { isHot: true })).status).toBe(200);
      expect((await client.post('/inbound', { channel: 'sms', from: phones[1], text: 'STOP' })).status).toBe(200);
      // The STOP is confirmed (a compliance message: on the number's deliverability, not in the funnel).
      await ts.runDue();
      expect(
        (await messagesOf(client, b!)).filter((m) => m.direction === 'outbound' && m.id !== mb.id).map((m) => m.status),
      ).toEqual(['sent']);
      expect((await messagesOf(client, d!)).length).toBe(0);

      const res = await client.get(`/analytics/summary?from=${DAY}&to=${DAY}`);
      expect(res.status).toBe(200);
      // B's STOP is a reply too (the lead wrote back: leads.hasReplied).
      const expected = {
        leads: 4,
        contacted: 2,
        delivered: 1,
        replied: 2,
        hot: 1,
        qualified: 1,
        booked: 0,
        optedOut: 1,
        failed: 2,
      };
      expect(res.body.groups).toHaveLength(1);
      expect(res.body.groups[0]).toMatchObject({ key: DAY, ...expected });
      expect(res.body.total).toMatchObject(expected);
      const { firstSend, firstDelivery } = res.body.total.speedToLead;
      expect(firstSend.count).toBe(2);
      expect(firstSend.p50).toBeGreaterThanOrEqual(0);
      expect(firstSend.p95).toBeLessThan(30_000);
      expect(firstDelivery.count).toBe(1);
      // Created, sent within seconds, delivered a minute later: 60 s plus the send's seconds, at most 5 % low (the histogram's bound).
      expect(firstDelivery.p50).toBeGreaterThanOrEqual(60_000 * 0.95);
      expect(firstDelivery.p50).toBeLessThan(90_000);
      expect(firstDelivery.p95).toBe(firstDelivery.p50);

      const bySource = await client.get(`/analytics/summary?from=${DAY}&to=${DAY}&groupBy=source`);
      expect(bySource.body.groups.map((g) => g.key)).toEqual(['api']);
      const byNumber = await client.get(`/analytics/summary?from=${DAY}&to=${DAY}&groupBy=sendingNumber`);
      // The organization has no pool: every send is on its own number (null), the leads' creation on none (null) too.
      expect(byNumber.body.groups).toHaveLength(1);
      expect(byNumber.body.groups[0]).toMatchObject({ key: null, ...expected });

      const del = await client.get(`/analytics/deliverability?from=${DAY}&to=${DAY}`);
      expect(del.status).toBe(200);
      expect(del.body.numbers).toEqual([
        {
          sendingNumberId: null,
          number: null,
          sent: 3,
          delivered: 1,
          deliveredPercent: 33.33,
          failed: 2,
          // Classed as deliverability/ classes them: 30007 is carrier filtering; 20500 (the fake's refusal) is no code it lists.
          failuresByCode: [
            { code: '20500', class: 'unknown', count: 1 },
            { code: '30007', class: 'filtered', count: 1 },
          ],
          failuresByClass: [
            { class: 'unknown', count: 1 },
            { class: 'filtered', count: 1 },
          ],
        },
      ]);

      // Another day: nothing.
      const empty = await client.get('/analytics/summary?from=2026-06-01&to=2026-06-30');
      expect(empty.body.groups).toEqual([]);
      expect(empty.body.total).toMatchObject({
        leads: 0,
        contacted: 0,
        speedToLead: { firstSend: { count: 0, p50: null } },
      });

      const csv = await client.call('GET', `/analytics/summary?from=${DAY}&to=${DAY}`, undefined, {
        accept: 'text/csv',
      });
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
      const lines = String(csv.body).trim().split('\r\n');
      expect(lines[0]).toMatch(
        /^group,leads,contacted,delivered,replied,hot,qualified,booked,optedOut,failed,firstSendCount,/,
      );
      expect(lines[1]).toMatch(new RegExp(`^${DAY},4,2,1,2,1,1,0,1,2,2,`));
      expect(lines[2]).toMatch(/^\(total\),4,2,1,2,1,1,0,1,2,2,/);
      const delCsv = await client.get(`/analytics/deliverability?from=${DAY}&to=${DAY}&format=csv`);
      const [head, first] = String(delCsv.body).split('\r\n');
      expect(head).toBe(
        'sendingNumberId,number,sent,delivered,deliveredPercent,failed,failed_opted_out,failed_invalid,failed_unreachable,' +
          'failed_filtered,failed_unregistered_sender,failed_transient,failed_unknown,failed_none,failuresByCode',
      );
      expect(first).toBe('(own number),,3,1,33.33,2,0,0,0,1,0,0,1,0,20500=1 30007=1');
    });

    it('groups by campaign (with its name), pool number and profile; a booking through the API counts as booked', async () => {
      const ts = ctx();
      const { client } = await organization(ts, 'groups');
      // Two pool numbers: a lead meets the one of its area code (sticky sender), so which number sends is known.
      const sf = await addNumber(client, { number: numberIn('415'), kind: 'longCode', ratePerSecond: 100 });
      const ny = await addNumber(client, { number: numberIn('212'), kind: 'longCode', ratePerSecond: 100 });
      expect(
        (await client.post('/customerProfiles', { name: 'promo', openingMessage: 'Hi {{firstName}}, spring offer!' }))
          .status,
      ).toBe(201);
      // A (415) and B (212) are in the campaign, which switches them to its profile; C (415) is sent to by hand.
      const a = await createLead(client, { firstName: 'A', phone: uniquePhone(), additionalInfo: { list: 'spring' } });
      const b = await createLead(client, {
        firstName: 'B',
        phone: numberIn('212'),
        additionalInfo: { list: 'spring' },
      });
      const c = await createLead(client, { phone: uniquePhone(), isAiOn: false });
      const campaign = await createCampaign(client, {
        name: 'Spring promo',
        customerProfile: 'promo',
        filter: { additionalInfo: { list: 'spring' } },
      });
      await ts.runDue();
      expect((await messagesOf(client, a)).map((m) => m.status)).toEqual(['sent']);
      expect((await messagesOf(client, b)).map((m) => m.status)).toEqual(['sent']);
      expect((await sendAndSettle(ctx(), client, c, 'Hello C')).status).toBe('sent');

      // A books a slot through the API (the organization's calendar, embedded): booked once, whatever follows.
      expect(
        (await client.patch('/settings', { calendar: { provider: 'embedded', timeZone: 'America/New_York' } })).status,
      ).toBe(200);
      const booking = await client.post(`/leads/${a}/appointments`, { start: '2026-07-01T20:00:00Z' });
      expect(booking.status, JSON.stringify(booking.body)).toBe(200);
      expect((await client.get(`/leads/${a}`)).body.isBooked).toBe(true);
      expect((await client.post(`/appointments/${booking.body.id}/cancel`, {})).status).toBe(200);
      expect((await client.post(`/leads/${a}/appointments`, { start: '2026-07-01T20:30:00Z' })).status).toBe(200);
      // B replies.
      expect(
        (
          await client.post('/inbound', {
            channel: 'sms',
            from: (await client.get(`/leads/${b}`)).body.phone,
            text: 'Tell me more',
          })
        ).status,
      ).toBe(200);

      const none = { delivered: 0, hot: 0, qualified: 0, optedOut: 0, failed: 0 };
      const funnel = (g: Record<string, unknown>) => {
        const { speedToLead: _, ...rest } = g;
        return rest;
      };
      const byCampaign = await client.get(`/analytics/summary?from=${DAY}&to=${DAY}&groupBy=campaign`);
      expect(byCampaign.status).toBe(200);
      // The leads' creation is on no campaign; the campaign's row has its contacts and what they went on to do.
      expect(byCampaign.body.groups.map(funnel)).toEqual([
        { key: null, name: null, ...none, leads: 3, contacted: 1, replied: 0, booked: 0 },
        { key: campaign.id, name: 'Spring promo', ...none, leads: 0, contacted: 2, replied: 1, booked: 1 },
      ]);
      const byNumber = await client.get(`/analytics/summary?from=${DAY}&to=${DAY}&groupBy=sendingNumber`);
      expect(byNumber.body.groups.map(funnel)).toEqual(
        [
          { key: null, ...none, leads: 3, contacted: 0, replied: 0, booked: 0 },
          { key: sf.id, ...none, leads: 0, contacted: 2, replied: 0, booked: 1 },
          { key: ny.id, ...none, leads: 0, contacted: 1, replied: 1, booked: 0 },
        ].sort((x, y) => String(x.key ?? '').localeCompare(String(y.key ?? ''))),
      );
      expect('name' in byNumber.body.groups[0]!).toBe(false);
      // The profile at the time of each event: created under default, contacted and after under the campaign's.
      const byProfile = await client.get(`/analytics/summary?from=${DAY}&to=${DAY}&groupBy=profile`);
      expect(byProfile.body.groups.map(funnel)).toEqual([
        { key: 'default', ...none, leads: 3, contacted: 1, replied: 0, booked: 0 },
        { key: 'promo', ...none, leads: 0, contacted: 2, replied: 1, booked: 1 },
      ]);
      expect(byProfile.body.total).toMatchObject({ leads: 3, contacted: 3, replied: 1, booked: 1 });
    });

    it('counts imported leads under their import, and a re-run of the import counts nothing twice', async () => {
      const ts = ctx();
      const { client } = await organization(ts, 'imports');
      await createLead(client, { phone: uniquePhone(), isAiOn: false });
      const csv = `First Name,Phone\nAna,${uniquePhone()}\nBen,${uniquePhone()}\nCy,${uniquePhone()}\n`;
      const first = await importCsv(client, csv);
      expect(first).toMatchObject({ status: 'completed' });
      const again = await importCsv(client, csv);
      expect(again).toMatchObject({ status: 'completed' });
      const res = await client.get(`/analytics/summary?from=${DAY}&to=${DAY}&groupBy=source`);
      expect(res.body.groups.map((g) => [g.key, g.leads])).toEqual([
        ['api', 1],
        [`import:${first.id}`, 3],
      ]);
      expect(res.body.total.leads).toBe(4);
    });

    it('answers 400 for a bad range or grouping, and 403 without analytics:read', async () => {
      const ts = ctx();
      const { client } = await organization(ts, 'ranges');
      expectError(
        await client.get('/analytics/summary?from=2026-07-02&to=2026-07-01'),
        400,
        'to (2026-07-01) is before from (2026-07-02): the range is from..to, both days included',
      );
      expectError(
        await client.get('/analytics/summary?from=2026-02-30&to=2026-03-01'),
        400,
        /^from must be a date, YYYY-MM-DD/,
      );
      expectError(
        await client.get('/analytics/deliverability?from=2025-01-01&to=2026-07-01'),
        400,
        'The range covers 547 days; at most 366 are allowed',
      );
      expect((await client.get('/analytics/summary?from=2026-07-01')).status).toBe(400);
      expect((await client.get('/analytics/summary?from=2026-07-01&to=2026-07-01&groupBy=week')).status).toBe(400);
      const reader = await ts.clientWithScopes(['leads:read']);
      expect((await reader.get('/analytics/summary?from=2026-07-01&to=2026-07-01')).status).toBe(403);
    });
  },
  envFor(fake),
);
