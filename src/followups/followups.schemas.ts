import { Type, type Static } from '@sinclair/typebox';

/**
 * The follow-up fields of update lead, as the hosted service's reference
 * documents them (docs.apten.ai/api-reference/leads/update): `followUpConfig`
 * maps step numbers ("1", "2", ...) to `{hours, channel, voicemailEnabled?,
 * strategyIds?}`; `followUpStep` schedules a step, or -1 (stopped) / -2
 * (long-term nurture). The rule the schema cannot say (voicemailEnabled only
 * for call) is checked in cadence.ts.
 */

/** The most steps one cadence may have. */
export const MAX_STEPS = 20;
/** A step waits at most a year. */
export const MAX_HOURS = 8784;

export const STOPPED = -1;
export const LONG_TERM = -2;

const STEP_SENTENCE =
  'must be a positive step number (1, 2, 3, ...), -1 to stop follow-ups or -2 for long-term nurture';

export const FollowUpChannel = Type.Union(
  [Type.Literal('text'), Type.Literal('call'), Type.Literal('email'), Type.Literal('sms'), Type.Literal('voice')],
  {
    description: 'text (sms), call (voice) or email; Parley also reads its own names sms and voice',
  },
);
export type FollowUpChannelInput = Static<typeof FollowUpChannel>;

export const FollowUpStepConfig = Type.Object(
  {
    hours: Type.Number({
      exclusiveMinimum: 0,
      maximum: MAX_HOURS,
      description: 'Hours after the last message to the lead (without a reply) that this step goes out',
      errorMessage: `must be a number of hours greater than 0 and at most ${MAX_HOURS} (a year)`,
    }),
    channel: FollowUpChannel,
    voicemailEnabled: Type.Optional(
      Type.Boolean({ description: 'Only for call: leave a voicemail when the call is not answered' }),
    ),
    strategyIds: Type.Optional(
      Type.Union(
        [
          Type.String({ minLength: 1, maxLength: 200 }),
          Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 50 }),
        ],
        { description: '"auto" or a list of strategy ids (stored; Parley has no strategy catalogue)' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type FollowUpStepInput = Static<typeof FollowUpStepConfig>;

export const FollowUpConfig = Type.Record(Type.String(), FollowUpStepConfig, {
  propertyNames: {
    pattern: '^[1-9][0-9]?$',
    errorMessage: 'must have step numbers as keys ("1", "2", ... up to "99")',
  },
  maxProperties: MAX_STEPS,
  description: `Step number ("1", "2", ... up to ${MAX_STEPS}) to {hours, channel, voicemailEnabled?, strategyIds?}. An empty object removes the cadence.`,
});
export type FollowUpConfigInput = Static<typeof FollowUpConfig>;

export const FollowUpStep = Type.Union(
  [
    Type.Integer({ minimum: 1, maximum: 99, errorMessage: STEP_SENTENCE }),
    Type.Literal(STOPPED),
    Type.Literal(LONG_TERM),
  ],
  {
    description: 'Schedule this step now + its hours; -1 stops follow-ups; -2 moves the lead to long-term nurture',
    errorMessage: STEP_SENTENCE,
  },
);

/** The follow-up fields of the update-lead body (leads.schemas.ts spreads them in). */
export const FollowUpUpdateFields = {
  followUpConfig: Type.Optional(FollowUpConfig),
  followUpStep: Type.Optional(FollowUpStep),
};

export interface FollowUpUpdate {
  followUpConfig?: FollowUpConfigInput;
  followUpStep?: number;
}

/** What the lead view shows of the cadence (Parley's additions to the documented lead). */
export const FollowUpViewFields = {
  followUpConfig: Type.Union([FollowUpConfig, Type.Null()], {
    description: 'The cadence as last written; null when none',
  }),
  followUpStep: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The step the cadence is at (the next to go out); -1 stopped; -2 long-term nurture; null none',
  }),
  nextFollowUpAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When followUpStep goes out; null when nothing is scheduled',
  }),
  followUpNote: Type.Union([Type.String(), Type.Null()], {
    description: 'What last happened to the cadence, e.g. why a step did not go out',
  }),
};

export interface FollowUpView {
  followUpConfig: FollowUpConfigInput | null;
  followUpStep: number | null;
  nextFollowUpAt: string | null;
  followUpNote: string | null;
}
