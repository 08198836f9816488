import type { LeadsTable, MessagesTable } from '../platform/db/schema.js';
import type { OutboxEvent } from './outbox.repository.js';

/**
 * Every webhook payload Parley emits is built here, in the documented shape of
 * the hosted service's reference (docs.apten.ai/webhooks/*): the same names,
 * types and enums, field for field. Parley's own fields (`email`, `source`,
 * `messageId`, ...) are additions after the documented ones; none changes a
 * documented field's meaning or type. Callers pass rows and facts; they never
 * assemble a payload themselves, so a shape is decided in one place.
 */

type Channel = 'sms' | 'voice' | 'email';
/** The reference's channel names on lead webhooks: `call` is its spelling for voice; `manual` a change made by hand (the API). */
export type WebhookChannel = 'sms' | 'email' | 'call' | 'manual';

export const webhookChannel = (c: Channel): 'sms' | 'email' | 'call' => (c === 'voice' ? 'call' : c);

type LeadFacts = Pick<LeadsTable, 'id' | 'external_lead_id' | 'phone' | 'email'>;

/** The reference's email opt-out reasons (docs.apten.ai/webhooks/opt-out). */
export type OptOutReason = 'MANUAL' | 'COMPLAINT' | 'BOUNCE' | 'UNSUBSCRIBE_LINK';

const REASON_BY_SOURCE: Record<string, OptOutReason> = {
  bounce: 'BOUNCE',
  complaint: 'COMPLAINT',
  link: 'UNSUBSCRIBE_LINK',
};

export interface OptOutFacts {
  channel: Channel;
  /** Where it came from (subscriptions/consent-rules.ts OPT_OUT_SOURCES): `api`, `keyword`, `link`, ... */
  source: string;
  /** The lead's own words, when a message carried the request. */
  optOutMessage?: string | null;
  isDoNotContact?: boolean;
  /** Who delivered the request: `twilio:<sid>` when Twilio's signed webhook carried it. */
  actor?: string | null;
}

/**
 * `optOut` (docs.apten.ai/webhooks/opt-out). `optOutReason` is set for email
 * only (null for sms and call, as documented): a bounce, a complaint, a link,
 * else MANUAL (the lead's reply, the organization's API or agent).
 * `isTwilioOptOut` is null for email, and for sms/call tells whether the
 * request reached Parley through Twilio (the lead's text or speech delivered
 * by its signed webhook). `optOutMessage` is the lead's text for sms and email
 * opt-outs made by a message; null for one made on a call or by the system
 * (bounce, complaint, link, API).
 */
export function optOutEvent(lead: LeadFacts, f: OptOutFacts): OutboxEvent {
  const isEmail = f.channel === 'email';
  const byMessage = f.source !== 'voice' && !(f.source in REASON_BY_SOURCE) && f.source !== 'api';
  return {
    type: 'optOut',
    data: {
      leadId: lead.id,
      externalLeadId: lead.external_lead_id,
      phone: lead.phone,
      channel: webhookChannel(f.channel),
      optOutReason: isEmail ? (REASON_BY_SOURCE[f.source] ?? 'MANUAL') : null,
      isTwilioOptOut: isEmail ? null : (f.actor ?? '').startsWith('twilio:'),
      optOutMessage: byMessage ? (f.optOutMessage ?? null) : null,
      isDoNotContact: f.isDoNotContact ?? false,
      email: lead.email,
      source: f.source,
    },
  };
}

/** `resubscribed` is Parley's own event (the reference has none): the optOut fields that apply, same names. */
export function resubscribedEvent(lead: LeadFacts, channel: Channel, source: string): OutboxEvent {
  return {
    type: 'resubscribed',
    data: {
      leadId: lead.id,
      externalLeadId: lead.external_lead_id,
      phone: lead.phone,
      channel: webhookChannel(channel),
      email: lead.email,
      source,
    },
  };
}

