import type { Deps } from '../platform/deps.js';
import type { Db } from '../platform/db/schema.js';
import { updateOrganizationSettings } from '../organizations/organizations.repository.js';
import { isUniqueViolation } from '../platform/db/errors.js';
import { DomainError } from '../platform/errors.js';
import { normalizePhone } from '../platform/phone.js';
import { checkTimeZone, FALLBACK_TIME_ZONE } from '../platform/time-zone.js';
import { findSettingsRow, releaseWaitingSends, setSendingNumber } from './settings.repository.js';
import { checkNumberFree, numberTaken } from '../sending-numbers/ownership.js';
import type { SettingsView, UpdateSettingsInput } from './settings.schemas.js';
import { checkPool } from './assignment-pool.js';
import { findProfileByName } from '../profile-records/profiles.repository.js';
import { calendarSettings, calendarView, type CalendarSettings } from './calendar-settings.js';

export interface ExternalCheckSettings {
  url: string;
  secret: string;
  timeoutMs: number;
  failureMode: 'closed' | 'open';
}

export type { CalendarSettings };

/** Everything the organization set, secrets included; `toSettingsView` is what a client sees. */
export type OrganizationSettings = Omit<SettingsView, 'externalCheck' | 'calendar'> & {
  externalCheck: ExternalCheckSettings | null;
  calendar: CalendarSettings | null;
};

export const DEFAULT_SETTINGS: OrganizationSettings = {
  smsVoiceOptOutCoupled: false,
  timeZone: FALLBACK_TIME_ZONE,
  contactHours: { start: '08:00', end: '21:00' },
  contactDays: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'],
  holidays: [],
  // State windows are on unless the organization switches them off; the legal floor holds either way.
  regionalRules: true,
  // The lead started the exchange; 15 minutes bounds how late an automated reply may trail it at night.
  replyWindowMinutes: 15,
  frequencyCap: null,
  optOutKeywords: [],
  optInKeywords: [],
  externalCheck: null,
  helpText: 'Reply STOP to stop receiving messages, START to receive them again.',
  stopConfirmation: {
    en: 'You have been unsubscribed and will not receive more messages. Reply START to resubscribe.',
    es: 'Se ha dado de baja y no recibirá más mensajes. Responda ALTA para volver a suscribirse.',
  },
  sendingNumber: null,
  sendingNumberUnusableAt: null,
  sendingNumberUnusableCode: null,
  // deliverability/: 10 filtered among a campaign's (or a number's) last 200 sends pause the campaign.
  filteredPause: { percent: 5, window: 200 },
  assignment: { mode: 'none', pool: [], on: 'handoff', ackWithinMinutes: 10 },
  // Off: an unknown sender is recorded, never answered, until the organization says whom to make of them.
  inboundLeads: null,
  calendar: null,
};

/** The settings kept in the organization's own columns, not in its settings document. */
type ColumnSettings = Pick<
  OrganizationSettings,
  'sendingNumber' | 'sendingNumberUnusableAt' | 'sendingNumberUnusableCode'
>;
type StoredSettings = Partial<Omit<OrganizationSettings, keyof ColumnSettings>>;

const NO_NUMBER: ColumnSettings = {
  sendingNumber: null,
  sendingNumberUnusableAt: null,
  sendingNumberUnusableCode: null,
};

async function readRow(
  db: Db,
  organizationId: string,
  lock = false,
): Promise<{ stored: StoredSettings; columns: ColumnSettings }> {
  const org = await findSettingsRow(db, organizationId, lock);
  if (!org) return { stored: {}, columns: NO_NUMBER };
  return {
    stored: storedSettings(org.settings),
    columns: {
      sendingNumber: org.sending_number,
      sendingNumberUnusableAt: org.sending_number_unusable_at,
      sendingNumberUnusableCode: org.sending_number_unusable_code,
    },
  };
}

function storedSettings(document: string): StoredSettings {
  // The sending number and its refusal have their own columns; a stray copy in the document never wins over them.
  const {
    sendingNumber: _number,
    sendingNumberUnusableAt: _at,
    sendingNumberUnusableCode: _code,
    ...stored
  } = JSON.parse(document) as StoredSettings & Partial<Record<keyof ColumnSettings, unknown>>;
  return stored;
}

/** Settings from a document read along with other rows (an opt-out reads it with the lead). */
export function settingsFromDocument(document: string): Omit<OrganizationSettings, keyof ColumnSettings> {
  const {
    sendingNumber: _n,
    sendingNumberUnusableAt: _a,
    sendingNumberUnusableCode: _c,
    ...defaults
  } = DEFAULT_SETTINGS;
  return { ...defaults, ...storedSettings(document) };
}

/**
 * Stored settings are a partial JSON document; defaults fill the rest, so new settings need no migration.
 * The exception is `sendingNumber`, kept in a unique column because inbound provider webhooks are routed by it.
 */
export async function readSettings(db: Db, organizationId: string): Promise<OrganizationSettings> {
  const { stored, columns } = await readRow(db, organizationId);
  return { ...DEFAULT_SETTINGS, ...stored, ...columns };
}

