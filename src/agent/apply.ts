import type { Updateable } from 'kysely';
import { emitEvents } from '../events/outbox.repository.js';
import { handoffNotificationEvent, leadTaggedEvent } from '../events/payloads.js';
import { raiseHandoff } from '../handoffs/handoffs.service.js';
import { notifyTeam } from '../handoffs/notify.js';
import { insertTag, listTags, updateLead, type LeadRow } from '../lead-records/leads.repository.js';
import { byLiveCall, scheduleSend } from '../messages/send.service.js';
import type { Db, LeadsTable } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { newId } from '../platform/ids.js';
import { reachableChannels, type ChannelName } from '../lead-records/channels.js';
import { applyUnsubscribe } from '../subscriptions/subscriptions.service.js';
import type { Action } from './provider.js';

export interface ApplyTarget {
  organizationId: string;
  /** Read under the lead's lock, in the caller's transaction. */
  lead: LeadRow;
  /** Replies and follow-ups go where the lead last wrote from. */
  channel: ChannelName;
  now: Date;
  /** The lead's message this turn answers: its `reply` names it (the gate's reply window); a scheduled follow-up does not. */
  triggerMessageId: string;
}

/**
 * Applies one turn's actions in the caller's transaction (under the lead's
 * lock): all of them or, on any error, none. Messages are only recorded and
 * scheduled here; the compliance gate decides at send time. A reply in a turn
 * that hands off is sent even though the AI is off by then: it is the AI's
 * last word ("a colleague will take over"), decided while it was on.
 */
export async function applyActions(trx: Db, deps: Deps, t: ApplyTarget, actions: Action[]): Promise<void> {
  const { organizationId, lead, channel, now, triggerMessageId } = t;
  const at = now.toISOString();
  const handsOff = actions.some((a) => a.type === 'handOff');
  const patch: Updateable<LeadsTable> = {};
  const tagNames = new Set((await listTags(trx, organizationId, [lead.id])).map((tag) => tag.name.toLowerCase()));
  const send = (text: string, runAt: Date, sendWhenOff: boolean, inReplyTo?: string) =>
    scheduleSend(trx, {
      organizationId,
      lead,
      channel,
      text,
      runAt,
      sendWhenOff,
      isAiGenerated: true,
      now: at,
      inReplyTo,
      // After a call the lead's channel is voice: the agent's answer is a live call whose greeting it is.
      byCall: byLiveCall(deps, channel),
    });

  for (const action of actions) {
    switch (action.type) {
      case 'reply':
        await send(action.text, now, handsOff, triggerMessageId);
        break;
      case 'scheduleFollowUp':
        await send(action.text, new Date(now.getTime() + action.delayMinutes * 60_000), false);
        break;
      case 'tagLead': {
        // A tag the lead already has is not added again (nor announced twice).
        if (tagNames.has(action.name.toLowerCase())) break;
        tagNames.add(action.name.toLowerCase());
        // A name the organization already has keeps its tag id: the event names the id GET lead shows.
        const fresh = { id: newId(), name: action.name, condition: action.condition };
        const id = await insertTag(trx, organizationId, { ...fresh, lead_id: lead.id, created_at: at });
        await emitEvents(trx, organizationId, at, [leadTaggedEvent(lead, channel, { ...fresh, id })]);
        break;
      }
      // isHot and isQualified are also leadTagged tags out of the box: announced when they become true.
      case 'markHot':
        if (lead.is_hot !== 1 && patch.is_hot !== 1)
          await emitEvents(trx, organizationId, at, [leadTaggedEvent(lead, channel, 'isHot')]);
        patch.is_hot = 1;
        break;
      case 'markQualified':
        if (lead.is_qualified !== 1 && patch.is_qualified !== 1)
          await emitEvents(trx, organizationId, at, [leadTaggedEvent(lead, channel, 'isQualified')]);
        patch.is_qualified = 1;
        break;
      case 'updateSummary':
        patch.summary = action.summary;
        break;
      case 'handOff':
        // The team learns of it the way the reference announces anything for a human: a notification.
        if (patch.is_ai_on !== 0) {
          await emitEvents(trx, organizationId, at, [handoffNotificationEvent(lead, channel, action.reason)]);
          // A person is found and alerted (src/handoffs/): the owner, or round-robin.
          await raiseHandoff(trx, organizationId, lead, action.reason ?? null, now);
        }
        patch.is_ai_on = 0;
        break;
      case 'notify':
        await notifyTeam(trx, deps, { organizationId, lead, channel, now }, action);
        break;
      case 'optOut': {
        // Channels the lead cannot receive are nothing to opt out of; none left is a no-op, not a failed turn.
        const reachable = reachableChannels(lead);
        const wanted = action.channels?.filter((c) => reachable.includes(c));
        if (wanted?.length === 0 || reachable.length === 0) break;
        await applyUnsubscribe(trx, deps, organizationId, lead.id, wanted, { source: 'ai', actor: 'agent' });
        break;
      }
    }
  }
  if (Object.keys(patch).length > 0) await updateLead(trx, organizationId, lead.id, { ...patch, updated_at: at });
}
