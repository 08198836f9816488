import { consumeNotes } from '../context/context.repository.js';
import { enqueueJob } from '../jobs/jobs.repository.js';
import type { AgentTurnPayload, JobOutcome } from '../jobs/names.js';
import { findLead, type LeadRow } from '../lead-records/leads.repository.js';
import { defaultChannel } from '../lead-records/channels.js';
import type { Db } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { reachableChannels, type ChannelName } from '../lead-records/channels.js';
import { applyActions } from './apply.js';
import { loadTurnContext } from './context.js';
import { runCalendarTool, type CalendarAction } from './calendar-tools.js';
import { checkActions, isCalendarTool, type Action, type AgentInput, type AgentStep } from './provider.js';
import { agentFor } from './registry.js';
import {
  finishTurn,
  findTurnByTrigger,
  hasNewerTurn,
  insertPendingTurn,
  type AgentTurnRow,
} from './turns.repository.js';

const SUPERSEDED = 'superseded by a newer message from the lead';
const AI_OFF = 'AI is off for this lead';

/**
 * Called by the inbound pipeline, in its transaction, for a conversational
 * message: the turn (pending) and its job commit with the message, so a crash
 * or a failing model never loses the lead's words.
 */
export async function enqueueAgentTurn(
  trx: Db,
  _deps: Deps,
  lead: LeadRow,
  messageId: string,
  now: Date,
): Promise<void> {
  if (lead.is_ai_on !== 1) return;
  const at = now.toISOString();
  await insertPendingTurn(trx, lead.organization_id, lead.id, messageId, at);
  await enqueueJob(trx, lead.organization_id, 'ai.turn', { leadId: lead.id, messageId }, now, at);
}

/** Why this turn should not act (checked before asking the model, and again under the lock before applying). */
async function standDownReason(db: Db, turn: AgentTurnRow, lead: LeadRow): Promise<string | null> {
  if (lead.is_ai_on !== 1) return AI_OFF;
  if (await hasNewerTurn(db, turn.organization_id, turn.lead_id, turn.id)) return SUPERSEDED;
  return null;
}

/**
 * Applies the agent's answer in one transaction under the lead's lock, after
 * checking again what may have changed while the model was thinking: the lead
 * erased, the AI turned off, a newer message, or this very turn finished by a
 * concurrent run. The turn's outcome commits with its effects.
 */
async function applyTurn(
  deps: Deps,
  turn: AgentTurnRow,
  actions: Action[],
  commandIds: string[],
  channel: ChannelName,
  steps: string | null,
): Promise<void> {
  const organizationId = turn.organization_id;
  await deps.db.transaction().execute(async (trx) => {
    const lead = await findLead(trx, organizationId, turn.lead_id, true);
    if (!lead) return;
    const current = await findTurnByTrigger(trx, organizationId, turn.trigger_message_id);
    if (current?.status !== 'pending') return;
    const now = deps.clock.now();
    const at = now.toISOString();
    const reason = await standDownReason(trx, turn, lead);
    if (reason) {
      await finishTurn(trx, organizationId, turn.trigger_message_id, { status: 'skipped', error: reason, at, steps });
      return;
    }
    const usable = reachableChannels(lead).includes(channel) ? channel : defaultChannel(lead);
    await applyActions(
      trx,
      deps,
      { organizationId, lead, channel: usable, now, triggerMessageId: turn.trigger_message_id },
      actions,
    );
    await consumeNotes(trx, organizationId, commandIds, at);
    await finishTurn(trx, organizationId, turn.trigger_message_id, {
      status: 'done',
      actions: actions.map((a) => a.type),
      at,
      steps,
    });
  });
}

/** Answered for an action that is not a calendar tool when it comes with tool calls: it is applied with the turn's final answer. */
const DEFERRED = 'noted: applied when the turn ends';

/**
 * The agent's loop: at most `maxSteps` model calls. When an answer calls a
 * calendar tool (findSlots, bookAppointment, ...), the tools run now and the
 * model is asked again with their results (a failing tool is reported to it,
 * as `{code, message}`); an answer without one ends the loop. The other
 * actions of every step are gathered and applied together at the end, in one
 * transaction, as before. Every step is recorded on the turn. A booking is
 * keyed on the turn, the step and the call, so a job that runs twice books
 * once. Running out of steps ends the loop with what was gathered.
 */
async function decideInSteps(
  deps: Deps,
  turn: AgentTurnRow,
  ctx: { lead: LeadRow; input: AgentInput },
  steps: AgentStep[],
): Promise<Action[]> {
  const agent = agentFor(deps.config);
  const gathered: Action[] = [];
  for (let step = 0; step < deps.config.ai.maxSteps; step += 1) {
    const actions = checkActions(await agent.decide({ ...ctx.input, steps }));
    const calls = actions.filter((a) => isCalendarTool(a.type));
    gathered.push(...actions.filter((a) => !isCalendarTool(a.type)));
    if (calls.length === 0) break;
    // A newer message of the lead has its own turn, which will answer both: this one books nothing more.
    if (await hasNewerTurn(deps.db, turn.organization_id, turn.lead_id, turn.id)) break;
    const results = [];
    for (const [call, action] of actions.entries()) {
      const site = {
        organizationId: turn.organization_id,
        lead: ctx.lead,
        input: ctx.input,
        turnId: turn.id,
        step,
        call,
      };
      results.push(
        isCalendarTool(action.type)
          ? await runCalendarTool(deps, site, action as CalendarAction)
          : { id: `s${step}c${call}`, name: action.type, ok: true, result: DEFERRED },
      );
    }
    steps.push({ actions, results });
  }
  return gathered;
}

/**
 * The 'ai.turn' job. The model is asked outside any transaction (no lock is
 * held while it thinks); its answer is checked strictly and applied whole or
 * not at all. A failure throws, so the job is retried on the configured
 * schedule; on the last attempt the turn is recorded as failed with its error
 * and nothing is sent. The inbound message was committed before the job existed.
 */
export async function runAgentTurn(
  deps: Deps,
  organizationId: string,
  p: AgentTurnPayload,
  lastAttempt: boolean,
): Promise<JobOutcome> {
  const done: JobOutcome = { kind: 'done' };
  const turn = await findTurnByTrigger(deps.db, organizationId, p.messageId);
  if (turn?.status !== 'pending') return done;
  const steps: AgentStep[] = [];
  const recorded = () => (steps.length > 0 ? JSON.stringify(steps) : null);
  try {
    const ctx = await loadTurnContext(deps.db, organizationId, p.leadId, p.messageId, deps.clock.now());
    if (!ctx) return done; // erased meanwhile
    const reason = await standDownReason(deps.db, turn, ctx.lead);
    if (reason) {
      await finishTurn(deps.db, organizationId, p.messageId, {
        status: 'skipped',
        error: reason,
        at: deps.clock.now().toISOString(),
      });
      return done;
    }
    const actions = await decideInSteps(deps, turn, ctx, steps);
    await applyTurn(deps, turn, actions, ctx.commandIds, ctx.trigger.channel, recorded());
    return done;
  } catch (err) {
    if (lastAttempt) {
      const error = err instanceof Error ? err.message : String(err);
      await finishTurn(deps.db, organizationId, p.messageId, {
        status: 'failed',
        error,
        at: deps.clock.now().toISOString(),
        steps: recorded(),
      }).catch((e: unknown) => deps.log.error({ err: e, leadId: p.leadId }, 'could not record the failed agent turn'));
    }
    throw err;
  }
}
