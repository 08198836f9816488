import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  afterReply,
  afterSent,
  applyUpdate,
  isDue,
  stepHandled,
  stepsOf,
  stop,
  type CadenceState,
} from '../../src/followups/cadence.js';
import type { FollowUpConfigInput, FollowUpUpdate } from '../../src/followups/followups.schemas.js';
import { DomainError } from '../../src/platform/errors.js';

/**
 * The scheduling rules of src/followups/cadence.ts, property by property:
 * the three update cases of the reference ("the timer always resets to now +
 * hours"), and over any sequence of updates, sends, replies, stops and fired
 * steps, the invariants the fenced job relies on.
 */

const HOUR = 3_600_000;
const NOW = new Date('2026-07-01T19:00:00.000Z');

const stepConfig = fc.record({
  hours: fc.oneof(
    fc.integer({ min: 1, max: 8784 }),
    fc.double({ min: 0.01, max: 500, noNaN: true, noDefaultInfinity: true }),
  ),
  channel: fc.constantFrom('text' as const, 'call' as const, 'email' as const),
});
const config: fc.Arbitrary<FollowUpConfigInput> = fc.dictionary(
  fc.integer({ min: 1, max: 8 }).map(String),
  stepConfig,
  { minKeys: 1, maxKeys: 5 },
);
const stepValue = fc.oneof(fc.integer({ min: 1, max: 9 }), fc.constantFrom(-1, -2));
const update: fc.Arbitrary<FollowUpUpdate> = fc.record(
  { followUpConfig: config, followUpStep: stepValue },
  { requiredKeys: [] },
);

const EMPTY: CadenceState = { config: null, step: null, dueAt: null, generation: 0, note: null };
const hoursAt = (c: FollowUpConfigInput, step: number) => c[String(step)]!.hours;
const dueFrom = (from: Date, hours: number) => new Date(from.getTime() + Math.round(hours * HOUR)).toISOString();

/** Applies an update, or keeps the state when it is refused (as the API would: 400, nothing changes). */
function tryUpdate(s: CadenceState, u: FollowUpUpdate, now: Date): CadenceState {
  try {
    return applyUpdate(s, u, now);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).status).toBe(400);
    return s;
  }
}

type Op =
  | { kind: 'update'; u: FollowUpUpdate }
  | { kind: 'sent'; followUp: boolean; arms: boolean }
  | { kind: 'reply' }
  | { kind: 'stop' }
  | { kind: 'handled' }
  | { kind: 'wait'; hours: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  update.map((u) => ({ kind: 'update' as const, u })),
  fc.record({ kind: fc.constant('sent' as const), followUp: fc.boolean(), arms: fc.boolean() }),
  fc.constant({ kind: 'reply' as const }),
  fc.constant({ kind: 'stop' as const }),
  fc.constant({ kind: 'handled' as const }),
  fc.record({ kind: fc.constant('wait' as const), hours: fc.integer({ min: 1, max: 200 }) }),
);

function step(s: CadenceState, o: Op, now: Date): CadenceState {
  switch (o.kind) {
    case 'update':
      return tryUpdate(s, o.u, now);
    case 'sent':
      return afterSent(
        s,
        { followUpStep: o.followUp && s.step !== null && s.step > 0 ? s.step : null, arms: o.arms },
        now,
      );
    case 'reply':
      return afterReply(s, now);
    case 'stop':
      return stop(s, 'stopped');
    case 'handled':
      return s.dueAt === null ? s : stepHandled(s, 'handled');
    case 'wait':
      return s;
  }
}

describe('followups/cadence.ts: the update rules of docs.apten.ai/api-reference/leads/update', () => {
  it('followUpStep only schedules that step at now + its hours, keeping the config', () => {
    fc.assert(
      fc.property(config, fc.integer({ min: 0, max: 50 }), (c, gen) => {
        const s: CadenceState = { config: c, step: null, dueAt: null, generation: gen, note: null };
        for (const n of stepsOf(c)) {
          const r = applyUpdate(s, { followUpStep: n }, NOW);
          expect(r).toEqual({
            config: c,
            step: n,
            dueAt: dueFrom(NOW, hoursAt(c, n)),
            generation: gen + 1,
            note: null,
          });
        }
      }),
    );
  });

  it('followUpConfig only keeps the current step and takes its new hours from now', () => {
    fc.assert(
      fc.property(config, config, (before, after) => {
        const shared = stepsOf(before).filter((n) => stepsOf(after).includes(n));
        fc.pre(shared.length > 0);
        const current = shared[0]!;
        const s: CadenceState = {
          config: before,
          step: current,
          dueAt: '2026-01-01T00:00:00.000Z',
          generation: 3,
          note: 'x',
        };
        const r = applyUpdate(s, { followUpConfig: after }, NOW);
        expect(r).toMatchObject({
          config: after,
          step: current,
          dueAt: dueFrom(NOW, hoursAt(after, current)),
          generation: 4,
        });
      }),
    );
  });

  it('both is a full reset: the new config at the given step, from now', () => {
    fc.assert(
      fc.property(fc.option(config, { nil: null }), config, stepValue, (before, after, n) => {
        const s: CadenceState = {
          config: before,
          step: before ? stepsOf(before)[0]! : null,
          dueAt: null,
          generation: 1,
          note: null,
        };
        if (n > 0 && !stepsOf(after).includes(n)) {
          expect(() => applyUpdate(s, { followUpConfig: after, followUpStep: n }, NOW)).toThrow(DomainError);
          return;
        }
        const r = applyUpdate(s, { followUpConfig: after, followUpStep: n }, NOW);
        expect(r.config).toEqual(after);
        expect(r.step).toBe(n);
        expect(r.dueAt).toBe(n > 0 ? dueFrom(NOW, hoursAt(after, n)) : null);
        expect(r.generation).toBe(2);
      }),
    );
  });

  it('-1 and -2 leave nothing due, with or without a config', () => {
    fc.assert(
      fc.property(fc.option(config, { nil: null }), fc.constantFrom(-1, -2), (c, n) => {
        const r = applyUpdate({ ...EMPTY, config: c, step: 1, dueAt: NOW.toISOString() }, { followUpStep: n }, NOW);
        expect(r).toMatchObject({ step: n, dueAt: null, config: c });
      }),
    );
  });
});

