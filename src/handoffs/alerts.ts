import { createTransport, type Transporter } from 'nodemailer';
import { SendError } from '../providers/channel-adapter.js';
import { adapterFor } from '../channels/registry.js';
import { enqueueJob } from '../jobs/jobs.repository.js';
import type { HandoffJobPayload, JobOutcome, OwnerAlertPayload, SendingNumberAlertPayload } from '../jobs/names.js';
import { findLead } from '../lead-records/leads.repository.js';
import type { Config } from '../platform/config.js';
import { holdUntilCommit } from '../platform/db/locks.js';
import type { Deps } from '../platform/deps.js';
import { readSettings } from '../settings/settings.service.js';
import {
  alertPartSent,
  findHandoff,
  findRepRow,
  leadContact,
  listRepRows,
  recordAlertPart,
  setLeadOwner,
  updateHandoff,
  type RepRow,
} from '../handoff-records/handoffs.repository.js';
import { DEFAULT_ACK_MINUTES, loadsOf, toRep } from './handoffs.service.js';
import { pickRep } from './reps.js';

/** Escalation levels: the first owner, the next available rep, the admins. */
export const TO_ADMINS = 2;

const transports = new WeakMap<Config, Transporter>();

/** One pooled transport per configuration (the email adapter's is its own: it adds unsubscribe links a colleague's alert has no use for). */
function mailer(config: Config, smtpUrl: string): Transporter {
  let t = transports.get(config);
  if (!t) {
    const timeout = Math.min(10_000, Math.floor(config.leaseMs / 2));
    t = createTransport({
      pool: true,
      url: smtpUrl,
      maxConnections: 2,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    });
    transports.set(config, t);
  }
  return t;
}

interface Alert {
  subject: string;
  text: string;
  /** Stable per alert and recipient: the SMS adapter's message id, the email's Message-ID. */
  key: string;
}

/**
 * One alert to each recipient: an email (SMTP_URL; without it, a log line)
 * and, for an alert about a lead, an SMS to the user's own phone through the
 * SMS adapter directly, from the organization's sending number. Never a
 * message of a lead's conversation: nothing is recorded on the lead, the gate
 * is not asked (the recipient is a colleague, not a lead), no frequency cap
 * counts it.
 */
async function alertUsers(
  deps: Deps,
  organizationId: string,
  leadId: string | null,
  users: RepRow[],
  alert: Alert,
): Promise<void> {
  const settings = await readSettings(deps.db, organizationId);
  const domain = /@([^>\s]+)>?\s*$/.exec(deps.config.emailFrom)?.[1] ?? 'localhost';
  const failures: string[] = [];
  // Each part once: a part already sent (a retry after another part failed) is skipped.
  const part = async (key: string, send: () => Promise<unknown>) => {
    if (await alertPartSent(deps.db, organizationId, key)) return;
    try {
      await send();
      await recordAlertPart(deps.db, organizationId, key, deps.clock.now().toISOString());
    } catch (err) {
      // A refusal for good (no sending number, an invalid phone) is not retried; anything else is.
      const message = err instanceof Error ? err.message : String(err);
      deps.log.warn({ leadId, alert: key, err: message }, 'alert part not sent');
      if (!(err instanceof SendError && err.outcome === 'refused') && !/no sending number/.test(message))
        failures.push(message);
    }
  };
  for (const user of users) {
    const key = `${alert.key}-${user.id}`;
    if (deps.config.smtpUrl) {
      const smtpUrl = deps.config.smtpUrl;
      await part(`${key}-email`, () =>
        mailer(deps.config, smtpUrl).sendMail({
          from: deps.config.emailFrom,
          to: user.email,
          subject: alert.subject,
          text: alert.text,
          messageId: `<${key}@${domain}>`,
        }),
      );
    } else {
      // A warning: for a sending number's alert, email is the only way, so without SMTP_URL nobody hears of it.
      deps.log.warn({ userId: user.id, leadId, alert: alert.key }, 'alert by email not sent: no SMTP_URL configured');
    }
    const phone = user.phone;
    if (phone && leadId) {
      await part(`${key}-sms`, () =>
        adapterFor(deps, 'sms').send({
          organizationId,
          messageId: key,
          leadId,
          channel: 'sms',
          to: phone,
          from: settings.sendingNumber,
          text: `${alert.subject}. ${alert.text}`.slice(0, 1500),
        }),
      );
    }
  }
  if (failures.length > 0) throw new Error(`alert: ${failures.length} part(s) not sent (retried): ${failures[0]}`);
}

