import { DomainError } from '../platform/errors.js';
import type { ChannelName } from '../lead-records/channels.js';
import {
  LONG_TERM,
  STOPPED,
  type FollowUpChannelInput,
  type FollowUpConfigInput,
  type FollowUpUpdate,
} from './followups.schemas.js';

/**
 * The scheduling rules of the follow-up cadence, as pure functions of the
 * lead's cadence state: no clock, no database. The service applies them under
 * the lead's lock and enqueues a job whenever a step gets a due time; the job
 * fires only while the lead's generation is still the one it was made for.
 *
 * The reference (docs.apten.ai/api-reference/leads/update) fixes the update
 * rules: "the timer always resets to now + hours"; step only schedules that
 * step; config only reschedules with the new timing, keeping the current step;
 * both is a full reset at the given step; -1 stops; -2 is long-term nurture.
 * Parley adds what happens between updates: a message to the lead that gets
 * no reply lets the next step go out its hours later; a reply puts the cadence
 * back to its first step, waiting for the next message; an opt-out or the AI
 * being off stops it; after the last step the lead is in long-term nurture.
 */

export interface CadenceState {
  config: FollowUpConfigInput | null;
  /** The step the cadence is at (the next to go out); STOPPED, LONG_TERM or null. */
  step: number | null;
  /** ISO time that step fires; null when nothing is scheduled. */
  dueAt: string | null;
  generation: number;
  note: string | null;
}

const HOUR_MS = 3_600_000;

export const channelOf = (c: FollowUpChannelInput): ChannelName => (c === 'text' ? 'sms' : c === 'call' ? 'voice' : c);

/** The configured step numbers, ascending. */
export function stepsOf(config: FollowUpConfigInput | null): number[] {
  return config
    ? Object.keys(config)
        .map(Number)
        .sort((a, b) => a - b)
    : [];
}

export const hasStep = (config: FollowUpConfigInput | null, step: number): boolean => stepsOf(config).includes(step);

/** The step after `step` (the next higher number configured), if any. */
export const nextStep = (config: FollowUpConfigInput | null, step: number): number | undefined =>
  stepsOf(config).find((s) => s > step);

export const firstStep = (config: FollowUpConfigInput | null): number | undefined => stepsOf(config)[0];

export function dueAfter(config: FollowUpConfigInput, step: number, from: Date): string {
  // biome-ignore lint/style/noNonNullAssertion: callers pass a step taken from stepsOf(config) or checked with hasStep
  return new Date(from.getTime() + Math.round(config[String(step)]!.hours * HOUR_MS)).toISOString();
}

const list = (steps: number[]) => (steps.length === 0 ? 'none' : steps.join(', '));

/** What TypeBox cannot say about a config: voicemail belongs to calls. Throws the sentence the client reads. */
export function checkConfig(config: FollowUpConfigInput): void {
  for (const step of stepsOf(config)) {
    // biome-ignore lint/style/noNonNullAssertion: step comes from the keys of config
    const s = config[String(step)]!;
    if (s.voicemailEnabled !== undefined && channelOf(s.channel) !== 'voice') {
      throw new DomainError('invalid_follow_up', {
        detail: `followUpConfig step ${step}: voicemailEnabled is only valid for the call channel, not ${s.channel}`,
      });
    }
  }
}