/** `doNotContact` (docs.apten.ai/webhooks/do-not-contact): fired before the optOut events it causes. */
export function doNotContactEvent(
  phone: string,
  lead: LeadFacts | undefined,
  source: string,
  optOutMessage: string | null,
): OutboxEvent {
  return {
    type: 'doNotContact',
    data: {
      leadId: lead?.id ?? null,
      externalLeadId: lead?.external_lead_id ?? null,
      phone,
      email: lead?.email ?? null,
      optOutMessage,
      source,
    },
  };
}

/** The subject Parley's email adapter (channels/email.ts) gives every message it sends. */
export const outboundEmailSubject = (organizationName: string | null | undefined) =>
  `Message from ${organizationName ?? 'Parley'}`;

type MessageFacts = Pick<MessagesTable, 'id' | 'channel' | 'text' | 'is_ai_generated'> & {
  /** Follow-ups (when messages record them): whether this send is one, and its step. */
  is_follow_up?: number | boolean | null;
  follow_up_step?: number | null;
  /** The campaign whose opening this is (campaigns/); message.sent names it only then. */
  campaign_id?: string | null;
};

/** `content` as documented: `subject` only for email, then `text`. */
const content = (channel: Channel, text: string, subject: string | null | undefined) =>
  channel === 'email' && subject != null ? { subject, text } : { text };

/**
 * `message.sent` (docs.apten.ai/webhooks/message-sent). `followUpStep` is null
 * whenever `isFollowUp` is false, as documented. Earlier Parley fields
 * (`messageId`, `text`, `isAiGenerated`) stay as additions.
 */
export function messageSentEvent(
  lead: LeadFacts & Pick<LeadsTable, 'customer_profile'>,
  message: MessageFacts,
  subject?: string | null,
): OutboxEvent {
  const isFollowUp = message.is_follow_up === true || message.is_follow_up === 1;
  return {
    type: 'message.sent',
    data: {
      leadId: lead.id,
      externalLeadId: lead.external_lead_id,
      phone: lead.phone,
      channel: webhookChannel(message.channel),
      profile: lead.customer_profile,
      isFollowUp,
      followUpStep: isFollowUp ? (message.follow_up_step ?? null) : null,
      content: content(message.channel, message.text, subject),
      messageId: message.id,
      email: lead.email,
      text: message.text,
      isAiGenerated: message.is_ai_generated === 1,
      ...(message.campaign_id ? { campaignId: message.campaign_id } : {}),
    },
  };
}

/**
 * `message.received` (docs.apten.ai/webhooks/message-received). Its page, unlike
 * message-sent's, does not document `externalLeadId`: Parley sends it among its
 * additions, after the documented fields, with `messageId`, `from` and `text`.
 */
export function messageReceivedEvent(
  lead: LeadFacts & Pick<LeadsTable, 'customer_profile'>,
  m: { id: string; channel: Channel; from: string; text: string; subject?: string | null },
): OutboxEvent {
  return {
    type: 'message.received',
    data: {
      leadId: lead.id,
      phone: lead.phone,
      channel: webhookChannel(m.channel),
      profile: lead.customer_profile,
      content: content(m.channel, m.text, m.subject),
      externalLeadId: lead.external_lead_id,
      messageId: m.id,
      email: lead.email,
      from: m.from,
      text: m.text,
    },
  };
}

/** The tags the reference sends out of the box, besides those the agent applies. */
export type BuiltInTag = 'hasReplied' | 'isHot' | 'isQualified';

/**
 * `leadTagged` (docs.apten.ai/webhooks/lead-tagged): `tag` is the tag's name.
 * An agent's tag adds its `tagId` and `condition`; a built-in one has neither.
 */
export function leadTaggedEvent(
  lead: LeadFacts,
  channel: Channel | 'manual',
  tag: string | { id: string; name: string; condition: string },
): OutboxEvent {
  const named = typeof tag === 'string' ? { tag } : { tag: tag.name, tagId: tag.id, condition: tag.condition };
  return {
    type: 'leadTagged',
    data: {
      leadId: lead.id,
      externalLeadId: lead.external_lead_id,
      phone: lead.phone,
      channel: channel === 'manual' ? 'manual' : webhookChannel(channel),
      ...named,
    },
  };
}

