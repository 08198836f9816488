import { describe, expect, it } from 'vitest';
import { OPT_OUT_SOURCES, mayLift, strongerSource, type Lifter } from '../../src/subscriptions/consent-rules.js';
import type { ChannelName } from '../../src/lead-records/channels.js';

/**
 * Who may lift which opt-out (README, "Who may lift an opt-out"), written out
 * cell by cell rather than re-derived: every source (and none, and one this
 * version does not know) x every channel x every lifter. A wrong cell here is
 * a lead re-subscribed by someone who may not do it.
 */

const CHANNELS: ChannelName[] = ['sms', 'voice', 'email'];
const LIFTERS: Record<string, Lifter> = {
  api: { kind: 'api' },
  'lead:sms': { kind: 'lead', channel: 'sms' },
  'lead:voice': { kind: 'lead', channel: 'voice' },
  'lead:email': { kind: 'lead', channel: 'email' },
  'dnc-removal': { kind: 'dnc-removal' },
};
type LifterName = keyof typeof LIFTERS;

/** For each source: the "lifter@channel" cells that may lift it; every other cell may not. */
const MAY: Record<string, readonly string[]> = {
  // No opt-out recorded: nothing to protect, anyone may (re)subscribe.
  none: Object.keys(LIFTERS).flatMap((l) => CHANNELS.map((c) => `${l}@${c}`)),
  // The organization's own opt-out, and a hard bounce the organization vouches for: the API, on any channel.
  api: ['api@sms', 'api@voice', 'api@email'],
  bounce: ['api@sms', 'api@voice', 'api@email'],
  // The lead's own text opt-outs: only the lead's START by text, for the number's channels (never email).
  keyword: ['lead:sms@sms', 'lead:sms@voice'],
  phrase: ['lead:sms@sms', 'lead:sms@voice'],
  message: ['lead:sms@sms', 'lead:sms@voice'],
  ai: ['lead:sms@sms', 'lead:sms@voice'],
  // The carrier's record of the lead's STOP (Twilio 21610): lifted as a STOP is, by the lead's START by text.
  carrier: ['lead:sms@sms', 'lead:sms@voice'],
  // Do Not Contact: removing the entry lifts the number's channels, never email.
  dnc: ['dnc-removal@sms', 'dnc-removal@voice'],
  // Not through Parley at all.
  link: [],
  complaint: [],
  voice: [],
  // Said on a live call ("stop calling me"): as a voice opt-out, never lifted through Parley.
  spoken: [],
  'some-future-source': [],
  '': [],
};

describe('mayLift: the whole table', () => {
  it('covers every declared source', () => {
    expect([...OPT_OUT_SOURCES].sort()).toEqual(
      Object.keys(MAY)
        .filter((s) => !['none', 'some-future-source', ''].includes(s))
        .sort(),
    );
  });

  for (const [name, allowed] of Object.entries(MAY)) {
    const source = name === 'none' ? null : name;
    it(`source ${JSON.stringify(source)}: lifted exactly by ${allowed.length ? allowed.join(', ') : 'nobody'}`, () => {
      const got: string[] = [];
      for (const lifter of Object.keys(LIFTERS) as LifterName[]) {
        for (const channel of CHANNELS) {
          const may = mayLift(source, channel, LIFTERS[lifter]!);
          expect(typeof may).toBe('boolean');
          if (may) got.push(`${lifter}@${channel}`);
        }
      }
      expect(got.sort()).toEqual([...allowed].sort());
    });
  }

  it('spot checks that read like the README', () => {
    expect(mayLift('keyword', 'sms', { kind: 'lead', channel: 'sms' })).toBe(true);
    expect(mayLift('keyword', 'sms', { kind: 'api' })).toBe(false); // the API never undoes a STOP
    expect(mayLift('keyword', 'email', { kind: 'lead', channel: 'sms' })).toBe(false); // an email address has no START
    expect(mayLift('keyword', 'sms', { kind: 'lead', channel: 'email' })).toBe(false); // START by email is not START by text
    expect(mayLift('voice', 'voice', { kind: 'lead', channel: 'sms' })).toBe(false); // asked on a call: not lifted by START
    expect(mayLift('dnc', 'sms', { kind: 'api' })).toBe(false);
    expect(mayLift('dnc', 'email', { kind: 'dnc-removal' })).toBe(false);
    expect(mayLift('bounce', 'email', { kind: 'api' })).toBe(true);
    expect(mayLift('link', 'email', { kind: 'api' })).toBe(false);
    expect(mayLift('complaint', 'email', { kind: 'lead', channel: 'email' })).toBe(false);
    expect(mayLift(null, 'email', { kind: 'dnc-removal' })).toBe(true);
  });

  it('judges a lifter by its kind, whatever else the object carries (structural typing lets extra fields through)', () => {
    const api = { kind: 'api' as const, channel: 'sms' as const };
    const removal = { kind: 'dnc-removal' as const, channel: 'sms' as const };
    for (const source of ['keyword', 'phrase', 'message', 'ai']) {
      expect(mayLift(source, 'sms', api), source).toBe(false);
      expect(mayLift(source, 'voice', removal), source).toBe(false);
    }
    const lead = { kind: 'lead' as const, channel: 'sms' as const, extra: true };
    expect(mayLift('api', 'sms', lead)).toBe(false);
    expect(mayLift('dnc', 'sms', lead)).toBe(false);
  });
});