async function admins(deps: Deps, organizationId: string): Promise<RepRow[]> {
  return (await listRepRows(deps.db, organizationId)).filter((u) => u.role === 'admin');
}

function leadName(lead: { first_name: string | null; last_name: string | null }): string {
  return [lead.first_name, lead.last_name].filter(Boolean).join(' ') || 'A lead';
}

/** The 'handoff.alert' job: the owner (level 0, 1) or the admins (level 2, or nobody owns it). */
export async function runHandoffAlert(deps: Deps, organizationId: string, p: HandoffJobPayload): Promise<JobOutcome> {
  const done: JobOutcome = { kind: 'done' };
  const h = await findHandoff(deps.db, organizationId, p.handoffId);
  if (!h || h.status === 'closed') return done;
  // An escalation's alert is moot once someone acknowledged; the first alert always goes.
  if (p.level > 0 && h.acknowledged_at) return done;
  const lead = await leadContact(deps.db, organizationId, h.lead_id);
  if (!lead) return done;
  const owner = p.level < TO_ADMINS && h.owner_id ? await findRepRow(deps.db, organizationId, h.owner_id) : undefined;
  const users = owner ? [owner] : await admins(deps, organizationId);
  const name = leadName(lead);
  const escalated = p.level > 0 ? ' (escalated: not acknowledged in time)' : '';
  const text = [
    `${name} was handed to a person${escalated}.`,
    h.reason ? `Reason: ${h.reason}` : null,
    lead.phone ? `Phone: ${lead.phone}` : null,
    lead.email ? `Email: ${lead.email}` : null,
    `Open: ${deps.config.publicUrl}/console/leads/${lead.id}`,
    `Acknowledge in the console, or POST /v1/leads/${lead.id}/handoff/ack.`,
  ]
    .filter(Boolean)
    .join('\n');
  await alertUsers(deps, organizationId, lead.id, users, {
    subject: `Hand-off: ${name} needs a person`,
    text,
    key: `handoff-${h.id}-${p.level}`,
  });
  return done;
}

/** The 'owner.alert' job: a notification the agent raised (`notify`), to the lead's owner or, with none, the admins. */
export async function runOwnerAlert(
  deps: Deps,
  organizationId: string,
  p: OwnerAlertPayload,
  jobId: string,
): Promise<JobOutcome> {
  const lead = await leadContact(deps.db, organizationId, p.leadId);
  if (!lead) return { kind: 'done' };
  const owner = lead.owner_id ? await findRepRow(deps.db, organizationId, lead.owner_id) : undefined;
  const users = owner ? [owner] : await admins(deps, organizationId);
  const name = leadName(lead);
  const text = [
    `${p.name}: ${p.message}`,
    lead.phone ? `Phone: ${lead.phone}` : null,
    `Open: ${deps.config.publicUrl}/console/leads/${lead.id}`,
  ]
    .filter(Boolean)
    .join('\n');
  await alertUsers(deps, organizationId, lead.id, users, {
    subject: `${p.name}: ${name}`,
    text,
    key: `notify-${jobId}`,
  });
  return { kind: 'done' };
}

