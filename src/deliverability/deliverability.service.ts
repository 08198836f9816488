import { pauseCampaignFor } from '../campaigns/campaigns.service.js';
import { emitEvents } from '../events/outbox.repository.js';
import { enqueueJob } from '../jobs/jobs.repository.js';
import { messageDeliveredEvent, messageFailedEvent, sendingNumberUnusableEvent } from '../events/payloads.js';
import { lockLeadOfMessage, type LeadRow } from '../lead-records/leads.repository.js';
import { findMessage, type MessageRow } from '../messages/messages.repository.js';
import type { Db } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { readSettings } from '../settings/settings.service.js';
import { applyUnsubscribe, suppressAddress } from '../subscriptions/subscriptions.service.js';
import { classify, classifyKey, type ClassifiedError, type ProviderError } from './error-codes.js';
import * as repo from './deliverability.repository.js';

/** Why a campaign paused itself: carriers filter its sends (or those of a number it sends from). */
export const FILTERED = 'FILTERED';
/** Why a send failed without going out, and why its campaign paused: the carrier refused the settings number. */
export const SENDER_UNUSABLE = 'SENDER_UNUSABLE';

export interface DeliveryReport {
  providerMessageId: string;
  status: 'delivered' | 'undelivered' | 'failed';
  /** The reason recorded on the message (null when delivered). */
  reason: string | null;
  error: ProviderError | null;
  /** The recipient as the provider named it (the lead's address then), and our number. */
  to: string | null;
  from: string | null;
  /** Who reported it: `twilio:<sid>`. */
  actor: string;
}

/** What a permanent failure does, in the transaction that records it, under the lead's lock. */
interface Failure {
  lead: LeadRow;
  message: MessageRow;
  error: ClassifiedError;
  /** The address the send went to, and the number it went from. */
  to: string | null;
  from: string | null;
  actor: string;
  at: string;
}

const addressOf = (lead: LeadRow, channel: MessageRow['channel']) => (channel === 'email' ? lead.email : lead.phone);

/**
 * The action of each class (error-codes.ts): an opt-out recorded as the
 * carrier's (sms, no confirmation is sent: nothing here queues one), the
 * address marked unreachable on the channel, the sending number retired.
 * Filtered sends are counted by their recorded class, after the commit
 * (checkFilteredRate). Transient and unknown codes do nothing more.
 */
async function actOn(trx: Db, deps: Deps, organizationId: string, f: Failure): Promise<void> {
  const { lead, message, error } = f;
  const to = f.to ?? addressOf(lead, message.channel);
  const current = addressOf(lead, message.channel);
  switch (error.class) {
    case 'opted_out': {
      if (message.channel === 'email' || !to) return;
      const opts = { source: 'carrier', reason: error.key, actor: f.actor } as const;
      // The number the send went to: the lead's, unless it changed since; then the old number stays suppressed.
      if (current === to) await applyUnsubscribe(trx, deps, organizationId, lead.id, ['sms'], opts);
      else await suppressAddress(trx, deps, organizationId, 'sms', { address: to }, 'carrier', opts);
      return;
    }
    case 'invalid':
    case 'unreachable':
      // Only the address it went to: a lead whose address changed since is not blocked for the old one.
      if (to && current === to)
        await repo.markUnreachable(
          trx,
          organizationId,
          lead.id,
          message.channel,
          deps.digests.keyed(to),
          error.key,
          f.at,
        );
      return;
    case 'unregistered_sender': {
      // The number the send went from: a pool number by id; the settings number by the number (0047), as
      // the report or the refused request names it, else as recorded when it was chosen.
      const from = f.from ?? message.from_number;
      let marked: { id: string | null; number: string } | null = null;
      if (message.sending_number_id)
        marked = await repo.markNumberUnusable(trx, organizationId, { id: message.sending_number_id }, error.key, f.at);
      else if (from) {
        marked = await repo.markNumberUnusable(trx, organizationId, { number: from }, error.key, f.at);
        // The settings number marked too, so its sends stop (channels/outbound.ts); alerted as the settings number
        // only when it is not also a pool number, whose mark (now or earlier) was alerted already.
        const settings = await repo.markSettingsNumberUnusable(trx, organizationId, from, error.key, f.at);
        if (!marked && settings && !(await repo.inPool(trx, organizationId, from)))
          marked = { id: null, number: settings };
      }
      // Once per number: a number marked already (or a settings number changed since the send) is not alerted again.
      if (!marked) return;
      const reason = `the carrier refused ${marked.number} as a sender (${error.key}${error.title ? `: ${error.title}` : ''})`;
      deps.log.warn(
        { organizationId, number: marked.number, code: error.key },
        'sending number refused by the carrier',
      );
      await emitEvents(trx, organizationId, f.at, [
        sendingNumberUnusableEvent(marked, {
          provider: error.provider,
          errorCode: error.code,
          errorClass: error.class,
          reason,
        }),
      ]);
      // The admins by email, after the commit, by the worker (handoffs/alerts.ts): a job by name, retried.
      const now = new Date(f.at);
      await enqueueJob(
        trx,
        organizationId,
        'sendingNumber.alert',
        { sendingNumberId: marked.id, number: marked.number, code: error.key, reason },
        now,
        f.at,
      );
      return;
    }
    default:
      return;
  }
}