/** Hardest to lift last; sources on one line are equally hard. */
const STRENGTH_ORDER: readonly (readonly string[])[] = [
  ['api'],
  ['bounce'],
  ['ai', 'message', 'phrase'],
  ['keyword', 'carrier'],
  ['dnc'],
  ['link', 'voice', 'spoken', 'complaint'],
  ['some-future-source', 'other-unknown'], // anything unknown is treated as the hardest of all
];
const rank = (s: string): number => STRENGTH_ORDER.findIndex((line) => line.includes(s));
const ALL_SOURCES = STRENGTH_ORDER.flat();

describe('strongerSource', () => {
  it('keeps whatever comes first when nothing was recorded', () => {
    for (const next of ALL_SOURCES) expect(strongerSource(null, next)).toBe(next);
  });

  it('keeps the harder to lift of every pair; on a tie the newer one', () => {
    for (const current of ALL_SOURCES) {
      for (const next of ALL_SOURCES) {
        const want = rank(next) >= rank(current) ? next : current;
        expect(strongerSource(current, next), `${current} then ${next}`).toBe(want);
      }
    }
  });

  it("never lets an API opt-out replace the lead's own STOP, nor a STOP or DNC replace what nothing lifts", () => {
    expect(strongerSource('keyword', 'api')).toBe('keyword');
    expect(strongerSource('api', 'keyword')).toBe('keyword');
    expect(strongerSource('phrase', 'bounce')).toBe('phrase');
    expect(strongerSource('bounce', 'api')).toBe('bounce');
    expect(strongerSource('ai', 'message')).toBe('message');
    expect(strongerSource('message', 'ai')).toBe('ai');
    expect(strongerSource('keyword', 'link')).toBe('link');
    expect(strongerSource('voice', 'keyword')).toBe('voice');
    expect(strongerSource('spoken', 'keyword')).toBe('spoken');
    expect(strongerSource('complaint', 'voice')).toBe('voice');
    expect(strongerSource('voice', 'complaint')).toBe('complaint');
    expect(strongerSource('complaint', 'dnc')).toBe('complaint');
    for (const s of ['api', 'bounce', 'ai', 'message', 'phrase', 'keyword', 'carrier'])
      expect(strongerSource('dnc', s)).toBe('dnc');
    expect(strongerSource('dnc', 'some-future-source')).toBe('some-future-source');
    expect(strongerSource('some-future-source', 'dnc')).toBe('some-future-source');
    expect(strongerSource('some-future-source', 'other-unknown')).toBe('other-unknown');
  });

  it('keeps an opt-out nothing lifts whatever comes after it or before it (read from mayLift)', () => {
    const lifters: Lifter[] = [
      { kind: 'api' },
      { kind: 'dnc-removal' },
      { kind: 'lead', channel: 'sms' },
      { kind: 'lead', channel: 'voice' },
      { kind: 'lead', channel: 'email' },
    ];
    const channels = ['sms', 'voice', 'email'] as const;
    const liftable = (source: string) => channels.some((c) => lifters.some((by) => mayLift(source, c, by)));
    for (const a of OPT_OUT_SOURCES)
      for (const b of OPT_OUT_SOURCES)
        if (!liftable(a) || !liftable(b))
          expect(liftable(strongerSource(a, b)), `${a} then ${b} keeps ${strongerSource(a, b)}`).toBe(false);
  });
});
