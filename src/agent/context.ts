import { listNotes } from '../context/context.repository.js';
import { parseInfo } from '../lead-records/additional-info.js';
import { findLead, listTags, type LeadRow } from '../lead-records/leads.repository.js';
import { foldedText } from '../platform/db/folded-text.js';
import { conversationOf, findMessage, type MessageRow } from '../messages/messages.repository.js';
import type { Db } from '../platform/db/schema.js';
import { findProfileByName, type ProfileRow } from '../profile-records/profiles.repository.js';
import type { AgentCalendar, AgentInput, AgentStep, ConversationMessage } from './provider.js';
import { leadLocale, leadZone } from '../appointments/appointments.service.js';
import { listLeadAppointments } from '../appointments/appointments.repository.js';
import { slotLabel } from '../appointments/slots.js';
import { readSettings } from '../settings/settings.service.js';
import { lastTurnSteps } from './turns.repository.js';

/** The model sees at most this many messages: the most recent ones since the memory was cleared. */
const CONVERSATION_LIMIT = 100;

export interface TurnContext {
  lead: LeadRow;
  trigger: MessageRow;
  input: AgentInput;
  /** The pending commands shown to the agent: consumed when its actions are applied. */
  commandIds: string[];
}

/** What was said since the lead's memory was last cleared (messages.repository.ts says what counts). */
async function conversation(db: Db, organizationId: string, lead: LeadRow): Promise<ConversationMessage[]> {
  const rows = await conversationOf(db, organizationId, lead.id, lead.memory_cleared_at, CONVERSATION_LIMIT);
  return rows.map((m) => ({
    from: m.direction === 'inbound' ? 'lead' : 'agent',
    text: foldedText(m),
    channel: m.channel,
    isAiGenerated: m.is_ai_generated === 1,
    at: m.created_at,
  }));
}

/** Everything one turn may look at, read fresh; undefined when the lead or its triggering message is gone (erased). */
export async function loadTurnContext(
  db: Db,
  organizationId: string,
  leadId: string,
  messageId: string,
  now: Date,
): Promise<TurnContext | undefined> {
  const lead = await findLead(db, organizationId, leadId);
  if (!lead) return undefined;
  const trigger = await findMessage(db, organizationId, messageId);
  if (!trigger || trigger.lead_id !== leadId) return undefined;
  const { input, commandIds } = await loadAgentInput(db, organizationId, lead, now);
  const calendar = await calendarInput(db, organizationId, lead, now);
  return { lead, trigger, input: calendar ? { ...input, calendar } : input, commandIds };
}

/** The slots the last findSlots of a recorded turn answered. */
function offeredIn(steps: string | null): AgentCalendar['offeredSlots'] {
  if (!steps) return [];
  const parsed = JSON.parse(steps) as AgentStep[];
  for (const step of [...parsed].reverse()) {
    for (const r of [...step.results].reverse()) {
      const slots = (r.result as { slots?: unknown } | null)?.slots;
      if (r.name === 'findSlots' && r.ok && Array.isArray(slots)) return slots as AgentCalendar['offeredSlots'];
    }
  }
  return [];
}

/** What the agent knows of the calendar, when the organization set one (its tools are offered then). */
async function calendarInput(
  db: Db,
  organizationId: string,
  lead: LeadRow,
  now: Date,
): Promise<AgentCalendar | undefined> {
  const settings = await readSettings(db, organizationId);
  if (!settings.calendar) return undefined;
  const timeZone = await leadZone(lead, settings);
  const locale = leadLocale(lead);
  const booked = (await listLeadAppointments(db, organizationId, lead.id)).filter(
    (a) => a.status === 'booked' && a.end_at > now.toISOString(),
  );
  return {
    timeZone,
    locale,
    appointments: booked.map((a) => ({
      id: a.id,
      start: a.start_at,
      end: a.end_at,
      label: slotLabel(a.start_at, timeZone, locale),
    })),
    offeredSlots: offeredIn(await lastTurnSteps(db, organizationId, lead.id)),
  };
}

/** What the agent reads of a profile: its row as stored, or nothing but its name when it is gone. */
export function profileInput(name: string, profile: ProfileRow | undefined): AgentInput['profile'] {
  const questions: unknown = profile ? JSON.parse(profile.questions) : [];
  return {
    name,
    instructions: profile?.instructions ?? null,
    openingMessage: profile?.opening_message ?? null,
    questions: Array.isArray(questions) ? questions.map(String) : [],
    notifications: profile?.notifications
      ? (JSON.parse(profile.notifications) as { name: string; condition: string }[])
      : [],
  };
}

/**
 * What the agent sees about a lead, read fresh: its profile, details, tags,
 * notes, pending commands and the conversation since the memory was cleared.
 * `task: 'opening'` asks for the profile's first message instead of a reply.
 */
export async function loadAgentInput(
  db: Db,
  organizationId: string,
  lead: LeadRow,
  now: Date,
  task?: 'opening',
): Promise<{ input: AgentInput; commandIds: string[] }> {
  const leadId = lead.id;
  const [profile, tags, notes, said] = await Promise.all([
    findProfileByName(db, organizationId, lead.customer_profile),
    listTags(db, organizationId, [leadId]),
    listNotes(db, organizationId, leadId),
    conversation(db, organizationId, lead),
  ]);
  // An opening only greets: pending commands wait for the turn that answers the lead (which consumes them).
  const commands = task === 'opening' ? [] : notes.filter((n) => n.kind === 'command' && n.consumed_at === null);
  const input: AgentInput = {
    profile: profileInput(lead.customer_profile, profile),
    lead: {
      id: lead.id,
      firstName: lead.first_name ?? '',
      lastName: lead.last_name ?? '',
      phone: lead.phone,
      email: lead.email,
      timeZone: lead.time_zone,
      externalLeadId: lead.external_lead_id,
      isHot: lead.is_hot === 1,
      isQualified: lead.is_qualified === 1,
      summary: lead.summary,
      tags: tags.map((t) => ({ name: t.name, condition: t.condition })),
      additionalInfo: parseInfo(lead.additional_info),
    },
    contextNotes: notes.filter((n) => n.kind === 'context').map((n) => n.text),
    commands: commands.map((n) => n.text),
    conversation: said,
    now,
    ...(task ? { task } : {}),
  };
  return { input, commandIds: commands.map((n) => n.id) };
}