describe('followups/cadence.ts: invariants over any history', () => {
  it('a due step is always a configured step; every change of what is due makes earlier jobs stale; only the current generation fires', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        let s = EMPTY;
        let now = NOW;
        for (const o of ops) {
          if (o.kind === 'wait') now = new Date(now.getTime() + o.hours * HOUR);
          const next = step(s, o, now);
          expect(next.generation).toBeGreaterThanOrEqual(s.generation);
          if (next.dueAt !== s.dueAt || next.step !== s.step) expect(next.generation).toBeGreaterThan(s.generation);
          if (next.dueAt !== null) {
            expect(next.step).toBeGreaterThan(0);
            expect(stepsOf(next.config)).toContain(next.step);
          }
          if (next.step === -1 || next.step === -2) expect(next.dueAt).toBeNull();
          // A job made for an older generation never fires, whatever the time.
          for (let g = 0; g < next.generation; g += 1)
            expect(isDue(next, g, new Date(now.getTime() + 10_000 * HOUR))).toBe('stale');
          if (next.dueAt !== null) {
            expect(isDue(next, next.generation, new Date(next.dueAt))).toBe('fire');
            expect(isDue(next, next.generation, new Date(new Date(next.dueAt).getTime() - 1))).toBe('early');
          } else {
            expect(isDue(next, next.generation, new Date(now.getTime() + 10_000 * HOUR))).toBe('stale');
          }
          s = next;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a reply, a stop or a handled step leaves nothing due; a stop holds until the API schedules a step again', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 20 }), (ops) => {
        let s = EMPTY;
        for (const o of ops) s = step(s, o, NOW);
        expect(afterReply(s, NOW).dueAt).toBeNull();
        expect(stepHandled(s, 'x').dueAt).toBeNull();
        const stopped = stop(s, 'why');
        expect(stopped.dueAt).toBeNull();
        // Nothing to stop (no cadence was ever set): the state stays as it is.
        if (s.config === null && s.step === null) {
          expect(stopped).toBe(s);
          return;
        }
        expect(stopped.step).toBe(-1);
        expect(afterSent(stopped, { followUpStep: null, arms: true }, NOW)).toBe(stopped);
        expect(afterReply(stopped, NOW)).toBe(stopped);
        expect(
          applyUpdate(stopped, { followUpConfig: stopped.config ?? { 1: { hours: 1, channel: 'text' } } }, NOW).dueAt,
        ).toBeNull();
      }),
    );
  });

  it('the cadence walks its steps in order, each from the moment the previous one was sent, and ends in long-term nurture', () => {
    fc.assert(
      fc.property(config, (c) => {
        const steps = stepsOf(c);
        let s = applyUpdate(EMPTY, { followUpConfig: c }, NOW);
        let now = NOW;
        for (const [i, n] of steps.entries()) {
          expect(s.step).toBe(n);
          expect(s.dueAt).toBe(dueFrom(now, hoursAt(c, n)));
          now = new Date(s.dueAt!);
          s = stepHandled(s, 'written');
          now = new Date(now.getTime() + 1000); // sent a second later
          s = afterSent(s, { followUpStep: n, arms: true }, now);
          if (i === steps.length - 1) expect(s).toMatchObject({ step: -2, dueAt: null });
        }
      }),
    );
  });
});

describe('followups/cadence.ts: a step in flight', () => {
  const c: FollowUpConfigInput = { 1: { hours: 2, channel: 'text' }, 2: { hours: 5, channel: 'email' } };

  it("a step's message sent after another message re-armed the same step moves on: the step never goes out twice", () => {
    let s = applyUpdate(EMPTY, { followUpConfig: c }, NOW);
    s = stepHandled(s, 'written');
    const later = new Date(NOW.getTime() + HOUR);
    s = afterSent(s, { followUpStep: null, arms: true }, later); // the AI said something meanwhile: step 1 re-armed
    expect(s).toMatchObject({ step: 1, dueAt: dueFrom(later, 2) });
    const sent = new Date(later.getTime() + 60_000);
    s = afterSent(s, { followUpStep: 1, arms: true }, sent);
    expect(s).toMatchObject({ step: 2, dueAt: dueFrom(sent, 5) });
  });

  it("a step's message sent after the API moved the cadence to another step leaves the API's choice", () => {
    let s = applyUpdate(EMPTY, { followUpConfig: c }, NOW);
    s = stepHandled(s, 'written');
    s = applyUpdate(s, { followUpStep: 2 }, NOW);
    expect(afterSent(s, { followUpStep: 1, arms: true }, NOW)).toBe(s);
  });
});
