import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toCounts } from '../../src/campaigns/campaigns.mapper.js';
import type { CountGroup } from '../../src/campaigns/enrollments.repository.js';

const group: fc.Arbitrary<CountGroup> = fc.record({
  status: fc.constantFrom('pending', 'queued', 'blocked', 'replied', 'opted_out', 'failed', 'cancelled' as const),
  reason_code: fc.option(fc.constantFrom('OPTED_OUT', 'DNC', 'NO_ADDRESS', 'ALREADY_OPENED'), { nil: null }),
  opening_status: fc.option(fc.constantFrom('composing', 'scheduled', 'skipped', 'failed'), { nil: null }),
  message_status: fc.option(
    fc.constantFrom('scheduled', 'sending', 'sent', 'delivered', 'blocked', 'failed', 'undelivered'),
    { nil: null },
  ),
  message_code: fc.option(
    fc.constantFrom('OPTED_OUT', 'DNC', 'OPTED_OUT_BEFORE_SEND', 'AI_OFF', 'CAMPAIGN_STOPPED', 'CONTACT_HOURS'),
    { nil: null },
  ),
  n: fc.integer({ min: 0, max: 1000 }),
});

describe('campaign counts (pure)', () => {
  it('puts every enrollment in exactly one bucket: the buckets add up to enrolled, the reasons to blocked', () => {
    fc.assert(
      fc.property(fc.array(group, { maxLength: 30 }), (groups) => {
        const c = toCounts(groups);
        const total = groups.reduce((s, g) => s + g.n, 0);
        expect(c.enrolled).toBe(total);
        expect(c.pending + c.queued + c.sent + c.blocked + c.replied + c.optedOut + c.failed + c.cancelled).toBe(total);
        expect(Object.values(c.blockedByReason).reduce((s, n) => s + n, 0)).toBe(c.blocked);
        expect(c.messagesSent).toBe(
          groups
            .filter((g) => g.message_status === 'sent' || g.message_status === 'delivered')
            .reduce((s, g) => s + g.n, 0),
        );
      }),
    );
  });

  it('reads a queued enrollment by its message: out is sent, a stop at send time is optedOut, another block keeps its code', () => {
    const q = (
      message_status: string | null,
      message_code: string | null = null,
      opening_status: string | null = null,
    ): CountGroup => ({ status: 'queued', reason_code: null, opening_status, message_status, message_code, n: 1 });
    expect(toCounts([q('delivered')])).toMatchObject({ sent: 1, messagesSent: 1 });
    expect(toCounts([q('scheduled', 'CONTACT_HOURS')])).toMatchObject({ queued: 1 });
    expect(toCounts([q('blocked', 'OPTED_OUT_BEFORE_SEND')])).toMatchObject({ optedOut: 1, blocked: 0 });
    expect(toCounts([q('blocked', 'AI_OFF')])).toMatchObject({ blocked: 1, blockedByReason: { AI_OFF: 1 } });
    expect(toCounts([q(null, null, 'composing')])).toMatchObject({ queued: 1 });
    expect(toCounts([q(null, null, 'failed')])).toMatchObject({ failed: 1 });
    expect(toCounts([q(null)])).toMatchObject({ failed: 1, queued: 0 }); // its message was erased with the lead
    expect(toCounts([{ ...q('sent'), status: 'replied' }])).toMatchObject({ replied: 1, sent: 0, messagesSent: 1 });
  });
});
