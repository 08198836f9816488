import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { LeadRow } from '../../src/lead-records/leads.repository.js';
import type { Db } from '../../src/platform/db/schema.js';

/**
 * The registration point campaigns/ hooks into (server.ts registers it). What the effect writes is proved over
 * HTTP (test/campaigns/sending.test.ts: an opt-out after the opening counts the lead opted out, unsubscribe and
 * DNC alike); here, that a process which forgot to register refuses the opt-out rather than skipping the effect.
 */
describe('opt-out effects', () => {
  const trx = {} as Db;
  const lead = { id: 'lead-1' } as LeadRow;
  // A fresh registry per test: files of this pool share modules, and a server another file started registered one.
  let registry: typeof import('../../src/subscriptions/opt-out-effects.js');
  beforeEach(async () => {
    vi.resetModules();
    registry = await import('../../src/subscriptions/opt-out-effects.js');
  });

  it('refuses an opt-out while no effect is registered: never a silent half opt-out', () => {
    expect(() => registry.optOutEffectQueries(trx, 'org', lead, ['sms'], 'now')).toThrow(
      /no opt-out effect is registered/,
    );
  });

  it('asks every registered effect once, with the opt-out; registering a name again replaces it', () => {
    const seen: string[] = [];
    const noting = (name: string) => (_t: Db, org: string, l: LeadRow, channels: readonly string[]) => {
      seen.push(`${name} ${org} ${l.id} ${channels.join()}`);
      return [];
    };
    registry.onOptOut('a', noting('a'));
    registry.onOptOut('a', noting('a2'));
    registry.onOptOut('b', noting('b'));
    expect(registry.optOutEffectQueries(trx, 'org', lead, ['sms', 'voice'], 'now')).toEqual([]);
    expect(seen).toEqual(['a2 org lead-1 sms,voice', 'b org lead-1 sms,voice']);
  });
});