/** What a client reads: the external check's secret is never shown again. */
export function toSettingsView(s: OrganizationSettings): SettingsView {
  const { externalCheck, calendar, ...rest } = s;
  return {
    ...rest,
    ...(calendar ? { calendar: calendarView(calendar) } : {}),
    externalCheck: externalCheck
      ? {
          url: externalCheck.url,
          timeoutMs: externalCheck.timeoutMs,
          failureMode: externalCheck.failureMode,
          secretSet: true,
        }
      : null,
  };
}

function checkUrl(url: string, allowPrivate: boolean): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DomainError('invalid_url', { detail: 'externalCheck.url must be an absolute URL' });
  }
  if (parsed.protocol !== 'https:' && !(allowPrivate && parsed.protocol === 'http:')) {
    throw new DomainError('invalid_url', {
      detail: 'externalCheck.url must use https (http is allowed only with PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS=true)',
    });
  }
}

/** The settings that decide when a lead may be contacted: changing any of them re-judges the sends waiting for contact hours. */
const HOURS_FIELDS = [
  'contactHours',
  'contactDays',
  'holidays',
  'timeZone',
  'regionalRules',
  'replyWindowMinutes',
] as const;

/** Trimmed, and each word once (the first spelling wins): matching ignores case anyway. */
function uniqueWords(words: string[]): string[] {
  const seen = new Map<string, string>();
  for (const w of words) if (!seen.has(w.trim().toLowerCase())) seen.set(w.trim().toLowerCase(), w.trim());
  return [...seen.values()];
}

export async function updateSettings(
  deps: Deps,
  organizationId: string,
  input: UpdateSettingsInput,
): Promise<SettingsView> {
  if (input.timeZone !== undefined) checkTimeZone(input.timeZone);
  const { sendingNumber: given, externalCheck, stopConfirmation, calendar, inboundLeads, ...fields } = input;
  const documentFields: StoredSettings = { ...fields };
  if (inboundLeads !== undefined)
    documentFields.inboundLeads = inboundLeads && {
      customerProfile: inboundLeads.customerProfile ?? 'default',
      isAiOn: inboundLeads.isAiOn ?? true,
    };
  if (calendar !== undefined)
    documentFields.calendar = calendar && calendarSettings(calendar, deps.config.allowPrivateWebhookUrls);
  if (fields.optOutKeywords) documentFields.optOutKeywords = uniqueWords(fields.optOutKeywords);
  if (fields.optInKeywords) documentFields.optInKeywords = uniqueWords(fields.optInKeywords);
  if (externalCheck) checkUrl(externalCheck.url, deps.config.allowPrivateWebhookUrls);
  if (fields.assignment) documentFields.assignment = { on: 'handoff', ackWithinMinutes: 10, ...fields.assignment };
  if (externalCheck !== undefined) {
    documentFields.externalCheck = externalCheck && {
      url: externalCheck.url,
      secret: externalCheck.secret,
      timeoutMs: externalCheck.timeoutMs ?? 3000,
      failureMode: externalCheck.failureMode ?? 'closed',
    };
  }
  const sendingNumber =
    given === undefined || given === null ? given : normalizePhone(given, deps.config.defaultCountry, 'sendingNumber');
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const current = await readRow(trx, organizationId, true);
      if (fields.assignment) await checkPool(trx, organizationId, fields.assignment.pool);
      const inboundProfile = documentFields.inboundLeads?.customerProfile;
      if (inboundProfile && !(await findProfileByName(trx, organizationId, inboundProfile, 'share')))
        throw new DomainError('unknown_inbound_profile', { name: inboundProfile });
      const next: StoredSettings = { ...current.stored, ...documentFields };
      // One language may be given alone: the other keeps its stored (or default) text.
      if (stopConfirmation)
        next.stopConfirmation = {
          ...DEFAULT_SETTINGS.stopConfirmation,
          ...current.stored.stopConfirmation,
          ...stopConfirmation,
        };
      await updateOrganizationSettings(trx, organizationId, JSON.stringify(next));
      // New hours judge the sends already waiting for the old ones (in this transaction: a send is released only if the change commits).
      if (HOURS_FIELDS.some((f) => input[f] !== undefined))
        await releaseWaitingSends(trx, organizationId, deps.clock.now().toISOString());
      const changed = sendingNumber !== undefined && sendingNumber !== current.columns.sendingNumber;
      if (changed) {
        // Another organization's pool number is taken too (inbound webhooks are routed by either); the organization's own may be both.
        if (sendingNumber !== null) await checkNumberFree(trx, organizationId, sendingNumber, 'settings');
        await setSendingNumber(trx, organizationId, sendingNumber);
      }
      return toSettingsView({
        ...DEFAULT_SETTINGS,
        ...next,
        // A new number clears the refusal of the old one (setSendingNumber).
        ...(changed ? { ...NO_NUMBER, sendingNumber } : current.columns),
      });
    });
  } catch (err) {
    // The unique index is the arbiter, so two organizations claiming one number at once cannot both win.
    if (isUniqueViolation(err)) throw numberTaken(String(sendingNumber));
    throw err;
  }
}
