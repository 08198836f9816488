import { defaultChannel } from '../lead-records/channels.js';
import type { OptOutEffect } from '../subscriptions/opt-out-effects.js';
import { skipComposingOpeningsQuery, stopEnrollmentsQuery } from './enrollments.repository.js';

/**
 * What an opt-out writes in campaigns/, wherever it is written (subscriptions/
 * applyUnsubscribe, dnc/ addDncIn, through the effect server.ts registers in
 * subscriptions/opt-out-effects.ts), in its transaction, as an inbound STOP
 * does: when it covers the channel the lead's campaign openings go on (its
 * default channel, the one the run screens and the opening is sent on), the
 * lead's enrollments not settled otherwise say opted out, also one whose
 * opening already went out, and an opening the agent is still writing is
 * skipped. An opening already scheduled on that channel is blocked by the
 * opt-out itself (blockQueuedSendsQuery). Answers the queries for the
 * opt-out's batch of writes (platform/db/together.ts: two tables no other
 * write of it touches); none when the campaign channel stays open.
 */
export const campaignOptOutQueries: OptOutEffect = (db, organizationId, lead, channels, at) => {
  if (!channels.includes(defaultChannel(lead))) return [];
  return [
    stopEnrollmentsQuery(db, organizationId, lead.id, 'opted_out', 'the lead opted out', at),
    skipComposingOpeningsQuery(
      db,
      organizationId,
      lead.id,
      'the lead opted out before the campaign message was sent',
      at,
    ),
  ];
};
