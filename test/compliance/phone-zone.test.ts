import { expect, it } from 'vitest';
import { createLead, describeEachDialect } from '../support/harness.js';
import { messageOf, send, settledAfterStep } from '../sending-numbers/helpers.js';

/**
 * Contact hours where the lead is, end to end through the send path: a lead
 * with no timeZone is judged in the zone of its phone number
 * (compliance/lead-zones.ts, with the phone data of compliance/phone-geo.ts),
 * not the organization's. At 17:00 UTC it is 07:00 in Honolulu (+1 808,
 * before the 08:00 opening) and 13:00 in New York (+1 212): the same message
 * waits for one and goes to the other.
 */
describeEachDialect("contact hours in the zone of the lead's phone", (ctx) => {
  it('a Honolulu number waits for 08:00 in Honolulu while a New York number is sent', async () => {
    const ts = ctx();
    ts.clock.set('2026-06-10T17:00:00Z');
    try {
      const honolulu = await createLead(ts.acme, { phone: '+18085550142' });
      const newYork = await createLead(ts.acme, { phone: '+12125550142' });
      const early = await send(ts.acme, honolulu, 'Aloha, a note about your inquiry');
      const inHours = await send(ts.acme, newYork, 'Hello, a note about your inquiry');
      expect((await settledAfterStep(ts, ts.acme, newYork, inHours)).status).toBe('sent');
      const waiting = await messageOf(ts.acme, honolulu, early);
      expect(waiting?.statusCode).toBe('CONTACT_HOURS');
      // 08:00 in Honolulu (UTC-10, no daylight saving) is 18:00 UTC.
      expect(waiting!.status).toBe('scheduled');
      expect(waiting!.scheduledTime).toBe('2026-06-10T18:00:00.000Z');
    } finally {
      ts.clock.reset();
    }
  });
});