/** The notification Parley creates when the agent hands a conversation to a human. */
export const HANDOFF_NOTIFICATION = 'Human handoff';
const HANDOFF_DEFAULT_MESSAGE = 'The AI handed this conversation to a human and stopped replying to the lead.';

/** `notification` (docs.apten.ai/webhooks/notification-created). */
export function notificationEvent(lead: LeadFacts, channel: Channel, name: string, message: string): OutboxEvent {
  return {
    type: 'notification',
    data: {
      leadId: lead.id,
      phone: lead.phone,
      channel: webhookChannel(channel),
      notificationName: name,
      notificationMessage: message,
      externalLeadId: lead.external_lead_id,
    },
  };
}

/** The handoff's notification: the agent's reason when it gave one. */
export const handoffNotificationEvent = (lead: LeadFacts, channel: Channel, reason: string | null | undefined) =>
  notificationEvent(lead, channel, HANDOFF_NOTIFICATION, reason?.trim() ? reason.trim() : HANDOFF_DEFAULT_MESSAGE);

/** What message.delivered and message.failed say of the message (Parley's own events). */
interface DeliveryFacts {
  id: string;
  channel: Channel;
  provider_message_id: string | null;
  campaign_id?: string | null;
  sending_number_id?: string | null;
}

const deliveryBase = (lead: LeadFacts, m: DeliveryFacts, status: string) => ({
  leadId: lead.id,
  externalLeadId: lead.external_lead_id,
  phone: lead.phone,
  email: lead.email,
  channel: webhookChannel(m.channel),
  messageId: m.id,
  providerMessageId: m.provider_message_id,
  status,
  campaignId: m.campaign_id ?? null,
  sendingNumberId: m.sending_number_id ?? null,
});

/** `message.delivered` (Parley's own): the provider reported the message delivered. */
export function messageDeliveredEvent(lead: LeadFacts, m: DeliveryFacts): OutboxEvent {
  return { type: 'message.delivered', data: deliveryBase(lead, m, 'delivered') };
}

/**
 * `message.failed` (Parley's own): the provider refused the send, or reported
 * it failed or undelivered. `errorCode` is the provider's code (`30007`),
 * `errorClass` its class (docs/deliverability.md), `provider` who gave it;
 * all three null when the failure carried no code.
 */
export function messageFailedEvent(
  lead: LeadFacts,
  m: DeliveryFacts,
  f: {
    status: 'failed' | 'undelivered';
    provider: string | null;
    errorCode: string | null;
    errorClass: string | null;
    reason: string | null;
  },
): OutboxEvent {
  return {
    type: 'message.failed',
    data: {
      ...deliveryBase(lead, m, f.status),
      provider: f.provider,
      errorCode: f.errorCode,
      errorClass: f.errorClass,
      reason: f.reason,
    },
  };
}

/** `campaign.paused` (Parley's own): a campaign paused itself, with its reason (FILTERED: carriers filter its sends; SENDER_UNUSABLE: the carrier refused the settings number). */
export function campaignPausedEvent(
  campaign: { id: string; name: string },
  code: string,
  reason: string,
  details: Record<string, unknown> = {},
): OutboxEvent {
  return { type: 'campaign.paused', data: { campaignId: campaign.id, name: campaign.name, code, reason, ...details } };
}

/** `sendingNumber.unusable` (Parley's own): the carrier refused a number as a sender; the pool stops assigning it. */
export function sendingNumberUnusableEvent(
  n: { id: string | null; number: string },
  f: { provider: string; errorCode: string; errorClass: string; reason: string },
): OutboxEvent {
  return { type: 'sendingNumber.unusable', data: { sendingNumberId: n.id, number: n.number, ...f } };
}

/** Where a lead came from, on `lead.created`. */
export type LeadOrigin =
  | { source: 'api' }
  | { source: 'import'; importId: string | null }
  | { source: 'inbound'; channel: Channel };

