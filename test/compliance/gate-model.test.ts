import fc from 'fast-check';
import { expect, it } from 'vitest';
import { createLead, describeEachDialect, uniquePhone, type TestServer } from '../support/harness.js';

/**
 * A model-based property test of the compliance gate, through the real API
 * and database: random sequences of lead keywords, API opt-outs and lifts,
 * DNC changes, settings changes and clock moves, each followed by a send
 * whose answer (what the gate decided) must equal what a small reference
 * model allows. No send goes out that the model forbids; none the model
 * allows is refused or lost.
 */

type Channel = 'sms' | 'voice' | 'email';
type Sub = { on: boolean; source: string | null };
interface Model {
  subs: Record<Channel, Sub>;
  dnc: boolean;
  coupled: boolean;
  hours: { start: string; end: string };
  at: Date;
}

const ZONE = 'America/Chicago';

type Command =
  | { kind: 'stop' }
  | { kind: 'start' }
  | { kind: 'unsubscribe'; channels: Channel[] }
  | { kind: 'resubscribe'; channels: Channel[] }
  | { kind: 'dncAdd' }
  | { kind: 'dncRemove' }
  | { kind: 'coupling'; on: boolean }
  | { kind: 'hours'; start: string; end: string }
  | { kind: 'clock'; at: Date }
  | { kind: 'send'; channel: Channel };

const channels = fc.uniqueArray(fc.constantFrom<Channel>('sms', 'voice', 'email'), { minLength: 1, maxLength: 3 });
const clockTime = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 30))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.constant<Command>({ kind: 'stop' }),
  fc.constant<Command>({ kind: 'start' }),
  channels.map((c): Command => ({ kind: 'unsubscribe', channels: c })),
  channels.map((c): Command => ({ kind: 'resubscribe', channels: c })),
  fc.constant<Command>({ kind: 'dncAdd' }),
  fc.constant<Command>({ kind: 'dncRemove' }),
  fc.boolean().map((on): Command => ({ kind: 'coupling', on })),
  fc.tuple(clockTime, clockTime).map(([start, end]): Command => ({ kind: 'hours', start, end })),
  fc
    .date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2026-12-31T00:00:00Z'), noInvalidDate: true })
    .map((at): Command => ({ kind: 'clock', at })),
  fc.constantFrom<Channel>('sms', 'voice', 'email').map((channel): Command => ({ kind: 'send', channel })),
);

const widen = (m: Model, cs: Channel[]): Channel[] => {
  const set = new Set(cs);
  if (m.coupled && (set.has('sms') || set.has('voice'))) set.add('sms').add('voice');
  return (['sms', 'voice', 'email'] as const).filter((c) => set.has(c));
};

/** Minutes since local midnight in the lead's zone, by Intl (independent of the code under test). */
function localMinutes(at: Date): number {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: ZONE,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  return (
    Number(parts.find((p) => p.type === 'hour')!.value) * 60 + Number(parts.find((p) => p.type === 'minute')!.value)
  );
}
const mins = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3));
function insideHours(m: Model): boolean {
  const [s, e, now] = [mins(m.hours.start), mins(m.hours.end), localMinutes(m.at)];
  // The legal floor, 08:00-21:00 where the lead is, whatever the organization's hours.
  if (now < 8 * 60 || now >= 21 * 60) return false;
  if (s === e) return true;
  return s < e ? now >= s && now < e : now >= s || now < e;
}

/** What the gate must answer for a send on `channel` in the model's state. */
function expected(m: Model, channel: Channel): { status: string; statusCode: string | null } {
  if (!m.subs[channel].on) return { status: 'blocked', statusCode: 'OPTED_OUT' };
  if (channel !== 'email' && m.dnc) return { status: 'blocked', statusCode: 'DNC' };
  if (!insideHours(m)) return { status: 'waiting', statusCode: 'CONTACT_HOURS' };
  return { status: 'scheduled', statusCode: null };
}