/**
 * A provider's delivery report (Twilio's status callback): the message found
 * by the provider's id moves to delivered / undelivered / failed with the
 * error code and its class, `message.delivered` or `message.failed` is
 * written, and a permanent class is acted on, all in one transaction under
 * the lead's lock. A report repeated (the same status and code) changes
 * nothing and writes no second event. Answers how many messages changed.
 */
export async function applyDeliveryReport(deps: Deps, organizationId: string, report: DeliveryReport): Promise<number> {
  const found = await repo.findOutboundByProviderId(deps.db, organizationId, report.providerMessageId);
  if (!found) return 0;
  const error = report.error ? classify(report.error) : null;
  const at = deps.clock.now().toISOString();
  const changed = await deps.db.transaction().execute(async (trx) => {
    const lead = await lockLeadOfMessage(trx, organizationId, found.id);
    if (!lead) return null;
    const message = await findMessage(trx, organizationId, found.id);
    if (!message || message.provider_message_id !== report.providerMessageId) return null;
    if (message.status === report.status && (message.error_code ?? null) === (error?.key ?? null)) return null;
    await repo.setDeliveryOutcome(trx, organizationId, message.id, {
      status: report.status,
      reason: report.reason,
      errorCode: error?.key ?? null,
      errorClass: error?.class ?? null,
      at,
    });
    if (report.status === 'delivered') {
      await emitEvents(trx, organizationId, at, [messageDeliveredEvent(lead, message)]);
      return message;
    }
    await emitEvents(trx, organizationId, at, [
      messageFailedEvent(lead, message, {
        status: report.status,
        provider: error?.provider ?? null,
        errorCode: error?.code ?? null,
        errorClass: error?.class ?? null,
        reason: report.reason,
      }),
    ]);
    if (error)
      await actOn(trx, deps, organizationId, {
        lead,
        message,
        error,
        to: report.to,
        from: report.from,
        actor: report.actor,
        at,
      });
    return message;
  });
  if (!changed) return 0;
  if (error?.class === 'filtered') await checkFilteredRate(deps, organizationId, changed);
  return 1;
}

/** The settings number's refusal as its mark records it (0047): the number and the error key (`twilio:30034`). */
export interface UnusableSender {
  number: string;
  code: string;
}

/**
 * A send from the settings number after the carrier refused that number as a
 * sender (actOn marked it): handed to the provider it would be paid for and
 * refused again, so it fails here, in the send's transaction under the lead's
 * lock: `failed` with SENDER_UNUSABLE, the refusal's code and class, and
 * `message.failed`, as a refused send is recorded; never retried.
 */
export async function failUnusableSender(
  trx: Db,
  organizationId: string,
  lead: LeadRow,
  message: MessageRow,
  sender: UnusableSender,
  at: string,
): Promise<void> {
  const error = classifyKey(sender.code);
  const reason =
    `not sent: the carrier refused ${sender.number} as a sender (${sender.code}); set another sending number in settings`.slice(
      0,
      500,
    );
  await repo.setDeliveryOutcome(trx, organizationId, message.id, {
    status: 'failed',
    reason,
    statusCode: SENDER_UNUSABLE,
    errorCode: sender.code,
    errorClass: error.class,
    at,
  });
  await emitEvents(trx, organizationId, at, [
    messageFailedEvent(lead, message, {
      status: 'failed',
      provider: error.provider,
      errorCode: error.code,
      errorClass: error.class,
      reason,
    }),
  ]);
}

/**
 * After a send failed on a refused settings number: its campaign pauses (as a
 * pause by hand: openings not out yet are taken back), so the rest of it is
 * not failed one message at a time. Resumed by hand once the number is fixed.
 */
export async function pauseForUnusableSender(
  deps: Deps,
  organizationId: string,
  campaignId: string,
  sender: UnusableSender,
): Promise<boolean> {
  const reason = `the carrier refused ${sender.number} as a sender (${sender.code}); set another sending number in settings, then resume`;
  return pauseCampaignFor(deps, organizationId, campaignId, SENDER_UNUSABLE, reason, {
    sendingNumberId: null,
    number: sender.number,
  });
}

export interface SendFailure {
  /** The reason recorded on the message. */
  reason: string;
  error: ProviderError | undefined;
  to: string | null;
  from: string | null;
}

/**
 * A send the provider refused, or that failed for good (channels/outbound.ts):
 * the message ends `failed` with the error code and its class,
 * `message.failed` is written and a permanent class acted on, as for a
 * delivery report, in one transaction under the lead's lock.
 */