/** `lead.created` (Parley's own): once per new lead, written with its row. */
export function leadCreatedEvent(
  lead: LeadFacts & Pick<LeadsTable, 'customer_profile' | 'first_name' | 'last_name' | 'created_at'>,
  origin: LeadOrigin,
): OutboxEvent {
  return {
    type: 'lead.created',
    data: {
      leadId: lead.id,
      externalLeadId: lead.external_lead_id,
      phone: lead.phone,
      email: lead.email,
      firstName: lead.first_name,
      lastName: lead.last_name,
      profile: lead.customer_profile,
      createdAt: lead.created_at,
      ...origin,
    },
  };
}

/** A finished call, as the call events name it. */
export interface CallFacts {
  id: string;
  direction: 'outbound' | 'inbound';
  durationSeconds: number | null;
  summary: string | null;
  outcome: string | null;
}

/**
 * `call.completed` (docs.apten.ai/webhooks/call-completed): the lead, the
 * profile, the call's id, its duration in seconds, INBOUND / OUTBOUND and its
 * summary. Parley adds `outcome` (human, voicemail, transferred, ...) and `email`.
 */
export function callCompletedEvent(
  lead: LeadFacts & Pick<LeadsTable, 'customer_profile'>,
  call: CallFacts,
): OutboxEvent {
  return {
    type: 'call.completed',
    data: {
      leadId: lead.id,
      externalLeadId: lead.external_lead_id,
      phone: lead.phone,
      profile: lead.customer_profile,
      callId: call.id,
      durationSeconds: call.durationSeconds ?? 0,
      direction: call.direction === 'inbound' ? 'INBOUND' : 'OUTBOUND',
      summary: call.summary,
      outcome: call.outcome,
      email: lead.email,
    },
  };
}

/**
 * `call.transferred` (docs.apten.ai/webhooks/call-transferred): the agent put
 * the lead through to a person. `transferType` WARM (the person heard a
 * summary first) or COLD; `transferTo` the number dialled. Parley adds the
 * `reason` and `summary` the agent gave.
 */
export function callTransferredEvent(
  lead: LeadFacts & Pick<LeadsTable, 'customer_profile'>,
  call: { id: string; direction: 'outbound' | 'inbound' },
  t: { transferType: 'WARM' | 'COLD'; transferTo: string; reason: string | null; summary: string | null },
): OutboxEvent {
  return {
    type: 'call.transferred',
    data: {
      leadId: lead.id,
      externalLeadId: lead.external_lead_id,
      phone: lead.phone,
      profile: lead.customer_profile,
      callId: call.id,
      direction: call.direction === 'inbound' ? 'INBOUND' : 'OUTBOUND',
      transferType: t.transferType,
      transferTo: t.transferTo,
      reason: t.reason,
      summary: t.summary,
      email: lead.email,
    },
  };
}

/** An appointment as its events carry it (appointments/, docs/appointments.md). */
export interface AppointmentFacts {
  id: string;
  start_at: string;
  end_at: string;
  time_zone: string;
  owner_user_id: string | null;
  provider: string;
}

/**
 * `appointment.booked`, `appointment.rescheduled`, `appointment.cancelled`:
 * Parley's own events (the reference has none). `owner` is the user id whose
 * calendar holds it (null: the organization's); `timeZone` the lead's zone the
 * slot was offered in; a rescheduled event also names the previous start.
 */
export function appointmentEvent(
  type: 'appointment.booked' | 'appointment.rescheduled' | 'appointment.cancelled',
  lead: LeadFacts,
  a: AppointmentFacts,
  extra: { previousStart?: string; reason?: string | null } = {},
): OutboxEvent {
  return {
    type,
    data: {
      leadId: lead.id,
      externalLeadId: lead.external_lead_id,
      appointmentId: a.id,
      start: a.start_at,
      end: a.end_at,
      timeZone: a.time_zone,
      owner: a.owner_user_id,
      provider: a.provider,
      ...(extra.previousStart ? { previousStart: extra.previousStart } : {}),
      ...(extra.reason !== undefined ? { reason: extra.reason } : {}),
    },
  };
}
