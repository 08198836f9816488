import { createEvent } from 'ics';
import { createTransport, type Transporter } from 'nodemailer';
import type { AppointmentInvitePayload, JobOutcome } from '../jobs/names.js';
import { findLead } from '../lead-records/leads.repository.js';
import { findOrganization } from '../organizations/organizations.repository.js';
import type { Config } from '../platform/config.js';
import type { Deps } from '../platform/deps.js';
import { findUser } from '../users/users.repository.js';
import { findAppointment } from './appointments.repository.js';
import { leadLocale } from './appointments.service.js';
import { slotLabel } from './slots.js';

const transports = new WeakMap<Config, Transporter>();

function transportFor(config: Config & { smtpUrl: string }): Transporter {
  let t = transports.get(config);
  if (!t) {
    t = createTransport({
      url: config.smtpUrl,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
    transports.set(config, t);
  }
  return t;
}

const utc = (iso: string) => new Date(iso).getTime();
const fromAddress = (from: string) => /<([^>]+)>/.exec(from)?.[1] ?? from.trim();

/** The iCalendar (RFC 5545) invitation: REQUEST on booking and rescheduling (a higher SEQUENCE), CANCEL on cancelling. */
export function invitationIcs(
  a: { id: string; start_at: string; end_at: string; updated_at: string; notes: string | null },
  o: {
    method: 'REQUEST' | 'CANCEL';
    title: string;
    organizer: string;
    attendee: { name: string; email: string };
    owner?: string | null;
  },
): string {
  const { error, value } = createEvent({
    uid: `${a.id}@parley`,
    method: o.method,
    sequence: Math.floor(utc(a.updated_at) / 1000) % 2_000_000_000,
    start: utc(a.start_at),
    startInputType: 'utc',
    startOutputType: 'utc',
    end: utc(a.end_at),
    endInputType: 'utc',
    endOutputType: 'utc',
    title: o.title,
    description: a.notes ?? undefined,
    status: o.method === 'CANCEL' ? 'CANCELLED' : 'CONFIRMED',
    organizer: { name: o.title, email: o.organizer },
    attendees: [
      { name: o.attendee.name, email: o.attendee.email, rsvp: true, role: 'REQ-PARTICIPANT', partstat: 'NEEDS-ACTION' },
      ...(o.owner ? [{ email: o.owner, role: 'REQ-PARTICIPANT' as const, partstat: 'ACCEPTED' as const }] : []),
    ],
    productId: 'parley/appointments',
  });
  if (error || !value) throw error ?? new Error('could not build the invitation');
  return value;
}

/**
 * 'appointment.invite': the embedded calendar's invitation by email, through
 * the configured SMTP (SMTP_URL), to the lead with the owner in copy, with the
 * `.ics` attached and inline (text/calendar; method=...), so mail clients
 * offer to add it. Without SMTP there is no invitation (logged). An SMTP
 * failure throws: the job is retried.
 */
export async function runAppointmentInvite(
  deps: Deps,
  organizationId: string,
  p: AppointmentInvitePayload,
): Promise<JobOutcome> {
  const done: JobOutcome = { kind: 'done' };
  const smtpUrl = deps.config.smtpUrl;
  if (!smtpUrl) {
    deps.log.info({ appointmentId: p.appointmentId }, 'no SMTP configured: appointment invitation not sent');
    return done;
  }
  const a = await findAppointment(deps.db, organizationId, p.appointmentId);
  if (!a) return done;
  const lead = await findLead(deps.db, organizationId, a.lead_id);
  if (!lead?.email) return done;
  const [org, owner] = await Promise.all([
    findOrganization(deps.db, organizationId),
    a.owner_user_id ? findUser(deps.db, organizationId, a.owner_user_id) : undefined,
  ]);
  const orgName = org?.name ?? 'Parley';
  const title = `Appointment with ${orgName}`;
  const ics = invitationIcs(a, {
    method: p.method,
    title,
    organizer: fromAddress(deps.config.emailFrom),
    attendee: { name: [lead.first_name, lead.last_name].filter(Boolean).join(' ') || lead.email, email: lead.email },
    owner: owner?.email ?? null,
  });
  const label = slotLabel(a.start_at, a.time_zone, leadLocale(lead));
  const text =
    p.method === 'CANCEL'
      ? `Your appointment with ${orgName} (${label}) is cancelled.`
      : `Your appointment with ${orgName}: ${label}. The invitation is attached.`;
  await transportFor({ ...deps.config, smtpUrl }).sendMail({
    from: deps.config.emailFrom,
    to: lead.email,
    ...(owner ? { cc: owner.email } : {}),
    subject: p.method === 'CANCEL' ? `Cancelled: ${title}` : title,
    text,
    icalEvent: { method: p.method, filename: 'invite.ics', content: ics },
    attachments: [
      { filename: 'invite.ics', content: ics, contentType: `text/calendar; charset=utf-8; method=${p.method}` },
    ],
    messageId: `<appointment-${a.id}-${p.method.toLowerCase()}-${utc(a.updated_at)}@parley>`,
  });
  return done;
}
