import { loadAgentInput } from './context.js';
import { checkActions } from './provider.js';
import { agentFor } from './registry.js';
import { holdsLease } from '../jobs/jobs.repository.js';
import type { ClaimedJob, FollowUpPayload, JobOutcome } from '../jobs/names.js';
import { findLead, updateLead, type LeadRow } from '../lead-records/leads.repository.js';
import { byLiveCall, scheduleSend } from '../messages/send.service.js';
import type { ChannelName } from '../lead-records/channels.js';
import { queueFollowUpCall } from '../call-records/waiting-calls.js';
import type { Db } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { channelOf, isDue, stepHandled, stop, type CadenceState } from '../followups/cadence.js';
import { cadenceOf, columnsOf } from '../followups/followups.mapper.js';
import { markFollowUpMessage } from '../followups/followups.repository.js';

/**
 * The `followup.send` job: the lead's due follow-up step. It sits beside the
 * agent's turn and opening (it asks the agent, so the worker's catalog runs it
 * and no capability imports it; the cadence's rules and columns stay in
 * followups/). In order:
 *
 * 1. under the job's fence and the lead's lock: is the step still due for the
 *    generation this job was made for? A reset, a reply, a stop since then
 *    makes the job a no-op. The AI off stops the cadence (a follow-up is an
 *    automated send; the gate would block it anyway).
 * 2. outside any lock: the agent writes the step's message from what it
 *    knows of the lead and the conversation so far; only its `reply` is used.
 * 3. under the fence and the lock again, the generation unchanged: the message
 *    is recorded as the step's (is_follow_up, follow_up_step) and its send
 *    scheduled like any other, so the compliance gate judges it when it goes
 *    out. When the agent has nothing to say, the lead shows why.
 *
 * The next step is scheduled when this message is actually sent
 * (followUpAfterSend, from channels/outbound.ts).
 */

function instruction(step: number, channel: string, hours: number): string {
  const wait = hours === 1 ? 'an hour' : `${hours} hours`;
  return `Follow-up ${step}: the lead has not answered for ${wait} since the last message. Write one short follow-up message for ${channel === 'voice' ? 'a phone call' : channel === 'email' ? 'an email' : 'a text message'} that picks up the conversation where it stopped, and send it with reply. Do nothing else.`;
}

type Gate = { kind: 'stale' } | { kind: 'early'; until: Date } | { kind: 'go'; lead: LeadRow; state: CadenceState };

/** Step 1 and step 3's check: the fence, the lead, the generation. Writes the AI-off stop itself. */
async function check(trx: Db, job: ClaimedJob & { payload: FollowUpPayload }, now: Date): Promise<Gate> {
  if (!(await holdsLease(trx, job, now.toISOString()))) return { kind: 'stale' };
  const lead = await findLead(trx, job.organizationId, job.payload.leadId, true);
  if (!lead) return { kind: 'stale' };
  const state = cadenceOf(lead);
  const due = isDue(state, job.payload.generation, now);
  if (due === 'stale') return { kind: 'stale' };
  // biome-ignore lint/style/noNonNullAssertion: isDue() answers 'early' only for a state with a dueAt
  if (due === 'early') return { kind: 'early', until: new Date(state.dueAt!) };
  if (lead.is_ai_on !== 1) {
    await updateLead(
      trx,
      job.organizationId,
      lead.id,
      columnsOf(stop(state, `stopped at step ${state.step}: AI is off for this lead`)),
    );
    return { kind: 'stale' };
  }
  return { kind: 'go', lead, state };
}

async function record(
  deps: Deps,
  job: ClaimedJob & { payload: FollowUpPayload },
  note: (state: CadenceState) => string,
): Promise<void> {
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    const gate = await check(trx, job, now);
    if (gate.kind !== 'go') return;
    await updateLead(trx, job.organizationId, gate.lead.id, columnsOf(stepHandled(gate.state, note(gate.state))));
  });
}

export async function runFollowUp(
  deps: Deps,
  job: ClaimedJob & { payload: FollowUpPayload },
  lastAttempt: boolean,
): Promise<JobOutcome> {
  const done: JobOutcome = { kind: 'done' };
  const first = await deps.db.transaction().execute((trx) => check(trx, job, deps.clock.now()));
  if (first.kind === 'stale') return done;
  if (first.kind === 'early') return { kind: 'defer', until: first.until, reason: 'follow-up step not due yet' };
  const { lead, state } = first;
  // biome-ignore lint/style/noNonNullAssertion: check() answers 'go' only when isDue() found a step >= 1
  const step = state.step!;
  // biome-ignore lint/style/noNonNullAssertion: check() answers 'go' only when isDue() found a config, and its step is one of the config's keys
  const stepConfig = state.config![String(step)]!;
  const channel = channelOf(stepConfig.channel);

  let text: string | undefined;
  try {
    const { input } = await loadAgentInput(deps.db, job.organizationId, lead, deps.clock.now());
    // The step's instruction is the turn's only command: the organization's pending addContext commands wait for a real turn.
    const actions = checkActions(
      await agentFor(deps.config).decide({ ...input, commands: [instruction(step, channel, stepConfig.hours)] }),
    );
    text = actions.find((a) => a.type === 'reply')?.text;
  } catch (err) {
    if (!lastAttempt) throw err;
    const why = (err instanceof Error ? err.message : String(err)).slice(0, 300);
    await record(deps, job, (s) => `step ${s.step} not sent: the agent could not write it (${why})`);
    return done;
  }
  if (text === undefined) {
    const agent = agentFor(deps.config).name;
    await record(
      deps,
      job,
      (s) =>
        `step ${s.step} not sent: the ${agent} agent had nothing to say${agent === 'scripted' ? " (the scripted agent only asks its profile's questions)" : ''}`,
    );
    return done;
  }
  // Narrowed here: the transaction's callback below cannot see the check above.
  const said = text;

  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    const gate = await check(trx, job, now);
    if (gate.kind !== 'go' || gate.state.step !== step) return;
    // A call step is a live call as every voice message is (byLiveCall): the message is its greeting, the agent holds
    // the conversation. A lead without a phone has no call to queue: its step is a message the gate blocks (NO_ADDRESS).
    const byCall = byLiveCall(deps, channel) && gate.lead.phone !== null;
    const written = byCall
      ? `call ${await queueFollowUpCall(trx, job.organizationId, gate.lead, step, said, stepConfig.voicemailEnabled, now)}`
      : `message ${await sendStep(trx, job.organizationId, gate.lead, channel, said, step, now)}`;
    const after = byCall ? 'dialled' : 'sent';
    await updateLead(
      trx,
      job.organizationId,
      gate.lead.id,
      columnsOf(
        stepHandled(
          gate.state,
          `step ${step} written at ${now.toISOString()} (${written}); the next step waits until it is ${after}`,
        ),
      ),
    );
  });
  return done;
}

/** A step's message, queued to go now and marked as that step: answers its id. */
async function sendStep(
  trx: Db,
  organizationId: string,
  lead: LeadRow,
  channel: ChannelName,
  text: string,
  step: number,
  now: Date,
): Promise<string> {
  const id = await scheduleSend(trx, {
    organizationId,
    lead,
    channel,
    text,
    runAt: now,
    sendWhenOff: false,
    isAiGenerated: true,
    now: now.toISOString(),
  });
  await markFollowUpMessage(trx, organizationId, id, step);
  return id;
}