async function apply(
  ts: TestServer,
  m: Model,
  leadId: string,
  phone: string,
  c: Command,
  log: string[],
): Promise<void> {
  const api = ts.acme;
  switch (c.kind) {
    case 'stop': {
      await api.post('/inbound', { channel: 'sms', from: phone, text: 'STOP' });
      // The lead's STOP is harder to lift than any API opt-out it lands on: the source becomes keyword either way.
      for (const ch of widen(m, ['sms'])) m.subs[ch] = { on: false, source: 'keyword' };
      return;
    }
    case 'start': {
      await api.post('/inbound', { channel: 'sms', from: phone, text: 'START' });
      for (const ch of widen(m, ['sms']))
        if (!m.subs[ch].on && m.subs[ch].source === 'keyword') m.subs[ch] = { on: true, source: null };
      return;
    }
    case 'unsubscribe': {
      const res = await api.post(`/leads/${leadId}/unsubscribe`, { channels: c.channels });
      expect(res.status, log.join('\n')).toBe(200);
      for (const ch of widen(m, c.channels)) if (m.subs[ch].on) m.subs[ch] = { on: false, source: 'api' };
      return;
    }
    case 'resubscribe': {
      const applied = widen(m, c.channels);
      const locked = applied.some((ch) => !m.subs[ch].on && m.subs[ch].source !== 'api');
      const res = await api.post(`/leads/${leadId}/resubscribe`, { channels: c.channels });
      expect(res.status, log.join('\n')).toBe(locked ? 409 : 200);
      if (!locked) for (const ch of applied) m.subs[ch] = { on: true, source: null };
      return;
    }
    case 'dncAdd':
      expect((await api.post('/dnc/register', { phone })).status).toBe(200);
      m.dnc = true;
      return;
    case 'dncRemove':
      await api.post('/dnc/remove', { phone });
      m.dnc = false;
      return;
    case 'coupling':
      await api.patch('/settings', { smsVoiceOptOutCoupled: c.on });
      m.coupled = c.on;
      return;
    case 'hours':
      await api.patch('/settings', { contactHours: { start: c.start, end: c.end } });
      m.hours = { start: c.start, end: c.end };
      return;
    case 'clock':
      ts.clock.set(c.at);
      m.at = c.at;
      return;
    case 'send': {
      const res = await api.post(`/leads/${leadId}/sendMessage`, {
        message: 'model check',
        channel: c.channel,
        sendWhenOff: true,
      });
      expect(res.status, log.join('\n')).toBe(200);
      // The clock runs between the move and the send: judge the model at the instant the server used.
      m.at = ts.clock.now();
      expect({ status: res.body.status, statusCode: res.body.statusCode }, log.join('\n')).toEqual(
        expected(m, c.channel),
      );
    }
  }
}

describeEachDialect('the compliance gate against a reference model', (ctx) => {
  it('answers every send as the model does, through any sequence of opt-outs, lifts, DNC, settings and clock moves', async () => {
    const ts = ctx();
    await ts.acme.patch('/settings', {
      regionalRules: false,
      contactDays: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'],
      holidays: [],
    });
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 14 }), async (commands) => {
        const phone = uniquePhone();
        const leadId = await createLead(ts.acme, {
          phone,
          email: `model-${phone.slice(1)}@example.com`,
          timeZone: ZONE,
        });
        await ts.acme.patch('/settings', {
          smsVoiceOptOutCoupled: false,
          contactHours: { start: '08:00', end: '21:00' },
        });
        ts.clock.set('2026-03-04T18:00:00Z');
        const model: Model = {
          subs: {
            sms: { on: true, source: null },
            voice: { on: true, source: null },
            email: { on: true, source: null },
          },
          dnc: false,
          coupled: false,
          hours: { start: '08:00', end: '21:00' },
          at: ts.clock.now(),
        };
        const log: string[] = [];
        for (const c of [
          ...commands,
          { kind: 'send', channel: 'sms' } as Command,
          { kind: 'send', channel: 'email' } as Command,
        ]) {
          log.push(JSON.stringify(c));
          await apply(ts, model, leadId, phone, c, log);
        }
      }),
      {
        numRuns: Number(process.env.GATE_MODEL_RUNS ?? 25),
        seed: Number(process.env.GATE_MODEL_SEED ?? 20261123),
        endOnFailure: true,
      },
    );
    ts.clock.reset();
  }, 240_000);
});