/** The state after an update of followUpConfig and/or followUpStep at `now`; throws a BadRequest (nothing changes) when it cannot apply. */
export function applyUpdate(state: CadenceState, update: FollowUpUpdate, now: Date): CadenceState {
  const { followUpConfig: newConfig, followUpStep: newStep } = update;
  if (newConfig === undefined && newStep === undefined) return state;
  if (newConfig !== undefined) checkConfig(newConfig);
  const config = newConfig === undefined ? state.config : stepsOf(newConfig).length === 0 ? null : newConfig;
  const generation = state.generation + 1;
  const at = now.toISOString();

  if (newStep !== undefined) {
    if (newStep === STOPPED)
      return { config, step: STOPPED, dueAt: null, generation, note: `stopped by the API at ${at}` };
    if (newStep === LONG_TERM)
      return {
        config,
        step: LONG_TERM,
        dueAt: null,
        generation,
        note: `moved to long-term nurture by the API at ${at}`,
      };
    if (!config)
      throw new DomainError('invalid_follow_up', {
        detail: `followUpStep ${newStep} needs a followUpConfig: the lead has none`,
      });
    if (!hasStep(config, newStep)) {
      throw new DomainError('invalid_follow_up', {
        detail: `followUpStep ${newStep} is not a step of followUpConfig (steps: ${list(stepsOf(config))})`,
      });
    }
    return { config, step: newStep, dueAt: dueAfter(config, newStep, now), generation, note: null };
  }

  // followUpConfig only: the current step keeps its place, with the new timing from now.
  if (!config)
    return { config: null, step: null, dueAt: null, generation, note: `follow-ups removed by the API at ${at}` };
  if (state.step === STOPPED || state.step === LONG_TERM) return { ...state, config };
  // biome-ignore lint/style/noNonNullAssertion: applyUpdate() keeps an empty config as null, so a config has a first step
  const step = state.step ?? firstStep(config)!;
  if (!hasStep(config, step)) {
    throw new DomainError('invalid_follow_up', {
      detail: `followUpConfig has no step ${step}, the step the lead's follow-ups are at (steps: ${list(stepsOf(config))}); send followUpStep with it to choose where to restart`,
    });
  }
  return { config, step, dueAt: dueAfter(config, step, now), generation, note: null };
}

export interface SentMessage {
  /** Sent by the cadence, as this step. */
  followUpStep: number | null;
  /** A message that (re)starts the wait for a reply: the AI's own messages, and sends that asked for follow-ups. */
  arms: boolean;
}

/** A message went out to the lead at `sentAt`: the next step waits for a reply from then. */
export function afterSent(state: CadenceState, msg: SentMessage, sentAt: Date): CadenceState {
  const { config } = state;
  if (!config || state.step === STOPPED || state.step === LONG_TERM) return state;
  const generation = state.generation + 1;
  if (msg.followUpStep !== null) {
    // Only the step the cadence is at moves it on (the API may have moved it elsewhere meanwhile). The step is
    // still this one even when another message re-armed it while its own was in flight: it went out, so the
    // next step follows, and the lead never gets the same step twice.
    if (state.step !== msg.followUpStep) return state;
    const next = nextStep(config, msg.followUpStep);
    if (next === undefined) {
      return {
        config,
        step: LONG_TERM,
        dueAt: null,
        generation,
        note: `step ${msg.followUpStep} was the last: long-term nurture`,
      };
    }
    return { config, step: next, dueAt: dueAfter(config, next, sentAt), generation, note: null };
  }
  if (!msg.arms) return state;
  // biome-ignore lint/style/noNonNullAssertion: applyUpdate() keeps an empty config as null, so a config has a first step
  const step = state.step ?? firstStep(config)!;
  if (!hasStep(config, step)) return state;
  return { config, step, dueAt: dueAfter(config, step, sentAt), generation, note: null };
}

/** The lead wrote: nothing more goes out unanswered; the cadence restarts at its first step after the next message to the lead. */
export function afterReply(state: CadenceState, at: Date): CadenceState {
  const { config } = state;
  if (!config || state.step === STOPPED || state.step === LONG_TERM) return state;
  // biome-ignore lint/style/noNonNullAssertion: applyUpdate() keeps an empty config as null, so a config has a first step
  const first = firstStep(config)!;
  if (state.step === first && state.dueAt === null) return state;
  return {
    config,
    step: first,
    dueAt: null,
    generation: state.generation + 1,
    note: `the lead replied at ${at.toISOString()}: follow-ups wait for the next message to the lead`,
  };
}

/** Stops the cadence for good (until the API schedules a step again), saying why. */
export function stop(state: CadenceState, why: string): CadenceState {
  if (!state.config && state.step === null) return state;
  if (state.step === STOPPED && state.dueAt === null) return state;
  return { ...state, step: STOPPED, dueAt: null, generation: state.generation + 1, note: why };
}

/** The step's message is recorded (or could not be): nothing is scheduled until it goes out. */
export function stepHandled(state: CadenceState, note: string): CadenceState {
  return { ...state, dueAt: null, generation: state.generation + 1, note };
}

/** Whether a job made for `generation` should fire now. */
export function isDue(state: CadenceState, generation: number, now: Date): 'fire' | 'stale' | 'early' {
  if (state.generation !== generation || state.step === null || state.step < 1 || state.dueAt === null || !state.config)
    return 'stale';
  return new Date(state.dueAt).getTime() <= now.getTime() ? 'fire' : 'early';
}