export async function recordSendFailure(
  deps: Deps,
  organizationId: string,
  messageId: string,
  f: SendFailure,
): Promise<void> {
  const error = f.error ? classify(f.error) : null;
  const at = deps.clock.now().toISOString();
  const failed = await deps.db.transaction().execute(async (trx) => {
    const lead = await lockLeadOfMessage(trx, organizationId, messageId);
    if (!lead) return null;
    const message = await findMessage(trx, organizationId, messageId);
    if (!message) return null;
    await repo.setDeliveryOutcome(trx, organizationId, messageId, {
      status: 'failed',
      reason: f.reason.slice(0, 500),
      errorCode: error?.key ?? null,
      errorClass: error?.class ?? null,
      at,
    });
    await emitEvents(trx, organizationId, at, [
      messageFailedEvent(lead, message, {
        status: 'failed',
        provider: error?.provider ?? null,
        errorCode: error?.code ?? null,
        errorClass: error?.class ?? null,
        reason: f.reason.slice(0, 500),
      }),
    ]);
    if (error)
      await actOn(trx, deps, organizationId, {
        lead,
        message,
        error,
        to: f.to,
        from: f.from,
        actor: `${error.provider}:error:${error.code}`,
        at,
      });
    return message;
  });
  if (failed && error?.class === 'filtered') await checkFilteredRate(deps, organizationId, failed);
}

/**
 * After a filtered send: the campaign it belongs to pauses itself when its
 * latest sends (settings `filteredPause.window`, default 200) hold at least
 * `percent` % of that window filtered (default 5 %: 10 of 200); so does it
 * when the number it went from passes the same bound over the number's
 * latest sends (every campaign among that number's latest sends pauses): a
 * pool number by its id, the settings number by the number (0047).
 * Counting a fixed share of the window, never of fewer sends, keeps a
 * campaign's first few sends from pausing it on one filtered message.
 */
export async function checkFilteredRate(
  deps: Deps,
  organizationId: string,
  message: Pick<MessageRow, 'campaign_id' | 'sending_number_id' | 'from_number'>,
): Promise<string[]> {
  const { filteredPause } = await readSettings(deps.db, organizationId);
  if (!filteredPause) return [];
  const { percent, window } = filteredPause;
  const bound = Math.max(1, Math.ceil((window * percent) / 100));
  const count = (classes: (string | null)[]) => classes.filter((c) => c === 'filtered').length;
  const paused: string[] = [];
  const rule = `threshold ${percent} % of the last ${window} sends`;
  if (message.campaign_id) {
    const n = count(await repo.latestSendClasses(deps.db, organizationId, { campaignId: message.campaign_id }, window));
    if (n >= bound) {
      const reason = `carriers filtered ${n} of the campaign's last ${window} sends (${rule})`;
      if (
        await pauseCampaignFor(deps, organizationId, message.campaign_id, FILTERED, reason, {
          filtered: n,
          window,
          percent,
          sendingNumberId: null,
          number: null,
        })
      )
        paused.push(message.campaign_id);
    }
  }
  const numberKey = message.sending_number_id
    ? { sendingNumberId: message.sending_number_id }
    : message.from_number
      ? { fromNumber: message.from_number }
      : null;
  if (numberKey) {
    const n = count(await repo.latestSendClasses(deps.db, organizationId, numberKey, window));
    if (n >= bound) {
      const [number, which] =
        'fromNumber' in numberKey
          ? [numberKey.fromNumber, `the settings number ${numberKey.fromNumber}`]
          : [
              await repo.numberOf(deps.db, organizationId, numberKey.sendingNumberId),
              `sending number ${numberKey.sendingNumberId}`,
            ];
      const reason = `carriers filtered ${n} of the last ${window} sends from ${which} (${rule})`;
      for (const id of await repo.campaignsOnNumber(deps.db, organizationId, numberKey, window)) {
        if (paused.includes(id)) continue;
        if (
          await pauseCampaignFor(deps, organizationId, id, FILTERED, reason, {
            filtered: n,
            window,
            percent,
            sendingNumberId: message.sending_number_id,
            number,
          })
        )
          paused.push(id);
      }
    }
  }
  if (paused.length > 0)
    deps.log.warn({ organizationId, campaigns: paused }, 'campaigns paused: their sends are being filtered');
  return paused;
}

/** A lead's address that cannot receive the channel (a hard bounce reported later, deliverability of email): the gate blocks it until it changes. */
export async function markAddressUnreachable(
  trx: Db,
  deps: Deps,
  organizationId: string,
  leadId: string,
  channel: MessageRow['channel'],
  address: string,
  code: string,
): Promise<void> {
  await repo.markUnreachable(
    trx,
    organizationId,
    leadId,
    channel,
    deps.digests.keyed(address),
    code,
    deps.clock.now().toISOString(),
  );
}