/**
 * The 'sendingNumber.alert' job: the carrier refused one of the organization's
 * numbers as a sender (deliverability/, once per number), so its admins hear
 * it by email, beside the opt-in `sendingNumber.unusable` webhook. Email only:
 * an SMS would go from the organization's numbers, possibly the refused one.
 */
export async function runSendingNumberAlert(
  deps: Deps,
  organizationId: string,
  p: SendingNumberAlertPayload,
  jobId: string,
): Promise<JobOutcome> {
  const pool = p.sendingNumberId !== null;
  const text = [
    // The reason is the whole sentence ("the carrier refused +1… as a sender (twilio:30034: …)").
    `${p.reason.charAt(0).toUpperCase()}${p.reason.slice(1)}.`,
    pool
      ? "Parley stopped assigning it: its leads move to the pool's other numbers at their next send."
      : 'It is the number in your settings and your organization has no pool number: Parley sends nothing from it (each send fails with SENDER_UNUSABLE, a running campaign pauses) until you set another (PATCH /v1/settings sendingNumber) or add pool numbers.',
    'Register the number with the carrier (10DLC campaign, toll-free verification), or replace it.',
    pool
      ? `The number: GET ${deps.config.publicUrl}/v1/sendingNumbers/${p.sendingNumberId} (unusableAt, unusableCode).`
      : `Settings: ${deps.config.publicUrl}/console/settings`,
  ].join('\n');
  await alertUsers(deps, organizationId, null, await admins(deps, organizationId), {
    subject: `Sending number ${p.number} refused by the carrier (${p.code})`,
    text,
    key: `number-unusable-${jobId}`,
  });
  return { kind: 'done' };
}

/**
 * The 'handoff.escalate' job: still unacknowledged when it was due, the
 * hand-off goes to the next available rep of the pool (level 1), then to the
 * admins (level 2). The lead's lock, then the organization's assignment lock:
 * the order every hand-off path takes them in.
 */
export async function runHandoffEscalation(
  deps: Deps,
  organizationId: string,
  p: HandoffJobPayload,
): Promise<JobOutcome> {
  const first = await findHandoff(deps.db, organizationId, p.handoffId);
  if (!first || first.status !== 'open' || first.acknowledged_at || first.escalation_level >= p.level)
    return { kind: 'done' };
  await deps.db.transaction().execute(async (trx) => {
    const lead = await findLead(trx, organizationId, first.lead_id, true);
    if (!lead) return;
    await holdUntilCommit(trx, `handoffs.assign:${organizationId}`);
    const h = await findHandoff(trx, organizationId, p.handoffId);
    if (!h || h.status !== 'open' || h.acknowledged_at || h.escalation_level >= p.level) return;
    const now = deps.clock.now();
    const at = now.toISOString();
    const settings = await readSettings(trx, organizationId);
    const ackMinutes = settings.assignment.ackWithinMinutes ?? DEFAULT_ACK_MINUTES;
    let level = p.level;
    let next: string | null = null;
    if (level < TO_ADMINS && settings.assignment.mode === 'roundRobin') {
      next = pickRep(
        settings.assignment.pool,
        (await listRepRows(trx, organizationId)).map(toRep),
        await loadsOf(trx, organizationId),
        now,
        settings.timeZone,
        h.owner_id ? [h.owner_id] : [],
      );
    }
    if (!next) level = TO_ADMINS;
    await updateHandoff(trx, organizationId, h.id, {
      escalation_level: level,
      ...(next ? { owner_id: next } : {}),
      updated_at: at,
    });
    if (next) await setLeadOwner(trx, organizationId, h.lead_id, next, at);
    await enqueueJob(trx, organizationId, 'handoff.alert', { handoffId: h.id, level }, now, at);
    if (level < TO_ADMINS)
      await enqueueJob(
        trx,
        organizationId,
        'handoff.escalate',
        { handoffId: h.id, level: level + 1 },
        new Date(now.getTime() + ackMinutes * 60_000),
        at,
      );
  });
  return { kind: 'done' };
}
